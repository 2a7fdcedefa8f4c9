"""Statistics every part of bordir shares: resampling, intervals, tests, corrections, agreement, seeds.

A foundation package: it imports numpy and the standard library only, and
``scipy`` / ``statsmodels`` (the ``stats`` extra) lazily where a routine needs
them. Each concept has its own module, and each routine is tested against a
reference implementation (``tests/stats/``):

* :mod:`~bordir.stats.seeds` — :func:`resolve_seed` (``$BORDIR_SEED``), :func:`named_rng`;
* :mod:`~bordir.stats.resample` — cluster-bootstrap resample counts
  (:func:`bootstrap_weights`, :func:`multinomial_weights`);
* :mod:`~bordir.stats.clusters` — per-cluster sums and ratios of sums;
* :mod:`~bordir.stats.percentile` — percentile intervals of resamples;
  :mod:`~bordir.stats.bca` — BCa bounds;
* :mod:`~bordir.stats.permutation` — sign flips and the ``(c + 1) / (n + 1)`` p-value;
* :mod:`~bordir.stats.paired` — the paired cluster bootstrap and swap test, :class:`PairedResult`;
* :mod:`~bordir.stats.holm` — Holm's step-down correction;
* :mod:`~bordir.stats.rate` — :func:`rate_interval`, the one interval of every rate bordir
  prints (continuity-corrected Wilson, cluster-adjusted; "too few to judge" below :data:`MIN_N`);
* :mod:`~bordir.stats.proportion` — Wilson and Clopper–Pearson intervals;
  :mod:`~bordir.stats.exact` — exact McNemar, Fisher and sign tests;
  :mod:`~bordir.stats.rate_difference` — the difference of two rates (unpaired or paired) with
  Newcombe's interval and the test that goes with it;
* :mod:`~bordir.stats.cluster_wilson` — the cluster Wilson interval of a ratio of sums;
  :mod:`~bordir.stats.mover` — MOVER intervals of differences and ratios;
  :mod:`~bordir.stats.normal` — normal and Student-t critical values;
* :mod:`~bordir.stats.confusion`, :mod:`~bordir.stats.kappa`, :mod:`~bordir.stats.alpha` —
  accuracy, balanced accuracy and F1, Cohen's κ (weighted), Krippendorff's α (nominal, ordinal);
* :mod:`~bordir.stats.majority` — plurality vote.

Example:
    >>> from bordir.stats import holm_pvalues, resolve_seed
    >>> resolve_seed(3), holm_pvalues([0.01, 0.02]).tolist()
    (3, [0.02, 0.02])
"""

from __future__ import annotations

from .alpha import krippendorff_alpha, krippendorff_alpha_ordinal
from .bca import bca_bounds
from .cluster_wilson import correlation, influence, wilson_ratio
from .clusters import cluster_sums, ratio
from .confusion import accuracy, balanced_accuracy, confusion, f1_scores, macro_f1
from .exact import fisher_exact, mcnemar_exact, sign_test
from .holm import holm, holm_pvalues
from .kappa import WEIGHTS, cohen_kappa, weighted_kappa
from .majority import plurality
from .mover import mover_difference, mover_log_ratio
from .normal import t_quantile, z_quantile
from .paired import PairedResult, PairedTest, holm_adjust, paired_test
from .percentile import percentile_bounds, percentile_columns, quantiles
from .permutation import flip_matrix, permutation_pvalue, sign_flip_pvalue, sign_flip_test
from .proportion import ci_name, proportion_ci
from .rate import (
    MIN_N,
    TOO_FEW,
    RateInterval,
    format_rate,
    format_rate_dict,
    rate_interval,
    rate_method,
)
from .rate_difference import RateDifference, paired_rate_difference, rate_difference
from .resample import DEFAULT_RESAMPLES, bootstrap_weights, multinomial_weights
from .seeds import named_rng, resolve_seed

__all__ = [
    "resolve_seed",
    "named_rng",
    "DEFAULT_RESAMPLES",
    "bootstrap_weights",
    "multinomial_weights",
    "cluster_sums",
    "ratio",
    "quantiles",
    "percentile_bounds",
    "percentile_columns",
    "bca_bounds",
    "flip_matrix",
    "permutation_pvalue",
    "sign_flip_pvalue",
    "sign_flip_test",
    "PairedTest",
    "paired_test",
    "PairedResult",
    "holm_adjust",
    "holm",
    "holm_pvalues",
    "ci_name",
    "proportion_ci",
    "mcnemar_exact",
    "fisher_exact",
    "sign_test",
    "RateInterval",
    "rate_interval",
    "rate_method",
    "format_rate",
    "format_rate_dict",
    "MIN_N",
    "TOO_FEW",
    "RateDifference",
    "rate_difference",
    "paired_rate_difference",
    "wilson_ratio",
    "influence",
    "correlation",
    "mover_difference",
    "mover_log_ratio",
    "z_quantile",
    "t_quantile",
    "accuracy",
    "confusion",
    "f1_scores",
    "macro_f1",
    "balanced_accuracy",
    "cohen_kappa",
    "weighted_kappa",
    "WEIGHTS",
    "krippendorff_alpha",
    "krippendorff_alpha_ordinal",
    "plurality",
]
