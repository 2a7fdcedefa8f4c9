"""Paired comparisons of two configurations on the same territories, and Holm's correction.

Re-exported by :mod:`bordir.metrics.uncertainty` (import them from either):

* :func:`paired_comparison` — paired cluster-bootstrap CI of the difference
  (the effect size) and a permutation test that swaps the two configurations
  within territories (= sign flips of per-territory differences for a mean
  over territories), with p = (c + 1) / (n + 1);
* :func:`sign_flip_test` — the same test on given paired differences;
* :func:`holm` / :func:`holm_adjust` — Holm's step-down correction across the
  comparisons shown (``statsmodels``).

Example:
    >>> sign_flip_test([0.0, 0.0, 0.0], n_permutations=99, seed=1)
    1.0
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..errors import ConfigError
from .cs import metric_value
from .multiple import holm
from .signature import Signature
from .uncertainty import (
    _EPS,
    DEFAULT_RESAMPLES,
    TableLike,
    _aligned,
    _as_table,
    _metric_columns,
    _percentile,
    bootstrap_weights,
    resolve_seed,
)

__all__ = [
    "PairedComparison",
    "flip_matrix",
    "sign_flip_test",
    "paired_comparison",
    "holm",
    "holm_adjust",
]


def flip_matrix(n_permutations: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """Random swaps / sign flips, shape ``(n_permutations, n)``, True = flipped."""
    return rng.random((n_permutations, n)) < 0.5


def sign_flip_test(
    differences: Sequence[float],
    *,
    n_permutations: int = DEFAULT_RESAMPLES,
    seed: int | None = None,
) -> float:
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
        return Signature.build(
            self.metric,
            cmp=f"{self.label_a}-vs-{self.label_b}",
            boot=self.n_resamples,
            perm=self.n_permutations,
            seed=self.seed,
            holm="yes" if self.p_holm is not None else None,
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "a": self.label_a,
            "b": self.label_b,
            "value_a": self.value_a,
            "value_b": self.value_b,
            "diff": self.diff,
            "ci95": [self.low, self.high],
            "p_value": self.p_value,
            "p_holm": self.p_holm,
            "n_territories": self.n_territories,
            "signature": str(self.signature),
        }


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

    return PairedComparison(
        metric,
        label_a,
        label_b,
        _f(va),
        _f(vb),
        _f(diff),
        lo,
        hi,
        p,
        len(common),
        n_resamples,
        n_permutations,
        seed,
        None,
        conf,
    )


def holm_adjust(
    comparisons: Sequence[PairedComparison], *, alpha: float = 0.05
) -> list[PairedComparison]:
    """The comparisons with ``p_holm`` set, Holm-corrected across all of them."""
    adjusted, _ = holm([c.p_value for c in comparisons], alpha=alpha)
    return [replace(c, p_holm=float(p)) for c, p in zip(comparisons, adjusted)]
