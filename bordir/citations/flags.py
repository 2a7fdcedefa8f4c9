"""Over- and under-citation flags from the ratio's score test, with a verdict for every cell.

A cell (one document language in one query language, group, mode …) is
**flagged** ``over`` when the ratio's score interval
(:func:`~bordir.citations.ratio.ratio_score_test`) lies entirely above 1 and
``under`` when it lies entirely below 1, and (with ``adjust="holm"``, the
default) the Holm-adjusted p-value of the score test, across the tested cells
of one table and rate variant, is below ``1 − conf``: auditing many language
pairs at 95 % would otherwise flag about one fair cell in twenty.
``adjust="none"`` flags every interval that excludes 1.

Every row gets a ``verdict`` (:data:`VERDICTS`), so a cell that cannot be
judged is shown as such, not hidden:

* ``too few to judge``: fewer than ``min_clusters`` clusters (default
  :data:`MIN_CELL_CLUSTERS`) whose citing answers were shown the language
  (``n_clusters_lang``; ``n_clusters`` when the table has no such column); not
  tested, so it does not use up the Holm correction either;
* ``ratio undefined``: no citation, or no document of the language in citing
  answers; not tested;
* ``zero-width interval``: every cluster alike, so there is no variation to
  judge by; not tested, never flagged;
* ``over`` / ``under``: flagged; ``not flagged``: tested, no evidence of a
  difference.

The size of this rule was measured by simulation (``docs/citations.md``,
``benchmarks/coverage_citations.py``): a fair assistant audited over 5 query
languages × 2 document languages gets at least one flag anywhere in 1.0–1.6 %
of audits with 5, 8, 20 or 400 records per query language (the previous rule,
a percentile interval with a Wald p-value, 85 %, 57 % and 15 % at 5, 8 and 20
in the same simulation).

Example:
    >>> flag_of(1.5, 1.2, 1.9), flag_of(0.5, 0.3, 0.8), flag_of(1.1, 0.9, 1.3), flag_of(2.0, 2.0, 2.0)
    ('over', 'under', None, None)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..errors import ConfigError
from ..stats import holm_pvalues

__all__ = [
    "ADJUSTMENTS",
    "FLAGS",
    "VERDICTS",
    "MIN_CELL_CLUSTERS",
    "TOO_FEW",
    "flag_of",
    "assign_flags",
]

ADJUSTMENTS: tuple[str, ...] = ("holm", "none")
FLAGS: tuple[str, ...] = ("over", "under")
TOO_FEW = "too few to judge"
VERDICTS: tuple[str, ...] = (
    "over",
    "under",
    "not flagged",
    TOO_FEW,
    "ratio undefined",
    "zero-width interval",
)
"""The ``verdict`` of a cell (see the module docs)."""
MIN_CELL_CLUSTERS = 10
"""Default minimum clusters (territories in experiments, records or ``--cluster-by`` values in audits) for a cell
to be judged. Below it a cell is reported as ``too few to judge``: the score test can rarely reach Holm's thresholds
there (``|T| ≤ √clusters``: with 8 clusters p ≥ 0.005), and percentile intervals of the ratio cover 65–86 % instead
of 95 % with 5–12 clusters."""


def _width_zero(low: float, high: float, ratio: float) -> bool:
    return math.isfinite(high) and high - low <= 1e-9 * max(1.0, abs(ratio))


def flag_of(ratio: float | None, low: float | None, high: float | None) -> str | None:
    """``over`` / ``under`` when the interval excludes 1 (``high`` may be inf), else None.

    A zero-width interval never flags: it says the clusters are all alike, not that the ratio is known.
    """
    if (
        ratio is None
        or low is None
        or high is None
        or any(isinstance(x, float) and math.isnan(x) for x in (ratio, low, high))
    ):
        return None
    if _width_zero(float(low), float(high), float(ratio)):
        return None
    if low > 1.0:
        return "over"
    if high < 1.0:
        return "under"
    return None


def _missing(x: object) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def assign_flags(
    table: pd.DataFrame,
    *,
    family: Sequence[str] = ("rate",),
    conf: float = 0.95,
    adjust: str = "holm",
    min_clusters: int = MIN_CELL_CLUSTERS,
) -> pd.DataFrame:
    """Add ``tested``, ``p_adjusted``, ``flag`` and ``verdict`` to a table of :func:`summarize_cell` rows.

    Args:
        table: rows with ``ratio``, ``ratio_low``, ``ratio_high``, ``p_value``, ``n_clusters`` (and
            optionally ``n_clusters_lang``, which then decides the minimum).
        family: columns whose values define one family of tests (Holm runs within each).
        conf: the intervals' confidence level; flags need adjusted p < 1 − conf.
        adjust: ``holm`` or ``none`` (see the module docs).
        min_clusters: cells with fewer clusters are ``too few to judge`` (not tested, still shown).
    """
    if adjust not in ADJUSTMENTS:
        raise ConfigError(f"unknown adjustment {adjust!r}; known: {', '.join(ADJUSTMENTS)}")
    if min_clusters < 1:
        raise ConfigError(f"min_clusters must be >= 1, found {min_clusters}")
    t = table.copy()
    if len(t) == 0:
        for c in ("tested", "p_adjusted", "flag", "verdict"):
            t[c] = pd.Series(dtype=object)
        return t
    alpha = 1.0 - conf
    ratio = pd.to_numeric(t["ratio"], errors="coerce").to_numpy(dtype=float)
    low = pd.to_numeric(t["ratio_low"], errors="coerce").to_numpy(dtype=float)
    high = pd.to_numeric(t["ratio_high"], errors="coerce").to_numpy(dtype=float)
    pval = pd.to_numeric(t["p_value"], errors="coerce").to_numpy(dtype=float)
    size = t["n_clusters_lang"] if "n_clusters_lang" in t.columns else t["n_clusters"]
    enough = pd.to_numeric(size, errors="coerce").to_numpy(dtype=float) >= min_clusters
    defined = ~(np.isnan(ratio) | np.isnan(low) | np.isnan(high) | np.isnan(pval))
    with np.errstate(invalid="ignore"):
        zero = defined & np.isfinite(high) & (high - low <= 1e-9 * np.maximum(1.0, np.abs(ratio)))
    tested = enough & defined & ~zero
    verdict = np.where(
        ~enough,
        TOO_FEW,
        np.where(~defined, "ratio undefined", np.where(zero, "zero-width interval", "not flagged")),
    ).astype(object)
    padj = np.full(len(t), np.nan)
    keys = [c for c in family if c in t.columns]
    pos = np.flatnonzero(tested)
    if len(pos):
        groups = (
            t.iloc[pos].groupby(keys, sort=False, dropna=False).indices.values()
            if keys
            else [np.arange(len(pos))]
        )
        for g in groups:
            rows = pos[np.asarray(g)]
            padj[rows] = holm_pvalues(pval[rows]) if adjust == "holm" else pval[rows]
    side = np.where(low > 1.0, "over", np.where(high < 1.0, "under", ""))
    flag = np.where(tested & (side != "") & ((adjust == "none") | (padj < alpha)), side, "")
    verdict = np.where(flag != "", flag, verdict)
    t["tested"] = tested
    t["p_adjusted"] = [None if np.isnan(x) else float(x) for x in padj]
    t["flag"] = pd.Series([str(f) if f else None for f in flag], index=t.index, dtype=object)
    t["verdict"] = pd.Series(list(verdict), index=t.index, dtype=object)
    return t
