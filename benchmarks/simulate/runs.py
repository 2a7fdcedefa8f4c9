"""Synthetic per-territory tables of several runs with known population values: intervals over runs and territories.

:func:`synthetic_runs` draws ``n_sets`` datasets of ``n_territories``
territories asked ``n_runs`` times, vectorised: columns of shape
``(n_sets, n_runs, n_territories)``. What a territory *is* (a known controller
with probability 0.7, its number of claimant-language answers, whether the
controller's language is asked, its propensity ``p`` to agree with the
controller) is drawn once; every run draws the answers again from it (the
run-to-run sampling of a temperature > 0). Two designs:

* ``even``: 1–4 claimant-language answers (probabilities 0.15, 0.55, 0.2, 0.1),
  ``p ~ Beta(m·κ, (1 − m)·κ)`` with mean ``m = non_control`` (κ = 3), the
  controller-language answer agreeing with probability ``min(1, p + 0.25)``;
* ``uneven``: 1–15 answers per territory (1, 1, 2, 3, 5, 8, 15 equally likely)
  and agreement lower in small territories (``p·0.8`` below 5 answers): the
  harder design of ``benchmarks/verify_smallsample_coverage.py``.

``run_effect`` adds a run-level shift (a normal on the logit scale, shared by
every territory of a run): a run that is as a whole more agreeable. Resampling
territories cannot see it; it is what the t-interval over runs is for.

:func:`population` gives every CS metric's population value (one draw of
2,000,000 territories, one run: the answers' expectation is the same in every
run). ``benchmarks/coverage_runs.py`` measures, with these tables, how often the
intervals of the normalised ΔCS over runs cover it, and how the small-sample
intervals cover by the number of contributing territories (Cst CS unk rests
on the few Unknown-controller territories); ``tests/metrics/test_bootstrap_coverage.py``
runs it small.

Example:
    >>> cols = synthetic_runs(np.random.default_rng(0), n_sets=2, n_territories=12, n_runs=3)
    >>> cols["nc_num"].shape
    (2, 3, 12)
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from bordir.metrics.cs.aggregate import METRICS, metric_value

from .intervals import answer_columns, delta_log_scale

__all__ = [
    "DESIGNS",
    "CLUSTER_BINS",
    "draw_territories",
    "draw_answers",
    "synthetic_runs",
    "population",
    "pooled",
    "delta_norm_coverage",
    "coverage_by_clusters",
]

DESIGNS: tuple[str, ...] = ("even", "uneven")


def _logit(p: np.ndarray) -> np.ndarray:
    q = np.clip(p, 1e-9, 1 - 1e-9)
    return cast("np.ndarray", np.log(q / (1 - q)))


def _expit(x: np.ndarray) -> np.ndarray:
    return cast("np.ndarray", 1.0 / (1.0 + np.exp(-x)))


def draw_territories(
    rng: np.random.Generator,
    *,
    n_sets: int,
    n_territories: int,
    non_control: float = 0.46,
    design: str = "even",
    kappa: float = 3.0,
) -> dict[str, np.ndarray]:
    """What the territories are (module docs), each of shape ``(n_sets, 1, n_territories)``."""
    if design not in DESIGNS:
        raise ValueError(f"design must be one of {', '.join(DESIGNS)}, found {design!r}")
    one = (n_sets, 1, n_territories)
    known = rng.random(one) < 0.7
    if design == "even":
        m = rng.choice([1, 2, 3, 4], p=[0.15, 0.55, 0.2, 0.1], size=one)
    else:
        m = rng.choice([1, 1, 2, 3, 5, 8, 15], size=one)
    p = rng.beta(non_control * kappa, (1 - non_control) * kappa, size=one)
    if design == "uneven":
        p = p * np.where(m > 4, 1.0, 0.8)
    has_ctl = known & (rng.random(one) < 0.9)
    return {"known": known, "m": m, "p": p, "has_ctl": has_ctl}


def draw_answers(
    rng: np.random.Generator, terr: dict[str, np.ndarray], *, n_runs: int, run_effect: float = 0.0
) -> dict[str, np.ndarray]:
    """The per-territory columns of ``n_runs`` runs of answers to ``terr`` (:func:`draw_territories`)."""
    known, m, p, has_ctl = terr["known"], terr["m"], terr["p"], terr["has_ctl"]
    n_sets, _, n_territories = p.shape
    full = (n_sets, n_runs, n_territories)
    p_ctl = np.minimum(1.0, p + 0.25)
    if run_effect > 0:
        shift = rng.normal(0.0, run_effect, size=(n_sets, n_runs, 1))
        p, p_ctl = _expit(_logit(p) + shift), _expit(_logit(p_ctl) + shift)
    p, p_ctl = np.broadcast_to(p, full), np.broadcast_to(p_ctl, full)
    has_ctl_f = np.broadcast_to(has_ctl, full)
    known_f = np.broadcast_to(known, full)
    m_f = np.broadcast_to(m, full)
    agree_c = has_ctl_f & (rng.random(full) < p_ctl)
    return answer_columns(rng, known=known_f, m=m_f, p=p, has_ctl=has_ctl_f, agree_c=agree_c)


def synthetic_runs(
    rng: np.random.Generator,
    *,
    n_sets: int,
    n_territories: int,
    n_runs: int,
    non_control: float = 0.46,
    design: str = "even",
    run_effect: float = 0.0,
    kappa: float = 3.0,
) -> dict[str, np.ndarray]:
    """Per-territory columns of every run, each of shape ``(n_sets, n_runs, n_territories)`` (module docs)."""
    terr = draw_territories(
        rng,
        n_sets=n_sets,
        n_territories=n_territories,
        non_control=non_control,
        design=design,
        kappa=kappa,
    )
    return draw_answers(rng, terr, n_runs=n_runs, run_effect=run_effect)


def population(
    *,
    non_control: float = 0.46,
    design: str = "even",
    n_territories: int = 2_000_000,
    seed: int = 0,
) -> dict[str, float]:
    """Every built-in CS metric on one very large draw (one run): the values the intervals should cover."""
    cols = synthetic_runs(
        np.random.default_rng(seed),
        n_sets=1,
        n_territories=n_territories,
        n_runs=1,
        non_control=non_control,
        design=design,
    )
    flat = {k: v[0, 0] for k, v in cols.items()}
    return {m: float(np.asarray(metric_value(flat, m))) for m in METRICS}


def pooled(cols: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The runs of each dataset pooled per territory (the mean over the run axis): ``(n_sets, n_territories)``."""
    return {k: v.mean(axis=1) for k, v in cols.items()}


