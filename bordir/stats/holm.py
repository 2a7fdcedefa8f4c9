"""Multiple-testing correction: Holm's step-down adjustment, one implementation for bordir.

Every family of tests in bordir (paired mode comparisons, per-language
comparisons, testbed comparisons, citation-rate flags) is corrected here.
Plain numpy, checked against ``statsmodels.stats.multitest.multipletests``
in the tests (statsmodels runs the garbage collector on every call, which
made a flag table with thousands of families slow).

A p-value that is NaN (a comparison that could not be made) is not part of
the family: its adjusted value stays NaN and it is never rejected; the
others are adjusted among themselves.

Example:
    >>> holm_pvalues([0.01, 0.04, 0.03])
    array([0.03, 0.06, 0.06])
    >>> adj, rej = holm([0.01, 0.04, 0.03], alpha=0.05)
    >>> rej.tolist()
    [True, False, False]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["holm", "holm_pvalues"]


def holm(
    pvalues: Sequence[float] | np.ndarray, *, alpha: float = 0.05
) -> tuple[np.ndarray, np.ndarray]:
    """Holm's step-down correction: ``(adjusted p-values, reject at alpha)``.

    Args:
        pvalues: the family's p-values (NaN: not tested).
        alpha: the family-wise error rate.

    Returns:
        The adjusted p-values (monotone in the raw ones, capped at 1) and, for each test,
        whether Holm's procedure rejects it at ``alpha``.

    >>> adj, rej = holm([0.01, 0.04, 0.03])
    >>> [round(float(x), 2) for x in adj], rej.tolist()
    ([0.03, 0.06, 0.06], [True, False, False])
    """
    p = np.asarray(pvalues, dtype=float).reshape(-1)
    adjusted = np.full(len(p), np.nan)
    reject = np.zeros(len(p), dtype=bool)
    tested = np.flatnonzero(~np.isnan(p))
    m = len(tested)
    if m == 0:
        return adjusted, reject
    order = tested[np.argsort(p[tested], kind="stable")]
    ps = p[order]
    factor = m - np.arange(m)
    adjusted[order] = np.minimum(np.maximum.accumulate(factor * ps), 1.0)
    # the step-down rule itself (as statsmodels): reject while p_(k) <= alpha / (m - k)
    passes = ps <= alpha / factor
    first_fail = int(np.argmin(passes)) if not passes.all() else m
    reject[order[:first_fail]] = True
    return adjusted, reject


def holm_pvalues(pvalues: Sequence[float] | np.ndarray) -> np.ndarray:
    """Holm-adjusted p-values only (:func:`holm` without the decisions)."""
    return holm(pvalues)[0]
