"""Uncertainty: intervals over runs, cluster bootstrap over territories, paired tests.

Which variance each interval covers:

* :func:`t_interval` — run-to-run (sampling) noise only: the mean of a metric
  over R runs and a t-interval. ``t95`` uses the sample σ (ddof = 1);
  ``paper`` reproduces BordIRLines (population σ, ddof = 0, with
  t(0.975, df = n − 1); the reference hard-codes n = 10, here n is the actual
  number of runs, which is the same for 10 runs).
* :func:`cluster_bootstrap` — the sampling of territories: territories are
  resampled with replacement, so the answers of one territory in all its
  languages (and in all runs) move together. Percentile interval (or BCa,
  ``interval="bca"``). ΔCS (normalised) is resampled as log(C/N): resamples
  with N* = 0 < C* are +∞ and stay in the quantiles (counted in
  ``n_infinite``), so the interval is not biased low by dropping them.
* :func:`territory_interval` — the small-sample interval over territories
  (cluster Wilson for the CS shares, MOVER for ΔCS; :mod:`~.smallsample`),
  which keeps its coverage at 12 territories where the percentile bootstrap
  does not.
* :data:`MIN_CLUSTERS` — intervals over fewer contributing territories carry
  a ``warning``.
* :func:`paired_comparison` — two configurations (modes, models) on the same
  territories: paired bootstrap CI of the difference (the effect size) and a
  permutation test that swaps the two configurations within territories
  (= sign flips of per-territory differences for a mean over territories),
  with p = (c + 1) / (n + 1).
* :func:`holm` / :func:`holm_adjust` — Holm's step-down correction across the
  comparisons shown (``statsmodels``). These two items live in
  :mod:`~bordir.metrics.paired` and are re-exported here.

Randomness comes from ``np.random.default_rng(seed)``; the seed defaults to
:data:`DEFAULT_SEED`, is overridden by the ``BORDIR_SEED`` environment
variable, and is recorded in every result's signature.

Example:
    >>> iv = t_interval([0.70, 0.72, 0.74])
    >>> round(iv.mean, 2), [round(x, 4) for x in (iv.low, iv.high)]
    (0.72, [0.6703, 0.7697])
    >>> sign_flip_test([0.0, 0.0, 0.0], n_permutations=99, seed=1)
    1.0
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

import numpy as np
import pandas as pd

from .._extras import require
from ..errors import ConfigError
from .cs import DERIVED_METRICS, RATIO_METRICS, TerritoryStats, metric_value
from .signature import Signature
from .smallsample import (
    TerritoryInterval,
    bca_bounds,
    few_clusters_warning,
    territory_interval_from_arrays,
)

__all__ = [
    "DEFAULT_SEED",
    "SEED_ENV",
    "DEFAULT_RESAMPLES",
    "MIN_CLUSTERS",
    "BOOT_INTERVALS",
    "CI_VARIANTS",
    "resolve_seed",
    "Interval",
    "t_interval",
    "BootstrapResult",
    "bootstrap_weights",
    "cluster_bootstrap",
    "contributing_territories",
    "TerritoryInterval",
    "territory_interval",
    "pool_runs",
    "PairedComparison",
    "flip_matrix",
    "sign_flip_test",
    "paired_comparison",
    "holm",
    "holm_adjust",
]

DEFAULT_SEED = 12345
SEED_ENV = "BORDIR_SEED"
DEFAULT_RESAMPLES = 2000
CI_VARIANTS: tuple[str, ...] = ("t95", "paper")
CIVariant = Literal["t95", "paper"]
BOOT_INTERVALS: tuple[str, ...] = ("percentile", "bca")
"""Bootstrap intervals of :func:`cluster_bootstrap`."""
MIN_CLUSTERS = 30
"""Intervals over territories resting on fewer contributing territories than this carry a ``warning``
(every output shows it). Measured 95 % coverage (``docs/metrics.md``): the percentile bootstrap 64–90 % at 12
territories and 90–94 % at 30; the small-sample :func:`territory_interval` 92–97 % at 12 and 94–96 % at 30."""
_EPS = 1e-12

TableLike: TypeAlias = pd.DataFrame | TerritoryStats
MetricLike: TypeAlias = str | Callable[[pd.DataFrame], float]


def resolve_seed(seed: int | None = None) -> int:
    """``seed`` if given, else ``$BORDIR_SEED``, else :data:`DEFAULT_SEED`."""
    if seed is not None:
        return int(seed)
    env = os.environ.get(SEED_ENV)
    if env is None or env.strip() == "":
        return DEFAULT_SEED
    try:
        return int(env)
    except ValueError:
        raise ConfigError(
            f"{SEED_ENV}={env!r} is not an integer; set it to a seed such as {DEFAULT_SEED}"
        ) from None


# --- intervals over runs ------------------------------------------------------


@dataclass(frozen=True)
class Interval:
    """Mean over runs and its confidence interval (``None`` bounds when n < 2).

    Attributes:
        mean: mean of the defined values.
        low, high: interval bounds.
        n: number of (defined) values.
        sd: the σ used (ddof per ``variant``).
        variant: ``t95`` or ``paper``.
        conf: confidence level.
        n_undefined: runs whose value was undefined (None/NaN) and left out.
    """

    mean: float | None
    low: float | None
    high: float | None
    n: int
    sd: float | None
    variant: str = "t95"
    conf: float = 0.95
    n_undefined: int = 0

    @property
    def note(self) -> str:
        """Says how many runs were skipped as undefined (empty when none was)."""
        if not self.n_undefined:
            return ""
        total = self.n + self.n_undefined
        if self.n == 0:
            return f"undefined in all {total} runs"
        return (
            f"skipped {self.n_undefined} undefined run{'s' if self.n_undefined > 1 else ''} of {total}: "
            f"mean and interval over the other {self.n}"
        )

    def as_dict(self) -> dict[str, Any]:
        """``mean``, ``ci95``, ``n_runs``; plus ``n_undefined`` and ``note`` when runs were skipped as undefined."""
        ci = None if self.low is None else [self.low, self.high]
        out: dict[str, Any] = {
            "mean": self.mean,
            "ci95" if self.conf == 0.95 else f"ci{self.conf:g}": ci,
            "n_runs": self.n,
        }
        if self.n_undefined:
            out.update(n_undefined=self.n_undefined, note=self.note)
        return out


def t_interval(
    values: Sequence[float | None],
    *,
    variant: CIVariant = "t95",
    conf: float = 0.95,
    bounds: tuple[float, float] | None = None,
) -> Interval:
    """Mean and t-interval over runs; ``None``/NaN values are left out (and not counted).

    ``t95``: mean ± t(1 − α/2, n − 1) · s / √n with s the sample σ (ddof = 1).
    ``paper``: the same with the population σ (ddof = 0), as BordIRLines.
    ``bounds``: clip the interval to the metric's range (e.g. ``(0, 1)`` for a
    share); with few runs the t-quantile is large (4.30 for 3 runs) and the
    unclipped interval can leave the range. Undefined runs are counted in
    ``n_undefined`` and named in ``note``.

    >>> t_interval([0.9, 1.0, 0.8], bounds=(0, 1)).high
    1.0
    >>> t_interval([0.2, None, 0.4]).note
    'skipped 1 undefined run of 3: mean and interval over the other 2'
    """
    if variant not in CI_VARIANTS:
        raise ConfigError(f"unknown interval variant {variant!r}; known: {', '.join(CI_VARIANTS)}")
    x = np.array([np.nan if v is None else v for v in values], dtype=float)
    undefined = int(np.isnan(x).sum())
    x = x[~np.isnan(x)]
    n = len(x)
    if n == 0:
        return Interval(None, None, None, 0, None, variant, conf, undefined)
    mean = float(x.mean())
    if n < 2:
        return Interval(mean, None, None, n, None, variant, conf, undefined)
    sd = float(np.std(x, ddof=1 if variant == "t95" else 0))
    t = require("scipy.stats", "stats", purpose="t-intervals").t.ppf(1 - (1 - conf) / 2, n - 1)
    half = float(t * sd / math.sqrt(n))
    low, high = mean - half, mean + half
    if bounds is not None:
        low, high = float(max(low, bounds[0])), float(min(high, bounds[1]))
    return Interval(mean, low, high, n, sd, variant, conf, undefined)


# --- cluster bootstrap --------------------------------------------------------


def bootstrap_weights(n_clusters: int, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Resample counts, shape ``(n_resamples, n_clusters)``: how often each cluster is drawn."""
    idx = rng.integers(0, n_clusters, size=(n_resamples, n_clusters))
    flat = idx + (np.arange(n_resamples)[:, None] * n_clusters)
    return np.bincount(flat.ravel(), minlength=n_resamples * n_clusters).reshape(
        n_resamples, n_clusters
    )