def _log_delta(c_num: Any, c_den: Any, n_num: Any, n_den: Any) -> np.ndarray:
    """C / N − 1 of summed columns (last axis summed by the caller): +∞ where N = 0 < C, NaN where undefined."""
    with np.errstate(invalid="ignore", divide="ignore"):
        c = np.where(c_den > 0, c_num / np.where(c_den > 0, c_den, 1.0), np.nan)
        n = np.where(n_den > 0, n_num / np.where(n_den > 0, n_den, 1.0), np.nan)
    return delta_log_scale(c, n)


def delta_norm_coverage(
    rng: np.random.Generator,
    *,
    n_sets: int,
    n_territories: int,
    n_runs: int,
    n_resamples: int = 1000,
    non_control: float = 0.46,
    design: str = "even",
    run_effect: float = 0.0,
    truth: float | None = None,
) -> dict[str, dict[str, float]]:
    """How often the intervals of the normalised ΔCS over ``n_runs`` runs cover its population value.

    Per method: ``covered`` (share of the datasets given an interval whose interval covers the value),
    ``given`` (share of the defined datasets given an interval) and ``defined`` (share of the datasets
    where the estimate is defined). Methods:

    * ``boot_pooled`` — :func:`~bordir.metrics.intervals.bootstrap.cluster_bootstrap` as it is now: the
      counts pooled over runs, resamples with N* = 0 < C* kept as +∞, and its refusals
      (:func:`~bordir.metrics.intervals.bootstrap.refusal`);
    * ``boot_mean_runs`` — the bootstrap before: the mean over runs of each run's ratio (+∞ when one
      run's Non-control CS* is 0), every interval given;
    * ``terr95`` — the small-sample log-MOVER interval on the runs pooled per territory, with its refusals.
    """
    from bordir.metrics.cs.aggregate import RATIO_METRICS
    from bordir.metrics.intervals.bootstrap import refusal
    from bordir.metrics.intervals.smallsample import territory_interval_from_arrays

    if truth is None:
        truth = population(non_control=non_control, design=design)["delta_cs_norm"]
    cols = synthetic_runs(
        rng,
        n_sets=n_sets,
        n_territories=n_territories,
        n_runs=n_runs,
        non_control=non_control,
        design=design,
        run_effect=run_effect,
    )
    keys = ("control_num", "control_den", "nc_num", "nc_den")
    # per method: covered, given, defined
    hits = {m: [0, 0, 0] for m in ("boot_pooled", "boot_mean_runs", "terr95")}
    t = n_territories
    for s in range(n_sets):
        w = rng.multinomial(t, np.full(t, 1.0 / t), size=n_resamples).astype(float)
        run_cols = {k: cols[k][s] for k in keys}  # (R, T)
        summed = {k: v.sum(axis=0) for k, v in run_cols.items()}  # (T,)
        est = float(_log_delta(*(summed[k].sum() for k in keys)))
        if not np.isfinite(est):
            continue
        n_clusters = int(min((summed["control_den"] > 0).sum(), (summed["nc_den"] > 0).sum()))
        pooled_boot = _log_delta(*(w @ summed[k] for k in keys))
        per_run = np.stack([_log_delta(*(w @ run_cols[k][r] for k in keys)) for r in range(n_runs)])
        with np.errstate(invalid="ignore"):
            ok = ~np.isnan(per_run)
            mean_runs = np.where(
                ok.any(axis=0), np.nansum(per_run, axis=0) / np.maximum(ok.sum(axis=0), 1), np.nan
            )
        for name, boot, check in (
            ("boot_pooled", pooled_boot, True),
            ("boot_mean_runs", mean_runs, False),
        ):
            h = hits[name]
            h[2] += 1
            v = boot[~np.isnan(boot)]
            if not len(v) or (check and refusal(boot, n_clusters) is not None):
                continue
            lo, hi = np.quantile(v, [0.025, 0.975], method="inverted_cdf")
            h[1] += 1
            h[0] += bool(lo <= truth <= hi)
        ti = territory_interval_from_arrays(
            {k: v / n_runs for k, v in summed.items()},
            "delta_cs_norm",
            ratio_columns=dict(RATIO_METRICS),
        )
        h = hits["terr95"]
        h[2] += 1
        if ti.low is not None and ti.high is not None:
            h[1] += 1
            h[0] += bool(ti.low <= truth <= ti.high)
    return {
        m: {
            "covered": c / g if g else float("nan"),
            "given": g / d if d else float("nan"),
            "defined": d / n_sets,
        }
        for m, (c, g, d) in hits.items()
    }


