"""``run_audit``: stream a log, skip and count bad records, and compute the citation tables.

Cells are (group, query language) — the group is the model, the month, or
``all`` — plus (group, ``*``) pooling every query language. Clusters are the
records unless ``cluster_by`` names a field (a conversation or user id), so
that the answers of one conversation are resampled together.

Example:
    >>> import json, os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "log.jsonl")
    >>> recs = [{"id": i, "query": "q", "query_lang": "sw", "response": "", "response_lang": "sw",
    ...          "documents": [{"id": "a", "lang": "en"}, {"id": "b", "lang": "sw"}],
    ...          "citations": ["a"] if i % 10 else ["b"]} for i in range(30)]
    >>> with open(p, "w") as f:
    ...     _ = f.write("\\n".join(json.dumps(r) for r in recs) + "\\n{broken\\n")
    >>> res = run_audit(p, AuditOptions(n_resamples=200, seed=1))
    >>> res.summary["valid"], res.summary["skipped"], list(res.summary["skipped_by_reason"])
    (30, 1, ['invalid_json'])
    >>> r = res.tables.rates.query("doc_lang == 'en' and rate == 'pooled'").iloc[0]
    >>> float(r.citation_rate), float(r.inclusion_rate), round(float(r.ratio), 2), r.flag
    (0.9, 0.5, 1.8, 'over')
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import pyarrow as pa

from .._version import __version__
from ..citations.tables import ANSWER_RATES, CitationTables, build_tables, jsonable
from ..errors import DataError, redact
from ..signature import Signature
from ..stats import resolve_seed
from ._prefetch import prefetch
from .aggregate import Accumulator
from .config import AuditOptions
from .reader import detect_format, iter_blocks
from .schema import REASONS, BadRecord

__all__ = ["AuditResult", "run_audit", "skipped_line", "AUDIT_ANSWER_RATES"]

AUDIT_ANSWER_RATES: tuple[tuple[str, str, str], ...] = (
    *ANSWER_RATES,
    ("echo_rate", "echo", "answers"),
    ("language_match_rate", "lang_match", "lang_checked"),
)


@dataclass(frozen=True)
class AuditResult:
    """What ``bordir audit`` computed.

    Attributes:
        tables: rates (per group × query language × document language × rate), overall, answers.
        summary: records read, valid, skipped (by reason, with examples), citation sources,
            detected languages, timings.
        settings: the options the audit ran with.
        signature: what produced the numbers; ``detector:<engine>`` (``langdetect-rs-0.1.0``)
            when languages were detected.
    """

    tables: CitationTables
    summary: dict[str, Any] = field(repr=False)
    settings: dict[str, Any] = field(repr=False)
    signature: Signature

    def __repr__(self) -> str:
        return (
            f"AuditResult(valid={self.summary['valid']}, skipped={self.summary['skipped']}, "
            f"flagged={len(self.tables.flagged())}, signature={str(self.signature)!r})"
        )

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready (strict JSON: undefined values are ``null``)."""
        t = self.tables.as_dict()
        return cast(
            "dict[str, Any]",
            jsonable(
                {
                    "schema": "bordir.audit/1",
                    "bordir_version": __version__,
                    "signature": str(self.signature),
                    "settings": self.settings,
                    "citation_settings": t["settings"],
                    "summary": self.summary,
                    "rates": t["rates"],
                    "overall": t["overall"],
                    "answers": t["answers"],
                }
            ),
        )