def _as_table(t: TableLike) -> pd.DataFrame:
    return t.table if isinstance(t, TerritoryStats) else t


def _as_tables(tables: TableLike | Sequence[TableLike]) -> list[pd.DataFrame]:
    if isinstance(tables, (pd.DataFrame, TerritoryStats)):
        return [_as_table(tables)]
    out = [_as_table(t) for t in tables]
    if not out:
        raise ConfigError("no tables to score")
    return out


def _metric_columns(metric: str) -> tuple[str, ...]:
    if metric in RATIO_METRICS:
        return RATIO_METRICS[metric]
    if metric in DERIVED_METRICS:
        return (*RATIO_METRICS["control_cs"], *RATIO_METRICS["non_control_cs"])
    raise ConfigError(
        f"unknown metric {metric!r}; known: {', '.join([*RATIO_METRICS, *DERIVED_METRICS])}"
    )


def _aligned(
    tables: list[pd.DataFrame], cols: Sequence[str], territories: Sequence[str]
) -> list[dict[str, np.ndarray]]:
    """Each table's ``cols`` as arrays over ``territories`` (0 where a territory is absent)."""
    out = []
    for t in tables:
        if "territory" in t.columns:
            if t["territory"].duplicated().any():
                raise ConfigError(
                    "a per-territory table has a territory twice; pass one table per run"
                )
            t = t.set_index("territory").reindex(list(territories))
        out.append({c: np.nan_to_num(t[c].to_numpy(dtype=float), nan=0.0) for c in cols})
    return out


