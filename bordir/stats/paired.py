"""Two configurations on the same clusters: the paired cluster bootstrap of the difference and the swap test.

:func:`paired_test` compares ``statistic(a) − statistic(b)`` where ``a`` and
``b`` hold per-cluster sufficient statistics aligned on the same clusters
(territories, questions …):

* its interval is a paired cluster bootstrap: the same resampled clusters
  (:func:`~bordir.stats.resample.bootstrap_weights`) for both sides, percentile
  bounds of the resampled differences;
* its p-value comes from a permutation test that swaps a's and b's statistics
  within randomly chosen clusters (for a mean over clusters: sign flips of the
  per-cluster differences), ``p = (c + 1) / (n + 1)``
  (:func:`~bordir.stats.permutation.permutation_pvalue`).

:class:`PairedResult` is the result every paired comparison of bordir reports
(mode against mode, model against model, testbed setting against setting);
:func:`holm_adjust` sets its Holm-corrected p-value across a family.

Example:
    >>> def mean(cols, w):
    ...     return cols["x"].mean(axis=-1) if w is None else (w @ cols["x"]) / cols["x"].shape[-1]
    >>> a, b = {"x": np.array([0.9, 0.8, 0.7, 0.9] * 5)}, {"x": np.array([0.5, 0.4, 0.6, 0.5] * 5)}
    >>> t = paired_test(a, b, mean, n_resamples=999, n_permutations=999, seed=1)
    >>> round(t.diff, 3), t.low < t.diff < t.high, t.p_value == 1 / 1000
    (0.325, True, True)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar, NamedTuple, TypeVar

import numpy as np

from ..signature import Signature
from .holm import holm
from .percentile import percentile_bounds
from .permutation import flip_matrix, permutation_pvalue
from .resample import bootstrap_weights

__all__ = ["PairedTest", "paired_test", "PairedResult", "holm_adjust"]

Statistic = Callable[[Mapping[str, np.ndarray], "np.ndarray | None"], Any]
"""``statistic(columns, weights)``: the value of per-cluster ``columns`` (arrays over the last axis), weighted
by resample counts ``(B, K)`` (one value per resample) or unweighted (``None``; batched columns ``(P, K)`` give
one value per row)."""


class PairedTest(NamedTuple):
    """The numbers of :func:`paired_test` (NaN where undefined; ``low``/``high`` None without defined resamples)."""

    value_a: float
    value_b: float
    diff: float
    low: float | None
    high: float | None
    p_value: float
    n_undefined: int = 0
    """Bootstrap resamples where the difference was undefined (left out of the percentiles)."""


def paired_test(
    a: Mapping[str, np.ndarray],
    b: Mapping[str, np.ndarray],
    statistic: Statistic,
    *,
    n_resamples: int,
    n_permutations: int,
    seed: int,
    conf: float = 0.95,
) -> PairedTest:
    """Paired cluster-bootstrap CI of ``statistic(a) − statistic(b)`` and its swap-permutation p-value.

    Args:
        a: the per-cluster columns of the first side (arrays over the clusters, the last axis).
        b: the same columns of the second side, aligned on the same clusters.
        statistic: see :data:`Statistic`.
        n_resamples: bootstrap resamples.
        n_permutations: random swaps.
        seed: the bootstrap and the permutations each draw from ``default_rng(seed)``.
        conf: interval level.

    Permutations where the statistic is undefined (NaN) do not count; an undefined
    difference has p = 1.
    """
    va, vb = statistic(a, None), statistic(b, None)
    diff = va - vb
    n = len(next(iter(a.values())))
    w = bootstrap_weights(n, n_resamples, np.random.default_rng(seed))
    boot = np.asarray(statistic(a, w) - statistic(b, w), dtype=float)
    lo, hi, n_undefined = percentile_bounds(boot, conf)
    flips = flip_matrix(n_permutations, n, np.random.default_rng(seed))
    sa = {k: np.where(flips, b[k], a[k]) for k in a}
    sb = {k: np.where(flips, a[k], b[k]) for k in a}
    perm = np.asarray(statistic(sa, None) - statistic(sb, None), dtype=float)
    p = 1.0 if math.isnan(diff) else permutation_pvalue(diff, perm)
    return PairedTest(float(va), float(vb), float(diff), lo, hi, p, n_undefined)


@dataclass(frozen=True)
class PairedResult:
    """``metric(a) − metric(b)`` on the clusters both have: paired bootstrap CI and permutation p-value.

    Attributes:
        metric: the metric compared.
        label_a, label_b: the configurations (``a`` − ``b``).
        value_a, value_b: the metric of each on the common clusters.
        diff: ``value_a − value_b`` (the effect size).
        low, high: paired cluster-bootstrap percentile CI of ``diff``.
        p_value: permutation p-value, (c + 1) / (n + 1).
        n_clusters: common clusters; n_resamples, n_permutations, seed: settings.
        p_holm: Holm-adjusted p-value (set by :func:`holm_adjust`).
        conf: interval level.
        fields: signature fields of the compared group (testbed, language, model …), before ``cmp``.
        policy: the scoring policy, when the comparison has one (in the signature).

    A subclass names its clusters (:attr:`unit`, the ``n_<unit>`` key of :meth:`as_dict`) and the
    signature key of its seed (:attr:`seed_key`).
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
    n_clusters: int
    n_resamples: int
    n_permutations: int
    seed: int
    p_holm: float | None = None
    conf: float = 0.95
    fields: tuple[tuple[str, Any], ...] = ()
    policy: str | None = None

    unit: ClassVar[str] = "clusters"
    seed_key: ClassVar[str] = "seed"

    @property
    def signature(self) -> Signature:
        return Signature.build(
            self.metric,
            **dict(self.fields),
            cmp=f"{self.label_b}-vs-{self.label_a}",  # from b to a: diff = a − b (docs/metrics.md)
            policy=self.policy,
            boot=self.n_resamples,
            perm=self.n_permutations,
            **{self.seed_key: self.seed},
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
            f"n_{self.unit}": self.n_clusters,
            "signature": str(self.signature),
        }


R = TypeVar("R", bound=PairedResult)


def holm_adjust(comparisons: Sequence[R], *, alpha: float = 0.05) -> list[R]:
    """The comparisons with ``p_holm`` set, Holm-corrected across all of them."""
    adjusted, _ = holm([c.p_value for c in comparisons], alpha=alpha)
    return [replace(c, p_holm=float(p)) for c, p in zip(comparisons, adjusted)]
