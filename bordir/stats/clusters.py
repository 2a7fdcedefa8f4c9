"""Per-cluster sums and ratios of sums: the sufficient statistics every cluster bootstrap re-weights.

Example:
    >>> cluster_sums(np.array([2, 0, 2]), np.array([[1.0], [2.0], [3.0]]))
    (array([0, 2]), array([[2.],
           [4.]]))
    >>> ratio(np.array([1.0, 2.0]), np.array([2.0, 0.0])).tolist()
    [0.5, nan]
"""

from __future__ import annotations

import numpy as np

__all__ = ["cluster_sums", "ratio"]


def cluster_sums(codes: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sum the rows of ``values`` per cluster code: ``(unique codes, sums)``, codes sorted.

    Args:
        codes: the cluster of each row (integers, any range).
        values: shape ``(n_rows, …)``; rows of one cluster are added in their order.
    """
    codes = np.asarray(codes)
    values = np.asarray(values, dtype=np.float64)
    if len(codes) == 0:
        return codes[:0], np.zeros((0, *values.shape[1:]))
    order = np.argsort(codes, kind="stable")
    sc = codes[order]
    starts = np.flatnonzero(np.r_[True, sc[1:] != sc[:-1]])
    return sc[starts], np.add.reduceat(values[order], starts, axis=0)


def ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` elementwise where ``den > 0``, NaN elsewhere (no warnings)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
