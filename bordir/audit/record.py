"""An audit into its output directory: computed first, then written under one record.

:func:`audit_into` is what ``bordir audit LOG --out DIR`` does: the log is read and every
number computed (:func:`~bordir.audit.run.run_audit`; the records it skips go to a temporary
file in ``DIR``) **before** the directory changes, so that a log with no valid record leaves a
finished audit in ``DIR`` as it was. Then, under the directory's
:class:`~bordir.runrecord.writer.RecordWriter` (kind ``audit``), the previous audit's files go
aside into ``previous/``, the new ones are written (:func:`~bordir.audit.report.write_audit`)
and the record lists them with the log's digest (``inputs.log``: the explorer shows a log's
records only while the log is the one audited).

Another flavour of audit (``flavour="blackbox"``) writes its files the same way::

    with RecordWriter(out, "audit", flavour="blackbox", aside=MY_FILES) as w:
        w.start(settings, inputs={"log": file_digest(log)})
        ...  # write MY_FILES
        w.finish(files=MY_FILES, signature=sig, counts={"records": n})

and its page registers as ``audit/blackbox`` in :data:`bordir.view.dispatch.VIEWS`.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from ..errors import DataError
from ..runrecord.record import file_digest, read_record
from ..runrecord.writer import RecordWriter
from .config import AuditOptions
from .report import AUDIT_FILES, write_audit
from .run import AuditResult, run_audit

__all__ = ["audit_into", "AUDIT_OUTPUTS"]

AUDIT_OUTPUTS = (*AUDIT_FILES, "plots", "skipped.jsonl")
"""What an audit writes into its directory (moved aside together when it is audited again)."""


def audit_into(
    log: str | os.PathLike[str],
    out: str | os.PathLike[str],
    options: AuditOptions,
    *,
    plots: bool = True,
    progress: bool = False,
) -> tuple[AuditResult, dict[str, Any]]:
    """Audit ``log`` into the directory ``out``; returns the result and ``{name: path}`` written.

    Raises:
        DataError: the log cannot be audited (no valid record …); ``out`` is left as it was, but
            for the list of the records skipped (``skipped.jsonl``, named in the message).
        ConfigError: another process writes or reads ``out``.
    """
    d = Path(out)
    with RecordWriter(d, "audit", aside=AUDIT_OUTPUTS) as w:
        fd, name = tempfile.mkstemp(dir=d, prefix=".skipped.jsonl.", suffix=".tmp")
        os.close(fd)
        tmp = Path(name)
        try:
            result = _audit(log, options, tmp, d, progress)
            w.start(result.settings, inputs={"log": {"path": str(log)}})
            paths = write_audit(result, d, plots=plots)
            if result.summary["skipped"] and not options.strict:
                os.replace(tmp, d / "skipped.jsonl")
                paths["skipped.jsonl"] = d / "skipped.jsonl"
            w.finish(
                files=[str(Path(p).relative_to(d).parts[0]) for p in paths.values()],
                signature=str(result.signature),
                counts={k: result.summary[k] for k in ("records", "valid", "skipped")},
                inputs={"log": {"path": str(log), "digest": file_digest(log)}},
            )
        finally:
            tmp.unlink(missing_ok=True)
    return result, paths


def _audit(
    log: str | os.PathLike[str], options: AuditOptions, tmp: Path, d: Path, progress: bool
) -> AuditResult:
    try:
        return run_audit(
            log, options, skipped_path=None if options.strict else tmp, progress=progress
        )
    except DataError as exc:
        if options.strict or not tmp.stat().st_size:
            raise
        keep = d / "skipped.jsonl"
        try:  # a finished audit keeps its own list
            if "skipped.jsonl" in read_record(d).files:
                keep = d / "skipped.failed.jsonl"
        except DataError:
            pass
        os.replace(tmp, keep)
        raise DataError(
            f"{exc.message}; every skipped record is listed in {keep}",
            path=exc.path,
            line=exc.line,
            field=exc.field,
        ) from None