def _territories(tables: list[pd.DataFrame]) -> list[str]:
    if all("territory" in t.columns for t in tables):
        return list(dict.fromkeys(x for t in tables for x in t["territory"]))
    n = {len(t) for t in tables}
    if len(n) != 1:
        raise ConfigError("tables without a 'territory' column must have the same length")
    return [str(i) for i in range(n.pop())]


def _mean_over_runs(values: list[np.ndarray]) -> np.ndarray:
    stack = np.stack([np.asarray(v, dtype=float) for v in values])
    with np.errstate(invalid="ignore"):
        ok = ~np.isnan(stack)
        return np.where(
            ok.any(axis=0), np.nansum(stack, axis=0) / np.maximum(ok.sum(axis=0), 1), np.nan
        )


def _quantiles(v: np.ndarray, qs: Sequence[float]) -> list[float]:
    """Quantiles of defined values; with infinite values, order statistics (no interpolation across ∞)."""
    if np.isinf(v).any():
        return [float(x) for x in np.quantile(v, list(qs), method="inverted_cdf")]
    return [float(x) for x in np.quantile(v, list(qs))]


def _percentile(values: np.ndarray, conf: float) -> tuple[float | None, float | None, int]:
    v = values[~np.isnan(values)]
    if len(v) == 0:
        return None, None, len(values)
    a = (1 - conf) / 2
    lo, hi = _quantiles(v, [a, 1 - a])
    return lo, hi, int(len(values) - len(v))


