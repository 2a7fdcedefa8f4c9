"""Intervals over territories that keep their coverage with few territories.

The percentile cluster bootstrap (:func:`~bordir.metrics.intervals.bootstrap.cluster_bootstrap`)
covers 95 % at BorderLines scale (251 territories) but much less with few: at
12 territories (the demo) 64–90 % depending on the metric, at 30 90–94 %
(``docs/metrics.md``, ``benchmarks/coverage_bootstrap.py``). This module gives
intervals built for small samples, all pure functions of the per-territory
table (no resampling):

* the **cluster Wilson** interval (:func:`bordir.stats.wilson_ratio`) for the CS
  shares (KB, Control, Non-control, Cst, Cst unk): each is Σ num_t / Σ den_t with
  ``0 ≤ num_t ≤ den_t``, a mean of per-territory values in [0, 1];
* **MOVER** (:func:`bordir.stats.mover_difference`) for ΔCS unnormalised = Control −
  Non-control: Newcombe's hybrid of the two Wilson intervals, with the
  correlation of the two estimates across territories (both come from the
  same territories);
* **log-MOVER** (:func:`bordir.stats.mover_log_ratio`) for ΔCS = C / N − 1: the same
  on ``log C − log N``, back-transformed; unbounded above when N's interval reaches
  0, and ``−1`` below when C's does.

Measured coverage (95 % nominal; 2,000 datasets per size; ``docs/metrics.md``):
12 territories 92–97 %, 30: 94–96 %, 60: 94–96 %, 251: 93–95 % for every metric (the percentile
bootstrap: 64–90 %, 90–94 %, 93–95 %, 93–95 %). Under uneven territory sizes correlated with agreement
(``benchmarks/verify_smallsample_coverage.py``) it falls to 87–89 % at 12 and 91–93 % at 30: hence the
warning below ``MIN_CLUSTERS``.

Example:
    >>> cols = {"kb_num": np.ones(10), "kb_den": np.ones(10)}   # 10 of 10 territories agree
    >>> iv = territory_interval_from_arrays(cols, "kb_cs", ratio_columns={"kb_cs": ("kb_num", "kb_den")})
    >>> iv.estimate, round(iv.low, 3), iv.high, iv.method
    (1.0, 0.722, 1.0, 'wilson')
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...stats.cluster_wilson import correlation, influence, wilson_ratio
from ...stats.mover import mover_difference, mover_log_ratio

__all__ = [
    "TERRITORY_METHODS",
    "UNSTABLE_NON_CONTROL",
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


@dataclass(frozen=True)
class TerritoryInterval:
    """A small-sample interval over territories (see the module docs).

    Attributes:
        metric: the metric.
        estimate: the metric on the runs pooled per territory.
        low, high: the interval (``high`` may be inf for ΔCS: ``None`` in JSON).
        method: ``wilson``, ``mover`` or ``mover-log``.
        n_clusters: territories that contribute (for ΔCS: the fewer of Control's and Non-control's).
        min_clusters: the rule (:data:`~bordir.metrics.intervals.bootstrap.MIN_CLUSTERS`).
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
            e, lo, hi = mover_difference(e1, l1, h1, e2, l2, h2, correlation(u1, u2))
        else:
            e, lo, hi = mover_log_ratio(e1, l1, h1, e2, l2, h2, correlation(u1, u2))
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
