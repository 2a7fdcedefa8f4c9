"""Uncertainty: intervals over runs, cluster bootstrap over territories, paired tests.

Which variance each interval covers:

* :func:`t_interval` — run-to-run (sampling) noise only: the mean of a metric
  over R runs and a t-interval. ``t95`` uses the sample σ (ddof = 1);
  ``paper`` reproduces BordIRLines (population σ, ddof = 0, with
  t(0.975, df = n − 1); the reference hard-codes n = 10, here n is the actual
  number of runs, which is the same for 10 runs).
* :func:`cluster_bootstrap` — the sampling of territories: territories are
  resampled with replacement, so the answers of one territory in all its
  languages (and in all runs) move together. Percentile interval.
* :func:`paired_comparison` — two configurations (modes, models) on the same
  territories: paired bootstrap CI of the difference (the effect size) and a
  permutation test that swaps the two configurations within territories
  (= sign flips of per-territory differences for a mean over territories),
  with p = (c + 1) / (n + 1).
* :func:`holm` / :func:`holm_adjust` — Holm's step-down correction across the
  comparisons shown (``statsmodels``).

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
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np
import pandas as pd

from .._extras import require
from ..errors import ConfigError
from .cs import DERIVED_METRICS, RATIO_METRICS, TerritoryStats, metric_value
from .signature import Signature

__all__ = [
    "DEFAULT_SEED",
    "SEED_ENV",
    "DEFAULT_RESAMPLES",
    "CI_VARIANTS",
    "resolve_seed",
    "Interval",
    "t_interval",
    "BootstrapResult",
    "bootstrap_weights",
    "cluster_bootstrap",
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
_EPS = 1e-12

TableLike = pd.DataFrame | TerritoryStats
MetricLike = str | Callable[[pd.DataFrame], float]


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
        raise ConfigError(f"{SEED_ENV}={env!r} is not an integer; set it to a seed such as {DEFAULT_SEED}") from None


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
    """

    mean: float | None
    low: float | None
    high: float | None
    n: int
    sd: float | None
    variant: str = "t95"
    conf: float = 0.95

    def as_dict(self) -> dict[str, Any]:
        ci = None if self.low is None else [self.low, self.high]
        return {"mean": self.mean, "ci95" if self.conf == 0.95 else f"ci{self.conf:g}": ci, "n_runs": self.n}


def t_interval(values: Sequence[float | None], *, variant: CIVariant = "t95", conf: float = 0.95,
               bounds: tuple[float, float] | None = None) -> Interval:
    """Mean and t-interval over runs; ``None``/NaN values are left out (and not counted).

    ``t95``: mean ± t(1 − α/2, n − 1) · s / √n with s the sample σ (ddof = 1).
    ``paper``: the same with the population σ (ddof = 0), as BordIRLines.
    ``bounds``: clip the interval to the metric's range (e.g. ``(0, 1)`` for a
    share); with few runs the t-quantile is large (4.30 for 3 runs) and the
    unclipped interval can leave the range.

    >>> t_interval([0.9, 1.0, 0.8], bounds=(0, 1)).high
    1.0
    """
    if variant not in CI_VARIANTS:
        raise ConfigError(f"unknown interval variant {variant!r}; known: {', '.join(CI_VARIANTS)}")
    x = np.array([np.nan if v is None else v for v in values], dtype=float)
    x = x[~np.isnan(x)]
    n = len(x)
    if n == 0:
        return Interval(None, None, None, 0, None, variant, conf)
    mean = float(x.mean())
    if n < 2:
        return Interval(mean, None, None, n, None, variant, conf)
    sd = float(np.std(x, ddof=1 if variant == "t95" else 0))
    t = require("scipy.stats", "stats", purpose="t-intervals").t.ppf(1 - (1 - conf) / 2, n - 1)
    half = float(t * sd / math.sqrt(n))
    low, high = mean - half, mean + half
    if bounds is not None:
        low, high = float(max(low, bounds[0])), float(min(high, bounds[1]))
    return Interval(mean, low, high, n, sd, variant, conf)


