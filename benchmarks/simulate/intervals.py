"""Synthetic per-territory tables with known population values: the coverage of intervals over territories.

:func:`synthetic_tables` draws ``n_sets`` datasets of ``n_territories``
territories, vectorised, with the columns of
:data:`~bordir.metrics.cs.territory.TERRITORY_COLUMNS` that the metrics read. Per
territory: a known controller with probability 0.7; 1–4 claimant-language
answers (probabilities 0.15, 0.55, 0.2, 0.1); a territory propensity
``p ~ Beta(2, 1)`` (or ``Beta(0.35, 4.5)`` with ``low_non_control``: Non-control
CS ≈ 0.07); the controller-language answer present with probability 0.9 and
agreeing with probability ``min(1, 1.2 p)`` (0.8 with ``low_non_control``);
the other answers agreeing with probability ``p`` (so a territory's answers are
correlated); KB agreeing with probability ``√p``; two claimants, so answer
pairs agree when they pick the same one. :func:`population_values` gives the
metrics' population values (the same draw at 2,000,000 territories).

:func:`coverage` measures how often each interval covers them: the
percentile cluster bootstrap (vectorised over datasets, the definition of
:func:`~bordir.metrics.intervals.bootstrap.cluster_bootstrap`) and the small-sample
:func:`~bordir.metrics.intervals.territory.territory_interval`.
``benchmarks/coverage_bootstrap.py`` prints it at 12, 30, 60 and 251
territories; ``tests/metrics/test_bootstrap_coverage.py`` runs it small.

Example:
    >>> cols = synthetic_tables(np.random.default_rng(0), n_sets=3, n_territories=12)
    >>> cols["kb_num"].shape
    (3, 12)
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from bordir.metrics.cs.aggregate import METRICS, RATIO_METRICS, metric_value
from bordir.metrics.intervals.smallsample import territory_interval_from_arrays

__all__ = ["answer_columns", "delta_log_scale", "synthetic_tables", "population_values", "coverage"]


def synthetic_tables(
    rng: np.random.Generator, *, n_sets: int, n_territories: int, low_non_control: bool = False
) -> dict[str, np.ndarray]:
    """Per-territory columns, each of shape ``(n_sets, n_territories)`` (see the module docs)."""
    shape = (n_sets, n_territories)
    known = rng.random(shape) < 0.7
    m = rng.choice([1, 2, 3, 4], p=[0.15, 0.55, 0.2, 0.1], size=shape)
    p = rng.beta(0.35, 4.5, size=shape) if low_non_control else rng.beta(2.0, 1.0, size=shape)
    has_ctl = known & (m >= 1) & (rng.random(shape) < 0.9)
    agree_c = has_ctl & (rng.random(shape) < (0.8 if low_non_control else np.minimum(1.0, 1.2 * p)))
    return answer_columns(rng, known=known, m=m, p=p, has_ctl=has_ctl, agree_c=agree_c)


def answer_columns(
    rng: np.random.Generator,
    *,
    known: np.ndarray,
    m: np.ndarray,
    p: np.ndarray,
    has_ctl: np.ndarray,
    agree_c: np.ndarray,
) -> dict[str, np.ndarray]:
    """The per-territory columns, given the draws so far (all of one shape).

    Args:
        rng: draws the Non-control agreements, the KB answers and the answers of unknown territories.
        known: the controller is known.
        m: claimants.
        p: chance that a Non-control answer agrees with the controller.
        has_ctl: the controller's language is asked.
        agree_c: the Control answer agrees.
    """
    nc_n = np.where(known, m - has_ctl, 0)
    nc_agree = rng.binomial(nc_n, p)
    kb = known & (rng.random(known.shape) < np.sqrt(p))
    # answers naming the first of two claimants (the controller for known ones): pairs agree on a side
    k = np.where(known, agree_c + nc_agree, rng.binomial(m, p))
    pairs = m * (m - 1) / 2
    agreeing = k * (k - 1) / 2 + (m - k) * (m - k - 1) / 2
    cst = np.where(pairs > 0, agreeing / np.maximum(pairs, 1), 0.0)
    f = np.float64
    return {
        "kb_num": kb.astype(f),
        "kb_den": known.astype(f),
        "control_num": agree_c.astype(f),
        "control_den": has_ctl.astype(f),
        "nc_num": np.where(nc_n > 0, nc_agree / np.maximum(nc_n, 1), 0.0),
        "nc_den": (nc_n > 0).astype(f),
        "cst_num": cst,
        "cst_den": (pairs > 0).astype(f),
        "cst_unk_num": np.where(~known, cst, 0.0),
        "cst_unk_den": ((pairs > 0) & ~known).astype(f),
    }


def population_values(
    *, low_non_control: bool = False, n_territories: int = 2_000_000, seed: int = 0
) -> dict[str, float]:
    """Every metric of :data:`~bordir.metrics.cs.aggregate.METRICS` on one very large draw: the values intervals should cover."""
    cols = synthetic_tables(
        np.random.default_rng(seed),
        n_sets=1,
        n_territories=n_territories,
        low_non_control=low_non_control,
    )
    return {
        m: float(np.asarray(metric_value({k: v[0] for k, v in cols.items()}, m))) for m in METRICS
    }


def _boot_values(cols: dict[str, np.ndarray], metric: str, w: np.ndarray) -> np.ndarray:
    """``(S, B)`` resampled values, as :func:`~bordir.metrics.intervals.bootstrap.cluster_bootstrap` computes them."""
    c3 = {k: v[:, None, :] for k, v in cols.items()}
    if metric != "delta_cs_norm":
        return np.asarray(metric_value(c3, metric, weights=w), dtype=float)
    c = np.asarray(metric_value(c3, "control_cs", weights=w), dtype=float)
    n = np.asarray(metric_value(c3, "non_control_cs", weights=w), dtype=float)
    return delta_log_scale(c, n)


def delta_log_scale(c: np.ndarray, n: np.ndarray) -> np.ndarray:
    """ΔCS = C / N − 1 of Control CS ``c`` and Non-control CS ``n``: +∞ where N = 0 < C, NaN where undefined.

    >>> delta_log_scale(np.array([0.5, 0.5, 0.0, np.nan]), np.array([0.25, 0.0, 0.0, 0.5])).tolist()
    [1.0, inf, nan, nan]
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(
            n > 0, c / np.where(n > 0, n, 1.0) - 1.0, np.where((n == 0) & (c > 0), np.inf, np.nan)
        )


