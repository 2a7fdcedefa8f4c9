"""Paired per-territory differences over several runs, with a known effect: the power at the reported MDE.

A territory has a propensity ``p_b`` to give the counted answer (agree with the
controller) in mode b and ``p_a`` in mode a; every run draws one answer per
mode from them, and the territory's difference is the mean over the runs of
``x_a − x_b`` (runs pooled per territory, as the report pools them). Designs of
:func:`propensities`:

* ``beta`` — ``p_b ~ Beta(2, 2)``, ``logit p_a = logit p_b + γ``: every
  territory moves a little;
* ``movers`` — ``p_b ~ Beta(1, 2)``; a share ``γ`` of the territories moves to
  ``p_a = min(1, p_b + 0.6)``, the others stay: few territories move a lot;
* ``fixed`` — a temperature-0 model: ``p ∈ {0, 1}`` (``p_b = 1`` for 40 % of the
  territories), a share ``γ`` of those at 0 moves to 1: every run gives the same
  answer, so the differences are ternary whatever the number of runs.

How the runs relate (``coupling`` of :func:`pooled_differences`):

* ``independent`` — every run draws both modes' answers afresh;
* ``coupled`` — within a run the two modes share a component: with probability 0.7 mode b's
  answer uses mode a's uniform draw (a run-level common cause: the same sampled tokens, the same
  retrieval), so the per-run differences are positively correlated answers' differences;
* ``partly`` — partly deterministic runs: half of the territories (drawn per data set) answer the
  same in every run (a temperature-0 or cached answer repeated), the others independently.

The effect ``δ = E[p_a − p_b]`` and the SD ``σ_d`` of the pooled differences
come from a large draw (:func:`population`). :func:`power_check` takes the MDE
that :func:`bordir.metrics.perlang.power.mde` reports for ``n`` territories,
``R`` runs and the SD and shape the test sees *at that effect* (a fixed point:
``δ* = mde(n, σ_d(δ*), R, shape(δ*))``, :mod:`~bordir.metrics.perlang.shape`), plants ``δ*`` and counts how often bordir's
sign-flip test (:func:`bordir.stats.sign_flip_pvalue`, 1,999 random flips,
``(c + 1)/(n + 1)``) rejects at α = 0.05: the power at the reported MDE, which
should be 80 %. ``benchmarks/power_mde.py`` prints it for 1, 3 and 10 runs × 20,
60 and 400 territories; ``tests/metrics/test_power_planted.py`` runs a small version.

Example:
    >>> pa, pb = propensities(np.random.default_rng(0), 5, "beta", 0.5)
    >>> pa.shape, bool((pa >= pb).all())
    ((5,), True)
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, cast

import numpy as np

from bordir.metrics.perlang.power import ALPHA, POWER, mde
from bordir.metrics.perlang.shape import MIN_SHAPE_N, shape_of
from bordir.stats.permutation import flip_matrix, sign_flip_pvalue

__all__ = [
    "DESIGNS",
    "COUPLINGS",
    "propensities",
    "pooled_differences",
    "population",
    "effect_for",
    "shape_for",
    "power_check",
    "simulated_power",
]

DESIGNS: tuple[str, ...] = ("beta", "movers", "fixed")
COUPLINGS: tuple[str, ...] = ("independent", "coupled", "partly")
"""How a data set's runs relate (module docs)."""


def _expit(x: np.ndarray) -> np.ndarray:
    return cast("np.ndarray", 1.0 / (1.0 + np.exp(-x)))


def _draws(rng: np.random.Generator, n: int, design: str) -> tuple[np.ndarray, np.ndarray]:
    """The random part of :func:`propensities`: ``p_b`` and one uniform per territory."""
    if design == "beta":
        return rng.beta(2.0, 2.0, size=n), np.zeros(n)
    if design == "movers":
        return rng.beta(1.0, 2.0, size=n), rng.random(n)
    if design == "fixed":
        return (rng.random(n) < 0.4).astype(float), rng.random(n)
    raise ValueError(f"design must be one of {', '.join(DESIGNS)}, found {design!r}")


def _shifted(design: str, pb: np.ndarray, u: np.ndarray, gamma: float) -> np.ndarray:
    """``p_a`` from the draws of :func:`_draws` and the effect parameter ``gamma``."""
    if design == "beta":
        return _expit(np.log(pb / (1 - pb)) + gamma)
    if design == "movers":
        return np.where(u < gamma, np.minimum(1.0, pb + 0.6), pb)
    return np.where((u < gamma) & (pb == 0), 1.0, pb)


def propensities(
    rng: np.random.Generator, n: int, design: str, gamma: float
) -> tuple[np.ndarray, np.ndarray]:
    """``(p_a, p_b)`` of ``n`` territories under ``design`` with effect parameter ``gamma`` (module docs)."""
    pb, u = _draws(rng, n, design)
    return _shifted(design, pb, u, gamma), pb


@lru_cache(maxsize=8)
def _population_draws(design: str, n: int) -> tuple[np.ndarray, np.ndarray]:
    return _draws(np.random.default_rng(1), n, design)


