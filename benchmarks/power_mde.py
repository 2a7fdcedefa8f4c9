"""Power at the reported minimum detectable effect: 1, 3 and 10 runs × 20, 60 and 400 territories.

For each design of :mod:`bordir.metrics.perlang.simulate_power` (``beta``: every territory moves a
little; ``movers``: a share of territories moves a lot; ``fixed``: a temperature-0 model whose runs
agree, so its differences stay ternary) and each number of runs and territories it takes the MDE
that :func:`bordir.metrics.perlang.power.mde` reports with the SD of the pooled per-territory
differences at that effect (a fixed point), plants exactly that effect, and counts how often the
report's paired sign-flip test (1,999 random flips, ``(c + 1)/(n + 1)``) rejects at α = 0.05. The
target is 80 ± 3 %. For the ``beta`` design it also gives the power at the MDE the ternary one-run
model reported before (``mde(n, σ_d)`` with one run, whatever the runs), which counted no runs.

``docs/methodology.md`` quotes these figures; ``tests/metrics/test_power_planted.py`` runs a small version.

Usage: ``python benchmarks/power_mde.py [--sets 2000] [--seed 1]`` (about 10 minutes on a busy
2-core machine; ``--quick``: 300 sets).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bordir.metrics.perlang.power import mde  # noqa: E402
from bordir.metrics.perlang.simulate_power import (  # noqa: E402
    DESIGNS,
    effect_for,
    power_check,
    simulated_power,
)

RUNS = (1, 3, 10)
SIZES = (20, 60, 400)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="300 sets")
    args = ap.parse_args()
    if args.quick:
        args.sets = 300
    rng = np.random.default_rng(args.seed)
    t0 = time.perf_counter()
    se = 100 * (0.8 * 0.2 / args.sets) ** 0.5
    print(
        f"power (%) at the reported MDE, {args.sets} datasets per cell (Monte Carlo SE ±{se:.1f})"
    )
    print(
        f"{'design':>7} {'runs':>4} {'terr.':>5} {'σ_d':>6} {'MDE':>7} {'power':>6} {'before: MDE':>12} {'power':>6}"
    )
    for design in DESIGNS:
        for runs in RUNS:
            for n in SIZES:
                r = power_check(rng, n=n, runs=runs, design=design, n_sets=args.sets)
                before = ""
                if design == "beta" and runs > 1:
                    old = mde(n, sigma_d=r["sd"])  # the ternary one-run model, as before
                    if old is not None:
                        _, sd_old = effect_for(design, old, runs)
                        p_old = simulated_power(
                            rng, n=n, runs=runs, design=design, delta=old, n_sets=args.sets // 2
                        )
                        before = f"{old:12.3f} {100 * p_old:6.1f}"
                mde_txt = "-" if r["mde"] is None else f"{r['mde']:.3f}"
                print(
                    f"{design:>7} {runs:4d} {n:5d} {r['sd']:6.3f} {mde_txt:>7} {100 * r['power']:6.1f} {before}"
                )
    print(f"\n{time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
