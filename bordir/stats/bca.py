"""Bias-corrected and accelerated (BCa) bootstrap bounds from resamples and jackknife values (Efron 1987).

The bias correction ``z0`` is the normal quantile of the share of resamples
below the estimate (ties count half); the acceleration comes from the
jackknife values, ``a = Σ d³ / (6 (Σ d²)^{3/2})`` with ``d = mean − jack``.
Each percentile ``q`` of the percentile interval is moved to
``Φ(z0 + (z0 + z_q) / (1 − a (z0 + z_q)))``.

Example:
    >>> boot = np.linspace(0.0, 1.0, 101)
    >>> lo, hi = bca_bounds(boot, 0.5, np.array([0.4, 0.5, 0.6]))
    >>> round(lo, 3), round(hi, 3)
    (0.025, 0.975)
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

from .percentile import quantiles

__all__ = ["bca_bounds"]


def bca_bounds(
    boot: np.ndarray, estimate: float, jack: np.ndarray, conf: float = 0.95
) -> tuple[float | None, float | None]:
    """BCa bounds from the resampled values (NaN = undefined, left out) and the jackknife values."""
    b = np.asarray(boot, dtype=float)
    b = b[~np.isnan(b)]
    if len(b) == 0 or not math.isfinite(estimate):
        return None, None
    nd = NormalDist()
    prop = (np.sum(b < estimate) + 0.5 * np.sum(b == estimate)) / len(b)
    z0 = nd.inv_cdf(min(max(prop, 1e-6), 1 - 1e-6))
    j = np.asarray(jack, dtype=float)
    j = j[np.isfinite(j)]
    acc = 0.0
    if len(j) > 2:
        d = j.mean() - j
        den = 6.0 * float((d * d).sum()) ** 1.5
        acc = float((d**3).sum()) / den if den > 0 else 0.0
    out = []
    for q in ((1 - conf) / 2, 1 - (1 - conf) / 2):
        zq = nd.inv_cdf(q)
        t = z0 + (z0 + zq) / (1 - acc * (z0 + zq))
        q_adj = min(max(nd.cdf(t), 0.0), 1.0)
        out.append(quantiles(b, [q_adj])[0])
    return out[0], out[1]