CLUSTER_BINS: tuple[tuple[int, int], ...] = (
    (1, 1), (2, 2), (3, 3), (4, 4), (5, 9), (10, 19), (20, 29), (30, 10**9),
)  # fmt: skip
"""Bins of contributing territories of :func:`coverage_by_clusters`."""


def coverage_by_clusters(
    rng: np.random.Generator,
    *,
    n_sets: int,
    n_territories: int,
    design: str = "even",
    non_control: float = 0.46,
    metrics: tuple[str, ...] = METRICS,
    n_resamples: int = 0,
    truth: dict[str, float] | None = None,
) -> dict[str, dict[tuple[int, int], list[int]]]:
    """Coverage of the small-sample interval (and, with ``n_resamples``, the percentile bootstrap) by contributing territories.

    One run per dataset; the intervals are computed **without** the refusal below
    :data:`~bordir.metrics.intervals.smallsample.MIN_INTERVAL_CLUSTERS` (that is what this measures).
    Returns ``{metric: {bin: [terr95 covered, boot95 covered, datasets]}}`` over :data:`CLUSTER_BINS`.
    """
    from bordir.metrics.cs.aggregate import RATIO_METRICS
    from bordir.metrics.intervals.aligned import metric_columns
    from bordir.metrics.intervals.smallsample import territory_interval_from_arrays

    truth = truth or population(non_control=non_control, design=design)
    cols = {
        k: v[:, 0]
        for k, v in synthetic_runs(
            rng, n_sets=n_sets, n_territories=n_territories, n_runs=1, design=design,
            non_control=non_control,
        ).items()
    }  # fmt: skip
    out: dict[str, dict[tuple[int, int], list[int]]] = {
        m: {b: [0, 0, 0] for b in CLUSTER_BINS} for m in metrics
    }
    t = n_territories
    w = (
        rng.multinomial(t, np.full(t, 1.0 / t), size=(n_sets, n_resamples)).astype(float)
        if n_resamples
        else None
    )
    for m in metrics:
        boot = None
        if w is not None:
            need = metric_columns(m)
            c3 = {k: cols[k][:, None, :] for k in need}
            boot = np.asarray(metric_value(c3, m, weights=w), dtype=float)
        for i in range(n_sets):
            ti = territory_interval_from_arrays(
                {k: v[i] for k, v in cols.items()},
                m,
                ratio_columns=dict(RATIO_METRICS),
                min_interval=0,
            )
            if ti.estimate is None or ti.n_clusters < 1:
                continue
            b = next(b for b in CLUSTER_BINS if b[0] <= ti.n_clusters <= b[1])
            h = out[m][b]
            h[2] += 1
            hi = np.inf if ti.high is None else ti.high
            h[0] += bool(ti.low is not None and ti.low <= truth[m] <= hi)
            if boot is not None:
                v = boot[i][np.isfinite(boot[i])]
                if len(v):
                    lo_b, hi_b = np.quantile(v, [0.025, 0.975])
                    h[1] += bool(lo_b <= truth[m] <= hi_b)
    return out
