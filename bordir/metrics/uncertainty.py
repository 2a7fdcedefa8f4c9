"""Uncertainty: intervals over runs, cluster bootstrap over territories, paired tests.

The public surface of the intervals; each concept lives in its own module and
is re-exported here (:mod:`~bordir.metrics.run_interval`,
:mod:`~bordir.metrics.bootstrap`, :mod:`~bordir.metrics.territory_interval`,
:mod:`~bordir.metrics.aligned`, :mod:`~bordir.metrics.seed`,
:mod:`~bordir.metrics.paired`). Which variance each interval covers:

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

from .aligned import (  # noqa: F401
    MetricLike,
    TableLike,
    _aligned,
    _as_table,
    _as_tables,
    _mean_over_runs,
    _metric_columns,
    _territories,
    contributing_territories,
    pool_runs,
)
from .bootstrap import (  # noqa: F401
    _EPS,
    BOOT_INTERVALS,
    DEFAULT_RESAMPLES,
    MIN_CLUSTERS,
    BootstrapResult,
    _delta_log_scale,
    _percentile,
    _quantiles,
    bootstrap_weights,
    cluster_bootstrap,
)
from .run_interval import CI_VARIANTS, CIVariant, Interval, t_interval
from .seed import DEFAULT_SEED, SEED_ENV, resolve_seed
from .territory_interval import TerritoryInterval, territory_interval

__all__ = [
    "DEFAULT_SEED",
    "SEED_ENV",
    "DEFAULT_RESAMPLES",
    "MIN_CLUSTERS",
    "BOOT_INTERVALS",
    "CI_VARIANTS",
    "CIVariant",
    "TableLike",
    "MetricLike",
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

# --- paired comparisons (bordir.metrics.paired, re-exported here) -------------

from .paired import (  # noqa: E402  (paired.py imports the helpers above)
    PairedComparison,
    flip_matrix,
    holm,
    holm_adjust,
    paired_comparison,
    sign_flip_test,
)
