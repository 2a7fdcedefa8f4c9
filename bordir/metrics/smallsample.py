"""Intervals over territories that keep their coverage with few territories.

The percentile cluster bootstrap (:func:`~bordir.metrics.uncertainty.cluster_bootstrap`)
covers 95 % at BorderLines scale (251 territories) but much less with few: at
12 territories (the demo) 64–90 % depending on the metric, at 30 90–94 %
(``docs/metrics.md``, ``benchmarks/coverage_bootstrap.py``). This module gives
intervals built for small samples, all pure functions of the per-territory
table (no resampling):

* **cluster Wilson** (:func:`wilson_ratio`) for the CS shares (KB, Control,
  Non-control, Cst, Cst unk): each is Σ num_t / Σ den_t with
  ``0 ≤ num_t ≤ den_t``, a mean of per-territory values in [0, 1]. The
  interval is the set of r with ``(Σnum − r·Σden)² ≤ z² · κ · r(1 − r) · Σden_t²``,
  the Wilson score interval with the binomial variance scaled by
  ``κ = min(1, V̂ / (p̂(1 − p̂) Σden_t²))``, ``V̂`` the cluster (linearisation)
  variance with the ``G / (G − 1)`` correction (a quasi-binomial Wilson
  interval). For 0/1 values it is exactly Wilson; it never collapses to a
  point when every territory agrees.
* **MOVER** (:func:`mover_difference`) for ΔCS unnormalised = Control −
  Non-control: Newcombe's hybrid of the two Wilson intervals, with the
  correlation of the two estimates across territories (both come from the
  same territories).
* **log-MOVER** for ΔCS = C / N − 1: the same on ``log C − log N``,
  back-transformed; unbounded above when N's interval reaches 0, and ``−1``
  below when C's does.
* :func:`bca_bounds`: bias-corrected and accelerated percentile bounds from
  bootstrap resamples and jackknife values, used by
  ``cluster_bootstrap(..., interval="bca")``.

Measured coverage (95 % nominal; 2,000 datasets per size; ``docs/metrics.md``):
12 territories 92–97 %, 30: 94–96 %, 60: 94–96 %, 251: 93–95 % for every metric (the percentile
bootstrap: 64–90 %, 90–94 %, 93–95 %, 93–95 %). Under uneven territory sizes correlated with agreement
(``benchmarks/verify_smallsample_coverage.py``) it falls to 87–89 % at 12 and 91–93 % at 30: hence the
warning below ``MIN_CLUSTERS``.

Example:
    >>> est, lo, hi = wilson_ratio(np.ones(10), np.ones(10))   # 10 of 10 territories agree
    >>> float(est), round(float(lo), 3), float(hi)
    (1.0, 0.722, 1.0)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

__all__ = [
    "TERRITORY_METHODS",
    "UNSTABLE_NON_CONTROL",
    "wilson_ratio",
    "influence",
    "mover_difference",
    "mover_log_ratio",
    "bca_bounds",
    "TerritoryInterval",
    "territory_interval_from_arrays",
    "few_clusters_warning",
    "pooled_columns",
    "COVERAGE_NOTE",
]

TERRITORY_METHODS: dict[str, str] = {
    "kb_cs": "wilson",
    "control_cs": "wilson",
    "non_control_cs": "wilson",
    "cst_cs": "wilson",
    "cst_cs_unknown": "wilson",
    "delta_cs_abs": "mover",
    "delta_cs": "mover-log",
}
"""The small-sample interval of each metric (see the module docs)."""
COVERAGE_NOTE = (
    "measured coverage of 95% intervals (docs/metrics.md): at 12 territories the percentile bootstrap "
    "64–90%, the small-sample interval 92–97% (87–89% when territory sizes are uneven); at 30: 90–94% "
    "and 94–96% (91–93%)"
)
"""The measured coverage, as the reports quote it (``benchmarks/coverage_bootstrap.py``)."""
UNSTABLE_NON_CONTROL = 0.1
"""ΔCS (normalised) is marked unstable when the lower end of Non-control CS's interval is below this: dividing
by it can then multiply Control CS by 10 or more."""


def _z(conf: float) -> float:
    return NormalDist().inv_cdf(1 - (1 - conf) / 2)


def wilson_ratio(
    num: np.ndarray, den: np.ndarray, conf: float = 0.95
) -> tuple[float, float, float]:
    """Cluster Wilson interval of ``Σnum / Σden`` over territories (``0 ≤ num ≤ den``); NaNs when undefined."""
    a, b = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    n, x, s2 = float(b.sum()), float(a.sum()), float((b * b).sum())
    if n <= 0:
        return math.nan, math.nan, math.nan
    p = x / n
    g = int((b > 0).sum())
    v = float(((a - p * b) ** 2).sum()) * (g / (g - 1) if g > 1 else 1.0)
    vbin = p * (1 - p) * s2
    kappa = min(1.0, v / vbin) if vbin > 1e-15 else 1.0
    k = _z(conf) ** 2 * kappa
    a2, a1, a0 = n * n + k * s2, -(2 * x * n + k * s2), x * x
    root = math.sqrt(max(a1 * a1 - 4 * a2 * a0, 0.0))
    lo, hi = (-a1 - root) / (2 * a2), (-a1 + root) / (2 * a2)
    return p, max(0.0, min(lo, p)), min(1.0, max(hi, p))


def influence(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """Per-territory linearisation of ``Σnum / Σden``: ``(num_t − R·den_t) / Σden`` (zeros when undefined)."""
    a, b = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    n = b.sum()
    if n <= 0:
        return np.zeros_like(a)
    return (a - (a.sum() / n) * b) / n


def _corr(u1: np.ndarray, u2: np.ndarray) -> float:
    d = math.sqrt(float((u1 * u1).sum() * (u2 * u2).sum()))
    return float((u1 * u2).sum()) / d if d > 0 else 0.0


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
        out.append(
            float(np.quantile(b, q_adj, method="inverted_cdf" if np.isinf(b).any() else "linear"))
        )
    return out[0], out[1]


@dataclass(frozen=True)
class TerritoryInterval:
    """A small-sample interval over territories (see the module docs).

    Attributes:
        metric: the metric.
        estimate: the metric on the runs pooled per territory.
        low, high: the interval (``high`` may be inf for ΔCS: ``None`` in JSON).
        method: ``wilson``, ``mover`` or ``mover-log``.
        n_clusters: territories that contribute (for ΔCS: the fewer of Control's and Non-control's).
        min_clusters: the rule (:data:`~bordir.metrics.uncertainty.MIN_CLUSTERS`).
        warning: set when ``n_clusters < min_clusters``.
        unstable: ΔCS only: Non-control CS's interval comes near 0 (:data:`UNSTABLE_NON_CONTROL`).
    """

    metric: str
    estimate: float | None
    low: float | None
    high: float | None
    method: str
    n_clusters: int
    min_clusters: int
    warning: str | None = None
    unstable: bool = False
    conf: float = 0.95

    @property
    def few_clusters(self) -> bool:
        return self.n_clusters < self.min_clusters

    def as_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "estimate": self.estimate,
            "ci95": [self.low, self.high],
            "method": self.method,
            "n_clusters": self.n_clusters,
            "min_clusters": self.min_clusters,
            "warning": self.warning,
            "unstable": self.unstable,
        }


def _none(x: float) -> float | None:
    return None if x is None or math.isnan(x) else float(x)


def few_clusters_warning(n: int, min_clusters: int) -> str:
    """The warning text for an interval over ``n < min_clusters`` territories."""
    return (
        f"only {n} territor{'y' if n == 1 else 'ies'} contribute (fewer than {min_clusters}): intervals over "
        f"territories cover less than their nominal 95% ({COVERAGE_NOTE})"
    )


def territory_interval_from_arrays(
    cols: dict[str, np.ndarray],
    metric: str,
    *,
    conf: float = 0.95,
    min_clusters: int = 30,
    ratio_columns: dict[str, tuple[str, str]],
) -> TerritoryInterval:
    """The interval of ``metric`` from per-territory columns (runs already pooled; see the module docs)."""

    def wil(name: str) -> tuple[float, float, float, int, np.ndarray]:
        n_col, d_col = ratio_columns[name]
        a, b = cols[n_col], cols[d_col]
        if (a < -1e-12).any() or (a > b + 1e-9).any():
            raise ValueError(f"{name}: per-territory numerators must lie in [0, denominator]")
        e, lo, hi = wilson_ratio(a, b, conf)
        return e, lo, hi, int((b > 0).sum()), influence(a, b)

    method = TERRITORY_METHODS[metric]
    unstable = False
    if method == "wilson":
        e, lo, hi, n, _ = wil(metric)
    else:
        e1, l1, h1, n1, u1 = wil("control_cs")
        e2, l2, h2, n2, u2 = wil("non_control_cs")
        n = min(n1, n2)
        if math.isnan(e1) or math.isnan(e2):
            e = lo = hi = math.nan
        elif method == "mover":
            e, lo, hi = mover_difference(e1, l1, h1, e2, l2, h2, _corr(u1, u2))
        else:
            e, lo, hi = mover_log_ratio(e1, l1, h1, e2, l2, h2, _corr(u1, u2))
            unstable = bool(l2 < UNSTABLE_NON_CONTROL)
    warning = few_clusters_warning(n, min_clusters) if n < min_clusters else None
    high = None if hi is None or math.isnan(hi) else float(hi)
    return TerritoryInterval(
        metric, _none(e), _none(lo), high, method, n, min_clusters, warning, unstable, conf
    )


def pooled_columns(tables: Sequence[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Per-territory columns averaged over runs (aligned arrays, one dict per run)."""
    keys = tables[0].keys()
    return {k: np.mean([t[k] for t in tables], axis=0) for k in keys}
