"""MOVER intervals (Newcombe's method of variance estimates recovery) of a difference and of a ratio.

From two estimates with their own intervals (e.g. two cluster Wilson intervals,
:mod:`~bordir.stats.cluster_wilson`) and the correlation of the estimates:

* :func:`mover_difference` — ``e1 − e2``: Newcombe's hybrid score interval;
* :func:`mover_log_ratio` — ``e1 / e2 − 1``: the same on ``log e1 − log e2``,
  back-transformed; unbounded above when the second interval reaches 0, and
  ``−1`` below when the first does.

Example:
    >>> d, lo, hi = mover_difference(0.6, 0.5, 0.7, 0.4, 0.3, 0.5, 0.0)
    >>> round(d, 3), round(lo, 3), round(hi, 3)
    (0.2, 0.059, 0.341)
"""

from __future__ import annotations

import math

__all__ = ["mover_difference", "mover_log_ratio"]


def mover_difference(
    e1: float, l1: float, h1: float, e2: float, l2: float, h2: float, rho: float
) -> tuple[float, float, float]:
    """Newcombe's hybrid (MOVER) interval of ``e1 − e2`` from the two intervals and their correlation ``rho``."""
    d = e1 - e2
    lo = d - math.sqrt(max((e1 - l1) ** 2 - 2 * rho * (e1 - l1) * (h2 - e2) + (h2 - e2) ** 2, 0.0))
    hi = d + math.sqrt(max((h1 - e1) ** 2 - 2 * rho * (h1 - e1) * (e2 - l2) + (e2 - l2) ** 2, 0.0))
    return d, lo, hi


def _log(x: float) -> float:
    return math.log(x) if x > 0 else -math.inf


def mover_log_ratio(
    e1: float, l1: float, h1: float, e2: float, l2: float, h2: float, rho: float
) -> tuple[float, float, float]:
    """``e1 / e2 − 1`` with the MOVER interval of ``log e1 − log e2``, back-transformed (NaN when e2 = 0)."""
    if not e2 > 0:
        return math.nan, math.nan, math.nan
    if not e1 > 0:
        return -1.0, -1.0, math.expm1(_log(h1) - _log(l2)) if l2 > 0 else math.inf
    g1, g2 = math.log(e1), math.log(e2)
    dl1, dh1 = g1 - _log(l1), _log(h1) - g1
    dl2, dh2 = g2 - _log(l2), _log(h2) - g2
    if math.isinf(dl1) or math.isinf(dh2):
        lo = -math.inf
    else:
        lo = (g1 - g2) - math.sqrt(max(dl1**2 - 2 * rho * dl1 * dh2 + dh2**2, 0.0))
    if math.isinf(dh1) or math.isinf(dl2):
        hi = math.inf
    else:
        hi = (g1 - g2) + math.sqrt(max(dh1**2 - 2 * rho * dh1 * dl2 + dl2**2, 0.0))
    return (
        e1 / e2 - 1,
        math.expm1(lo) if lo > -math.inf else -1.0,
        math.expm1(hi) if hi < math.inf else math.inf,
    )