def run_audit(
    path: str | os.PathLike[str],
    options: AuditOptions | None = None,
    *,
    skipped_path: str | os.PathLike[str] | None = None,
    progress: bool = False,
) -> AuditResult:
    """Audit a log of a deployed assistant's cited answers (schema: :mod:`bordir.audit.schema`).

    Args:
        path: JSONL or Parquet log.
        options: what the audit computes and how it reads the log
            (:class:`~bordir.audit.config.AuditOptions`; default: its defaults).
        skipped_path: write every skipped record (line, reason, message) there as JSONL.
        progress: show a records-read progress bar (the CLI does).
    """
    opts = options if options is not None else AuditOptions()
    group_by, cluster_by, strict = opts.group_by, opts.cluster_by, opts.strict
    seed = resolve_seed(opts.seed)
    fmt = detect_format(path, opts.fmt)
    if fmt == "jsonl":
        _refuse_non_text(path)
    seen_ids = _SeenIds()
    acc = Accumulator(
        group_by=group_by,
        cluster_by=cluster_by,
        language_match=opts.language_match,
        citation_base=opts.citation_base,
    )
    reasons: Counter[str] = Counter()
    examples: dict[str, list[dict[str, Any]]] = {}
    t0 = time.perf_counter()
    fast_blocks = slow_blocks = 0
    out = open(skipped_path, "w", encoding="utf-8") if skipped_path else None  # noqa: SIM115
    from .._progress import progress_bar

    bar = progress_bar(bool(progress), desc="audit", unit="record", unit_scale=True)
    try:
        extra = {"block_bytes": opts.block_bytes} if opts.block_bytes else {}
        for block in prefetch(iter_blocks(path, fmt, opts.schema, fast=opts.fast, **extra)):
            bar.update(block.table.num_rows + len(block.bad))
            fast_blocks += block.fast
            slow_blocks += not block.fast
            table, dups = seen_ids.drop_repeats(block.table)
            if dups:
                block = dataclasses.replace(
                    block, table=table, bad=[*block.bad, *dups], citations=None
                )
            for b in sorted(block.bad, key=lambda x: x.line):
                if strict:  # (DataError masks secrets itself)
                    raise DataError(
                        f"{b.reason}: {b.message} (--strict stops at the first bad record)",
                        path=path,
                        line=b.line,
                    )
                reasons[b.reason] += 1
                message = redact(b.message)  # a log may carry a key; the audit's files must not
                ex = examples.setdefault(b.reason, [])
                if len(ex) < opts.max_examples:
                    ex.append({"line": b.line, "message": message})
                if out is not None:
                    out.write(
                        json.dumps({**b.as_dict(), "message": message}, ensure_ascii=False) + "\n"
                    )
            acc.add(block.table, citations=block.citations)
    finally:
        bar.close()
        if out is not None:
            out.close()
    t_read = time.perf_counter() - t0
    if acc.counts["records"] == 0:
        raise _no_valid_record(path, sum(reasons.values()), reasons, examples)
    cells = acc.cells()
    t1 = time.perf_counter()
    tables = build_tables(
        cells,
        ("group", "query_lang"),
        n_resamples=opts.n_resamples,
        seed=seed,
        conf=opts.conf,
        adjust=opts.adjust,
        min_clusters=opts.min_clusters,
        cluster=cluster_by or "record",
        answer_rates=AUDIT_ANSWER_RATES if opts.language_match else AUDIT_ANSWER_RATES[:-1],
        signature_name="citation_audit",
        signature_fields={"group": group_by or "none"},
        method=opts.bootstrap,
    )
    t_stats = time.perf_counter() - t1
    acc_summary = acc.summary()
    valid = acc_summary.pop("records", 0)
    skipped = sum(reasons.values())
    if valid == 0:
        raise _no_valid_record(path, skipped, reasons, examples)
    summary = {
        "log": str(path),
        "format": fmt,
        "records": valid + skipped,
        "valid": valid,
        "skipped": skipped,
        "skipped_by_reason": {
            r: {"count": reasons[r], "description": REASONS.get(r, r), "examples": examples[r]}
            for r in sorted(reasons, key=lambda r: (-reasons[r], r))
        },
        **acc_summary,
        "blocks": {"vectorised": fast_blocks, "line_by_line": slow_blocks},
        "seconds": {
            "read_and_aggregate": round(t_read, 3),
            "statistics": round(t_stats, 3),
            "detection": acc_summary["detection"]["seconds"],
        },
    }
    settings = opts.settings(seed=seed)
    sig = _with_detector(tables.signature, acc.detector.engine)
    if sig != tables.signature:
        tables = dataclasses.replace(tables, signature=sig)
    return AuditResult(tables, summary, settings, sig)


def _with_detector(sig: Signature, engine: str | None) -> Signature:
    """``sig`` with ``detector:<engine>`` before ``version`` when languages were detected."""
    if engine is None:
        return sig
    *rest, version = sig.fields
    return Signature(sig.name, (*rest, ("detector", engine), version))