# --- cluster bootstrap --------------------------------------------------------


def bootstrap_weights(n_clusters: int, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Resample counts, shape ``(n_resamples, n_clusters)``: how often each cluster is drawn."""
    idx = rng.integers(0, n_clusters, size=(n_resamples, n_clusters))
    flat = idx + (np.arange(n_resamples)[:, None] * n_clusters)
    return np.bincount(flat.ravel(), minlength=n_resamples * n_clusters).reshape(n_resamples, n_clusters)


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
    raise ConfigError(f"unknown metric {metric!r}; known: {', '.join([*RATIO_METRICS, *DERIVED_METRICS])}")


def _aligned(tables: list[pd.DataFrame], cols: Sequence[str], territories: Sequence[str]) -> list[dict[str, np.ndarray]]:
    """Each table's ``cols`` as arrays over ``territories`` (0 where a territory is absent)."""
    out = []
    for t in tables:
        if "territory" in t.columns:
            if t["territory"].duplicated().any():
                raise ConfigError("a per-territory table has a territory twice; pass one table per run")
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
        return np.where(ok.any(axis=0), np.nansum(stack, axis=0) / np.maximum(ok.sum(axis=0), 1), np.nan)


def _percentile(values: np.ndarray, conf: float) -> tuple[float | None, float | None, int]:
    v = values[~np.isnan(values)]
    if len(v) == 0:
        return None, None, len(values)
    a = (1 - conf) / 2
    lo, hi = np.quantile(v, [a, 1 - a])
    return float(lo), float(hi), int(len(values) - len(v))


@dataclass(frozen=True)
class BootstrapResult:
    """A cluster-bootstrap percentile interval.

    Attributes:
        metric: metric name (or the callable's ``__name__``).
        estimate: the metric on the data (mean over runs when several).
        low, high: percentile interval bounds.
        n_resamples, seed, conf: the bootstrap settings.
        n_territories: clusters resampled; n_runs: tables per resample.
        n_undefined: resamples where the metric was undefined (left out).
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

    @property
    def signature(self) -> Signature:
        return Signature.build(self.metric, runs=self.n_runs, boot=self.n_resamples, seed=self.seed,
                               ci=f"cluster{int(round(self.conf * 100))}")

    def as_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "estimate": self.estimate, "ci95": [self.low, self.high],
                "n_resamples": self.n_resamples, "seed": self.seed, "n_territories": self.n_territories,
                "n_runs": self.n_runs, "n_undefined": self.n_undefined, "signature": str(self.signature)}


def cluster_bootstrap(
    tables: TableLike | Sequence[TableLike],
    metric: MetricLike,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = None,
    conf: float = 0.95,
) -> BootstrapResult:
    """Percentile CI of a metric, resampling territories with replacement.

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

    Example:
        >>> t = pd.DataFrame({"territory": list("abcd"), "kb_num": [1.0, 1, 0, 1], "kb_den": [1.0, 1, 1, 1]})
        >>> r = cluster_bootstrap(t, "kb_cs", n_resamples=200, seed=7)
        >>> r.estimate, 0.0 <= r.low <= r.estimate <= r.high <= 1.0
        (0.75, True)
        >>> str(r.signature)
        'kb_cs|runs:1|boot:200|seed:7|ci:cluster95|version:0.1.0'
    """
    seed = resolve_seed(seed)
    if n_resamples < 1:
        raise ConfigError(f"n_resamples must be >= 1, found {n_resamples}")
    dfs = _as_tables(tables)
    terrs = _territories(dfs)
    rng = np.random.default_rng(seed)
    w = bootstrap_weights(len(terrs), n_resamples, rng)
    if isinstance(metric, str):
        name = metric
        arrays = _aligned(dfs, _metric_columns(metric), terrs)
        estimate = _mean_over_runs([np.asarray(metric_value(a, metric)) for a in arrays])
        boot = _mean_over_runs([metric_value(a, metric, weights=w) for a in arrays])
    else:
        name = getattr(metric, "__name__", "metric")
        estimate = _mean_over_runs([np.asarray(metric(t), dtype=float) for t in dfs])
        positions = []
        for t in dfs:
            pos = {x: i for i, x in enumerate(t["territory"])} if "territory" in t.columns else {}
            positions.append(np.array([pos.get(x, -1) if pos else i for i, x in enumerate(terrs)]))
        boot = np.empty(n_resamples)
        for b in range(n_resamples):
            idx = np.repeat(np.arange(len(terrs)), w[b])
            vals = []
            for t, pos_arr in zip(dfs, positions):
                rows = pos_arr[idx]
                vals.append(np.asarray(metric(t.iloc[rows[rows >= 0]]), dtype=float))
            boot[b] = _mean_over_runs(vals)
    lo, hi, n_undef = _percentile(np.asarray(boot, dtype=float), conf)
    est = float(estimate)
    return BootstrapResult(name, None if math.isnan(est) else est, lo, hi, n_resamples, seed, len(terrs),
                           len(dfs), n_undef, conf)


def pool_runs(tables: Sequence[TableLike]) -> pd.DataFrame:
    """One per-territory table from several runs: numeric columns averaged per territory.

    Useful before :func:`paired_comparison` when each side has several runs.
    Ratio metrics on the pooled table weight runs by their denominators.
    """
    dfs = _as_tables(tables)
    terrs = _territories(dfs)
    num_cols = [c for c in dfs[0].columns if c != "territory" and pd.api.types.is_numeric_dtype(dfs[0][c])]
    arrays = _aligned(dfs, num_cols, terrs)
    pooled = {c: np.mean([a[c] for a in arrays], axis=0) for c in num_cols}
    return pd.DataFrame({"territory": terrs, **pooled})


# --- paired comparisons -------------------------------------------------------


def flip_matrix(n_permutations: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """Random swaps / sign flips, shape ``(n_permutations, n)``, True = flipped."""
    return rng.random((n_permutations, n)) < 0.5


def sign_flip_test(differences: Sequence[float], *, n_permutations: int = DEFAULT_RESAMPLES,
                   seed: int | None = None) -> float:
    """Two-sided sign-flip permutation test of paired differences (mean 0 under H0).

    p = (c + 1) / (n + 1), where c counts the n random sign flips whose
    |mean| is at least the observed |mean|. It is never 0.

    >>> p = sign_flip_test([0.2, 0.1, 0.3, 0.25, 0.15] * 4, n_permutations=999, seed=3)
    >>> p == 1 / 1000
    True
    """
    d = np.asarray(differences, dtype=float)
    d = d[~np.isnan(d)]
    rng = np.random.default_rng(resolve_seed(seed))
    flips = flip_matrix(n_permutations, len(d), rng)
    observed = abs(d.mean()) if len(d) else 0.0
    perm = np.abs(np.where(flips, -d, d).mean(axis=1)) if len(d) else np.zeros(n_permutations)
    c = int((perm >= observed - _EPS).sum())
    return (c + 1) / (n_permutations + 1)


@dataclass(frozen=True)
class PairedComparison:
    """A difference between two configurations on the same territories.

    Attributes:
        metric: the metric compared.
        label_a, label_b: the configurations (``a`` − ``b``).
        value_a, value_b: the metric of each on the common territories.
        diff: ``value_a − value_b`` (the effect size, in CS units).
        low, high: paired cluster-bootstrap percentile CI of ``diff``.
        p_value: permutation p-value, (c + 1) / (n + 1).
        p_holm: Holm-adjusted p-value (set by :func:`holm_adjust`).
        n_territories: common territories; n_resamples, n_permutations, seed: settings.
    """

    metric: str
    label_a: str
    label_b: str
    value_a: float | None
    value_b: float | None
    diff: float | None
    low: float | None
    high: float | None
    p_value: float
    n_territories: int
    n_resamples: int
    n_permutations: int
    seed: int
    p_holm: float | None = None
    conf: float = 0.95

    @property
    def signature(self) -> Signature:
        return Signature.build(self.metric, cmp=f"{self.label_a}-vs-{self.label_b}", boot=self.n_resamples,
                               perm=self.n_permutations, seed=self.seed,
                               holm="yes" if self.p_holm is not None else None)

    def as_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "a": self.label_a, "b": self.label_b, "value_a": self.value_a,
                "value_b": self.value_b, "diff": self.diff, "ci95": [self.low, self.high],
                "p_value": self.p_value, "p_holm": self.p_holm, "n_territories": self.n_territories,
                "signature": str(self.signature)}


def paired_comparison(
    a: TableLike,
    b: TableLike,
    metric: str,
    *,
    label_a: str = "a",
    label_b: str = "b",
    n_resamples: int = DEFAULT_RESAMPLES,
    n_permutations: int = DEFAULT_RESAMPLES,
    seed: int | None = None,
    conf: float = 0.95,
) -> PairedComparison:
    """Compare a metric between two configurations on their common territories.

    The effect is ``metric(a) − metric(b)`` on the territories both tables
    have. Its CI is a paired cluster bootstrap (the same resampled territories
    for both). The p-value comes from a permutation test that swaps a's and b's
    statistics within randomly chosen territories; for a metric that is a
    mean over the same territories this flips the signs of the per-territory
    differences. p = (c + 1) / (n + 1).

    For several runs per side, pass :func:`pool_runs` of them.
    """
    seed = resolve_seed(seed)
    ta, tb = _as_table(a), _as_table(b)
    common = [t for t in ta["territory"] if t in set(tb["territory"])]
    if not common:
        raise ConfigError(f"{label_a} and {label_b} have no territory in common")
    cols = _metric_columns(metric)
    ca, cb = _aligned([ta, tb], cols, common)
    va, vb = metric_value(ca, metric), metric_value(cb, metric)
    diff = va - vb

    w = bootstrap_weights(len(common), n_resamples, np.random.default_rng(seed))
    boot = metric_value(ca, metric, weights=w) - metric_value(cb, metric, weights=w)
    lo, hi, _ = _percentile(np.asarray(boot, dtype=float), conf)

    flips = flip_matrix(n_permutations, len(common), np.random.default_rng(seed))
    sa = {c: np.where(flips, cb[c], ca[c]) for c in cols}
    sb = {c: np.where(flips, ca[c], cb[c]) for c in cols}
    perm = np.asarray(metric_value(sa, metric) - metric_value(sb, metric), dtype=float)
    perm = perm[~np.isnan(perm)]  # permutations where the metric is undefined do not count
    if math.isnan(diff):
        p = 1.0
    else:
        c = int(np.sum(np.abs(perm) >= abs(diff) - _EPS))
        p = (c + 1) / (len(perm) + 1)

    def _f(x: float) -> float | None:
        return None if math.isnan(x) else float(x)

    return PairedComparison(metric, label_a, label_b, _f(va), _f(vb), _f(diff), lo, hi, p, len(common),
                            n_resamples, n_permutations, seed, None, conf)


def holm(pvalues: Sequence[float], *, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Holm step-down adjustment: ``(adjusted p-values, reject at alpha)``.

    >>> adj, rej = holm([0.01, 0.04, 0.03])
    >>> [round(float(x), 2) for x in adj], rej.tolist()
    ([0.03, 0.06, 0.06], [True, False, False])
    """
    multitest = require("statsmodels.stats.multitest", "stats", purpose="Holm correction")
    p = np.asarray(pvalues, dtype=float)
    if len(p) == 0:
        return p, np.zeros(0, bool)
    reject, adjusted, _, _ = multitest.multipletests(p, alpha=alpha, method="holm")
    return adjusted, reject


def holm_adjust(comparisons: Sequence[PairedComparison], *, alpha: float = 0.05) -> list[PairedComparison]:
    """The comparisons with ``p_holm`` set, Holm-corrected across all of them."""
    adjusted, _ = holm([c.p_value for c in comparisons], alpha=alpha)
    return [replace(c, p_holm=float(p)) for c, p in zip(comparisons, adjusted)]