@dataclass(frozen=True)
class BootstrapResult:
    """A cluster-bootstrap interval (percentile or BCa).

    Attributes:
        metric: metric name (or the callable's ``__name__``).
        estimate: the metric on the data (mean over runs when several).
        low, high: interval bounds (``high`` is inf when more than the upper tail of resamples are +∞;
            ``None`` in JSON).
        n_resamples, seed, conf: the bootstrap settings.
        n_territories: clusters resampled; n_runs: tables per resample.
        n_undefined: resamples where the metric was undefined (left out).
        n_infinite: ΔCS only: resamples with Non-control CS 0 and Control CS > 0 (ΔCS = +∞, kept).
        interval: ``percentile`` or ``bca``.
        n_clusters: territories contributing to the metric (for a callable: all resampled ones).
        min_clusters: the rule (:data:`MIN_CLUSTERS`); warning: set when fewer territories contribute.
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
            boot=self.n_resamples,
            seed=self.seed,
            ci=f"{kind}{int(round(self.conf * 100))}",
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "estimate": self.estimate,
            "ci95": [self.low, self.high],
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
            "signature": str(self.signature),
        }


def _delta_log_scale(arrays: dict[str, np.ndarray], weights: np.ndarray | None) -> np.ndarray:
    """ΔCS = C/N − 1 per resample, +∞ where N = 0 < C (the log(C/N) bootstrap), NaN where undefined."""
    c = np.asarray(metric_value(arrays, "control_cs", weights), dtype=float)
    n = np.asarray(metric_value(arrays, "non_control_cs", weights), dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(
            n > 0, c / np.where(n > 0, n, 1.0) - 1.0, np.where((n == 0) & (c > 0), np.inf, np.nan)
        )


def contributing_territories(tables: TableLike | Sequence[TableLike], metric: str) -> int:
    """Territories with a nonzero denominator of ``metric`` in at least one run (ΔCS: the fewer of C and N)."""
    dfs = _as_tables(tables)
    terrs = _territories(dfs)
    names = [metric] if metric in RATIO_METRICS else ["control_cs", "non_control_cs"]
    counts = []
    for name in names:
        den = RATIO_METRICS[name][1]
        arrays = _aligned(dfs, (den,), terrs)
        counts.append(int((np.sum([a[den] for a in arrays], axis=0) > 0).sum()))
    return min(counts)


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
        metric: a name in :data:`~bordir.metrics.cs.METRICS` (vectorised), or
            any function of a per-territory table (slower: one call per resample).
        n_resamples: number of bootstrap resamples.
        seed: the RNG seed (default: ``$BORDIR_SEED`` or :data:`DEFAULT_SEED`).
        conf: confidence level.
        interval: ``percentile`` or ``bca`` (bias-corrected and accelerated; jackknife over territories).
        min_clusters: fewer contributing territories set ``warning`` (:data:`MIN_CLUSTERS`).

    Example:
        >>> t = pd.DataFrame({"territory": list("abcd"), "kb_num": [1.0, 1, 0, 1], "kb_den": [1.0, 1, 1, 1]})
        >>> r = cluster_bootstrap(t, "kb_cs", n_resamples=200, seed=7)
        >>> r.estimate, 0.0 <= r.low <= r.estimate <= r.high <= 1.0
        (0.75, True)
        >>> str(r.signature)
        'kb_cs|runs:1|boot:200|seed:7|ci:cluster95|version:0.1.0'
        >>> r.warning.startswith("only 4 territories contribute")
        True
    """
    seed = resolve_seed(seed)
    if n_resamples < 1:
        raise ConfigError(f"n_resamples must be >= 1, found {n_resamples}")
    if interval not in BOOT_INTERVALS:
        raise ConfigError(
            f"unknown bootstrap interval {interval!r}; known: {', '.join(BOOT_INTERVALS)}"
        )
    dfs = _as_tables(tables)
    terrs = _territories(dfs)
    rng = np.random.default_rng(seed)
    w = bootstrap_weights(len(terrs), n_resamples, rng)
    jack_w = 1.0 - np.eye(len(terrs)) if interval == "bca" else None
    jack = None
    if isinstance(metric, str):
        name = metric
        arrays = _aligned(dfs, _metric_columns(metric), terrs)

        def value(a: dict[str, np.ndarray], weights: np.ndarray | None) -> np.ndarray:
            if metric == "delta_cs":
                return _delta_log_scale(a, weights)
            return np.asarray(metric_value(a, metric, weights=weights), dtype=float)

        estimate = _mean_over_runs([value(a, None) for a in arrays])
        boot = _mean_over_runs([value(a, w) for a in arrays])
        if jack_w is not None:
            jack = _mean_over_runs([value(a, jack_w) for a in arrays])
        n_clusters = contributing_territories(dfs, metric)
    else:
        name = getattr(metric, "__name__", "metric")
        estimate = _mean_over_runs([np.asarray(metric(t), dtype=float) for t in dfs])
        positions = []
        for t in dfs:
            pos = {x: i for i, x in enumerate(t["territory"])} if "territory" in t.columns else {}
            positions.append(np.array([pos.get(x, -1) if pos else i for i, x in enumerate(terrs)]))

        def at(idx: np.ndarray) -> float:
            vals = []
            for t, pos_arr in zip(dfs, positions):
                rows = pos_arr[idx]
                vals.append(np.asarray(metric(t.iloc[rows[rows >= 0]]), dtype=float))
            return float(_mean_over_runs(vals))

        boot = np.array([at(np.repeat(np.arange(len(terrs)), w[b])) for b in range(n_resamples)])
        if jack_w is not None:
            jack = np.array([at(np.delete(np.arange(len(terrs)), i)) for i in range(len(terrs))])
        n_clusters = len(terrs)
    boot = np.asarray(boot, dtype=float)
    est = float(estimate)
    n_inf = int(np.isinf(boot).sum())
    lo, hi, n_undef = _percentile(boot, conf)
    if interval == "bca" and jack is not None and not math.isnan(est):
        lo, hi = bca_bounds(boot, est, np.asarray(jack, dtype=float), conf)
    warning = few_clusters_warning(n_clusters, min_clusters) if n_clusters < min_clusters else None
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
    )


