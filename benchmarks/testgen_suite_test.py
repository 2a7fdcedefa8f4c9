"""testgen: the size of the strategy-vs-baseline test across configurations, when both suites come from one generator.

Two suites of ``m`` tests are drawn from one generator (each test a difficulty ``b_t ~ N(0, s)``)
and answered by 24 configurations (abilities ``a_c ~ N(0, 1)``; a test fails with probability
``expit(b_t − a_c)``, so every configuration sees the same hard tests). There is no difference
between the suites, so every rejection is a false one. For each pair of suites:

* **sign test over configurations** (what ``strategy_vs_baseline`` reported before): on how many
  configurations the strategy's failure rate is higher vs lower, exact binomial p; and
  RAG-Tester's headline form "≥ 20 of 24 configurations one way";
* **test-level permutation** (:func:`bordir.testgen.compare.suite_permutation`): each test's failure
  rate over the configurations, suite labels shuffled over tests, ``(c + 1)/(n + 1)``.

Target: the permutation's size ≈ 5 % (within Monte Carlo error). ``docs/testgen.md`` and
``docs/methodology.md`` quote the figures.

Usage: ``python benchmarks/testgen_suite_test.py [--pairs 1000] [--seed 1]`` (about 3 minutes;
``--quick``: 200 pairs).
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

from bordir.stats import sign_test  # noqa: E402
from bordir.testgen.compare import suite_permutation  # noqa: E402

CONFIGS = 24


def _suite(rng: np.random.Generator, m: int, spread: float, ability: np.ndarray) -> pd.DataFrame:
    b = rng.normal(0.0, spread, m)
    p = 1.0 / (1.0 + np.exp(-(b[:, None] - ability[None, :])))
    fail = rng.random(p.shape) < p
    t, c = np.meshgrid(np.arange(m), np.arange(len(ability)), indexing="ij")
    return pd.DataFrame(
        {
            "config": [f"c{j}" for j in c.ravel()],
            "test_id": [f"t{i}" for i in t.ravel()],
            "verdict": np.where(fail.ravel(), "fail", "pass"),
        }
    )


def _rates(df: pd.DataFrame) -> pd.Series:
    return (df["verdict"] == "fail").groupby(df["config"]).mean()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--perms", type=int, default=1999)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="200 pairs")
    args = ap.parse_args()
    if args.quick:
        args.pairs = 200
    rng = np.random.default_rng(args.seed)
    t0 = time.perf_counter()
    se = 100 * (0.05 * 0.95 / args.pairs) ** 0.5
    print(
        f"false rejections (%) over {args.pairs} pairs of suites from one generator, "
        f"{CONFIGS} configurations (Monte Carlo SE at 5 %: ±{se:.1f})"
    )
    print(
        f"{'tests':>5} {'spread':>6} | {'sign p<.05':>10} {'p<.01':>6} {'≥20/24':>6} | "
        f"{'perm p<.05':>10} {'p<.01':>6}"
    )
    for m in (30, 100):
        for spread in (1.0, 2.0):
            sign05 = sign01 = lop = perm05 = perm01 = 0
            for i in range(args.pairs):
                ability = rng.normal(0.0, 1.0, CONFIGS)
                a, b = _suite(rng, m, spread, ability), _suite(rng, m, spread, ability)
                d = _rates(a) - _rates(b)
                hi, lo = int((d > 0).sum()), int((d < 0).sum())
                ps = sign_test(hi, lo)
                sign05 += ps < 0.05
                sign01 += ps < 0.01
                lop += max(hi, lo) >= 20
                pp = suite_permutation(a, b, n_permutations=args.perms, seed=i)["p_value"]
                perm05 += pp < 0.05
                perm01 += pp < 0.01
            n = args.pairs
            print(
                f"{m:5d} {spread:6.1f} | {100 * sign05 / n:10.1f} {100 * sign01 / n:6.1f} "
                f"{100 * lop / n:6.1f} | {100 * perm05 / n:10.1f} {100 * perm01 / n:6.1f}",
                flush=True,
            )
    print(f"\n{time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
