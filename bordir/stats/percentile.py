"""Percentile intervals of resampled values (bootstrap resamples), undefined (NaN) resamples left out.

* :func:`quantiles` — quantiles of defined values; when some are infinite,
  order statistics (``inverted_cdf``), so a bound is never interpolated across ∞;
* :func:`percentile_bounds` — the two-sided ``conf`` interval of one statistic's
  resamples and how many resamples were undefined;
* :func:`percentile_columns` — the same per column of a ``(resamples, k)`` array
  (NaN where a column has no defined resample).

Example:
    >>> v = np.array([0.1, 0.2, np.nan, 0.3, 0.4])
    >>> lo, hi, n_undefined = percentile_bounds(v, 0.5)
    >>> round(lo, 3), round(hi, 3), n_undefined
    (0.175, 0.325, 1)
    >>> percentile_bounds(np.array([np.nan]), 0.95)
    (None, None, 1)
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np

__all__ = ["quantiles", "percentile_bounds", "percentile_columns"]


def quantiles(v: np.ndarray, qs: Sequence[float]) -> list[float]:
    """Quantiles of defined values; with infinite values, order statistics (no interpolation across ∞)."""
    if np.isinf(v).any():
        return [float(x) for x in np.quantile(v, list(qs), method="inverted_cdf")]
    return [float(x) for x in np.quantile(v, list(qs))]


def percentile_bounds(values: np.ndarray, conf: float) -> tuple[float | None, float | None, int]:
    """``(low, high, n_undefined)``: the percentile interval of the defined values (None, None when none is)."""
    values = np.asarray(values, dtype=float)
    v = values[~np.isnan(values)]
    if len(v) == 0:
        return None, None, len(values)
    a = (1 - conf) / 2
    lo, hi = quantiles(v, [a, 1 - a])
    return lo, hi, int(len(values) - len(v))


def percentile_columns(values: np.ndarray, conf: float) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bounds per column, ignoring NaN; NaN where a column has no defined value.

    >>> lo, hi = percentile_columns(np.array([[0.0, np.nan], [1.0, np.nan]]), 0.5)
    >>> lo.tolist(), bool(np.isnan(hi[1]))
    ([0.25, nan], True)
    """
    a = (1 - conf) / 2
    with (
        warnings.catch_warnings()
    ):  # all-NaN columns (undefined in every resample) give NaN quietly
        warnings.simplefilter("ignore", RuntimeWarning)
        lo = np.nanquantile(values, a, axis=0)
        hi = np.nanquantile(values, 1 - a, axis=0)
    return lo, hi