def coverage(
    rng: np.random.Generator,
    *,
    n_sets: int,
    n_territories: int,
    n_resamples: int = 1000,
    truth: dict[str, float] | None = None,
    low_non_control: bool = False,
    chunk: int | None = None,
    metrics: tuple[str, ...] = METRICS,
) -> dict[str, dict[str, Any]]:
    """Coverage of the population values by the percentile bootstrap (``boot95``) and ``terr95``, per metric.

    Returns ``{metric: {"boot95": share, "terr95": share, "n": datasets where the metric is defined,
    "boot95_given" / "terr95_given": share of them given an interval, "terr95_width": median width,
    "boot95_width": median width, "warned": share of datasets warned about}}``. The coverage is over
    the datasets given an interval: both intervals refuse, as the library does, below
    :data:`~bordir.metrics.intervals.smallsample.MIN_INTERVAL_CLUSTERS` contributing territories
    (and the bootstrap when more than the upper tail of its resamples is infinite or undefined,
    :func:`~bordir.metrics.intervals.bootstrap.refusal`).
    """
    from bordir.metrics.intervals.bootstrap import refusal

    truth = truth or population_values(low_non_control=low_non_control)
    hits: dict[str, dict[str, Any]] = {
        m: {"boot95": 0, "terr95": 0, "n": 0, "bg": 0, "tg": 0, "warned": 0, "bw": [], "tw": []}
        for m in metrics
    }
    t = n_territories
    chunk = chunk or max(
        1, 6_000_000 // (n_resamples * t)
    )  # resample weights of one chunk: ≤ 48 MB
    for start in range(0, n_sets, chunk):
        s = min(chunk, n_sets - start)
        cols = synthetic_tables(rng, n_sets=s, n_territories=t, low_non_control=low_non_control)
        w = rng.multinomial(t, np.full(t, 1.0 / t), size=(s, n_resamples)).astype(np.float64)
        for m in metrics:
            boot = _boot_values(cols, m, w)
            est = np.asarray(metric_value(cols, m), dtype=float)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                if np.isinf(boot).any():  # order statistics: no interpolation across +∞
                    lo = np.nanquantile(boot, 0.025, axis=1, method="inverted_cdf")
                    hi = np.nanquantile(boot, 0.975, axis=1, method="inverted_cdf")
                else:
                    lo, hi = (
                        np.nanquantile(boot, 0.025, axis=1),
                        np.nanquantile(boot, 0.975, axis=1),
                    )
            tv = truth[m]
            for i in range(s):
                if not np.isfinite(est[i]):
                    continue
                ti = territory_interval_from_arrays(
                    {k: v[i] for k, v in cols.items()}, m, ratio_columns=dict(RATIO_METRICS)
                )
                h = hits[m]
                h["n"] += 1
                h["warned"] += ti.warning is not None
                if refusal(boot[i], ti.n_clusters) is None:
                    h["bg"] += 1
                    h["boot95"] += bool(lo[i] <= tv <= hi[i])
                    h["bw"].append(hi[i] - lo[i])
                if ti.low is not None and ti.high is not None:
                    h["tg"] += 1
                    h["terr95"] += bool(ti.low <= tv <= ti.high)
                    h["tw"].append(ti.high - ti.low)
    out = {}
    for m, h in hits.items():
        n = max(h["n"], 1)
        out[m] = {
            "boot95": h["boot95"] / max(h["bg"], 1),
            "terr95": h["terr95"] / max(h["tg"], 1),
            "n": h["n"],
            "boot95_given": h["bg"] / n,
            "terr95_given": h["tg"] / n,
            "warned": h["warned"] / n,
            "boot95_width": float(np.nanmedian(h["bw"])) if h["bw"] else None,
            "terr95_width": float(np.nanmedian(h["tw"])) if h["tw"] else None,
        }
    return out
