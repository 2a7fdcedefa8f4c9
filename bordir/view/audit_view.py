"""The page data of an audit output (``bordir audit LOG --out DIR``): one row per cell, flagged cells first.

Read through the files: ``audit.json`` (settings, the log it read), ``rates.csv``
(query language × document language cells) and ``overall.csv`` (query languages
pooled, ``*``). The records behind each cell — the log records of its group and
query language whose prompt held or whose reply cited a document of its
language — are read again from the log the audit names (through the audit's
own reader, :func:`bordir.audit.reader.iter_blocks`), with each record's
citations by language: up to :data:`FLAGGED_RECORDS` for a flagged cell and
:data:`OTHER_RECORDS` for the others. A log that is no longer there leaves the
cells without their records, and the page says so.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import BordirError, DataError
from .columns import coded, numbers
from .dispatch import ViewKind
from .files import read_json, require_columns
from .page import page_meta, table_columns
from .run_data import Facet

__all__ = ["audit_page", "AUDIT_FACETS", "FLAGGED_RECORDS", "OTHER_RECORDS"]

FLAGGED_RECORDS = 200
OTHER_RECORDS = 20
AUDIT_FACETS: tuple[Facet, ...] = (
    Facet("flagged", "Flagged"),
    Facet("verdict", "Verdict"),
    Facet("group", "Group"),
    Facet("query_lang", "Query language"),
    Facet("doc_lang", "Document language"),
    Facet("rate", "Rate"),
)
_COLUMNS = table_columns(
    {
        "group": "group",
        "query_lang": "query lang",
        "doc_lang": "doc lang",
        "rate": "rate",
        "n_answers": "answers",
        "citation_rate": "citation rate",
        "inclusion_rate_citing": "inclusion rate",
        "ratio": "ratio",
        "verdict": "verdict",
    },
    numeric={"n_answers": None, "citation_rate": 3, "inclusion_rate_citing": 3, "ratio": 3},
)
_HINT = "re-run `bordir audit LOG --out DIR`, or restore the file"


def _cells(out: Path) -> pd.DataFrame:
    frames = []
    for name in ("overall.csv", "rates.csv"):
        p = out / name
        if not p.is_file():
            raise DataError(f"file not found; {_HINT}", path=p)
        try:
            frames.append(pd.read_csv(p, keep_default_na=False, na_values=[""]))
        except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
            raise DataError(f"not a readable CSV table ({exc}); {_HINT}", path=p) from None
    cells = pd.concat(frames, ignore_index=True)
    need = ["group", "query_lang", "doc_lang", "rate", "verdict"]
    require_columns(
        cells.columns, need, path=out / "rates.csv", table="the tables `bordir audit` writes"
    )
    cells["flagged"] = [
        "yes" if str(f) in ("over", "under") else "no" for f in cells.get("flag", [""] * len(cells))
    ]
    return cells.sort_values("flagged", ascending=False, kind="stable").reset_index(drop=True)


def _group_of(rec: dict[str, Any], group_by: str | None) -> str:
    if not group_by:
        return "all"
    if group_by == "month":
        ts = rec.get("timestamp")
        return str(ts)[:7] if ts else "unknown"
    return str(rec.get(group_by) or "unknown")


def _records(
    info: dict[str, Any], cells: pd.DataFrame, audited: str | None = None
) -> tuple[list[list[dict[str, Any]]], list[int], str]:
    """Per cell: the records shown, how many there are, and a note.

    ``audited``: the digest of the log the audit read (its record's ``inputs.log``); a log that
    hashes differently now is not read again (its records would not be the audited ones).
    """
    settings = info.get("settings") or {}
    log = (info.get("summary") or {}).get("log")
    empty: list[list[dict[str, Any]]] = [[] for _ in range(len(cells))]
    counts = [0] * len(cells)
    if not log or not Path(str(log)).is_file():
        return (
            empty,
            counts,
            f"the log the audit read ({log}) is not here, so the records are not shown",
        )
    if audited is not None:
        from ..runrecord.record import file_digest

        if file_digest(str(log)) != audited:
            return (
                empty,
                counts,
                f"the log the audit read ({log}) changed since the audit (it no longer hashes to "
                f"{audited[:19]}…), so its records are not shown; audit it again",
            )
    from ..audit.reader import iter_blocks
    from ..audit.schema import SchemaOptions
    from ..generation.parse.citations import extract_citations

    group_by = settings.get("group_by")
    base = int(settings.get("citation_base") or 0)
    quota = [FLAGGED_RECORDS if f == "yes" else OTHER_RECORDS for f in cells["flagged"]]
    index: dict[tuple[str, str], list[int]] = {}
    for i, (g, q) in enumerate(zip(cells["group"].astype(str), cells["query_lang"].astype(str))):
        index.setdefault((g, q), []).append(i)
    doc_lang = cells["doc_lang"].astype(str).tolist()
    try:
        cluster_by = settings.get("cluster_by")  # "record": each record its own cluster (no field)
        options = SchemaOptions(cluster_by=None if cluster_by in (None, "record") else cluster_by)
        blocks = iter_blocks(str(log), options=options)
        for block in blocks:
            for rec in block.table.to_pylist():
                docs = rec.get("documents") or []
                ids = [str(d.get("id")) for d in docs]
                cites = rec.get("citations")
                if cites is None:
                    nums = [n - base for n in extract_citations(rec.get("response") or "")]
                    cites = [ids[n] for n in nums if 0 <= n < len(ids)]
                lang_of: dict[str, str] = {}
                for d in docs:
                    lang_of.setdefault(str(d.get("id")), str(d.get("lang") or "?"))
                cited_langs = [lang_of[c] for c in map(str, cites) if c in lang_of]
                langs = {lang_of[i] for i in ids} | set(cited_langs)
                g = _group_of(rec, group_by)
                for key in ((g, str(rec.get("query_lang"))), (g, "*")):
                    for i in index.get(key, ()):
                        if doc_lang[i] not in langs:
                            continue
                        counts[i] += 1
                        if len(empty[i]) < quota[i]:
                            empty[i].append(
                                {
                                    "id": rec.get("id"),
                                    "line": rec.get("line"),
                                    "query": rec.get("query"),
                                    "query_lang": rec.get("query_lang"),
                                    "response": rec.get("response"),
                                    "docs": [[d.get("id"), d.get("lang")] for d in docs],
                                    "citations": [str(c) for c in cites],
                                    "cited_langs": cited_langs,
                                }
                            )
    except BordirError as exc:
        return empty, counts, f"the log cannot be read again ({exc})"
    return empty, counts, ""


def audit_page(path: str | Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(meta, rows)`` of an audit output's page."""
    out = Path(path)
    info = read_json(
        out / "audit.json", hint="expected a directory written by `bordir audit LOG --out DIR`"
    )
    if not isinstance(info, dict) or not str(info.get("schema", "")).startswith("bordir.audit/"):
        raise DataError(
            'not an audit record (expected "schema": "bordir.audit/1")', path=out / "audit.json"
        )
    cells = _cells(out)
    from ..runrecord.record import read_record

    audited = read_record(out).inputs.get("log")
    recs, counts, note = _records(
        info, cells, audited.get("digest") if isinstance(audited, dict) else None
    )
    cols: dict[str, Any] = {}
    for c in ("flagged", "verdict", "group", "query_lang", "doc_lang", "rate"):
        cols[c] = coded(cells[c].astype(str))
    for c in ("n_answers", "n_clusters", "citation_rate", "inclusion_rate_citing", "ratio", "ratio_low",
              "ratio_high", "p_adjusted"):  # fmt: skip
        cols[c] = numbers(
            [None if pd.isna(v) else float(v) for v in cells[c]]
            if c in cells
            else [None] * len(cells),
            digits=6,
        )
    cols["records"] = coded([json.dumps(r, ensure_ascii=False) for r in recs])
    cols["n_records"] = numbers(counts)
    cols["records_note"] = coded(
        [note or ("no record of the log falls in this cell" if not n else "") for n in counts]
    )
    n_flag = int((cells["flagged"] == "yes").sum())
    from ..audit.lead import summarize_audit

    summary = info.get("summary") or {}
    log = Path(str(summary.get("log"))).name  # the log's name: no path of the user's machine
    subtitle = f"Citation audit of {log} ({n_flag} flagged cell(s); {info.get('signature', '')})"
    labels = ("verdict", "verdicts", "Cells")
    meta = page_meta(
        "audit",
        out,
        subtitle,
        AUDIT_FACETS,
        _COLUMNS,
        labels,
        warnings=[note] if note else [],
        lead=summarize_audit(summary, cells),
    )
    return meta, {"n": len(cells), "cols": cols}


VIEW = ViewKind(page=audit_page)
"""The page of a ``audit`` directory (:data:`bordir.view.dispatch.VIEWS` ``audit``)."""
