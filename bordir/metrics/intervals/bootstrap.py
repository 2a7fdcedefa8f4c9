"""The cluster bootstrap over territories: resample territories with replacement, percentile or BCa interval.

Territories are resampled with replacement, so the answers of one territory in
all its languages (and in all runs) move together. A resample is a weight
vector over the per-territory table (:func:`bordir.stats.bootstrap_weights`), so a named
metric is one weighted column sum per resample. ΔCS (normalised) is resampled
as log(C/N): resamples with N* = 0 < C* are +∞ and stay in the quantiles
(counted in ``n_infinite``), so the interval is not biased low by dropping them.
Over several runs it is the **pooled** ratio ``ΣC / ΣN − 1`` (Control's and
Non-control's counts summed over the runs, in the data and in every resample),
not the mean of per-run ratios: one run with Non-control CS 0 makes its own
ratio +∞, and that mean with it. Intervals over fewer than :data:`MIN_CLUSTERS`
contributing territories carry a ``warning``; none is given (``refused``) over
fewer than :data:`~bordir.metrics.intervals.smallsample.MIN_INTERVAL_CLUSTERS`,
nor for the normalised ΔCS when more than the upper tail of its resamples are
infinite or undefined: an infinite or undefined bound is never an interval.

Example:
    >>> t = pd.DataFrame({"territory": list("abc"), "kb_num": [1.0, 0, 1], "kb_den": [1.0, 1, 1]})
    >>> cluster_bootstrap(t, "kb_cs", n_resamples=100, seed=0).n_territories
    3
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd  # noqa: F401  (the examples use it)

from ...errors import ConfigError
from ...signature import Signature
from ...stats.bca import bca_bounds
from ...stats.percentile import percentile_bounds
from ...stats.resample import DEFAULT_RESAMPLES, bootstrap_weights
from ...stats.seeds import resolve_seed
from ..cs.aggregate import RATIO_METRICS, metric_value
from ..cs.table import ColumnStats, TerritoryStats
from .aligned import (
    MetricLike,
    TableLike,
    aligned_columns,
    as_tables,
    contributing_territories,
    mean_over_runs,
    metric_columns,
    territory_axis,
)
from .smallsample import (
    MIN_INTERVAL_CLUSTERS,
    ci_pair,
    few_clusters_warning,
    too_few_reason,
    unbounded_reason,
)

__all__ = [
    "BOOT_INTERVALS",
    "refusal",
    "pool_over_runs",
    "MIN_CLUSTERS",
    "BootstrapResult",
    "cluster_bootstrap",
]

_NORMALISED = "delta_cs_norm"
"""The normalised ΔCS (Control / Non-control − 1): resampled on the log scale, its runs pooled."""
BOOT_INTERVALS: tuple[str, ...] = ("percentile", "bca")
"""Bootstrap intervals of :func:`cluster_bootstrap`."""
MIN_CLUSTERS = 30
"""Intervals over territories resting on fewer contributing territories than this carry a ``warning``
(every output shows it). Measured 95 % coverage (``docs/metrics.md``): the percentile bootstrap 82–91 % at 12
territories and 92–94 % at 30; the small-sample :func:`~bordir.metrics.intervals.territory.territory_interval` 93–98 % at 12 and 94–95 % at 30
(none is given below :data:`~bordir.metrics.intervals.smallsample.MIN_INTERVAL_CLUSTERS`)."""


@dataclass(frozen=True)
class BootstrapResult:
    """A cluster-bootstrap interval (percentile or BCa).

    Attributes:
        metric: metric name (or the callable's ``__name__``).
        estimate: the metric on the data (mean over runs when several; the normalised ΔCS: the
            ratio of the counts pooled over runs).
        low, high: interval bounds; both None when the interval is ``refused``.
        n_resamples, seed, conf: the bootstrap settings.
        n_territories: clusters resampled; n_runs: tables per resample.
        n_undefined: resamples where the metric was undefined (left out).
        n_infinite: ΔCS only: resamples with Non-control CS 0 and Control CS > 0 (ΔCS = +∞, kept).
        interval: ``percentile`` or ``bca``.
        n_clusters: territories contributing to the metric (for a callable: all resampled ones).
        min_clusters: the rule (:data:`MIN_CLUSTERS`); warning: set when fewer territories contribute.
        refused: why no interval is given (too few contributing territories, or infinite /
            undefined resamples beyond the upper tail); None when there is one.
        pooled: the runs' counts were pooled (the normalised ΔCS over several runs).
    """

    metric: str
    estimate: float | None
    low: float | None
    high: float | None
    n_resamples: int
    seed: int
    n_territories: int
    n_runs: int = 1
    n_undefined: int = 0
    conf: float = 0.95
    n_infinite: int = 0
    interval: str = "percentile"
    n_clusters: int | None = None
    min_clusters: int = MIN_CLUSTERS
    warning: str | None = None
    refused: str | None = None
    pooled: bool = False

    @property
    def share_undefined(self) -> float:
        """Share of resamples that were undefined or infinite."""
        return (self.n_undefined + self.n_infinite) / self.n_resamples if self.n_resamples else 0.0

    @property
    def signature(self) -> Signature:
        kind = "cluster" if self.interval == "percentile" else self.interval
        return Signature.build(
            self.metric,
            runs=self.n_runs,
            pool="runs" if self.pooled else None,
            boot=self.n_resamples,
            seed=self.seed,
            ci=f"{kind}{int(round(self.conf * 100))}",
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "estimate": self.estimate,
            "ci95": ci_pair(self.low, self.high),
            "interval": self.interval,
            "n_resamples": self.n_resamples,
            "seed": self.seed,
            "n_territories": self.n_territories,
            "n_clusters": self.n_clusters,
            "n_runs": self.n_runs,
            "n_undefined": self.n_undefined,
            "n_infinite": self.n_infinite,
            "share_undefined": self.share_undefined,
            "min_clusters": self.min_clusters,
            "warning": self.warning,
            "refused": self.refused,
            "pooled_runs": self.pooled,
            "signature": str(self.signature),
        }


def refusal(boot: np.ndarray, n_clusters: int, *, conf: float = 0.95) -> str | None:
    """Why the percentile interval of ``boot`` (resampled values) is not given, or None.

    Fewer than :data:`~bordir.metrics.intervals.smallsample.MIN_INTERVAL_CLUSTERS` contributing
    territories; or more than the upper tail ``(1 − conf) / 2`` of the resamples infinite (the
    normalised ΔCS with Non-control CS* = 0 < Control CS*: the upper bound is +∞) or undefined
    (a denominator 0: dropping them would bias the interval).

    >>> refusal(np.r_[np.ones(90), np.full(10, np.inf)], 12)[:48]
    'no interval: Non-control CS is 0 in 10.0% of the'
    >>> refusal(np.ones(100), 12) is None, refusal(np.ones(100), 4)[:29]
    (True, 'no interval: only 4 contribut')
    """
    if n_clusters < MIN_INTERVAL_CLUSTERS:
        return too_few_reason(n_clusters)
    if not len(boot):
        return None
    tail = (1 - conf) / 2
    share_inf, share_nan = float(np.isinf(boot).mean()), float(np.isnan(boot).mean())
    if share_inf > 0 and share_inf + share_nan > tail:
        return unbounded_reason(
            f"Non-control CS is 0 in {share_inf + share_nan:.1%} of the bootstrap resamples "
            f"(more than {tail:.1%})"
        )
    if share_nan > tail:
        return (
            f"no interval: the metric is undefined in {share_nan:.1%} of the bootstrap resamples "
            f"(more than {tail:.1%}): too few territories contribute"
        )
    return None


def pool_over_runs(arrays: list[dict[str, np.ndarray]]) -> list[dict[str, np.ndarray]]:
    """One table of the runs' columns summed per territory (the counts pooled over runs)."""
    return [{k: np.sum([a[k] for a in arrays], axis=0) for k in arrays[0]}]


def _same_territories(
    tables: TableLike | Sequence[TableLike], metric: MetricLike
) -> tuple[list[str], list[ColumnStats]] | None:
    """``(territories, tables)`` when the tables' columns are aligned as they are, else None.

    That is when every table is a :class:`ColumnStats` over the same territories (in the same
    order, each once) and ``metric`` a name.
    """
    ts = [tables] if isinstance(tables, TerritoryStats) else tables
    if (
        not isinstance(metric, str)
        or not isinstance(ts, Sequence)
        or not ts
        or not all(isinstance(t, ColumnStats) and t.n_territories for t in ts)
    ):
        return None
    stats = [t for t in ts if isinstance(t, ColumnStats)]
    axis = stats[0].column("territory")
    terrs = axis.tolist()
    if len(set(terrs)) != len(terrs) or not all(
        np.array_equal(t.column("territory"), axis) for t in stats[1:]
    ):
        return None
    return terrs, stats


def _contributing(arrays: list[dict[str, np.ndarray]], metric: str) -> int:
    """:func:`~bordir.metrics.intervals.aligned.contributing_territories` of aligned columns."""
    names = [metric] if metric in RATIO_METRICS else ["control_cs", "non_control_cs"]
    dens = [RATIO_METRICS[n][1] for n in names]
    return min(int((np.sum([a[d] for a in arrays], axis=0) > 0).sum()) for d in dens)


def _resampled_sums(
    arrays: list[dict[str, np.ndarray]], weights: np.ndarray
) -> dict[str, np.ndarray]:
    """Every run's weighted column sums for every resample: shape ``(runs, resamples, 1)``.

    A metric reads the sums over its last axis, of length 1. A column of whole numbers (the
    0/1 numerators and denominators, counts) is one matrix product of the runs' columns against
    the resample weights: its sums are exact, so equal to the weighted sums in any order. Any
    other column is summed run by run, exactly as a weighted sum over territories rounds.
    """
    w = np.asarray(weights, dtype=float)
    out = {}
    for c in arrays[0]:
        runs = np.stack([a[c] for a in arrays])
        if np.array_equal(runs, np.round(runs)) and float(np.abs(runs).max(initial=0)) < 2.0**20:
            out[c] = (runs @ w.T)[:, :, None]
        else:
            out[c] = _weighted_sums(runs, w)[:, :, None]
    return out


_BLOCK = 8
"""Runs weighted at once by :func:`_weighted_sums` (a block's products: 8 × resamples × territories)."""


def _weighted_sums(runs: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``(w * r).sum(axis=-1)`` for every run ``r`` (rows of ``runs``): shape ``(runs, resamples)``.

    A block of runs is one product and one sum over the last axis, which numpy sums row by row
    with the same pairwise summation as each run's own sum, so every value has the same bits.
    On more than one CPU (:func:`bordir._fork.cpus`) the two halves of the runs are weighted in two
    threads (numpy lets go of the GIL in both steps): the bootstrap of a 232-run Cst CS over 1,000
    resamples took 73 ms in one thread, 32 ms in two.
    """
    from ..._fork import cpus

    out = np.empty((len(runs), len(w)))

    def part(lo: int, hi: int) -> None:
        for i in range(lo, hi, _BLOCK):
            j = min(i + _BLOCK, hi)
            out[i:j] = (w[None] * runs[i:j, None, :]).sum(axis=-1)

    n = len(runs)
    if n >= 2 * _BLOCK and runs.size * len(w) >= 1_000_000 and cpus() > 1:
        import threading

        mid = n // 2
        other = threading.Thread(target=part, args=(mid, n), name="bordir-bootstrap")
        other.start()
        try:
            part(0, mid)
        finally:
            other.join()
    else:
        part(0, n)
    return out


def _delta_log_scale(arrays: dict[str, np.ndarray], weights: np.ndarray | None) -> np.ndarray:
    """ΔCS = C/N − 1 per resample, +∞ where N = 0 < C (the log(C/N) bootstrap), NaN where undefined."""
    c = np.asarray(metric_value(arrays, "control_cs", weights), dtype=float)
    n = np.asarray(metric_value(arrays, "non_control_cs", weights), dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(
            n > 0, c / np.where(n > 0, n, 1.0) - 1.0, np.where((n == 0) & (c > 0), np.inf, np.nan)
        )


def cluster_bootstrap(
    tables: TableLike | Sequence[TableLike],
    metric: MetricLike,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = None,
    conf: float = 0.95,
    interval: str = "percentile",
    min_clusters: int = MIN_CLUSTERS,
) -> BootstrapResult:
    """Percentile (or BCa) CI of a metric, resampling territories with replacement.

    Args:
        tables: one per-territory table (or :class:`TerritoryStats`), or one
            per run: then the same territories are drawn for every run and the
            statistic is the mean over runs, so the interval covers both the
            choice of territories and run-to-run noise.
        metric: a name in :data:`~bordir.metrics.cs.aggregate.METRICS` (vectorised), or
            any function of a per-territory table (slower: one call per resample).
        n_resamples: number of bootstrap resamples.
        seed: the RNG seed (default: ``$BORDIR_SEED`` or :data:`bordir.settings.DEFAULT_SEED`).
        conf: confidence level.
        interval: ``percentile`` or ``bca`` (bias-corrected and accelerated; jackknife over territories).
        min_clusters: fewer contributing territories set ``warning`` (:data:`MIN_CLUSTERS`).

    Example:
        >>> t = pd.DataFrame({"territory": list("abcdefgh"), "kb_num": [1.0, 1, 0, 1] * 2, "kb_den": [1.0] * 8})
        >>> r = cluster_bootstrap(t, "kb_cs", n_resamples=200, seed=7)
        >>> r.estimate, 0.0 <= r.low <= r.estimate <= r.high <= 1.0
        (0.75, True)
        >>> str(r.signature)
        'kb_cs|runs:1|boot:200|seed:7|ci:cluster95|version:0.1.0'
        >>> r.warning.startswith("only 8 territories contribute")
        True
        >>> few = cluster_bootstrap(t.head(4), "kb_cs", n_resamples=200, seed=7)
        >>> few.estimate, few.low, few.refused[:32]
        (0.75, None, 'no interval: only 4 contributing')
    """
    seed = resolve_seed(seed)
    if n_resamples < 1:
        raise ConfigError(f"n_resamples must be >= 1, found {n_resamples}")
    if interval not in BOOT_INTERVALS:
        raise ConfigError(
            f"unknown bootstrap interval {interval!r}; known: {', '.join(BOOT_INTERVALS)}"
        )
    same = _same_territories(tables, metric)
    dfs: list[Any] = list(same[1]) if same is not None else as_tables(tables)
    terrs = same[0] if same is not None else territory_axis(dfs)
    rng = np.random.default_rng(seed)
    w = bootstrap_weights(len(terrs), n_resamples, rng)
    jack_w = 1.0 - np.eye(len(terrs)) if interval == "bca" else None
    jack = None
    if isinstance(metric, str):
        name = metric
        if same is not None:  # the runs' columns as they are: no DataFrame, no reindexing
            # each column of every run in one (runs, territories) array: one conversion, not one a run
            stacked = {
                c: np.nan_to_num(
                    np.stack([t.column(c) for t in same[1]]).astype(float), nan=0.0, copy=False
                )
                for c in metric_columns(metric)
            }
            arrays = [{c: v[i] for c, v in stacked.items()} for i in range(len(same[1]))]
            n_clusters = _contributing(arrays, metric)
        else:
            arrays = aligned_columns(dfs, metric_columns(metric), terrs)
            n_clusters = contributing_territories(dfs, metric)

        pooled = metric == _NORMALISED and len(arrays) > 1
        if pooled:  # one +∞ run would make the mean over runs +∞: pool the counts instead
            arrays = pool_over_runs(arrays)

        def value(a: dict[str, np.ndarray], weights: np.ndarray | None) -> np.ndarray:
            if metric == _NORMALISED:
                return _delta_log_scale(a, weights)
            return np.asarray(metric_value(a, metric, weights=weights), dtype=float)

        estimate = mean_over_runs([value(a, None) for a in arrays])
        boot = mean_over_runs(list(value(_resampled_sums(arrays, w), None)))
        if jack_w is not None:
            jack = mean_over_runs(list(value(_resampled_sums(arrays, jack_w), None)))
    else:
        name = getattr(metric, "__name__", "metric")
        pooled = False
        estimate = mean_over_runs([np.asarray(metric(t), dtype=float) for t in dfs])
        positions = []
        for t in dfs:
            pos = {x: i for i, x in enumerate(t["territory"])} if "territory" in t.columns else {}
            positions.append(np.array([pos.get(x, -1) if pos else i for i, x in enumerate(terrs)]))

        def at(idx: np.ndarray) -> float:
            vals = []
            for t, pos_arr in zip(dfs, positions):
                rows = pos_arr[idx]
                vals.append(np.asarray(metric(t.iloc[rows[rows >= 0]]), dtype=float))
            return float(mean_over_runs(vals))

        boot = np.array([at(np.repeat(np.arange(len(terrs)), w[b])) for b in range(n_resamples)])
        if jack_w is not None:
            jack = np.array([at(np.delete(np.arange(len(terrs)), i)) for i in range(len(terrs))])
        n_clusters = len(terrs)
    boot = np.asarray(boot, dtype=float)
    est = float(estimate)
    n_inf = int(np.isinf(boot).sum())
    lo, hi, n_undef = percentile_bounds(boot, conf)
    if interval == "bca" and jack is not None and not math.isnan(est):
        lo, hi = bca_bounds(boot, est, np.asarray(jack, dtype=float), conf)
    warning = (
        few_clusters_warning(n_clusters, min_clusters, name) if n_clusters < min_clusters else None
    )
    refused = refusal(boot, n_clusters, conf=conf)
    if refused is None and (
        lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi))
    ):
        refused = unbounded_reason("a bound is not finite") if lo is not None else None
    if refused is not None:
        lo = hi = None
    return BootstrapResult(
        name,
        None if math.isnan(est) or math.isinf(est) else est,
        lo,
        hi,
        n_resamples,
        seed,
        len(terrs),
        len(dfs),
        n_undef,
        conf,
        n_inf,
        interval,
        n_clusters,
        min_clusters,
        warning,
        refused,
        pooled,
    )
