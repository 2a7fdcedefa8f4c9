"""Judge calibration: coverage of the balanced-accuracy interval, and of the Rogan–Gladen corrected rate.

Prints, for simulated calibrations (:func:`simulate`: questions with 1–4 sentences, 65 %
Supported, a planted judge whose error rate on each question is drawn from a Beta around the
planted sensitivity and specificity, so errors cluster by question as a judge's do, and a
planted unparseable share counted against the judge):

(a) **Balanced accuracy.** Coverage and mean width of the 95 % interval of the population
    balanced accuracy at 10–250 questions per language and planted values 0.55–0.97, for the
    interval bordir reports (cluster Wilson shares, MOVER for Youden's J: ``score``) and the
    percentile cluster bootstrap (``bootstrap``). Target ≥ 93 %.
(b) **Rogan–Gladen.** Coverage and width of the corrected rate's 95 % interval (bootstrap
    over both the run's and the calibration's questions) against the true rate, for judges from
    barely better than chance (J = 0.05) to good (J = 0.8), with the refusal rule
    (:data:`bordir.judging.correction.J_MIN`): the share of runs refused, and the coverage of
    those not refused.

Usage: ``python benchmarks/coverage_judge.py [--reps 1000] [--quick] [--seed 1]``
(about 3 minutes on 2 cores; ``--quick``: 200 replicates).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bordir.judging.agreement import score_intervals, statistics  # noqa: E402
from bordir.judging.correction import J_MIN, corrected_rate  # noqa: E402
from bordir.stats import bootstrap_weights, percentile_bounds  # noqa: E402

POS_SHARE = 0.65
DISPERSION = 8.0  # Beta(a, b) with a + b = 8: the per-question error rate varies (ICC ≈ 0.1)


def _beta(rng: np.random.Generator, mean: float, size: int) -> np.ndarray:
    if mean <= 0:
        return np.zeros(size)
    return rng.beta(mean * DISPERSION, (1 - mean) * DISPERSION, size=size)


def simulate(
    rng: np.random.Generator, questions: int, se: float, sp: float, garble: float = 0.03
) -> tuple[np.ndarray, list[dict]]:
    """Per-question counts ``(G, 6)`` and per-item rows of one simulated calibration language."""
    sizes = rng.integers(1, 5, size=questions)
    e_pos = _beta(rng, 1 - se, questions)
    e_neg = _beta(rng, 1 - sp, questions)
    per = np.zeros((questions, 6))
    rows = []
    for g in range(questions):
        for _ in range(sizes[g]):
            human_pos = rng.random() < POS_SHARE
            if rng.random() < garble:
                per[g, 4 if human_pos else 5] += 1
                rows.append({"cluster": str(g), "human": "S" if human_pos else "N", "judge": None})
                continue
            wrong = rng.random() < (e_pos[g] if human_pos else e_neg[g])
            said_pos = human_pos != wrong
            per[g, (0 if said_pos else 1) if human_pos else (2 if said_pos else 3)] += 1
            rows.append(
                {
                    "cluster": str(g),
                    "human": "S" if human_pos else "N",
                    "judge": "S" if said_pos else "N",
                }
            )
    return per, rows


def ba_coverage(
    reps: int, questions: int, ba: float, seed: int, boot: int = 400
) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    se = sp = ba
    g = 0.03
    truth = ((1 - g) * se + (1 - g) * sp) / 2  # unparseable counted as wrong
    hits = {"score": 0, "bootstrap": 0}
    widths: dict[str, list[float]] = {"score": [], "bootstrap": []}
    for _ in range(reps):
        per, _ = simulate(rng, questions, se, sp, g)
        lo, hi = score_intervals(per)["balanced_accuracy"]
        hits["score"] += lo <= truth <= hi
        widths["score"].append(hi - lo)
        w = bootstrap_weights(questions, boot, rng).astype(float)
        blo, bhi, _ = percentile_bounds(statistics(w @ per)["balanced_accuracy"], 0.95)
        if blo is None:
            blo, bhi = 0.0, 1.0
        hits["bootstrap"] += blo <= truth <= bhi
        widths["bootstrap"].append(bhi - blo)
    return {
        **{f"cov_{k}": v / reps for k, v in hits.items()},
        **{f"width_{k}": float(np.mean(v)) for k, v in widths.items()},
    }


def rg_coverage(
    reps: int, j: float, seed: int, cal_q: int = 150, run_q: int = 100, boot: int = 400
) -> dict[str, float]:
    """The corrected rate of a run whose true rate is 0.3, judged by a judge with Youden J = ``j``."""
    rng = np.random.default_rng(seed)
    se = sp = (1 + j) / 2
    true_rate = 0.3
    refused = covered = covered_all = n_all = 0
    widths = []
    for r in range(reps):
        _, cal_rows = simulate(rng, cal_q, se, sp, garble=0.0)
        truth_pos = rng.random(run_q) < true_rate
        said = np.where(truth_pos, rng.random(run_q) < se, rng.random(run_q) > sp)
        common = dict(counted="S", labels=("S", "N"), n_resamples=boot, seed=seed * 100_000 + r)
        units = [str(i) for i in range(run_q)]
        every = corrected_rate(list(said), units, cal_rows, name="sim", j_min=-1.0, **common)
        if every["low"] is not None:
            n_all += 1
            covered_all += every["low"] <= true_rate <= every["high"]
        out = corrected_rate(list(said), units, cal_rows, name="sim", **common)
        if out["refused"]:
            refused += 1
            continue
        covered += out["low"] <= true_rate <= out["high"]
        widths.append(out["high"] - out["low"])
    kept = reps - refused
    return {
        "refused": refused / reps,
        "coverage_all": covered_all / n_all if n_all else float("nan"),
        "coverage": covered / kept if kept else float("nan"),
        "width": float(np.mean(widths)) if widths else float("nan"),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--part", choices=["a", "b", "all"], default="all", help="(a), (b) or both")
    args = ap.parse_args()
    reps = 200 if args.quick else args.reps
    t0 = time.perf_counter()
    if args.part in ("a", "all"):
        _part_a(reps, args.seed)
    if args.part in ("b", "all"):
        _part_b(reps, args.seed)
    print(f"\n{time.perf_counter() - t0:.0f} s")


def _part_a(reps: int, seed: int) -> None:
    print(f"(a) balanced accuracy: coverage of the 95% interval ({reps} calibrations per cell)")
    print(
        f"{'questions':>9} {'BA':>5}  {'score cov':>9} {'width':>6}  {'bootstrap cov':>13} {'width':>6}"
    )
    for q in (10, 20, 50, 100, 250):
        for ba in (0.55, 0.7, 0.85, 0.97):
            r = ba_coverage(reps, q, ba, seed + q)
            print(
                f"{q:>9} {ba:>5.2f}  {r['cov_score']:>9.3f} {r['width_score']:>6.3f}  "
                f"{r['cov_bootstrap']:>13.3f} {r['width_bootstrap']:>6.3f}"
            )


def _part_b(reps: int, seed: int) -> None:
    print(
        f"\n(b) Rogan-Gladen corrected rate (true rate 0.30; calibration 150 questions, run 100; "
        f"refused when J's lower bound < {J_MIN:g}; {reps // 2} runs per cell)"
    )
    print(
        f"{'J':>5}  {'coverage (none refused)':>23} {'refused':>7} {'coverage (kept)':>15} {'width':>6}"
    )
    for j in (0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.8):
        r = rg_coverage(reps // 2, j, seed)
        print(
            f"{j:>5.2f}  {r['coverage_all']:>23.3f} {r['refused']:>7.3f} {r['coverage']:>15.3f} "
            f"{r['width']:>6.3f}"
        )


if __name__ == "__main__":
    main()