def skipped_line(summary: dict[str, Any]) -> str:
    """One line: how many records were skipped and why."""
    n = summary["skipped"]
    if not n:
        return f"{summary['valid']} records audited, none skipped"
    why = ", ".join(f"{r} {v['count']}" for r, v in summary["skipped_by_reason"].items())
    return f"{summary['valid']} records audited, {n} skipped ({why})"


def _refuse_non_text(path: str | os.PathLike[str]) -> None:
    """A JSONL log that is compressed or UTF-16 is refused up front (every line would be 'invalid JSON')."""
    from ..errors import undecodable

    try:
        with open(path, "rb") as fh:
            head = fh.read(4)
    except OSError:
        return  # iter_blocks reports a missing file
    if head.startswith(
        (
            b"\x1f\x8b",
            b"PK\x03\x04",
            b"BZh",
            b"\xfd7zX",
            b"\x28\xb5\x2f\xfd",
            b"\xff\xfe",
            b"\xfe\xff",
        )
    ):
        raise undecodable(path)


def _no_valid_record(
    path: str | os.PathLike[str],
    skipped: int,
    reasons: Counter[str],
    examples: dict[str, list[dict[str, Any]]],
) -> DataError:
    """The error for a log without one valid record (an audit of nothing is not a result)."""
    if not skipped:
        return DataError(
            "no valid record: the log holds no records (expected JSON lines or Parquet rows; "
            "see docs/audit.md)",
            path=path,
        )
    top = max(reasons, key=lambda r: (reasons[r], r))
    earliest = min(
        (e for ex in examples.values() for e in ex), key=lambda e: e["line"], default=None
    )
    first = f"; first at line {earliest['line']}: {earliest['message']}" if earliest else ""
    why = ", ".join(f"{r} {n}" for r, n in reasons.most_common())
    hint = ""
    if top == "invalid_json":
        try:
            with open(path, "rb") as fh:
                head = fh.read(1 << 16)
        except OSError:
            head = b""
        if b"\x00" in head:
            hint = " (the file is binary, not JSON lines)"
        else:
            try:
                head.decode("utf-8")
            except UnicodeDecodeError as exc:
                if exc.start < len(head) - 4:
                    hint = " (the file is not UTF-8 text)"
    return DataError(
        f"no valid record: all {skipped} records skipped ({why}){first}{hint}", path=path
    )


class _SeenIds:
    """Records already read, as 64-bit hashes in one sorted array: a repeated record is counted once.

    A record repeats an earlier one when its id, query, query language, response, timestamp and model
    are all the same (a log written twice, or concatenated with itself).
    """

    _FIELDS = ("id", "query", "query_lang", "response", "timestamp", "model")

    def __init__(self) -> None:
        self._sorted = np.zeros(0, dtype=np.uint64)

    def _hashes(self, table: pa.Table) -> np.ndarray:
        import pyarrow.compute as pc

        cols = [pc.fill_null(table[name].cast(pa.string()), "\x00") for name in self._FIELDS]
        joined = pc.binary_join_element_wise(*cols, "\x1f")
        # str's own hash (one run, one process: its per-process salt does not matter here)
        return np.fromiter(
            map(hash, joined.to_numpy(zero_copy_only=False)), dtype=np.int64, count=len(joined)
        ).view(np.uint64)

    def drop_repeats(self, table: pa.Table) -> tuple[pa.Table, list[BadRecord]]:
        """``table`` without the records read before (in an earlier block or earlier in this one)."""
        if table.num_rows == 0:
            return table, []
        h = self._hashes(table)
        if len(self._sorted):
            pos = np.minimum(np.searchsorted(self._sorted, h), len(self._sorted) - 1)
            repeat = self._sorted[pos] == h
        else:
            repeat = np.zeros(len(h), dtype=bool)
        _, first = np.unique(h, return_index=True)
        later = np.ones(len(h), dtype=bool)
        later[first] = False
        repeat |= later
        self._sorted = np.sort(np.concatenate([self._sorted, np.unique(h[~repeat])]), kind="stable")
        if not repeat.any():
            return table, []
        lines = table["line"].to_numpy(zero_copy_only=False)
        ids = table["id"].to_numpy(zero_copy_only=False)
        bad = [
            BadRecord(
                int(lines[i]),
                "duplicate_record",
                f"field 'id': record {ids[i]!r} repeats an earlier record; it is counted once",
            )
            for i in np.flatnonzero(repeat)
        ]
        return table.filter(pa.array(~repeat)), bad
