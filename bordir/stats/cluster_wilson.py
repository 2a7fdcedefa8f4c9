"""The cluster Wilson interval of a ratio of sums over clusters, and the linearisation behind it.

For a share ``R = Σ num_g / Σ den_g`` over clusters ``g`` with ``0 ≤ num_g ≤ den_g``
(a mean of per-cluster values in [0, 1]), :func:`wilson_ratio` gives the set of
``r`` with ``(Σnum − r·Σden)² ≤ z² · κ · r(1 − r) · Σden_g²``: the Wilson score
interval with the binomial variance scaled by ``κ = min(1, V̂ / (p̂(1 − p̂) Σden_g²))``,
``V̂`` the cluster (linearisation) variance with the ``G / (G − 1)`` correction (a
quasi-binomial Wilson interval). For 0/1 values it is exactly Wilson; it never
collapses to a point when every cluster agrees. :func:`influence` is the
per-cluster linearisation of ``R``; :func:`correlation` of two of them is the
correlation of two ratios over the same clusters (for :mod:`~bordir.stats.mover`).

Example:
    >>> est, lo, hi = wilson_ratio(np.ones(10), np.ones(10))   # 10 of 10 clusters agree
    >>> float(est), round(float(lo), 3), float(hi)
    (1.0, 0.722, 1.0)
"""

from __future__ import annotations

import math
from typing import cast

import numpy as np

from .normal import z_quantile

__all__ = ["wilson_ratio", "influence", "correlation"]


def wilson_ratio(
    num: np.ndarray, den: np.ndarray, conf: float = 0.95
) -> tuple[float, float, float]:
    """Cluster Wilson interval of ``Σnum / Σden`` over clusters (``0 ≤ num ≤ den``); NaNs when undefined."""
    a, b = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    n, x, s2 = float(b.sum()), float(a.sum()), float((b * b).sum())
    if n <= 0:
        return math.nan, math.nan, math.nan
    p = x / n
    g = int((b > 0).sum())
    v = float(((a - p * b) ** 2).sum()) * (g / (g - 1) if g > 1 else 1.0)
    vbin = p * (1 - p) * s2
    kappa = min(1.0, v / vbin) if vbin > 1e-15 else 1.0
    k = z_quantile(conf) ** 2 * kappa
    a2, a1, a0 = n * n + k * s2, -(2 * x * n + k * s2), x * x
    root = math.sqrt(max(a1 * a1 - 4 * a2 * a0, 0.0))
    lo, hi = (-a1 - root) / (2 * a2), (-a1 + root) / (2 * a2)
    return p, max(0.0, min(lo, p)), min(1.0, max(hi, p))


def influence(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """Per-cluster linearisation of ``Σnum / Σden``: ``(num_t − R·den_t) / Σden`` (zeros when undefined)."""
    a, b = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    n = b.sum()
    if n <= 0:
        return np.zeros_like(a)
    return cast("np.ndarray", (a - (a.sum() / n) * b) / n)


def correlation(u1: np.ndarray, u2: np.ndarray) -> float:
    """The correlation of two (mean-zero) influence vectors: ``Σ u1·u2 / √(Σ u1² · Σ u2²)``, 0 when one is 0."""
    d = math.sqrt(float((u1 * u1).sum() * (u2 * u2).sum()))
    return float((u1 * u2).sum()) / d if d > 0 else 0.0