def pooled_differences(
    rng: np.random.Generator,
    pa: np.ndarray,
    pb: np.ndarray,
    runs: int,
    n_sets: int = 1,
    coupling: str = "independent",
) -> np.ndarray:
    """``(n_sets, n)`` differences, each the mean over ``runs`` runs of one answer per mode and territory."""
    if coupling not in COUPLINGS:
        raise ValueError(f"coupling must be one of {', '.join(COUPLINGS)}, found {coupling!r}")
    shape = (n_sets, runs, len(pa))
    ua, ub = rng.random(shape), rng.random(shape)
    if coupling == "coupled":
        ub = np.where(rng.random(shape) < 0.7, ua, ub)
    xa, xb = ua < pa, ub < pb
    if coupling == "partly":
        det = rng.random((n_sets, 1, len(pa))) < 0.5
        xa, xb = np.where(det, xa[:, :1, :], xa), np.where(det, xb[:, :1, :], xb)
    return cast("np.ndarray", (xa.astype(float) - xb.astype(float)).mean(axis=1))


def population(
    design: str,
    gamma: float,
    runs: int,
    *,
    n: int = 400_000,
    seed: int = 0,
    coupling: str = "independent",
) -> tuple[float, float]:
    """``(δ, σ_d)``: the effect and the SD of the pooled differences over ``runs`` runs (a large draw)."""
    rng = np.random.default_rng(seed)
    pa, pb = propensities(rng, n, design, gamma)
    d = pooled_differences(rng, pa, pb, runs, coupling=coupling)[0]
    return float(np.mean(pa - pb)), float(np.std(d, ddof=1))


def shape_for(
    design: str, delta: float, runs: int, coupling: str = "independent"
) -> tuple[float, float]:
    """The skewness and kurtosis of the pooled differences at effect ``delta`` (a large draw)."""
    gamma, _ = effect_for(design, delta, runs, coupling)
    rng = np.random.default_rng(0)
    pa, pb = propensities(rng, 200_000, design, gamma)
    return shape_of(pooled_differences(rng, pa, pb, runs, coupling=coupling)[0])


def _mean_effect(design: str, gamma: float, n: int = 200_000) -> float:
    """``E[p_a − p_b]`` at ``gamma`` (the same propensity draws for every ``gamma``: smooth in it)."""
    pb, u = _population_draws(design, n)
    return float(np.mean(_shifted(design, pb, u, gamma) - pb))


def effect_for(
    design: str, delta: float, runs: int, coupling: str = "independent"
) -> tuple[float, float]:
    """``(γ, σ_d)`` whose population effect is ``delta`` (bisection on γ) and the pooled differences' SD there."""
    lo, hi = 0.0, 8.0 if design == "beta" else 1.0
    for _ in range(30):
        mid = (lo + hi) / 2
        if _mean_effect(design, mid) < delta:
            lo = mid
        else:
            hi = mid
    gamma = (lo + hi) / 2
    return gamma, population(design, gamma, runs, n=200_000, coupling=coupling)[1]


def power_check(
    rng: np.random.Generator,
    *,
    n: int,
    runs: int,
    design: str = "beta",
    n_sets: int = 1000,
    n_flips: int = 1999,
    alpha: float = ALPHA,
    power: float = POWER,
    coupling: str = "independent",
) -> dict[str, Any]:
    """The power of bordir's sign-flip test at the MDE it reports for ``n`` territories and ``runs`` runs.

    Returns ``mde``, ``sd`` (σ_d at that effect), ``effective_runs`` (1 for the ``fixed`` design: its
    differences are ternary), ``power`` (the share of ``n_sets`` datasets rejected at ``alpha``) and
    ``n_sets``. ``mde`` is None (and ``power`` NaN) when no effect is detectable.
    """
    eff_runs = 1 if design == "fixed" else runs
    delta, sd = 0.1, population(design, 0.0, runs, coupling=coupling)[1] or 0.5
    shape = None
    for _ in range(8):  # the fixed point δ* = mde(n, σ_d(δ*), shape(δ*))
        m = mde(n, sigma_d=sd, alpha=alpha, power=power, runs=eff_runs, shape=shape)
        if m is None:
            return {
                "mde": None,
                "sd": sd,
                "effective_runs": eff_runs,
                "power": float("nan"),
                "n_sets": 0,
            }
        if abs(m - delta) < 1e-9:
            break
        delta = m
        _, sd = effect_for(design, delta, runs, coupling)
        # the report uses the data's shape from MIN_SHAPE_N territories on (shape.py)
        shape = (
            shape_for(design, delta, runs, coupling) if eff_runs > 1 and n >= MIN_SHAPE_N else None
        )
    _, sd = effect_for(design, delta, runs, coupling)
    return {
        "mde": delta,
        "sd": sd,
        "effective_runs": eff_runs,
        "power": simulated_power(
            rng,
            n=n,
            runs=runs,
            design=design,
            delta=delta,
            n_sets=n_sets,
            n_flips=n_flips,
            alpha=alpha,
            coupling=coupling,
        ),
        "n_sets": n_sets,
    }


def simulated_power(
    rng: np.random.Generator,
    *,
    n: int,
    runs: int,
    design: str,
    delta: float,
    n_sets: int = 1000,
    n_flips: int = 1999,
    alpha: float = ALPHA,
    coupling: str = "independent",
) -> float:
    """The share of ``n_sets`` datasets with a true effect ``delta`` that bordir's sign-flip test rejects."""
    gamma, _ = effect_for(design, delta, runs, coupling)
    rejected = 0
    for _ in range(n_sets):
        pa, pb = propensities(rng, n, design, gamma)
        d = pooled_differences(rng, pa, pb, runs, coupling=coupling)[0]
        rejected += sign_flip_pvalue(d, flip_matrix(n_flips, n, rng)) <= alpha
    return rejected / n_sets
