"""Paired comparisons of two configurations on the same territories.

* :func:`paired_comparison` — paired cluster-bootstrap CI of the difference
  (the effect size) and a permutation test that swaps the two configurations
  within territories (= sign flips of per-territory differences for a mean
  over territories), with p = (c + 1) / (n + 1) (:func:`bordir.stats.paired_test`);
* :class:`PairedComparison` — its result, a :class:`~bordir.stats.PairedResult`
  over territories; Holm's correction across comparisons is :func:`bordir.stats.holm_adjust`;
* :func:`defined_on_both` — the paired territories a comparison rests on (the metric defined on
  both sides): the count the rule of :mod:`~bordir.metrics.intervals.paired_rule` reads.

Example:
    >>> import pandas as pd
    >>> a = pd.DataFrame({"territory": list("abcd"), "kb_num": [1.0, 1, 1, 1], "kb_den": [1.0] * 4})
    >>> b = pd.DataFrame({"territory": list("abcd"), "kb_num": [0.0, 1, 0, 0], "kb_den": [1.0] * 4})
    >>> c = paired_comparison(a, b, "kb_cs", n_resamples=99, n_permutations=99, seed=1)
    >>> c.diff, c.n_territories, c.p_value > 0.05
    (0.75, 4, True)
    >>> defined_on_both(a, b.assign(kb_den=[1.0, 1, 0, 0]), "kb_cs")
    2
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ...errors import ConfigError
from ...stats.paired import PairedResult, paired_test
from ...stats.resample import DEFAULT_RESAMPLES
from ...stats.seeds import resolve_seed
from ..cs.aggregate import RATIO_METRICS, metric_value
from .aligned import TableLike, aligned_columns, as_table, metric_columns

__all__ = ["PairedComparison", "paired_comparison", "defined_on_both"]


@dataclass(frozen=True)
class PairedComparison(PairedResult):
    """A difference between two configurations on the same territories (:class:`~bordir.stats.PairedResult`).

    ``n_clusters`` counts the common territories (``n_territories`` in :meth:`as_dict`).
    """

    unit: ClassVar[str] = "territories"

    @property
    def n_territories(self) -> int:
        """The common territories."""
        return self.n_clusters


def _none(x: float) -> float | None:
    return None if np.isnan(x) else float(x)


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

    For several runs per side, pass :func:`~bordir.metrics.intervals.aligned.pool_runs` of them.
    No interval (``low`` = ``high`` = None) when the difference is undefined in more than the upper
    tail ``(1 − conf) / 2`` of the resamples (the normalised ΔCS where a side's Non-control CS* is 0)
    or a bound is not finite.
    """
    seed = resolve_seed(seed)
    ta, tb = as_table(a), as_table(b)
    common = [t for t in ta["territory"] if t in set(tb["territory"])]
    if not common:
        raise ConfigError(f"{label_a} and {label_b} have no territory in common")
    ca, cb = aligned_columns([ta, tb], metric_columns(metric), common)

    def statistic(cols: Mapping[str, np.ndarray], weights: np.ndarray | None) -> Any:
        return metric_value(cols, metric, weights=weights)

    t = paired_test(
        ca,
        cb,
        statistic,
        n_resamples=n_resamples,
        n_permutations=n_permutations,
        seed=seed,
        conf=conf,
    )
    low, high = t.low, t.high
    # a difference undefined in more than the upper tail of the resamples (the normalised ΔCS with a
    # Non-control CS* of 0), or a bound that is not finite: no interval rather than a biased one
    if (
        low is not None
        and high is not None
        and (
            not (np.isfinite(low) and np.isfinite(high))
            or t.n_undefined > (1 - conf) / 2 * n_resamples
        )
    ):
        low = high = None
    return PairedComparison(
        metric,
        label_a,
        label_b,
        _none(t.value_a),
        _none(t.value_b),
        _none(t.diff),
        low,
        high,
        t.p_value,
        len(common),
        n_resamples,
        n_permutations,
        seed,
        None,
        conf,
    )


def defined_on_both(a: TableLike, b: TableLike, metric: str) -> int:
    """The territories of both tables where ``metric``'s denominator is nonzero on both sides.

    A territory defined on one side only does not move a paired difference. For ΔCS (Control −
    Non-control, and its normalised form) the fewer of the two metrics' counts.
    """
    ta, tb = as_table(a), as_table(b)
    common = [t for t in ta["territory"] if t in set(tb["territory"])]
    names = [metric] if metric in RATIO_METRICS else ["control_cs", "non_control_cs"]
    counts = []
    for name in names:
        den = RATIO_METRICS[name][1]
        ca, cb = aligned_columns([ta, tb], (den,), common)
        counts.append(int(((ca[den] > 0) & (cb[den] > 0)).sum()))
    return min(counts)
