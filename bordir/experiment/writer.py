"""Writing a run directory safely: one writer at a time, never a stale record next to new results.

:class:`RunDirWriter` is used as a context manager around a run:

1. **Lock.** It takes an exclusive, non-blocking ``fcntl`` lock on
   ``DIR/.bordir-run.lock`` for the whole run; a second process writing the same
   directory is refused at once with one line naming the holder's pid. The
   lock dies with its process, so a killed run never leaves the directory locked.
2. **Incomplete first.** Before anything else is written, an existing
   ``run.json`` is moved aside to ``run.previous.json`` and a new ``run.json``
   with ``"status": "incomplete"`` (config, inputs' hashes, start time) takes
   its place, so a run killed half-way never leaves an old record beside new
   partial results. :func:`bordir.experiment.rundir.read_run_dir` refuses an
   incomplete directory.
3. **Atomic writes.** ``hits.parquet``, ``responses.parquet`` and ``run.json`` go
   through :mod:`bordir._atomic` (unique temporary names, fsync, rename).
4. **Complete last.** :meth:`RunDirWriter.finish` writes the final ``run.json``
   (``"status": "complete"``, counts, the hits' signature).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pandas as pd

from .._atomic import atomic_write_parquet, atomic_write_text
from .._json import jsonable
from ..errors import ConfigError, DataError

__all__ = ["RunDirWriter", "LOCK_FILE", "PREVIOUS_RUN_JSON", "write_run_json", "write_responses"]

LOCK_FILE = ".bordir-run.lock"
PREVIOUS_RUN_JSON = "run.previous.json"
STALE_REPORT_FILES = (
    ("report.html", "report.previous.html"),
    ("metrics.json", "metrics.previous.json"),
)
"""Report files of the previous results, moved aside when a run starts in their directory."""


def write_run_json(info: dict[str, Any], out: Path) -> Path:
    """Write ``run.json`` atomically (strict JSON)."""
    text = json.dumps(jsonable(info), ensure_ascii=False, indent=2, allow_nan=False) + "\n"
    return atomic_write_text(out / "run.json", text)


def write_responses(df: pd.DataFrame, out: Path) -> Path:
    """Write ``responses.parquet`` atomically."""
    return atomic_write_parquet(out / "responses.parquet", df)


class RunDirWriter:
    """Exclusive writer of one run directory (see module docs).

    Example:
        >>> import tempfile
        >>> d = tempfile.mkdtemp()
        >>> with RunDirWriter(d) as w1:
        ...     try:
        ...         RunDirWriter(d).__enter__()
        ...     except ConfigError as exc:
        ...         print(str(exc).split(";")[0].endswith("is being written by another bordir process (pid "
        ...                                                + str(os.getpid()) + ")"))
        True
    """

    def __init__(self, out: str | os.PathLike[str]) -> None:
        self.out = Path(out)
        self._fh: Any = None

    @staticmethod
    def preflight(out: str | os.PathLike[str]) -> None:
        """Raise the error :meth:`__enter__` would raise for ``out``'s path, touching nothing.

        For a command to say what is wrong with ``--out`` before it spends time (or prints a plan).
        """
        path = Path(out)
        if path.exists() and not path.is_dir():
            raise DataError("exists and is not a directory; pass another --out", path=path)
        parent = path
        while not parent.exists():
            parent = parent.parent
        if not parent.is_dir():
            raise DataError(
                f"cannot create the run directory: {parent} is not a directory", path=path
            )
        if not os.access(parent, os.W_OK | os.X_OK):
            raise DataError("cannot create the run directory: Permission denied", path=path)

    def __enter__(self) -> RunDirWriter:
        try:
            self.out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise DataError(
                f"cannot create the run directory: {exc.strerror or exc}", path=self.out
            ) from None
        if not self.out.is_dir():
            raise DataError("exists and is not a directory; pass another --out", path=self.out)
        path = self.out / LOCK_FILE
        try:
            fh = open(path, "a+", encoding="utf-8")
        except OSError as exc:
            raise DataError(
                f"cannot write in the run directory: {exc.strerror or exc}", path=self.out
            ) from None
        try:
            import fcntl

            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except ImportError:  # pragma: no cover - no fcntl (Windows): best effort, no lock
            pass
        except OSError:
            fh.seek(0)
            holder = fh.read().strip() or "?"
            fh.close()
            raise ConfigError(
                f"{self.out} is being written by another bordir process (pid {holder}); wait for it "
                "to finish, or pass another --out"
            ) from None
        fh.seek(0)
        fh.truncate()
        fh.write(str(os.getpid()))
        fh.flush()
        self._fh = fh
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._fh is not None:
            try:
                import fcntl

                fcntl.flock(self._fh.fileno(), fcntl.LOCK_UN)
            except (ImportError, OSError):  # pragma: no cover
                pass
            self._fh.close()
            self._fh = None

    def start(self, info: dict[str, Any]) -> None:
        """Move an old ``run.json`` aside and write an ``incomplete`` one (before any other write)."""
        old = self.out / "run.json"
        if old.exists():
            os.replace(old, self.out / PREVIOUS_RUN_JSON)
        # a report of the previous results must not pass for one of these (an interrupted
        # re-run would leave it next to new, partial results): keep it under its "previous" name
        for name, previous in STALE_REPORT_FILES:
            if (self.out / name).exists():
                os.replace(self.out / name, self.out / previous)
        write_run_json({**info, "status": "incomplete"}, self.out)

    def hits(self, retrieval: Any) -> None:
        retrieval.to_parquet(self.out / "hits.parquet")

    def responses(self, df: pd.DataFrame) -> None:
        write_responses(df, self.out)

    def finish(self, info: dict[str, Any]) -> None:
        write_run_json({**info, "status": "complete"}, self.out)
