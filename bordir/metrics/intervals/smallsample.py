"""Intervals over territories that keep their coverage with few territories.

The percentile cluster bootstrap (:func:`~bordir.metrics.intervals.bootstrap.cluster_bootstrap`)
covers 95 % at BorderLines scale (251 territories) but much less with few: at
12 territories (the demo) 82–91 % depending on the metric (64 % for Cst CS unk
before intervals over fewer than 5 contributing territories were refused), at
30 92–94 % (``docs/metrics.md``, ``benchmarks/coverage_bootstrap.py``). This module gives
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

Measured coverage (95 % nominal; 1,000 datasets per size, over the datasets given an interval;
``docs/metrics.md``): 12 territories 93–98 %, 30: 94–95 %, 60: 94–96 %, 251: 95–96 % for every
metric (the percentile bootstrap: 82–91 %, 92–94 %, 93–95 %, 95–96 %). Under uneven territory sizes correlated with agreement
(``benchmarks/verify_smallsample_coverage.py``) it falls to 87–89 % at 12 and 91–93 % at 30: hence the
warning below ``MIN_CLUSTERS``. With 1–4 *contributing* territories coverage falls much further (Cst CS
unk, which rests on the Unknown-controller territories alone: 78–96 %, 38–87 % with uneven sizes;
``benchmarks/coverage_runs.py``), so no interval is given there (:data:`MIN_INTERVAL_CLUSTERS`,
``refused``), nor for the normalised ΔCS when its upper bound is not finite. A metric whose coverage
differs has its own note (:data:`METRIC_COVERAGE_NOTES`).

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
    "ci_pair",
    "TERRITORY_METHODS",
    "MIN_INTERVAL_CLUSTERS",
    "UNSTABLE_NON_CONTROL",
    "too_few_reason",
    "unbounded_reason",
    "TerritoryInterval",
    "territory_interval_from_arrays",
    "few_clusters_warning",
    "coverage_note",
    "METRIC_COVERAGE_NOTES",
    "pooled_columns",
    "COVERAGE_NOTE",
]

TERRITORY_METHODS: dict[str, str] = {
    "kb_cs": "wilson",
    "control_cs": "wilson",
    "non_control_cs": "wilson",
    "cst_cs": "wilson",
    "cst_cs_unknown": "wilson",
    "delta_cs": "mover",
    "delta_cs_norm": "mover-log",
}
"""The small-sample interval of each metric (see the module docs)."""
COVERAGE_NOTE = (
    "measured coverage of 95% intervals (docs/metrics.md): at 12 territories the percentile bootstrap "
    "82–91%, the small-sample interval 93–98% (87–89% when territory sizes are uneven); at 30: 92–94% "
    "and 94–95% (91–93%); no interval over fewer than 5 contributing territories"
)
"""The measured coverage, as the reports quote it (``benchmarks/coverage_bootstrap.py``)."""
METRIC_COVERAGE_NOTES: dict[str, str] = {
    "cst_cs_unknown": (
        "Cst CS unk rests on the Unknown-controller territories alone (usually 1–5 of 12): measured "
        "coverage of its 95% interval with 1, 2, 3, 4 contributing territories 78, 88, 90, 96% (38, 79, "
        "83, 87% when territory sizes are uneven), 91–96% from 5 on, so no interval is given below 5 "
        "(docs/metrics.md, benchmarks/coverage_runs.py)"
    ),
    "delta_cs_norm": (
        "the normalised ΔCS over runs is the ratio of the counts pooled over the runs; measured coverage "
        "of its small-sample interval at 12 territories 90–92% (87–91% when territory sizes are uneven), "
        "at 30: 93–94% (89–94%); no interval when its upper bound is not finite (docs/metrics.md)"
    ),
}
"""A metric's own coverage note, where it differs from :data:`COVERAGE_NOTE` (``coverage_note``)."""
MIN_INTERVAL_CLUSTERS = 5
"""No interval over territories (small-sample or bootstrap) is given when fewer territories contribute: with
1–4 contributing territories the simulated 95 % intervals cover far less (``docs/metrics.md``,
``benchmarks/coverage_runs.py``; one territory with a fractional value gives a zero-width interval), so
the estimate is shown with its count and no interval."""
UNSTABLE_NON_CONTROL = 0.1
"""ΔCS (normalised) is marked unstable when the lower end of Non-control CS's interval is below this: dividing
by it can then multiply Control CS by 10 or more."""


