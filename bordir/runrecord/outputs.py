"""Derived outputs: written whole, naming the record they were computed from, checked by readers.

``bordir report`` and ``bordir view`` add derived outputs to a run directory
(``metrics.json``, ``tables/``, ``plots/``, ``report.html``, ``view.html``). They go
through an :class:`OutputWriter`::

    with OutputWriter(run_dir, by="bordir report") as w:   # shared lock; the record is complete
        (w.stage / "report.html").write_text(page)         # everything into a temporary folder
        w.commit()                                         # renamed into place as a whole

* **Shared lock**: readers run side by side; a run writing the directory refuses them, and
  they refuse it (:class:`~bordir.runrecord.lock.DirLock`).
* **Staged**: every output is written into ``.bordir-stage.PID.xxxx.tmp/`` first; a reader
  killed before :meth:`~OutputWriter.commit` leaves the directory as it was.
* **Committed under a manifest**: ``outputs.json`` lists each output with the digest of the
  record it was computed from and its own digest. The commit (under a short exclusive lock,
  ``.bordir-outputs.lock``) first drops the outputs it replaces from the manifest, then renames
  the old ones into a trash folder and the new ones into place, then lists them: a process
  killed half-way leaves outputs that the manifest does not list, which readers refuse
  (:func:`check_output`), never an old ``report.html`` passing for one of new ``metrics.json``.
* **Stale temporaries** of writers that died are removed by the next commit.

A reader (:func:`check_output`, :func:`stale_outputs`) accepts an output only when the
manifest lists it with the directory's current record digest and its bytes are the listed
ones; otherwise it says, in one line, which output and why.

Example:
    >>> import tempfile
    >>> from bordir.runrecord.writer import RecordWriter
    >>> d = tempfile.mkdtemp()
    >>> with RecordWriter(d, "audit") as rw:
    ...     rw.start({})
    ...     _ = rw.finish()
    >>> with OutputWriter(d, by="bordir view") as w:
    ...     _ = (w.stage / "view.html").write_text("<p>page</p>")
    ...     w.commit()
    []
    >>> check_output(d, "view.html").name
    'view.html'
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import IO, Any

from .._io.atomic import atomic_write_text
from .._io.json_read import loads
from ..errors import DataError
from .lock import DirLock
from .record import KINDS, RECORD_FILE, RunRecord, file_digest, read_record, record_digest
from .temporaries import remove_stale, temp_dir
from .writer import OUTPUTS_FILE

__all__ = ["OutputWriter", "check_output", "stale_outputs", "read_manifest", "OUTPUTS_SCHEMA"]

OUTPUTS_SCHEMA = "bordir.outputs/1"
_COMMIT_LOCK = ".bordir-outputs.lock"


def read_manifest(run_dir: str | os.PathLike[str]) -> dict[str, dict[str, str]]:
    """``{name: {"record", "digest", "by"}}`` of ``run_dir/outputs.json`` (empty when unreadable)."""
    try:
        data = loads((Path(run_dir) / OUTPUTS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    outs = data.get("outputs") if isinstance(data, dict) else None
    if not isinstance(outs, dict):
        return {}
    return {k: v for k, v in outs.items() if isinstance(v, dict)}


def _write_manifest(run_dir: Path, outputs: dict[str, dict[str, str]]) -> None:
    body = {"schema": OUTPUTS_SCHEMA, "outputs": dict(sorted(outputs.items()))}
    atomic_write_text(run_dir / OUTPUTS_FILE, json.dumps(body, indent=2) + "\n")


def _why_not(run_dir: Path, name: str, digest: str, entry: dict[str, str] | None) -> str | None:
    """Why ``run_dir/name`` is not an output of the current record (None: it is)."""
    if entry is None:
        return (
            f"{name} is not listed in {OUTPUTS_FILE} (copied in, or written by a report or view "
            "that was interrupted)"
        )
    if entry.get("record") != digest:
        return (
            f"{name} was computed from another record ({str(entry.get('record'))[:19]}…; "
            f"{RECORD_FILE} is now {digest[:19]}…: the run was written again since)"
        )
    if entry.get("digest") != file_digest(run_dir / name):
        return f"{name} changed since {entry.get('by', 'bordir')} wrote it"
    return None


def check_output(run_dir: str | os.PathLike[str], name: str) -> Path | None:
    """``run_dir/name`` when it is an output of the directory's current record; None when absent.

    Raises:
        DataError: it is there but the record's digest or its own does not match (one line
            saying which and why, and how to get a good one).
    """
    d = Path(run_dir)
    if not (d / name).exists():
        return None
    why = _why_not(d, name, record_digest(d), read_manifest(d).get(name))
    if why is not None:
        raise DataError(f"{why}; run `bordir report {d}` (or `bordir view {d}`) again", path=d)
    return d / name


def stale_outputs(run_dir: str | os.PathLike[str], record: RunRecord | None = None) -> list[str]:
    """One line per derived output of ``run_dir`` that does not match its current record."""
    d = Path(run_dir)
    rec = record or read_record(d)
    digest, manifest = record_digest(d), read_manifest(d)
    out = []
    for name in KINDS[rec.kind].outputs:
        if (d / name).exists():
            why = _why_not(d, name, digest, manifest.get(name))
            if why:
                out.append(why)
    return out


class OutputWriter:
    """Derived outputs of one run directory, staged and committed whole (see the module docs).

    Args:
        run_dir: a directory with a complete record.
        by: the command writing them (``bordir report``), kept in the manifest.
        allow_incomplete: accept an incomplete record (``bordir view`` of an interrupted run:
            its page says so; the run's next start moves it aside).

    Raises:
        DataError: no record, or an incomplete one (the run is interrupted or running).
        ConfigError: a run is writing the directory.
    """

    def __init__(
        self, run_dir: str | os.PathLike[str], *, by: str, allow_incomplete: bool = False
    ) -> None:
        self.run_dir = Path(run_dir)
        self.by = by
        self.allow_incomplete = allow_incomplete
        self._lock = DirLock(self.run_dir, shared=True)
        self.stage = Path()
        self.record: RunRecord | None = None
        self.digest = ""

    def __enter__(self) -> OutputWriter:
        self.record = read_record(self.run_dir)
        self._lock.acquire()
        try:
            self.record = read_record(self.run_dir)  # as it is now that no run can change it
            if not self.record.complete and not self.allow_incomplete:
                raise DataError(
                    f"{self.record.describe()}; finish it first (re-run the same command: it "
                    "resumes)",
                    path=self.run_dir / RECORD_FILE,
                    field="status",
                )
            self.digest = record_digest(self.run_dir)
            try:
                self.stage = temp_dir(self.run_dir, "stage")
            except OSError as exc:
                raise DataError(
                    f"cannot write in the run directory: {exc.strerror or exc}; write the page "
                    "elsewhere (bordir view DIR --out FILE) or make the directory writable",
                    path=self.run_dir,
                ) from None
        except BaseException:
            self._lock.release()
            raise
        return self

    def __exit__(self, *exc: Any) -> None:
        try:
            if self.stage != Path() and self.stage.exists():
                shutil.rmtree(self.stage, ignore_errors=True)
        finally:
            self._lock.release()

    def commit(self, *, replaces: tuple[str, ...] = ()) -> list[str]:
        """Move everything staged into place as a whole; returns :func:`stale_outputs` of the others.

        Each of those is also warned about (:class:`~bordir.errors.BordirNote`: the CLI prints
        ``bordir: note: …``).

        Args:
            replaces: the whole output set of the command: those not staged this time (the
                plots of a report without plots) go too, rather than stay beside the new ones.
        """
        staged = sorted(p.name for p in self.stage.iterdir())
        names = sorted({*staged, *replaces})
        entries = {
            n: {"record": self.digest, "digest": file_digest(self.stage / n), "by": self.by}
            for n in staged
        }
        with _commit_lock(self.run_dir):
            remove_stale(self.run_dir, every_writer=False)
            manifest = read_manifest(self.run_dir)
            for n in names:
                manifest.pop(n, None)
            _write_manifest(self.run_dir, manifest)  # from here the names are not listed
            trash = temp_dir(self.run_dir, "trash")
            for n in names:
                if (self.run_dir / n).exists() or (self.run_dir / n).is_symlink():
                    os.replace(self.run_dir / n, trash / n)
                if n in entries:
                    os.replace(self.stage / n, self.run_dir / n)
            _write_manifest(self.run_dir, {**manifest, **entries})  # listed: committed
            shutil.rmtree(trash, ignore_errors=True)
        assert self.record is not None
        notes = stale_outputs(self.run_dir, self.record)
        if notes:
            import warnings

            from ..errors import BordirNote

            for note in notes:
                warnings.warn(BordirNote(f"{self.run_dir}: {note}"), stacklevel=2)
        return notes


class _commit_lock:
    """The short exclusive lock of a commit (blocking: commits take milliseconds)."""

    def __init__(self, run_dir: Path) -> None:
        self.path = run_dir / _COMMIT_LOCK
        self.fh: IO[str] | None = None

    def __enter__(self) -> None:
        self.fh = open(self.path, "a+", encoding="utf-8")
        try:
            import fcntl

            fcntl.flock(self.fh.fileno(), fcntl.LOCK_EX)
        except ImportError:  # pragma: no cover
            pass

    def __exit__(self, *exc: Any) -> None:
        if self.fh is not None:
            self.fh.close()
