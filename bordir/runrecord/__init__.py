"""Run directories: one record for every kind of run, one lock, one protocol for derived outputs.

* :mod:`~bordir.runrecord.record` — :class:`RunRecord` (``record.json``): kind, versions,
  config, times, status, signature, counts, digests of the files written and the inputs read;
  :func:`read_record`, :func:`record_digest`, :func:`file_digest`, :data:`KINDS`.
* :mod:`~bordir.runrecord.writer` — :class:`RecordWriter`, the one writer of a record
  (``bordir run``, ``testbed``, ``testrun``, ``judge``, ``audit``).
* :mod:`~bordir.runrecord.outputs` — :class:`OutputWriter` (``bordir report`` / ``view``:
  staged, committed whole under ``outputs.json``), :func:`check_output`, :func:`stale_outputs`.
* :mod:`~bordir.runrecord.lock` — :class:`DirLock`: one writer, or readers, never both.
* :mod:`~bordir.runrecord.temporaries` — the temporaries of writers that died, removed.

``docs/design/architecture.md`` (Run directories) shows how a new kind of run adopts them.
"""

from __future__ import annotations

from .lock import LOCK_FILE, DirLock
from .outputs import OutputWriter, check_output, read_manifest, stale_outputs
from .record import (
    KINDS,
    RECORD_FILE,
    Kind,
    RunRecord,
    file_digest,
    files_digest,
    read_record,
    record_digest,
    require_complete,
)
from .writer import OUTPUTS_FILE, PREVIOUS_DIR, RecordWriter

__all__ = [
    "KINDS",
    "LOCK_FILE",
    "OUTPUTS_FILE",
    "PREVIOUS_DIR",
    "RECORD_FILE",
    "DirLock",
    "Kind",
    "OutputWriter",
    "RecordWriter",
    "RunRecord",
    "check_output",
    "file_digest",
    "files_digest",
    "read_manifest",
    "read_record",
    "record_digest",
    "require_complete",
    "stale_outputs",
]
