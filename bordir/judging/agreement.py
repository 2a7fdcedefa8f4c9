"""A judge's agreement with human labels: accuracy, balanced accuracy, Cohen's κ, sensitivity, specificity, with cluster-bootstrap intervals.

Per item: the human reference label (the task's ``positive`` or ``negative``) and the
judge's reading (a label, or None: unparseable). **An unparseable reply counts against the
judge** (MEMERAG's rule): it is scored as the opposite of the human label, and its share is
reported on its own. The per-question sums of six counts are the sufficient statistics::

    tp  human +, judge +        fn  human +, judge −        up  human +, unparseable
    fp  human −, judge +        tn  human −, judge −        un  human −, unparseable

so the confusion matrix (rows: human +, −; columns: judge +, −) is
``[[tp, fn + up], [fp + un, tn]]`` and each statistic is a function of it
(:mod:`bordir.stats`: :func:`~bordir.stats.confusion.acc_m`, :func:`~bordir.stats.confusion.balanced_m`,
:func:`~bordir.stats.kappa.kappa_m`). A bootstrap resample draws questions with replacement:
a weight vector over the questions (:func:`~bordir.stats.resample.bootstrap_weights`), so all
resamples are one matrix product. Intervals are percentile intervals; with fewer than
:data:`MIN_CLUSTERS` questions none is given (an interval from a handful of questions does not
cover: ``benchmarks/coverage_judge.py``).

Balanced accuracy is the mean of sensitivity (the positive class's recall) and specificity: a
judge that always says one label scores exactly 0.5 whatever the label shares, while its
accuracy is the share of that label.

Example:
    >>> h = ["S", "S", "N", "N", "S", "N"]
    >>> j = ["S", None, "N", "S", "S", "N"]
    >>> r = agreement(h, j, ["q1", "q1", "q2", "q2", "q3", "q3"], labels=("S", "N"), n_resamples=0)
    >>> r["counts"], round(r["metrics"]["balanced_accuracy"]["value"], 4)
    ({'tp': 2, 'fn': 0, 'fp': 1, 'tn': 2, 'up': 1, 'un': 0}, 0.6667)
    >>> r["metrics"]["unparseable"]["value"], r["metrics"]["accuracy"]["low"] is None
    (0.16666666666666666, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..stats import bootstrap_weights, cluster_sums, percentile_bounds
from ..stats.clusters import ratio
from ..stats.confusion import acc_m, balanced_m, float_or_none, recall_m
from ..stats.kappa import kappa_m

__all__ = [
    "MIN_CLUSTERS",
    "COUNTS",
    "STATISTICS",
    "cluster_counts",
    "matrices",
    "statistics",
    "agreement",
]

MIN_CLUSTERS = 10
"""Fewer questions than this: no interval (the point estimate only, and a note)."""

COUNTS = ("tp", "fn", "fp", "tn", "up", "un")
"""The six per-question counts (see the module docs)."""

STATISTICS = (
    "accuracy",
    "balanced_accuracy",
    "kappa",
    "sensitivity",
    "specificity",
    "unparseable",
)
"""The statistics reported, each with its interval."""


def cluster_counts(
    human: Sequence[str],
    judge: Sequence[str | None],
    clusters: Sequence[str],
    *,
    labels: tuple[str, str],
) -> tuple[list[str], np.ndarray]:
    """``(cluster names, counts)``: the six counts per question, shape ``(n_clusters, 6)``.

    ``human`` holds only the two labels; ``judge`` the two labels or None (unparseable).
    """
    pos, neg = labels
    names = sorted(set(clusters))
    index = {c: i for i, c in enumerate(names)}
    col = {
        (pos, pos): 0,
        (pos, neg): 1,
        (neg, pos): 2,
        (neg, neg): 3,
        (pos, None): 4,
        (neg, None): 5,
    }
    rows = np.zeros((len(human), 6))
    for i, (h, j) in enumerate(zip(human, judge)):
        rows[i, col[(h, j)]] = 1
    codes = np.array([index[c] for c in clusters], dtype=np.int64)
    _, sums = cluster_sums(codes, rows)
    return names, sums if len(human) else np.zeros((0, 6))


def matrices(counts: np.ndarray) -> np.ndarray:
    """Confusion matrices ``(…, 2, 2)`` of summed counts ``(…, 6)``, unparseable scored as wrong."""
    tp, fn, fp, tn, up, un = (counts[..., k] for k in range(6))
    return np.stack([np.stack([tp, fn + up], -1), np.stack([fp + un, tn], -1)], -2)


def statistics(counts: np.ndarray) -> dict[str, np.ndarray]:
    """Every statistic of :data:`STATISTICS` from summed counts ``(…, 6)``."""
    m = matrices(counts)
    rec = recall_m(m)
    return {
        "accuracy": acc_m(m),
        "balanced_accuracy": balanced_m(m),
        "kappa": kappa_m(m),
        "sensitivity": rec[..., 0],
        "specificity": rec[..., 1],
        "unparseable": ratio(counts[..., 4] + counts[..., 5], counts.sum(axis=-1)),
    }


def agreement(
    human: Sequence[str],
    judge: Sequence[str | None],
    clusters: Sequence[str],
    *,
    labels: tuple[str, str],
    n_resamples: int = 2000,
    rng: np.random.Generator | None = None,
    conf: float = 0.95,
    min_clusters: int = MIN_CLUSTERS,
) -> dict[str, Any]:
    """The agreement of ``judge`` with ``human`` over items grouped in ``clusters``.

    Args:
        human: the human label of each item (one of ``labels``).
        judge: the judge's label of each item, None where its reply was unparseable.
        clusters: each item's question (the resampling unit).
        labels: ``(positive, negative)``.
        n_resamples: bootstrap resamples (0: no intervals).
        rng: the resampling stream (default: seed 0).
        conf: the intervals' level.
        min_clusters: fewer questions: no interval.

    Returns:
        ``n_items``, ``n_clusters``, ``counts`` (the six sums), ``metrics`` (each statistic's
        ``value``, ``low``, ``high``) and ``interval`` (what the intervals are, or why none).
    """
    names, per = cluster_counts(human, judge, clusters, labels=labels)
    total = per.sum(axis=0) if len(per) else np.zeros(6)
    point = statistics(total)
    n_c = len(names)
    lows: dict[str, float | None] = dict.fromkeys(point)
    highs: dict[str, float | None] = dict.fromkeys(point)
    if n_resamples > 0 and n_c >= min_clusters:
        w = bootstrap_weights(n_c, n_resamples, rng or np.random.default_rng(0))
        boot = statistics(w.astype(np.float64) @ per)
        for k, v in boot.items():
            lows[k], highs[k], _ = percentile_bounds(v, conf)
        interval = (
            f"{round(100 * conf)}% percentile cluster bootstrap over questions ({n_resamples})"
        )
    elif n_resamples > 0:
        interval = f"none: {n_c} question(s), fewer than {min_clusters}"
    else:
        interval = "none: no resamples"
    return {
        "n_items": int(total.sum()),
        "n_clusters": n_c,
        "counts": {k: int(v) for k, v in zip(COUNTS, total)},
        "metrics": {
            k: {"value": float_or_none(point[k]), "low": lows[k], "high": highs[k]} for k in point
        },
        "interval": interval,
    }
