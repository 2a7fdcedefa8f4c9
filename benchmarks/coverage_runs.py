"""Coverage of the normalised ΔCS over runs, and of the intervals over territories by contributing territories.

Synthetic datasets with known population values (:mod:`benchmarks.simulate.runs`:
territories drawn once, their answers drawn again in every run; two designs, ``even`` and
``uneven``). Prints

(a) **The normalised ΔCS over 3 runs** (the demo's runs) at 12, 30 and 251 territories, for a
    Non-control CS of 0.46, 0.22 and 0.07: the share of datasets whose 95 % interval covers the
    population value, and the share given an interval at all, for

    * ``boot pooled``: :func:`bordir.metrics.cluster_bootstrap` as it is now (the counts pooled over
      runs; no interval when more than 2.5 % of the resamples are +∞ or undefined, or fewer than 5
      territories contribute);
    * ``boot mean``: the bootstrap before (the mean over runs of each run's ratio, +∞ as soon as one
      run's Non-control CS* is 0; every interval given, ``[inf, inf]`` included);
    * ``terr95``: the small-sample log-MOVER interval on the runs pooled per territory (what the
      report shows), with the same refusals;

    then the same with a run-level shift (logit sd 0.3, shared by a run's territories), which
    resampling territories cannot see;
(b) **By contributing territories**: the coverage of the small-sample interval (``terr95``) and of
    the percentile bootstrap (``boot95``) of every CS metric, binned by the number of territories
    that contribute to it, without the refusal below ``MIN_INTERVAL_CLUSTERS`` = 5 (datasets of 12
    and 30 territories; Cst CS unk rests on the Unknown-controller territories alone).

``docs/metrics.md`` quotes these figures; ``tests/metrics/test_bootstrap_coverage.py`` runs (a) small.

Usage: ``python benchmarks/coverage_runs.py [--sets 1000] [--resamples 1000] [--seed 1]``
(about 6 minutes on a busy 2-core machine; ``--quick``: 300 sets, 400 resamples, 1 minute).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.simulate.runs import (  # noqa: E402
    CLUSTER_BINS,
    coverage_by_clusters,
    delta_norm_coverage,
    population,
)
from bordir.metrics.cs.aggregate import METRICS  # noqa: E402

SIZES = (12, 30, 251)
LEVELS = (0.46, 0.22, 0.07)


def _cell(c: dict[str, float]) -> str:
    cov = "  -  " if np.isnan(c["covered"]) else f"{100 * c['covered']:5.1f}"
    return f"{cov} ({100 * c['given']:3.0f})"


def part_a(args: argparse.Namespace, rng: np.random.Generator, run_effect: float) -> None:
    print(
        f"\n(a) normalised ΔCS over {args.runs} runs, run effect {run_effect:g}: covered % (given %) "
        f"[{args.sets} datasets per cell; 251 territories: {max(args.sets // 3, 50)}]"
    )
    print(
        f"{'design':>7} {'NC CS':>6} {'terr.':>5} {'ΔCS norm':>8}  {'boot pooled':>12} {'boot mean':>12} {'terr95':>12} {'defined':>8}"
    )
    for design in ("even", "uneven"):
        for level in LEVELS:
            truth = population(non_control=level, design=design)
            for t in SIZES:
                r = delta_norm_coverage(
                    rng,
                    n_sets=args.sets if t < 100 else max(args.sets // 3, 50),
                    n_territories=t,
                    n_runs=args.runs,
                    n_resamples=args.resamples,
                    non_control=level,
                    design=design,
                    run_effect=run_effect,
                    truth=truth["delta_cs_norm"],
                )
                print(
                    f"{design:>7} {truth['non_control_cs']:6.2f} {t:5d} {truth['delta_cs_norm']:8.2f}  "
                    f"{_cell(r['boot_pooled']):>12} {_cell(r['boot_mean_runs']):>12} {_cell(r['terr95']):>12} "
                    f"{100 * r['terr95']['defined']:7.0f}%"
                )


def part_b(args: argparse.Namespace, rng: np.random.Generator) -> None:
    print(
        f"\n(b) coverage by contributing territories, terr95 / boot95 in % (datasets), one run, "
        f"{args.sets * 2} datasets of 12 and of 30 territories each"
    )
    bins = [f"{a}" if a == b else (f"{a}-{b}" if b < 10**6 else f"{a}+") for a, b in CLUSTER_BINS]
    for design in ("even", "uneven"):
        agg: dict[str, dict] = {}
        for t in (12, 30):
            r = coverage_by_clusters(
                rng,
                n_sets=args.sets * 2,
                n_territories=t,
                design=design,
                n_resamples=min(args.resamples, 400),
            )
            for m, per in r.items():
                for b, h in per.items():
                    agg.setdefault(m, {}).setdefault(b, [0, 0, 0])
                    agg[m][b] = [x + y for x, y in zip(agg[m][b], h)]
        print(f"{design}: {'metric':>15} " + " ".join(f"{b:>16}" for b in bins))
        for m in METRICS:
            cells = []
            for b in CLUSTER_BINS:
                c, cb, n = agg[m][b]
                cells.append(
                    f"{100 * c / n:4.0f} /{100 * cb / n:4.0f} ({n:4d})" if n >= 20 else f"{'-':>16}"
                )
            print(f"{'':>{len(design) + 1}} {m:>15} " + " ".join(f"{x:>16}" for x in cells))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", type=int, default=1000)
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="300 sets, 400 resamples")
    args = ap.parse_args()
    if args.quick:
        args.sets, args.resamples = 300, 400
    rng = np.random.default_rng(args.seed)
    t0 = time.perf_counter()
    part_a(args, rng, 0.0)
    part_a(args, rng, 0.3)
    part_b(args, rng)
    print(f"\n{time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
