"""The one writer of a run record, for every kind of run.

Every command that writes a run (``bordir run``, ``testbed``, ``testrun``, ``judge``,
``audit``) writes its directory through a :class:`RecordWriter`::

    with RecordWriter(out, "audit", flavour="blackbox") as w:   # 1. the exclusive lock
        w.start(config)                                         # 2. incomplete record
        ...                                                     #    the kind's own files
        w.finish(files=["audit.json"], signature=sig, counts={"records": n},
                 inputs={"log": file_digest(log)})              # 3. complete record

1. **Lock** (:class:`~bordir.runrecord.lock.DirLock`, exclusive): a second writer, or a
   ``report`` / ``view`` reading the directory, is refused at once with one line. The
   temporaries of writers that died are removed (:func:`~bordir.runrecord.temporaries.remove_stale`).
   Nothing else changes yet: check every input (backends buildable, keys present, files
   readable) **before** :meth:`~RecordWriter.start`, so that a run refused for its inputs
   leaves a complete directory complete.
2. **Start** writes ``record.json`` with ``"status": "incomplete"`` (a copy of the old one
   first goes aside), then moves the previous output set aside together into ``previous/``:
   the old record, its ``outputs.json`` and every derived output (``metrics.json``,
   ``tables/``, ``plots/``, ``report.html``, ``view.html``), plus the kind's ``aside`` files.
   A reader refuses an incomplete record, so an interrupted run never passes for a finished
   one. :meth:`~RecordWriter.start_stage` starts a later stage of a finished run instead
   (``bordir judge`` on a test run): the record keeps what it had and adds the stage.
3. **Finish** writes the complete record: end time, signature, counts, the digest of every
   file the run wrote (``files``) and of every input it read (``inputs``).

Example:
    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> with RecordWriter(d, "audit") as w:
    ...     w.start({"seed": 1})
    ...     rec = w.finish(counts={"records": 3})
    >>> rec.kind, rec.status, rec.counts, read_record(d) == rec
    ('audit', 'complete', {'records': 3}, True)
"""

from __future__ import annotations

import dataclasses
import os
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .._io.atomic import atomic_write_text
from ..errors import DataError
from .lock import DirLock
from .record import KINDS, RECORD_FILE, RunRecord, files_digest, read_record
from .temporaries import remove_stale, temp_dir

__all__ = ["RecordWriter", "PREVIOUS_DIR", "OUTPUTS_FILE", "write_record"]

PREVIOUS_DIR = "previous"
OUTPUTS_FILE = "outputs.json"


def write_record(record: RunRecord, out: str | os.PathLike[str]) -> Path:
    """Write ``out/record.json`` atomically (only :class:`RecordWriter` should)."""
    return atomic_write_text(Path(out) / RECORD_FILE, record.to_json() + "\n")


class RecordWriter:
    """The exclusive writer of one run directory's record (see the module docs).

    Args:
        out: the run directory (created when missing).
        kind: a key of :data:`~bordir.runrecord.record.KINDS`.
        flavour: the kind's variant, recorded for readers to dispatch on (``blackbox``).
        aside: the kind's own files that go into ``previous/`` with the old record (a run's
            ``run.json``).
    """

    def __init__(
        self,
        out: str | os.PathLike[str],
        kind: str,
        *,
        flavour: str | None = None,
        aside: Iterable[str] = (),
    ) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown kind {kind!r}; known: {', '.join(KINDS)}")
        self.out = Path(out)
        self.kind = kind
        self.flavour = flavour
        self.aside = tuple(aside)
        self.record: RunRecord | None = None
        self._lock = DirLock(self.out)
        self._stage: str | None = None

    def __repr__(self) -> str:
        return f"RecordWriter({str(self.out)!r}, {self.kind!r})"

    def __enter__(self) -> RecordWriter:
        self._lock.acquire()
        remove_stale(self.out, every_writer=True)
        return self

    def __exit__(self, *exc: Any) -> None:
        self._lock.release()

    def _provenance(self) -> dict[str, Any]:
        from .._version import __version__
        from ..provenance import git_revision, package_versions

        return {
            "bordir_version": __version__,
            "git_revision": git_revision(),
            "packages": package_versions(),
        }

    def start(self, config: Mapping[str, Any], *, inputs: Mapping[str, Any] | None = None) -> None:
        """Mark the directory incomplete (a new record) and move the previous output set aside."""
        from ..provenance import now_iso

        record = RunRecord(
            kind=self.kind,
            flavour=self.flavour,
            config=dict(config),
            started=now_iso(),
            inputs=dict(inputs or {}),
            **self._provenance(),
        )
        self._begin(record, (*self.aside,))

    def start_stage(
        self, stage: str, config: Mapping[str, Any], *, inputs: Mapping[str, Any] | None = None
    ) -> None:
        """Start the later stage ``stage`` of the finished run in this directory (``judge``).

        Raises:
            DataError: the directory holds no finished run of this kind.
        """
        from ..provenance import now_iso

        old = read_record(self.out)
        if old.kind != self.kind or not old.complete:
            raise DataError(
                f"expected a finished {KINDS[self.kind].command} run here, found {old.describe()}",
                path=self.out / RECORD_FILE,
            )
        stages = {
            **old.stages,
            stage: {"config": dict(config), "inputs": dict(inputs or {}), "started": now_iso()},
        }
        self._stage = stage
        self._begin(dataclasses.replace(old, status="incomplete", stages=stages), ())

    def _begin(self, record: RunRecord, aside: tuple[str, ...]) -> None:
        old = self.out / RECORD_FILE
        keep = temp_dir(self.out, "previous")
        if old.is_file():  # a copy first: the directory always holds a record
            shutil.copy2(old, keep / RECORD_FILE)
        write_record(record, self.out)
        self.record = record
        moved = [OUTPUTS_FILE, *KINDS[self.kind].outputs, *aside]
        for name in moved:
            if (self.out / name).exists():
                os.replace(self.out / name, keep / name)
        if any(keep.iterdir()):
            previous = self.out / PREVIOUS_DIR
            if previous.exists():
                shutil.rmtree(previous)
            os.replace(keep, previous)
        else:
            keep.rmdir()

    def finish(
        self,
        *,
        files: Iterable[str] = (),
        signature: str | None = None,
        counts: Mapping[str, Any] | None = None,
        inputs: Mapping[str, Any] | None = None,
    ) -> RunRecord:
        """Write the complete record and return it.

        Args:
            files: the names (in the directory) of what the run wrote; their digests are recorded.
            signature: what produced the run's numbers.
            counts: the run's counts.
            inputs: digests of what it read, added to those given to :meth:`start`.
        """
        from ..provenance import now_iso

        if self.record is None:
            raise RuntimeError("RecordWriter.finish before start")
        rec, files = self.record, tuple(files)
        digests = {**rec.files, **files_digest(self.out, files)}
        if self._stage is not None:
            stage = {
                **rec.stages[self._stage],
                "finished": now_iso(),
                "files": sorted(files),
                **({"signature": signature} if signature else {}),
                **({"counts": dict(counts)} if counts else {}),
            }
            stage["inputs"] = {**stage.get("inputs", {}), **dict(inputs or {})}
            rec = dataclasses.replace(
                rec, status="complete", files=digests, stages={**rec.stages, self._stage: stage}
            )
        else:
            rec = dataclasses.replace(
                rec,
                status="complete",
                finished=now_iso(),
                signature=signature,
                counts=dict(counts or {}),
                files=digests,
                inputs={**rec.inputs, **dict(inputs or {})},
            )
        write_record(rec, self.out)
        self.record = rec
        return rec
