"""Test helpers for run directories a test builds or alters by hand (bordir.runrecord).

A directory written by a bordir command has a record (``record.json``) that lists the digest of
every file it wrote; a reader refuses a file changed since. A test that changes a file on
purpose (to reach a check further in) or builds a directory by hand records it as a run would:

* :func:`rerecord` — the record lists the files as they are now;
* :func:`reoutput` — ``outputs.json`` lists a derived output as it is now;
* :func:`record_by_hand` — a complete record of ``kind`` for a directory the test wrote.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from bordir.runrecord import RecordWriter, RunRecord, files_digest, read_record
from bordir.runrecord.writer import write_record


def rerecord(d: Path) -> RunRecord:
    """Rewrite ``d``'s record so that it lists its files as they are now."""
    rec = read_record(d)
    rec = dataclasses.replace(rec, files=files_digest(d, rec.files))
    write_record(rec, d)
    return rec


def reoutput(d: Path, name: str) -> None:
    """List ``d/name`` in ``outputs.json`` as it is now (an output the test changed on purpose)."""
    from bordir.runrecord.outputs import read_manifest
    from bordir.runrecord.record import file_digest, record_digest
    from bordir.runrecord.writer import OUTPUTS_FILE

    outputs = read_manifest(d)
    outputs[name] = {
        **outputs.get(name, {"by": "a test"}),
        "record": record_digest(d),
        "digest": file_digest(d / name),
    }
    body = {"schema": "bordir.outputs/1", "outputs": dict(sorted(outputs.items()))}
    (d / OUTPUTS_FILE).write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")


def record_by_hand(d: Path, kind: str, files: tuple[str, ...] = (), **config: Any) -> RunRecord:
    """A complete record of ``kind`` in ``d``, listing ``files`` (written by the test)."""
    with RecordWriter(d, kind) as w:
        w.start(config)
        return w.finish(files=files)
