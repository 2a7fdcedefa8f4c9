"""A judged rate corrected for the judge's known errors (Rogan–Gladen), with an interval that carries both samples' uncertainty.

A judge that says label *c* with sensitivity ``Se`` (the share of true *c* it calls *c*) and
specificity ``Sp`` (the share of true non-*c* it calls non-*c*) reports the rate
``p = π·Se + (1 − π)(1 − Sp)`` when the true rate is ``π``. Rogan and Gladen (1978) invert it::

    π̂ = (p + Sp − 1) / (Se + Sp − 1),   clipped to [0, 1]

The denominator is Youden's ``J = Se + Sp − 1``: 0 for a judge at chance, where ``p`` says
nothing about ``π``. ``Se`` and ``Sp`` come from the calibration (the items whose reply could be
read: a judged run leaves its unparseable replies out of its rates too), ``p`` from the run.
The interval is a percentile bootstrap that resamples **both**: the run's clusters (questions,
tests, queries) and the calibration's questions, independently, and recomputes ``π̂`` from
each pair of resamples.

The correction is **refused** when the lower bound of ``J``'s interval is below
:data:`J_MIN` (the judge is not distinguishable from one barely better than chance): there the
interval of ``π̂`` spans most of [0, 1] and undercovers (``benchmarks/coverage_judge.py``;
``docs/judge.md`` gives the figures), so a number would mislead.

Example:
    >>> import numpy as np
    >>> rogan_gladen(np.array(0.34), np.array(0.9), np.array(0.8)).round(4)
    np.float64(0.2)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..stats import bootstrap_weights, cluster_sums, named_rng, percentile_bounds
from ..stats.clusters import ratio
from .agreement import MIN_CLUSTERS

__all__ = ["J_MIN", "rogan_gladen", "calibration_rates", "corrected_rate"]

J_MIN = 0.2
"""The lowest lower bound of Youden's J at which a corrected rate is given."""


def rogan_gladen(p: np.ndarray, se: np.ndarray, sp: np.ndarray) -> np.ndarray:
    """``(p + sp − 1) / (se + sp − 1)`` clipped to [0, 1]; NaN where ``se + sp − 1 <= 0``."""
    j = se + sp - 1
    with np.errstate(invalid="ignore", divide="ignore"):
        est = np.where(j > 0, (p + sp - 1) / np.where(j > 0, j, 1), np.nan)
    return np.clip(est, 0.0, 1.0)


def calibration_rates(
    items: Sequence[dict[str, Any]], *, counted: str, labels: tuple[str, str]
) -> tuple[np.ndarray, list[str]]:
    """Per calibration question: ``[hits, true c, true rejections, true non-c]`` for label ``counted``.

    Only items whose human label is one of ``labels`` and whose reply was read count.
    """
    rows, clusters = [], []
    for r in items:
        if r.get("human") not in labels or r.get("judge") not in labels:
            continue
        is_c, said_c = r["human"] == counted, r["judge"] == counted
        rows.append([is_c and said_c, is_c, not is_c and not said_c, not is_c])
        clusters.append(str(r["cluster"]))
    if not rows:
        return np.zeros((0, 4)), []
    names = sorted(set(clusters))
    index = {c: i for i, c in enumerate(names)}
    _, sums = cluster_sums(np.array([index[c] for c in clusters]), np.array(rows, dtype=float))
    return sums, names


def _se_sp(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return ratio(counts[..., 0], counts[..., 1]), ratio(counts[..., 2], counts[..., 3])


def corrected_rate(
    flagged: Sequence[bool],
    clusters: Sequence[str],
    calibration_items: Sequence[dict[str, Any]],
    *,
    counted: str,
    labels: tuple[str, str],
    n_resamples: int = 2000,
    seed: int = 0,
    name: str = "",
    conf: float = 0.95,
    j_min: float = J_MIN,
) -> dict[str, Any]:
    """The corrected rate of one cell of a judged run.

    Args:
        flagged: per judged unit of the cell, True where the judge said ``counted``.
        clusters: each unit's cluster in the run (its question, test or query).
        calibration_items: the calibration's per-item rows of the cell's language.
        counted: the label the rate counts (one of ``labels``).
        labels: the task's ``(positive, negative)``.
        n_resamples: bootstrap resamples of each sample.
        seed: the seed.
        name: names the cell's random stream (one per cell).
        conf: the interval's level.
        j_min: refuse when the lower bound of J is below it.

    Returns:
        ``observed``, ``sensitivity``, ``specificity``, ``youden`` (value, low, high), and
        ``value``, ``low``, ``high`` of the corrected rate, or ``refused`` with the reason.
    """
    cal, cal_names = calibration_rates(calibration_items, counted=counted, labels=labels)
    se, sp = _se_sp(cal.sum(axis=0)) if len(cal) else (np.array(np.nan), np.array(np.nan))
    n = len(flagged)
    p = float(np.mean(flagged)) if n else float("nan")
    out: dict[str, Any] = {
        "counted": counted,
        "observed": p if n else None,
        "n": n,
        "sensitivity": None if np.isnan(se) else float(se),
        "specificity": None if np.isnan(sp) else float(sp),
        "youden": {"value": None, "low": None, "high": None},
        "value": None,
        "low": None,
        "high": None,
        "refused": None,
    }
    run_names = sorted(set(clusters))
    if not n or len(cal_names) < MIN_CLUSTERS or len(run_names) < MIN_CLUSTERS:
        out["refused"] = (
            f"too few clusters for an interval ({len(run_names)} in the run, {len(cal_names)} in the "
            f"calibration; {MIN_CLUSTERS} needed in each)"
        )
        return out
    index = {c: i for i, c in enumerate(run_names)}
    _, run = cluster_sums(
        np.array([index[c] for c in clusters]),
        np.array([[bool(f), 1.0] for f in flagged], dtype=float),
    )
    rng = named_rng(seed, f"rogan-gladen/{name}")
    w_run = bootstrap_weights(len(run_names), n_resamples, rng).astype(float)
    w_cal = bootstrap_weights(len(cal_names), n_resamples, rng).astype(float)
    rb = w_run @ run
    p_b = ratio(rb[:, 0], rb[:, 1])
    se_b, sp_b = _se_sp(w_cal @ cal)
    j, j_b = float(se + sp - 1), se_b + sp_b - 1
    j_lo, j_hi, _ = percentile_bounds(j_b, conf)
    out["youden"] = {"value": j, "low": j_lo, "high": j_hi}
    if j_lo is None or j_lo < j_min:
        out["refused"] = (
            f"the judge is too close to chance for a correction: Youden J = {j:.2f} "
            f"[{j_lo if j_lo is None else round(j_lo, 2)}, {j_hi if j_hi is None else round(j_hi, 2)}]"
            f", lower bound below {j_min:g}"
        )
        return out
    est = rogan_gladen(np.array(p), se, sp)
    lo, hi, _ = percentile_bounds(rogan_gladen(p_b, se_b, sp_b), conf)
    out.update(value=float(est), low=lo, high=hi)
    return out