def territory_interval(
    tables: TableLike | Sequence[TableLike],
    metric: str,
    *,
    conf: float = 0.95,
    min_clusters: int = MIN_CLUSTERS,
) -> TerritoryInterval:
    """The small-sample interval over territories of a named metric (:mod:`~.smallsample`), runs pooled per territory.

    Cluster Wilson for the CS shares, MOVER for ΔCS unnormalised, log-MOVER for ΔCS; ``warning`` when fewer than
    ``min_clusters`` territories contribute; ``unstable`` for ΔCS when Non-control CS's interval comes near 0.

    >>> t = pd.DataFrame({"territory": list("abcd"), "kb_num": [1.0, 1, 0, 1], "kb_den": [1.0, 1, 1, 1]})
    >>> iv = territory_interval(t, "kb_cs")
    >>> iv.estimate, iv.method, round(iv.low, 3), round(iv.high, 3), iv.n_clusters
    (0.75, 'wilson', 0.301, 0.954, 4)
    """
    dfs = _as_tables(tables)
    terrs = _territories(dfs)
    arrays = _aligned(dfs, _metric_columns(metric), terrs)
    cols = {k: np.mean([a[k] for a in arrays], axis=0) for k in arrays[0]}
    try:
        return territory_interval_from_arrays(
            cols, metric, conf=conf, min_clusters=min_clusters, ratio_columns=dict(RATIO_METRICS)
        )
    except ValueError as exc:
        raise ConfigError(f"no small-sample interval for {metric}: {exc}") from None


def pool_runs(tables: Sequence[TableLike]) -> pd.DataFrame:
    """One per-territory table from several runs: numeric columns averaged per territory.

    Useful before :func:`paired_comparison` when each side has several runs.
    Ratio metrics on the pooled table weight runs by their denominators.
    """
    dfs = _as_tables(tables)
    terrs = _territories(dfs)
    num_cols = [
        c for c in dfs[0].columns if c != "territory" and pd.api.types.is_numeric_dtype(dfs[0][c])
    ]
    arrays = _aligned(dfs, num_cols, terrs)
    pooled = {c: np.mean([a[c] for a in arrays], axis=0) for c in num_cols}
    return pd.DataFrame({"territory": terrs, **pooled})


# --- paired comparisons (bordir.metrics.paired, re-exported here) -------------

from .paired import (  # noqa: E402  (paired.py imports the helpers above)
    PairedComparison,
    flip_matrix,
    holm,
    holm_adjust,
    paired_comparison,
    sign_flip_test,
)
