"""The rule of every paired comparison (``bordir.metrics.intervals.paired_rule``), checked by simulation.

For 6, 12, 30 and 60 paired territories it prints, over synthetic data sets with a known difference:

* ``coverage``: the share of 95 % paired percentile cluster-bootstrap intervals (the interval of
  ``compare_by`` and ``Run.compare``) that cover the population difference;
* ``size``: the share of null data sets (the two sides exchangeable within each territory) where the
  sign-flip permutation test gives p < 0.05, which the rule tests at any size from 6 territories.

Each territory has a baseline share ``p_a ~ Beta(2, 2)`` and ``p_b = clip(p_a + δ + N(0, 0.15²))``
(δ = 0.15), answered by 2–12 items per side (1–4 languages × 3 runs); the per-territory difference of
the observed shares is what both the interval and the test read, as in
``bordir.metrics.perlang.compare``. ``docs/metrics.md`` ("When a comparison is judged") quotes the
figures.

Usage: ``python benchmarks/coverage_paired.py [--sets 1000] [--resamples 1000] [--seed 1]``
(about a minute on a busy 2-core machine).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bordir.stats import (  # noqa: E402
    bootstrap_weights,
    flip_matrix,
    percentile_bounds,
    sign_flip_pvalue,
)

SIZES = (6, 12, 30, 60)
EFFECT, SPREAD = 0.15, 0.15


def _population(rng: np.random.Generator, n: int, effect: float) -> tuple[np.ndarray, np.ndarray]:
    pa = rng.beta(2, 2, n)
    pb = np.clip(pa + effect + rng.normal(0, SPREAD, n), 0, 1) if effect else pa
    return pa, pb


def _observed(rng: np.random.Generator, pa: np.ndarray, pb: np.ndarray) -> np.ndarray:
    items = 3 * rng.integers(1, 5, len(pa))  # 1–4 languages × 3 runs, the same on both sides
    return rng.binomial(items, pb) / items - rng.binomial(items, pa) / items


def simulate(n: int, sets: int, resamples: int, seed: int) -> tuple[float, float]:
    """``(coverage, size)`` at ``n`` paired territories."""
    rng = np.random.default_rng([seed, n])
    big_a, big_b = _population(rng, 2_000_000, EFFECT)
    truth = float((big_b - big_a).mean())
    covered = rejected = 0
    for _ in range(sets):
        pa, pb = _population(rng, n, EFFECT)
        d = _observed(rng, pa, pb)
        w = bootstrap_weights(n, resamples, rng)
        lo, hi, _ = percentile_bounds((w @ d) / n, 0.95)
        covered += int(lo is not None and hi is not None and lo <= truth <= hi)
        pa0, pb0 = _population(rng, n, 0.0)
        d0 = _observed(rng, pa0, pb0)
        rejected += int(sign_flip_pvalue(d0, flip_matrix(resamples, n, rng)) < 0.05)
    return covered / sets, rejected / sets


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", type=int, default=1000)
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    print(f"{'territories':>11}  {'coverage':>8}  {'size':>6}   ({args.sets} data sets each)")
    for n in SIZES:
        cov, size = simulate(n, args.sets, args.resamples, args.seed)
        print(f"{n:>11}  {100 * cov:>7.1f}%  {100 * size:>5.1f}%")


if __name__ == "__main__":
    main()
