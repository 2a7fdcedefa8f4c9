"""Coverage of 95 % intervals over territories at 12, 30, 60 and 251 territories, for every CS metric.

Synthetic datasets with known population values (:mod:`benchmarks.simulate.intervals`: territories with correlated
answers, 70 % with a known controller, 1–4 claimant-language answers). For each size it prints the share of
datasets whose interval covers the population value:

* ``boot95``: the percentile cluster bootstrap (:func:`bordir.metrics.cluster_bootstrap`, 2,000 resamples);
* ``bca95``: the BCa cluster bootstrap (``cluster_bootstrap(..., interval="bca")``, on fewer datasets);
* ``terr95``: the small-sample interval (:func:`bordir.metrics.intervals.territory.territory_interval`: cluster Wilson,
  MOVER for ΔCS, log-MOVER for the normalised ΔCS), which the report shows;

each over the datasets given an interval (``given``: none below 5 contributing territories, and no bootstrap
interval with more than 2.5 % infinite or undefined resamples);

then the same for ΔCS with a small Non-control CS (≈ 0.07), where the normalised ΔCS is undefined in many
resamples. ``docs/metrics.md`` quotes these figures; ``tests/metrics/test_bootstrap_coverage.py`` is the fast version.

Usage: ``python benchmarks/coverage_bootstrap.py [--sets 2000] [--bca-sets 300] [--resamples 2000] [--seed 1]``
(about 25 minutes on a busy 2-core machine; ``--sets 300 --resamples 500``: 1.5 minutes).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.simulate.intervals import coverage, population_values, synthetic_tables  # noqa: E402
from bordir.metrics.cs.aggregate import METRICS  # noqa: E402
from bordir.metrics.intervals.bootstrap import cluster_bootstrap  # noqa: E402

SIZES = (12, 30, 60, 251)


def bca_coverage(
    rng: np.random.Generator,
    n_sets: int,
    n_territories: int,
    truth: dict[str, float],
    n_resamples: int,
    metrics: tuple[str, ...] = METRICS,
) -> dict[str, float]:
    hits = {m: [0, 0] for m in metrics}
    cols = synthetic_tables(rng, n_sets=n_sets, n_territories=n_territories)
    for i in range(n_sets):
        table = pd.DataFrame(
            {
                "territory": [f"t{j}" for j in range(n_territories)],
                **{k: v[i] for k, v in cols.items()},
            }
        )
        for m in metrics:
            r = cluster_bootstrap(table, m, n_resamples=n_resamples, seed=i, interval="bca")
            if r.estimate is None or r.low is None:
                continue
            hits[m][1] += 1
            hits[m][0] += bool(r.low <= truth[m] <= (np.inf if r.high is None else r.high))
    return {m: h[0] / max(h[1], 1) for m, h in hits.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", type=int, default=2000)
    ap.add_argument("--bca-sets", type=int, default=300)
    ap.add_argument("--resamples", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    t0 = time.perf_counter()
    truth = population_values()
    print("population values:", ", ".join(f"{m} {v:.4f}" for m, v in truth.items()))
    print(
        f"\n95% coverage ({args.sets} datasets per size; bca95 on {args.bca_sets}; {args.resamples} resamples)"
    )
    print(
        f"{'territories':>11} {'metric':>15} {'boot95':>7} {'bca95':>7} {'terr95':>7} {'width boot':>11} "
        f"{'width terr':>11} {'warned':>7} {'given':>6}"
    )
    for t in SIZES:
        cov = coverage(
            rng, n_sets=args.sets, n_territories=t, n_resamples=args.resamples, truth=truth
        )
        bca = bca_coverage(rng, args.bca_sets, t, truth, min(args.resamples, 1000))
        for m, c in cov.items():
            print(
                f"{t:>11} {m:>15} {c['boot95']:>7.1%} {bca[m]:>7.1%} {c['terr95']:>7.1%} "
                f"{c['boot95_width']:>11.3f} {c['terr95_width']:>11.3f} {c['warned']:>7.0%} "
                f"{c['terr95_given']:>6.0%}"
            )
    low = population_values(low_non_control=True)
    print(
        f"\nsmall Non-control CS (population {low['non_control_cs']:.3f}; ΔCS {low['delta_cs_norm']:.2f}, "
        f"ΔCS unnormalised {low['delta_cs']:.3f})"
    )
    print(
        f"{'territories':>11} {'metric':>15} {'boot95':>7} {'terr95':>7} {'defined':>8} "
        f"{'boot given':>10} {'terr given':>10}"
    )
    for t in SIZES:
        cov = coverage(
            rng,
            n_sets=args.sets,
            n_territories=t,
            n_resamples=args.resamples,
            truth=low,
            low_non_control=True,
            metrics=("delta_cs_norm", "delta_cs"),
        )
        for m, c in cov.items():
            print(
                f"{t:>11} {m:>15} {c['boot95']:>7.1%} {c['terr95']:>7.1%} {c['n'] / args.sets:>8.0%} "
                f"{c['boot95_given']:>10.0%} {c['terr95_given']:>10.0%}"
            )
    print(f"\n{time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
