"""The cluster Wilson interval of a ratio of sums over clusters, and the linearisation behind it.

For a share ``R = Σ num_g / Σ den_g`` over clusters ``g`` with ``0 ≤ num_g ≤ den_g``
(a mean of per-cluster values in [0, 1]), :func:`wilson_ratio` gives the set of
``r`` with ``(Σnum − r·Σden)² ≤ z² · κ · r(1 − r) · Σden_g²``: the Wilson score
interval with the binomial variance scaled by ``κ = min(1, V̂ / (p̂(1 − p̂) Σden_g²))``,
``V̂`` the cluster (linearisation) variance with the ``G / (G − 1)`` correction (a
quasi-binomial Wilson interval). For 0/1 values it is exactly Wilson.

**Never narrower than the units counted as independent.** When the per-cluster values are
counts of units (whole numbers: URLs of an answer, runs of a territory), ``κ`` is kept at or
above ``Σden / Σden_g²``: the interval is never narrower than the plain Wilson interval of
``Σnum`` of ``Σden`` units. Without it, clusters that all hold the same interior mix (12 answers,
each citing one Russian source of two: ``V̂ = 0``) give ``κ = 0`` and the point ``[0.5, 0.5]``
from a dozen answers. Per-cluster values that are not counts (a territory's share averaged over
runs) keep the cluster variance as it is: less spread than a binomial's is what they can show
(``floor=`` forces either way).

:func:`wilson_from_sums` is the same interval for many shares at once, from the sums it needs
(``Σnum``, ``Σnum²``, ``Σnum·den`` per share, ``Σden``, ``Σden²`` and ``G`` per cell): an audit's
hundreds of categories over up to millions of clusters, most with ``num = 0``. With
``small_sample=True`` its critical value is Student's ``t`` on ``G − 1`` degrees of freedom
instead of the normal ``z`` (``κ`` is estimated from ``G`` clusters; the black-box audit's
choice, simulated in ``benchmarks/audit_coverage.py``).

:func:`influence` is the per-cluster linearisation of ``R``; :func:`correlation` of two of them
is the correlation of two ratios over the same clusters (for :mod:`~bordir.stats.mover`).

Example:
    >>> est, lo, hi = wilson_ratio(np.ones(10), np.ones(10))   # 10 of 10 clusters agree
    >>> float(est), round(float(lo), 3), float(hi)
    (1.0, 0.722, 1.0)
    >>> one = np.ones(12)                                     # 12 answers: one Russian source of two
    >>> [round(x, 3) for x in wilson_ratio(one, 2 * one)]     # the plain Wilson interval of 12 of 24
    [0.5, 0.314, 0.686]
    >>> _, lo, hi = wilson_from_sums(*(np.array([v]) for v in (12.0, 12.0, 24.0, 24.0, 48.0, 12)), small_sample=True)
    >>> round(float(lo[0]), 3), round(float(hi[0]), 3)        # t with 11 degrees of freedom
    (0.295, 0.705)
"""

from __future__ import annotations

import math
from typing import cast

import numpy as np

from .normal import t_quantile, z_quantile

__all__ = ["wilson_ratio", "wilson_from_sums", "influence", "correlation"]


def _t_column(g: np.ndarray, conf: float) -> np.ndarray:
    """Student's t quantile with ``max(G − 1, 1)`` degrees of freedom, per row (each distinct G once)."""
    df = np.maximum(np.asarray(g, dtype=np.int64) - 1, 1)
    uniq, inv = np.unique(df, return_inverse=True)
    return (
        np.array([t_quantile(conf, int(d)) for d in uniq], dtype=float)[inv]
        if len(df)
        else np.zeros(0)
    )


def _interval(
    p: np.ndarray,
    x: np.ndarray,
    n: np.ndarray,
    s2: np.ndarray,
    v: np.ndarray,
    crit: np.ndarray,
    floor: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The roots of ``(x − n·r)² = crit² · κ · r(1 − r) · s2`` (``v``: the cluster variance, corrected)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        vbin = p * (1 - p) * s2
        kappa = np.where(vbin > 1e-15, np.minimum(1.0, v / np.where(vbin > 1e-15, vbin, 1.0)), 1.0)
        if floor:  # never narrower than the units counted as independent
            kappa = np.maximum(kappa, np.where(s2 > 0, n / np.where(s2 > 0, s2, 1.0), 1.0))
        k = crit**2 * kappa
        a2 = n * n + k * s2
        a1 = -(2 * x * n + k * s2)
        a0 = x * x
        root = np.sqrt(np.maximum(a1 * a1 - 4 * a2 * a0, 0.0))
        lo = (-a1 - root) / (2 * a2)
        hi = (-a1 + root) / (2 * a2)
    lo = np.maximum(0.0, np.minimum(lo, p))
    hi = np.minimum(1.0, np.maximum(hi, p))
    bad = ~(n > 0)
    lo[bad] = hi[bad] = np.nan
    return p, lo, hi


def wilson_from_sums(
    x: np.ndarray,
    saa: np.ndarray,
    sab: np.ndarray,
    n: np.ndarray,
    s2: np.ndarray,
    g: np.ndarray,
    conf: float = 0.95,
    *,
    floor: bool = True,
    small_sample: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(estimate, low, high)`` of each row from ``Σnum``, ``Σnum²``, ``Σnum·den``, ``Σden``, ``Σden²``, ``G``; NaN where ``Σden = 0``.

    ``floor``: the per-cluster values are counts of units (see the module docs); ``small_sample``:
    Student's ``t`` on ``G − 1`` degrees of freedom instead of ``z``.
    """
    x, saa, sab = (np.asarray(val, dtype=float) for val in (x, saa, sab))
    n, s2, g = (np.asarray(val, dtype=float) for val in (n, s2, g))
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(n > 0, x / n, np.nan)
        v = np.maximum(saa - 2 * p * sab + p * p * s2, 0.0) * np.where(
            g > 1, g / np.maximum(g - 1, 1), 1.0
        )
    crit = _t_column(g, conf) if small_sample else np.full(len(g), z_quantile(conf))
    return _interval(p, x, n, s2, v, crit, floor)


def _whole(v: np.ndarray) -> bool:
    return bool(np.all(v == np.round(v)))


def wilson_ratio(
    num: np.ndarray, den: np.ndarray, conf: float = 0.95, *, floor: bool | None = None
) -> tuple[float, float, float]:
    """Cluster Wilson interval of ``Σnum / Σden`` over clusters (``0 ≤ num ≤ den``); NaNs when undefined.

    ``floor`` (default: when ``num`` and ``den`` are whole numbers): never narrower than the plain
    Wilson interval of the units (module docs).
    """
    a, b = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    n, x, s2 = float(b.sum()), float(a.sum()), float((b * b).sum())
    if n <= 0:
        return math.nan, math.nan, math.nan
    p = x / n
    g = int((b > 0).sum())
    v = float(((a - p * b) ** 2).sum()) * (g / (g - 1) if g > 1 else 1.0)
    use_floor = (_whole(a) and _whole(b)) if floor is None else floor
    _, lo, hi = _interval(
        np.array([p]), np.array([x]), np.array([n]), np.array([s2]), np.array([v]),
        np.array([z_quantile(conf)]), use_floor,
    )  # fmt: skip
    return p, float(lo[0]), float(hi[0])


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
