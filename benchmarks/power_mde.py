"""Power at the reported minimum detectable effect: 1, 3 and 10 runs × 20, 60 and 400 territories × runs.

Runs are independent, coupled (the two modes share a component within a run) or partly
deterministic (half the territories repeat one answer in every run): ``coupling`` of
:func:`benchmarks.simulate.power.pooled_differences`.

For each design of :mod:`benchmarks.simulate.power` (``beta``: every territory moves a
little; ``movers``: a share of territories moves a lot; ``fixed``: a temperature-0 model whose runs
agree, so its differences stay ternary) and each number of runs and territories it takes the MDE
that :func:`bordir.metrics.perlang.power.mde` reports with the SD of the pooled per-territory
differences at that effect (a fixed point), plants exactly that effect, and counts how often the
report's paired sign-flip test (1,999 random flips, ``(c + 1)/(n + 1)``) rejects at α = 0.05. The
target is 80 ± 3 %.

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

from benchmarks.simulate.power import (  # noqa: E402
    COUPLINGS,
    effect_for,
    pooled_differences,
    power_check,
    propensities,
    simulated_power,
)
from bordir.metrics.perlang.power import lattice_runs, mde  # noqa: E402
from bordir.metrics.perlang.shape import shape_of  # noqa: E402


def reported_mde(
    rng: np.random.Generator,
    design: str,
    coupling: str,
    runs: int,
    n: int,
    delta: float,
    pilots: int,
) -> float | None:
    """The median MDE the report prints for data with effect ``delta``: σ_d the SD of the data's own
    pooled differences (their between-run correlation included), the grid from their values."""
    gamma, _ = effect_for(design, delta, runs, coupling)
    out = []
    for _ in range(pilots):
        pa, pb = propensities(rng, n, design, gamma)
        d = pooled_differences(rng, pa, pb, runs, coupling=coupling)[0]
        grid = lattice_runs(d, runs)
        shape = shape_of(d) if grid > 1 else None  # the data's own shape, as the report takes it
        m = mde(n, sigma_d=float(np.std(d, ddof=1)), runs=grid, shape=shape)
        if m is not None:
            out.append(m)
    return float(np.median(out)) if out else None


RUNS = (1, 3, 10)
SIZES = (20, 60, 400)


CASES: tuple[tuple[str, str], ...] = (
    ("beta", "independent"),
    ("movers", "independent"),
    ("fixed", "independent"),
    ("beta", "coupled"),
    ("movers", "coupled"),
    ("beta", "partly"),
    ("movers", "partly"),
)
"""(design, coupling) pairs: every design with independent runs; the two sampled designs with
coupled and partly deterministic runs (``fixed`` is wholly deterministic already)."""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="300 sets")
    ap.add_argument(
        "--coupling", choices=COUPLINGS, action="append", help="only these couplings (repeatable)"
    )
    ap.add_argument("--sizes", type=int, nargs="+", default=list(SIZES), help="territories")
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
        f"{'design':>7} {'runs':>11} {'runs':>4} {'terr.':>5} {'σ_d':>6} {'MDE':>7} {'power':>6} "
        f"| {'report MDE':>10} {'power':>6}"
    )
    for design, coupling in CASES:
        if args.coupling and coupling not in args.coupling:
            continue
        for runs in RUNS:
            for n in args.sizes:
                r = power_check(
                    rng, n=n, runs=runs, design=design, n_sets=args.sets, coupling=coupling
                )
                mde_txt = "-" if r["mde"] is None else f"{r['mde']:.3f}"
                rep = ""
                if r["mde"] is not None:  # the MDE the report prints from such data, and its power
                    m = reported_mde(rng, design, coupling, runs, n, r["mde"], args.sets // 5)
                    if m is not None:
                        p = simulated_power(
                            rng, n=n, runs=runs, design=design, delta=m, n_sets=args.sets,
                            coupling=coupling,
                        )  # fmt: skip
                        rep = f"{m:10.3f} {100 * p:6.1f}"
                print(
                    f"{design:>7} {coupling:>11} {runs:4d} {n:5d} {r['sd']:6.3f} {mde_txt:>7} "
                    f"{100 * r['power']:6.1f} | {rep}",
                    flush=True,
                )
    print(f"\n{time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
