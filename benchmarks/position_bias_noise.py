"""Position bias vs re-sampling noise: how often a finding is stated for a model without a letter habit, and power.

(a) **False findings.** A model with no letter habit at all (content logits sampled at 0.7,
    :func:`benchmarks.simulate.orders.resampled_orders`) answers the demo dataset in the given
    and the reversed order, 3 runs: the share of data sets in which
    :func:`bordir.metrics.order.bias.position_bias_excess` calls the position bias significant
    (what the report's summary states as a finding), beside the raw rate (answers changing with
    the order) and the same-order re-sampling rate. Target ≤ 5 %.
(b) **Power** against a mixture letter habit: with probability π the model answers letter A
    whatever the content (π = 0.1 … 0.6), same design.
(c) **The calibrated rule against the mixture habit** (:func:`~benchmarks.simulate.orders.mixture_habit_responses`):
    the share of the given order's CS gap (CS − CS of the same model without the habit) that the
    calibrated rule keeps, at temperature 0 and 0.7.

``docs/methodology.md`` quotes these figures. Usage: ``python benchmarks/position_bias_noise.py
[--sets 200] [--seed 1]`` (about 4 minutes; ``--quick``: 40 sets).
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

from benchmarks.simulate.orders import mixture_habit_responses, resampled_orders  # noqa: E402
from bordir.loaders import load_demo  # noqa: E402
from bordir.metrics.order.bias import position_bias_excess  # noqa: E402
from bordir.metrics.order.rules import order_metrics  # noqa: E402


def _design(ds, runs: int = 3) -> pd.DataFrame:
    """The rows of a demo run asked in the given and the reversed order (no_ir), ``runs`` runs."""
    rows = [
        {
            "query_id": q.query_id,
            "territory": q.territory,
            "query_lang": q.lang,
            "is_control": q.is_control,
            "mode": "no_ir",
            "model": "sim",
            "run": r,
            "seed": r,
            "outcome": "answered",
            "choice": 0,
            "option_order": o,
        }  # fmt: skip
        for q in ds.queries
        for r in range(runs)
        for o in ("given", "reversed")
    ]
    return pd.DataFrame(rows)


def part_ab(sets: int, seed: int) -> None:
    ds = load_demo()
    base = _design(ds)
    print(
        f"(a, b) demo, given + reversed orders, 3 runs, temperature 0.7, {sets} data sets per row: "
        "share with a significant position bias (a finding), mean rates (%)"
    )
    print(f"{'habit π':>7} {'finding':>8} {'reorder':>8} {'same order':>10} {'excess':>7}")
    for habit in (0.0, 0.1, 0.2, 0.4, 0.6):
        rng = np.random.default_rng(seed)
        found, rates = 0, []
        for i in range(sets):
            r = resampled_orders(base, ds, rng, habit=habit, temperature=0.7)
            ex = position_bias_excess(r, n_resamples=500, seed=seed + i).iloc[0]
            found += bool(ex["significant"])
            rates.append((ex["reorder"], ex["resample"], ex["excess"]))
        m = np.mean(rates, axis=0)
        print(
            f"{habit:7.1f} {100 * found / sets:7.1f}% {100 * m[0]:8.1f} {100 * m[1]:10.1f} "
            f"{100 * m[2]:7.1f}",
            flush=True,
        )


def part_c(reps: int) -> None:
    ds = load_demo()
    metrics = ("kb_cs", "control_cs", "non_control_cs", "cst_cs")
    print(
        f"\n(c) calibrated rule vs a mixture letter habit, demo, {reps} data sets × 60 runs: "
        "CS − CS without the habit, given order / calibrated, in points"
    )
    print(f"{'π':>4} {'T':>4} | " + " | ".join(f"{m:>15}" for m in metrics))
    for temp in (0.0, 0.7):
        for habit in (0.2, 0.4, 0.6):
            gaps: dict[str, list[tuple[float, float]]] = {m: [] for m in metrics}
            for rep in range(reps):
                kw = dict(runs=60, temperature=temp)
                b = mixture_habit_responses(ds, np.random.default_rng(rep), habit=habit, **kw)
                c = mixture_habit_responses(ds, np.random.default_rng(rep), habit=0.0, **kw)
                mb = order_metrics(b, ds, rules=("given", "calibrated"), temperature=temp)
                mc = order_metrics(c, ds, rules=("given",), temperature=temp)
                for m in metrics:
                    truth = mc[mc["metric"] == m]["value"].iloc[0]
                    g = mb[(mb["rule"] == "given") & (mb["metric"] == m)]["value"].iloc[0]
                    cal = mb[(mb["rule"] == "calibrated") & (mb["metric"] == m)]["value"].iloc[0]
                    gaps[m].append((g - truth, cal - truth))
            cells = []
            for m in metrics:
                g, cal = np.mean(gaps[m], axis=0)
                cells.append(f"{100 * g:+6.1f} / {100 * cal:+5.1f}")
            print(
                f"{habit:4.1f} {temp:4.1f} | " + " | ".join(f"{x:>15}" for x in cells), flush=True
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="40 sets")
    args = ap.parse_args()
    if args.quick:
        args.sets = 40
    t0 = time.perf_counter()
    part_ab(args.sets, args.seed)
    part_c(3 if args.quick else 8)
    print(f"\n{time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
