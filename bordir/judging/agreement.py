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
:func:`~bordir.stats.kappa.kappa_m`). Intervals respect the questions (clusters):
the shares (sensitivity, specificity, accuracy, the unparseable share) get the cluster Wilson
interval, balanced accuracy ``(1 + J) / 2`` the MOVER interval of Youden's J
(:func:`score_intervals`), κ the percentile cluster bootstrap (a resample draws questions with
replacement: a weight vector over the questions, :func:`~bordir.stats.resample.bootstrap_weights`,
so all resamples are one matrix product). ``benchmarks/coverage_judge.py`` measures their
coverage (the percentile bootstrap of balanced accuracy undercovers at 10–20 questions and near
1: 77–92 %; the score interval holds about 93–96 %). With fewer than :data:`MIN_CLUSTERS` questions no
interval is given.

Balanced accuracy is the mean of sensitivity (the positive class's recall) and specificity: a
judge that always says one label scores exactly 0.5 whatever the label shares, while its
accuracy is the share of that label. Where the humans gave one label only it is undefined
(None), not the recall of that label: such a language cannot be calibrated.

Example:
    >>> h = ["S", "S", "N", "N", "S", "N"]
    >>> j = ["S", None, "N", "S", "S", "N"]
    >>> r = agreement(h, j, ["q1", "q1", "q2", "q2", "q3", "q3"], labels=("S", "N"), n_resamples=0)
    >>> m = r["metrics"]
    >>> r["counts"], round(m.get("balanced_accuracy").get("value"), 4)
    ({'tp': 2, 'fn': 0, 'fp': 1, 'tn': 2, 'up': 1, 'un': 0}, 0.6667)
    >>> m.get("unparseable").get("value"), m.get("accuracy").get("low") is None
    (0.16666666666666666, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import NormalDist
from typing import Any

import numpy as np

from ..stats import bootstrap_weights, cluster_sums, percentile_bounds
from ..stats.cluster_wilson import correlation, influence, wilson_ratio
from ..stats.clusters import ratio
from ..stats.confusion import acc_m, balanced_m, float_or_none, recall_m
from ..stats.kappa import kappa_m
from ..stats.mover import mover_difference

__all__ = [
    "MIN_CLUSTERS",
    "COUNTS",
    "STATISTICS",
    "cluster_counts",
    "matrices",
    "statistics",
    "t_level",
    "score_intervals",
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
    both = (m.sum(axis=-1) > 0).all(axis=-1)  # one human class only: no balanced accuracy
    return {
        "accuracy": acc_m(m),
        "balanced_accuracy": np.where(both, balanced_m(m), np.nan),
        "kappa": kappa_m(m),
        "sensitivity": rec[..., 0],
        "specificity": rec[..., 1],
        "unparseable": ratio(counts[..., 4] + counts[..., 5], counts.sum(axis=-1)),
    }


def t_level(conf: float, df: int) -> float:
    """The normal level whose critical value is Student's t with ``df`` degrees of freedom (Cornish–Fisher, no scipy).

    The cluster variances behind :func:`score_intervals` have ``questions − 1`` degrees of
    freedom; at 10 questions the normal critical value undercovers (92 % for 95 %), t's holds.

    >>> round(t_level(0.95, 9), 3), round(t_level(0.95, 10_000), 4)
    (0.976, 0.95)
    """
    nd = NormalDist()
    z = nd.inv_cdf(1 - (1 - conf) / 2)
    d = max(int(df), 1)
    t = (
        z
        + (z**3 + z) / (4 * d)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * d**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * d**3)
    )
    return 2 * nd.cdf(t) - 1


def score_intervals(per: np.ndarray, conf: float = 0.95) -> dict[str, tuple[float, float]]:
    """Cluster Wilson intervals of the shares and the MOVER interval of balanced accuracy, from per-question counts ``(G, 6)``.

    Sensitivity ``tp / (tp + fn + up)``, the false-positive rate ``(fp + un) / (fp + tn + un)``,
    accuracy and the unparseable share each get the cluster Wilson interval
    (:func:`~bordir.stats.cluster_wilson.wilson_ratio`: never a point, even when every question
    agrees) at the level of Student's t with ``questions − 1`` degrees of freedom
    (:func:`t_level`); Youden's ``J = sensitivity − false-positive rate`` gets Newcombe's MOVER
    interval with the two shares' correlation over the questions; balanced accuracy is
    ``(1 + J) / 2``.
    """
    conf = t_level(conf, len(per) - 1)
    tp, fn, fp, tn, up, un = (per[:, k] for k in range(6))
    pos, neg, tot = tp + fn + up, fp + tn + un, per.sum(axis=1)
    out: dict[str, tuple[float, float]] = {}
    se, se_lo, se_hi = wilson_ratio(tp, pos, conf)
    fpr, fpr_lo, fpr_hi = wilson_ratio(fp + un, neg, conf)
    if not np.isnan(se):
        out["sensitivity"] = (se_lo, se_hi)
    if not np.isnan(fpr):
        out["specificity"] = (1 - fpr_hi, 1 - fpr_lo)
    if not (np.isnan(se) or np.isnan(fpr)):
        rho = correlation(influence(tp, pos), influence(fp + un, neg))
        _, j_lo, j_hi = mover_difference(se, se_lo, se_hi, fpr, fpr_lo, fpr_hi, rho)
        out["balanced_accuracy"] = (max(0.0, (1 + j_lo) / 2), min(1.0, (1 + j_hi) / 2))
    for name, num in (("accuracy", tp + tn), ("unparseable", up + un)):
        v, lo, hi = wilson_ratio(num, tot, conf)
        if not np.isnan(v):
            out[name] = (lo, hi)
    return out


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
        n_resamples: bootstrap resamples of κ's interval (0: none for κ).
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
    if n_c >= min_clusters:
        for k, (lo, hi) in score_intervals(per, conf).items():
            lows[k], highs[k] = lo, hi
        interval = (
            f"{round(100 * conf)}%: cluster Wilson (shares), MOVER (balanced accuracy) over "
            f"{n_c} questions"
        )
        if n_resamples > 0:
            w = bootstrap_weights(n_c, n_resamples, rng or np.random.default_rng(0))
            kappa = statistics(w.astype(np.float64) @ per)["kappa"]
            lows["kappa"], highs["kappa"], _ = percentile_bounds(kappa, conf)
            interval += f"; kappa: percentile cluster bootstrap ({n_resamples})"
    else:
        interval = f"none: {n_c} question(s), fewer than {min_clusters}"
    return {
        "n_items": int(total.sum()),
        "n_clusters": n_c,
        "counts": {k: int(v) for k, v in zip(COUNTS, total)},
        "metrics": {
            k: {"value": float_or_none(point[k]), "low": lows[k], "high": highs[k]} for k in point
        },
        "interval": interval,
    }