@dataclass(frozen=True)
class TerritoryInterval:
    """A small-sample interval over territories (see the module docs).

    Attributes:
        metric: the metric.
        estimate: the metric on the runs pooled per territory.
        low, high: the interval; both None when it is refused (``refused`` says why).
        method: ``wilson``, ``mover`` or ``mover-log``.
        n_clusters: territories that contribute (for ΔCS: the fewer of Control's and Non-control's).
        min_clusters: the rule (:data:`~bordir.metrics.intervals.bootstrap.MIN_CLUSTERS`).
        warning: set when ``n_clusters < min_clusters``.
        unstable: ΔCS only: Non-control CS's interval comes near 0 (:data:`UNSTABLE_NON_CONTROL`).
        refused: why there is no interval: fewer than :data:`MIN_INTERVAL_CLUSTERS` contributing
            territories, or (normalised ΔCS) no finite upper bound. An infinite or undefined bound
            is never given as an interval.
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
    refused: str | None = None

    @property
    def few_clusters(self) -> bool:
        return self.n_clusters < self.min_clusters

    def as_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "estimate": self.estimate,
            "ci95": ci_pair(self.low, self.high),
            "method": self.method,
            "n_clusters": self.n_clusters,
            "min_clusters": self.min_clusters,
            "warning": self.warning,
            "unstable": self.unstable,
            "refused": self.refused,
        }


def ci_pair(low: float | None, high: float | None) -> list[float] | None:
    """``[low, high]``, or None when either end is undefined (an interval as the JSON outputs hold it)."""
    return None if low is None or high is None else [low, high]


def _none(x: float) -> float | None:
    return None if x is None or math.isnan(x) else float(x)


def too_few_reason(n: int, minimum: int = MIN_INTERVAL_CLUSTERS) -> str:
    """Why no interval is given over ``n < minimum`` contributing territories."""
    return (
        f"no interval: only {n} contributing territor{'y' if n == 1 else 'ies'} (an interval needs at "
        f"least {minimum}; below that simulated 95% intervals cover far less, docs/metrics.md)"
    )


def unbounded_reason(what: str) -> str:
    """Why no interval is given for the normalised ΔCS when its upper end is not finite."""
    return (
        f"no interval: {what}, so the normalised ΔCS has no finite upper bound (report ΔCS instead)"
    )


def coverage_note(metric: str | None = None) -> str:
    """The measured coverage of ``metric``'s interval over territories: its own note, else :data:`COVERAGE_NOTE`."""
    return METRIC_COVERAGE_NOTES.get(metric or "", COVERAGE_NOTE)


def few_clusters_warning(n: int, min_clusters: int, metric: str | None = None) -> str:
    """The warning text for an interval over ``n < min_clusters`` territories (``metric``: its own note)."""
    return (
        f"only {n} territor{'y' if n == 1 else 'ies'} contribute (fewer than {min_clusters}): intervals over "
        f"territories cover less than their nominal 95% ({coverage_note(metric)})"
    )


def territory_interval_from_arrays(
    cols: dict[str, np.ndarray],
    metric: str,
    *,
    conf: float = 0.95,
    min_clusters: int = 30,
    ratio_columns: dict[str, tuple[str, str]],
    min_interval: int = MIN_INTERVAL_CLUSTERS,
) -> TerritoryInterval:
    """The interval of ``metric`` from per-territory columns (runs already pooled; see the module docs).

    ``min_interval``: fewer contributing territories give no interval (``refused``); the
    simulations pass 0 to measure the coverage below :data:`MIN_INTERVAL_CLUSTERS`.
    """

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
    warning = few_clusters_warning(n, min_clusters, metric) if n < min_clusters else None
    low, high = _none(lo), _none(hi)
    refused = None
    if n < min_interval and _none(e) is not None:
        refused = too_few_reason(n, min_interval)
    elif high is not None and math.isinf(high):
        refused = unbounded_reason("Non-control CS's interval reaches 0")
    if refused:
        low = high = None
    return TerritoryInterval(
        metric, _none(e), low, high, method, n, min_clusters, warning, unstable, conf, refused
    )


def pooled_columns(tables: Sequence[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Per-territory columns averaged over runs (aligned arrays, one dict per run)."""
    keys = tables[0].keys()
    return {k: np.mean([t[k] for t in tables], axis=0) for k in keys}
