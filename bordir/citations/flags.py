"""Over- and under-citation flags from the citation ratio's interval.

A cell (one document language in one query language, group, mode …) is
**flagged** ``over`` when the ratio's cluster-bootstrap interval lies entirely
above 1 and ``under`` when it lies entirely below 1. Only cells with at least
``min_clusters`` clusters and a defined ratio are *tested*; the others get no
flag (``None``), and ``tested`` says which.

With ``adjust="holm"`` (the default) a flag also needs the Holm-adjusted
p-value (:func:`~bordir.citations.ratio.summarize_cell`'s Wald p-value, across
the tested cells of one table and rate variant) to be below ``1 − conf``:
auditing many language pairs at 95 % would otherwise flag about one fair cell in
twenty. ``adjust="none"`` flags every interval that excludes 1.

Example:
    >>> holm_adjust([0.01, 0.04, 0.03])
    array([0.03, 0.06, 0.06])
    >>> flag_of(1.5, 1.2, 1.9), flag_of(0.5, 0.3, 0.8), flag_of(1.1, 0.9, 1.3)
    ('over', 'under', None)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..errors import ConfigError

__all__ = ["ADJUSTMENTS", "FLAGS", "holm_adjust", "flag_of", "assign_flags"]

ADJUSTMENTS: tuple[str, ...] = ("holm", "none")
FLAGS: tuple[str, ...] = ("over", "under")


def holm_adjust(pvalues: Sequence[float] | np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values (monotone, capped at 1)."""
    p = np.asarray(pvalues, dtype=float)
    m = len(p)
    if m == 0:
        return p
    order = np.argsort(p, kind="stable")
    adj = np.maximum.accumulate((m - np.arange(m)) * p[order])
    out = np.empty(m)
    out[order] = np.minimum(adj, 1.0)
    return out


def flag_of(ratio: float | None, low: float | None, high: float | None) -> str | None:
    """``over`` / ``under`` when the interval excludes 1, else None."""
    if ratio is None or low is None or high is None:
        return None
    if low > 1.0:
        return "over"
    if high < 1.0:
        return "under"
    return None


def assign_flags(
    table: pd.DataFrame,
    *,
    family: Sequence[str] = ("rate",),
    conf: float = 0.95,
    adjust: str = "holm",
    min_clusters: int = 5,
) -> pd.DataFrame:
    """Add ``tested``, ``p_adjusted`` and ``flag`` to a table of :func:`summarize_cell` rows.

    Args:
        table: rows with ``ratio``, ``ratio_low``, ``ratio_high``, ``p_value``, ``n_clusters``.
        family: columns whose values define one family of tests (Holm runs within each).
        conf: the intervals' confidence level; flags need adjusted p < 1 − conf.
        adjust: ``holm`` or ``none`` (see the module docs).
        min_clusters: cells with fewer clusters are not tested.
    """
    if adjust not in ADJUSTMENTS:
        raise ConfigError(f"unknown adjustment {adjust!r}; known: {', '.join(ADJUSTMENTS)}")
    if min_clusters < 1:
        raise ConfigError(f"min_clusters must be >= 1, found {min_clusters}")
    t = table.copy()
    if len(t) == 0:
        for c in ("tested", "p_adjusted", "flag"):
            t[c] = pd.Series(dtype=object)
        return t
    alpha = 1.0 - conf
    tested = (t["n_clusters"] >= min_clusters) & t["ratio"].notna() & t["ratio_low"].notna() & t["p_value"].notna()
    t["tested"] = tested.astype(bool)
    t["p_adjusted"] = None
    t["flag"] = None
    keys = [c for c in family if c in t.columns]
    sub = t[tested]
    families = [g.index for _, g in sub.groupby(keys, sort=False, dropna=False)] if keys else [sub.index]
    for idx in families:
        idx = list(idx)
        p = t.loc[idx, "p_value"].astype(float).to_numpy()
        padj = holm_adjust(p) if adjust == "holm" else p
        for i, pa in zip(idx, padj):
            t.at[i, "p_adjusted"] = float(pa)
            f = flag_of(t.at[i, "ratio"], t.at[i, "ratio_low"], t.at[i, "ratio_high"])
            if f is not None and (adjust == "none" or pa < alpha):
                t.at[i, "flag"] = f
    return t
