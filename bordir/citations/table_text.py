"""How citation rates are written: percentages, intervals, ratios and flags as text, and a cell's rates as a Markdown table."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from .._io.markdown import md_text
from .._io.percent import pct as _pct

__all__ = ["pct", "ci_text", "ratio_text", "flag_text", "markdown_rates"]


def pct(x: float | None, digits: int = 1) -> str:
    """A fraction as a percentage string (``n/a`` when undefined): :func:`bordir._io.percent.pct`."""
    return _pct(x, digits=digits)


def ci_text(lo: float | None, hi: float | None, *, scale: float = 100.0, digits: int = 1) -> str:
    """``[lo, hi]`` (×``scale``) or ``–``."""
    if lo is None or hi is None or (isinstance(lo, float) and math.isnan(lo)):
        return "–"
    top = "∞" if isinstance(hi, float) and math.isinf(hi) else f"{hi * scale:.{digits}f}"
    return f"[{lo * scale:.{digits}f}, {top}]"


def ratio_text(r: float | None, lo: float | None, hi: float | None) -> str:
    """A ratio and its interval as a table cell (``1.23 [0.98, 1.51]``), ``n/a`` when undefined."""
    if r is None or (isinstance(r, float) and math.isnan(r)):
        return "n/a"
    return f"{r:.2f} {ci_text(lo, hi, scale=1.0, digits=2)}"


def flag_text(row: Any) -> str:
    """The flag column of a row: ``over`` / ``under``, ``too few to judge`` or another verdict, blank when tested and not flagged."""
    flag = row["flag"] if "flag" in row else None
    if isinstance(flag, str) and flag:
        return flag
    verdict = row["verdict"] if "verdict" in row else None
    return (
        ""
        if verdict in (None, "not flagged") or (isinstance(verdict, float) and math.isnan(verdict))
        else str(verdict)
    )


def markdown_rates(g: pd.DataFrame) -> str:
    """One Markdown table of a cell group: pooled and per-query columns side by side."""
    head = (
        "| query lang | doc lang | answers | docs | citations | inclusion % | citation % (pooled) [95% CI] "
        "| ratio (pooled) [95% CI] | flag | citation % (per query) | ratio (per query) [95% CI] | flag |"
    )
    lines = [head, "|" + "---|" * 12]
    pooled = g[g["rate"] == "pooled"].set_index(["query_lang", "doc_lang"])
    perq = g[g["rate"] == "per_query"].set_index(["query_lang", "doc_lang"])
    for (ql, dl), p in pooled.iterrows():
        q = perq.loc[(ql, dl)]
        lines.append(
            "| "
            + " | ".join(
                [
                    md_text(ql),  # language codes from a log: inert in a renderer
                    md_text(dl),
                    str(p["n_answers"]),
                    str(p["n_docs"]),
                    str(p["n_citations"]),
                    pct(p["inclusion_rate_citing"]),
                    f"{pct(p['citation_rate'])} {ci_text(p['citation_rate_low'], p['citation_rate_high'])}",
                    ratio_text(p["ratio"], p["ratio_low"], p["ratio_high"]),
                    flag_text(p),
                    pct(q["citation_rate"]),
                    ratio_text(q["ratio"], q["ratio_low"], q["ratio_high"]),
                    flag_text(q),
                ]
            )
            + " |"
        )
    return "\n".join(lines) + "\n"
