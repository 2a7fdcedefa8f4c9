"""The run-directory lock: one writer, or any number of readers, never both.

``DIR/.bordir-run.lock`` is locked with ``fcntl.flock``: **exclusively** by the one process
that writes the run (``bordir run``, ``testbed``, ``testrun``, ``judge``, ``audit``: the
:class:`~bordir.runrecord.writer.RecordWriter`), **shared** by the processes that read it and
write its derived outputs (``bordir report``, ``view``, ``runs``, ``compare``:
:class:`~bordir.runrecord.outputs.OutputWriter`). Neither waits: a process that cannot take
the lock is refused at once, with one line naming what holds it. The lock dies with its
process, so a killed writer never leaves the directory locked. The writer's pid is kept in the
file (readers leave it alone). A reader of a directory that holds no run (no ``record.json``,
no lock file) takes no lock and leaves no file there; it refuses the directory anyway.

Example:
    >>> import tempfile, pathlib
    >>> d = tempfile.mkdtemp()
    >>> _ = (pathlib.Path(d) / "record.json").write_text("{}")  # a run directory
    >>> with DirLock(d, shared=True), DirLock(d, shared=True):  # readers share
    ...     try:
    ...         DirLock(d).acquire()
    ...     except ConfigError as exc:
    ...         print(str(exc).split(";")[0].endswith("is being read by another bordir process (bordir report, view, runs or compare)"))
    True
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO, Any

from ..errors import ConfigError, DataError

__all__ = ["DirLock", "LOCK_FILE"]

LOCK_FILE = ".bordir-run.lock"


def _flock(fh: IO[str], flags: int) -> bool:
    """``flock(fh, flags | LOCK_NB)``; False when another process holds a conflicting lock."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - no fcntl (Windows): best effort, no lock
        return True
    try:
        fcntl.flock(fh.fileno(), flags | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


class DirLock:
    """The lock of one run directory (see the module docs); a context manager.

    Args:
        path: the run directory (created by an exclusive lock when missing).
        shared: a reader's lock (``bordir report`` / ``view``) instead of the writer's.
    """

    def __init__(self, path: str | os.PathLike[str], *, shared: bool = False) -> None:
        self.path = Path(path)
        self.shared = shared
        self._fh: IO[str] | None = None

    def __repr__(self) -> str:
        return f"DirLock({str(self.path)!r}, shared={self.shared})"

    def _open(self) -> IO[str] | None:
        lock = self.path / LOCK_FILE
        if self.shared:
            if not lock.exists() and not (self.path / "record.json").exists():
                return None  # not a run directory (the reader says so): leave no file in it
            try:
                return open(lock, "a+", encoding="utf-8")
            except OSError:  # a directory this user cannot write: nobody here writes it either
                try:
                    return open(lock, encoding="utf-8")
                except OSError:
                    return None
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise DataError(
                f"cannot create the run directory: {exc.strerror or exc}", path=self.path
            ) from None
        if not self.path.is_dir():
            raise DataError("exists and is not a directory; pass another --out", path=self.path)
        try:
            return open(lock, "a+", encoding="utf-8")
        except OSError as exc:
            raise DataError(
                f"cannot write in the run directory: {exc.strerror or exc}", path=self.path
            ) from None

    def acquire(self) -> DirLock:
        """Take the lock now, or raise.

        Raises:
            ConfigError: another process holds a lock this one cannot share (the message says
                which: a writer with its pid, or readers).
            DataError: the directory cannot be created or written (exclusive lock).
        """
        import fcntl

        fh = self._open()
        if fh is None:
            return self
        if not _flock(fh, fcntl.LOCK_SH if self.shared else fcntl.LOCK_EX):
            written = not _flock(fh, fcntl.LOCK_SH)  # a shared lock fails only beside a writer
            fh.seek(0)
            holder = fh.read().strip() or "?"
            fh.close()
            if written:
                then = (
                    "wait for it to finish, then run this command again"
                    if self.shared
                    else "wait for it to finish, or pass another --out"
                )
                raise ConfigError(
                    f"{self.path} is being written by another bordir process (pid {holder}); {then}"
                )
            raise ConfigError(
                f"{self.path} is being read by another bordir process (bordir report, view, runs "
                "or compare); wait for it to finish, or pass another --out"
            )
        if not self.shared:
            fh.seek(0)
            fh.truncate()
            fh.write(str(os.getpid()))
            fh.flush()
        self._fh = fh
        return self

    def release(self) -> None:
        """Let the lock go (also when the process ends)."""
        if self._fh is not None:
            try:
                import fcntl

                fcntl.flock(self._fh.fileno(), fcntl.LOCK_UN)
            except (ImportError, OSError):  # pragma: no cover
                pass
            self._fh.close()
            self._fh = None

    def __enter__(self) -> DirLock:
        return self.acquire()

    def __exit__(self, *exc: Any) -> None:
        self.release()
