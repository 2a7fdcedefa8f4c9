"""Sentences the report's sections and its summary share: a position bias, the power of tests.

Kept apart from the sections (which import the page's HTML helpers) so that the summary, which
the page imports, can use them without an import cycle.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..citations.tables import ci_text, pct

__all__ = ["excess_sentence", "power_phrase"]


def excess_sentence(r: dict[str, Any]) -> str:
    """One sentence on a model's position bias net of re-sampling (a ``position_bias_excess`` row)."""
    model, n = r.get("model", ""), r.get("n_queries")
    src = r.get("source") or ""
    if r.get("basis") == "one run":
        return (
            f"Position bias of {model} cannot be judged: {pct(r.get('reorder'))} % of {n} answers change "
            f"with the option order, but one run at temperature > 0 gives no same-order reference "
            "(re-sampling alone changes answers too); run ≥ 2 runs or use rank classification."
        )
    if r.get("basis") == "deterministic":
        head = (
            f"Position bias of {model} ({src}): {pct(r.get('excess'))} % "
            f"{ci_text(r.get('low'), r.get('high'))} of {n} answers name another country when the "
            "options are reordered (no sampling: every change is the order's)"
        )
    else:
        head = (
            f"Position bias of {model} ({src}): answers change with the option order in "
            f"{pct(r.get('reorder'))} % of pairs and between two runs in one order in "
            f"{pct(r.get('resample'))} %; the excess, the order's own effect, is "
            f"{pct(r.get('excess'))} points {ci_text(r.get('low'), r.get('high'))}, p = "
            f"{r.get('p_value', float('nan')):.3g} ({n} queries)"
        )
    tail = (
        "."
        if r.get("significant")
        else ": not distinguishable from re-sampling noise at the 5 % level"
        + (
            f" (power against a 10-point excess: {100 * r['power_10']:.0f} %)."
            if r.get("power_10") is not None
            else "."
        )
        if r.get("basis") == "resample"
        else ": no change that the interval can tell from 0."
    )
    return head + tail


def power_phrase(rows: pd.DataFrame, *, tested: bool = True) -> str:
    """The power the ``rows``' tests had against a 10- and a 20-point difference, as a range over them.

    >>> power_phrase(pd.DataFrame({"power_10": [0.08, 0.3], "power_20": [0.2, 0.71]}))
    'power against a 10-point difference 8–30%, against 20 points 20–71%'
    """
    if not len(rows) or "power_10" not in rows.columns:
        return "power unknown"

    def rng(col: str) -> str:
        v = rows[col].dropna()
        if not len(v):
            return "n/a"
        lo, hi = 100 * float(v.min()), 100 * float(v.max())
        return f"{lo:.0f}%" if round(lo) == round(hi) else f"{lo:.0f}–{hi:.0f}%"

    head = (
        "power against a 10-point difference"
        if tested
        else "had they been tested, power against 10 points"
    )
    return f"{head} {rng('power_10')}, against 20 points {rng('power_20')}"
