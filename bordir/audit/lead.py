"""What an audit's outputs lead with: the flagged cells, and what cannot be judged and why.

:func:`summarize_audit` reads the audit's summary (``audit.json``'s ``summary``) and its cells (the rows
of ``overall.csv`` and ``rates.csv``: one per group × query language × document language × rate,
with ``flag`` and ``verdict``) and returns ``findings`` — every over- or under-cited cell, all
query languages pooled first, at most :data:`MAX_FINDINGS` — and ``cannot_judge`` — the cells too
few to judge or untested, the records skipped. ``audit.md`` opens with it
(:func:`bordir.audit.report.render_markdown`), and so does the audit's page in ``bordir view``.

Example:
    >>> import pandas as pd
    >>> cells = pd.DataFrame({"group": ["all"], "query_lang": ["*"], "doc_lang": ["en"], "rate": ["pooled"],
    ...     "flag": ["over"], "verdict": ["over-cited"], "citation_rate": [0.42], "inclusion_rate_citing": [0.33],
    ...     "ratio": [1.27], "ratio_low": [1.18], "ratio_high": [1.35]})
    >>> summarize_audit({"records": 10, "valid": 10, "skipped": 0}, cells)["findings"]
    ['Over-cited: en documents, all query languages pooled (pooled): cited 42.0 % against 33.0 % included, ratio 1.27 [1.18, 1.35].']
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from .._io.percent import pct as _pct

__all__ = ["summarize_audit", "MAX_FINDINGS"]

MAX_FINDINGS = 6
"""Flagged cells listed at most (the Flags section has all)."""


def _num(x: Any) -> str:
    return "∞" if x is None or pd.isna(x) or float(x) == float("inf") else f"{float(x):.2f}"


def _where(r: Mapping[str, Any]) -> str:
    who = (
        "all query languages pooled"
        if str(r["query_lang"]) == "*"
        else f"{r['query_lang']} queries"
    )
    group = "" if str(r.get("group")) in ("all", "", "nan") else f"group {r['group']}, "
    return f"{r['doc_lang']} documents, {group}{who} ({r['rate']})"


def summarize_audit(summary: Mapping[str, Any], cells: pd.DataFrame) -> dict[str, list[str]]:
    """``{"findings": [...], "cannot_judge": [...]}`` of an audit (see the module docs)."""
    flag = cells["flag"].astype(str) if "flag" in cells.columns else pd.Series([""] * len(cells))
    flagged = cells[flag.isin(["over", "under"]).to_numpy()]
    pooled = flagged["query_lang"].astype(str) == "*"
    ordered = pd.concat([flagged[pooled], flagged[~pooled]])
    findings = [
        f"{str(r['flag']).capitalize()}-cited: {_where(r)}: cited {_pct(r.get('citation_rate'))} % "
        f"against {_pct(r.get('inclusion_rate_citing'))} % included, ratio {_num(r.get('ratio'))} "
        f"[{_num(r.get('ratio_low'))}, {_num(r.get('ratio_high'))}]."
        for r in ordered.head(MAX_FINDINGS).to_dict("records")
    ]
    if len(ordered) > MAX_FINDINGS:
        findings.append(
            f"… and {len(ordered) - MAX_FINDINGS} more flagged cells (the Flags section)."
        )
    cannot = []
    verdict = (
        cells["verdict"].astype(str) if "verdict" in cells.columns else pd.Series([], dtype=str)
    )
    few = int((verdict == "too few to judge").sum())
    if few:
        cannot.append(
            f"{few} of {len(cells)} cells have too few clusters to be tested: too few to judge "
            "(listed in the tables, not flagged either way)."
        )
    quiet = int(len(cells) - len(flagged) - few)
    if quiet:
        cannot.append(
            f"{quiet} of {len(cells)} cells are not flagged: each cites its language about as often "
            "as it includes it, or its interval is too wide to tell (not evidence of either)."
        )
    skipped = int(summary.get("skipped") or 0)
    if skipped:
        cannot.append(
            f"{skipped} of {summary.get('records')} records were skipped (the Records section says why)."
        )
    return {"findings": findings, "cannot_judge": cannot}
