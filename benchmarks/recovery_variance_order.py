"""Recovery of known components: the variance decomposition, and the calibrated option-order rule.

(a) **Variance decomposition** (:mod:`bordir.metrics.intervals.variance`).

    1. An additive generator with known components, ``y_tr = a_t + b_r + e_tr`` (σ_T, σ_R, σ_E given):
       the mean over datasets of the estimated territory part (σ²_T / n) and run part
       (σ²_R / R + σ²_E / (nR)), now and with the previous estimator (σ²_R truncated at 0 before
       forming the run part), the coverage of the 95 % interval of the territory share, and how
       often a component is called *clearly* dominant (share interval above ½) when it is not.
    2. The CS pipeline (:mod:`benchmarks.simulate.runs`: territories drawn once, their
       answers drawn again per run, a run-level shift of logit sd 0.3): the true parts by nested
       simulation (territory part = the variance over territory draws of the metric's expectation
       given the territories; run part = the mean variance given the territories), against the
       mean of the estimates from :func:`~bordir.metrics.intervals.variance.pseudo_values`
       (``untrunc.``: the territory part before it is set to 0 when negative).

(b) **Calibrated option-order rule** (:mod:`benchmarks.simulate.orders`: a rank-classification model
    with a known letter bias on A): the CS of the given order (what the papers read) and of the
    calibrated rule, minus the CS of the same model without the bias, for letter biases of 1, 2 and
    3 nats, temperature 0 and 0.7, and content-free scores that measure the bias exactly or with
    option-wise noise (sd 0.25, 0.5 nats), on the demo's 12 territories.

``docs/methodology.md`` quotes these figures; ``tests/metrics/test_variance_planted.py`` and
``tests/metrics/test_orders_metrics.py`` run small versions.

Usage: ``python benchmarks/recovery_variance_order.py [--sets 2000] [--seed 1]`` (about 8 minutes on
a busy 2-core machine; ``--quick``: 300 sets).
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

from benchmarks.simulate.orders import content_only_responses, letter_bias_responses  # noqa: E402
from benchmarks.simulate.runs import draw_answers, draw_territories  # noqa: E402
from bordir.loaders import load_demo  # noqa: E402
from bordir.metrics.cs.aggregate import metric_value  # noqa: E402
from bordir.metrics.intervals.variance import components, decompose, pseudo_values  # noqa: E402
from bordir.metrics.order.rules import order_metrics  # noqa: E402


def previous_components(y: np.ndarray) -> dict[str, float]:
    """The estimator before: σ²_R truncated at 0, then the run part σ²_R / R + σ²_E / (nR)."""
    n, r = y.shape
    g = y.mean()
    mt, mr = y.mean(axis=1), y.mean(axis=0)
    ms_t = r * ((mt - g) ** 2).sum() / (n - 1)
    ms_r = n * ((mr - g) ** 2).sum() / (r - 1)
    e = y - mt[:, None] - mr[None, :] + g
    ms_e = (e**2).sum() / ((n - 1) * (r - 1))
    s_t, s_r = max((ms_t - ms_e) / r, 0.0), max((ms_r - ms_e) / n, 0.0)
    return {
        "territory": s_t / n,
        "run": s_r / r + ms_e / (n * r),
        "untruncated": (ms_t - ms_e) / (n * r),
    }


def part_a1(args: argparse.Namespace, rng: np.random.Generator) -> None:
    print(
        f"\n(a1) additive generator, {args.sets} datasets per row (share intervals: {args.sets // 4})"
    )
    print(
        f"{'n':>4} {'R':>3} {'σ_T':>5} {'σ_R':>5} {'σ_E':>5} | {'terr. part':>10} {'est.':>9} | "
        f"{'run part':>9} {'est.':>9} {'before':>9} | {'share':>6} {'cover':>6} {'false clear':>11}"
    )
    for n, r, st, sr, se in (
        (12, 3, 0.5, 0.0, 1.0),
        (40, 3, 0.5, 0.1, 1.0),
        (40, 3, 1.0, 0.3, 1.0),
        (100, 10, 0.3, 0.1, 1.0),
        (30, 5, 0.0, 0.5, 1.0),
    ):
        t_true, r_true = st**2 / n, sr**2 / r + se**2 / (n * r)
        share = t_true / (t_true + r_true)
        est, old, cover, false_clear = [], [], 0, 0
        k = args.sets // 4
        for i in range(args.sets):
            y = rng.normal(0, st, (n, 1)) + rng.normal(0, sr, (1, r)) + rng.normal(0, se, (n, r))
            c = components(y)
            est.append((c["territory"], c["run"]))
            o = previous_components(y)
            old.append((o["territory"], o["run"], o["untruncated"]))
            if i < k:
                d = decompose(y, n_resamples=200, seed=i)
                lo, hi = d.low["territory"], d.high["territory"]
                cover += lo is not None and lo <= share <= hi
                dom = d.dominant
                if dom is not None and (d.low.get(dom) or 0) > 0.5:
                    true_dom = "territory" if share > 0.5 else "run"
                    false_clear += dom != true_dom or max(share, 1 - share) <= 0.5
        e, o = np.mean(est, axis=0), np.mean(old, axis=0)
        print(
            f"{n:4d} {r:3d} {st:5.2f} {sr:5.2f} {se:5.2f} | {t_true:10.5f} {e[0]:9.5f} | "
            f"{r_true:9.5f} {e[1]:9.5f} {o[1]:9.5f} | {share:6.3f} {100 * cover / k:5.1f}% {100 * false_clear / k:10.1f}%"
        )


def part_a2(args: argparse.Namespace, rng: np.random.Generator) -> None:
    outer, inner = max(args.sets // 4, 50), 40
    print(
        f"\n(a2) the CS pipeline ({outer} territory draws × {inner} answer draws; run effect 0.3, 3 runs): "
        "true / estimated parts (×1e3)"
    )
    print(
        f"{'terr.':>5} {'metric':>15} | {'territory':>9} {'est.':>7} {'untrunc.':>8} | {'run':>7} {'est.':>7} "
        f"{'before':>7}"
    )
    metrics = ("kb_cs", "non_control_cs", "delta_cs", "cst_cs")
    for n in (12, 40):
        cond = {m: ([], []) for m in metrics}
        est = {m: [] for m in metrics}
        old = {m: [] for m in metrics}
        names = [f"t{j}" for j in range(n)]
        for _ in range(outer):
            terr = draw_territories(rng, n_sets=1, n_territories=n)
            vals = {m: [] for m in metrics}
            for i in range(inner):
                cols = draw_answers(rng, terr, n_runs=3, run_effect=0.3)
                runs = [{k: v[0, r] for k, v in cols.items()} for r in range(3)]
                for m in metrics:
                    vals[m].append(
                        np.nanmean([float(np.asarray(metric_value(x, m))) for x in runs])
                    )
                if i < 2:
                    tables = [pd.DataFrame({"territory": names, **x}) for x in runs]
                    for m in metrics:
                        y = pseudo_values(tables, m)
                        if y.shape[0] >= 2 and np.isfinite(y).all():
                            est[m].append(list(components(y).values()))
                            p = previous_components(y)
                            old[m].append([p["run"], p["untruncated"]])
            for m in metrics:
                v = np.asarray(vals[m], dtype=float)
                v = v[np.isfinite(v)]
                if len(v) > 2:
                    cond[m][0].append(v.mean())
                    cond[m][1].append(v.var(ddof=1))
        for m in metrics:
            t_true = np.var(cond[m][0], ddof=1) - np.mean(cond[m][1]) / inner
            r_true = np.mean(cond[m][1])
            e, o = np.mean(est[m], axis=0), np.mean(old[m], axis=0)
            print(
                f"{n:5d} {m:>15} | {1e3 * t_true:9.3f} {1e3 * e[0]:7.3f} {1e3 * o[1]:8.3f} | {1e3 * r_true:7.3f} "
                f"{1e3 * e[1]:7.3f} {1e3 * o[0]:7.3f}"
            )


def part_b(args: argparse.Namespace) -> None:
    ds = load_demo()
    reps, runs = (3, 60) if args.quick else (8, 100)
    print(
        f"\n(b) calibrated rule on the demo ({reps} datasets × {runs} runs): CS − CS without the bias, "
        "given order / calibrated, in points"
    )
    metrics = ("kb_cs", "control_cs", "non_control_cs", "cst_cs")
    print(f"{'bias':>4} {'T':>4} {'cf noise':>8} | " + " | ".join(f"{m:>15}" for m in metrics))
    for bias in (1.0, 2.0, 3.0):
        for temp in (0.0, 0.7):
            for noise in (0.0, 0.25, 0.5):
                gaps: dict[str, list[tuple[float, float]]] = {m: [] for m in metrics}
                for rep in range(reps):
                    kw = dict(runs=runs, temperature=temp, cf_noise=noise, letter_bias=bias)
                    biased = letter_bias_responses(ds, np.random.default_rng(rep), **kw)
                    clean = content_only_responses(ds, np.random.default_rng(rep), **kw)
                    mb = order_metrics(biased, ds, rules=("given", "calibrated"), temperature=temp)
                    mc = order_metrics(clean, ds, rules=("given",), temperature=temp)
                    for m in metrics:
                        truth = mc[mc["metric"] == m]["value"].iloc[0]
                        g = mb[(mb["rule"] == "given") & (mb["metric"] == m)]["value"].iloc[0]
                        c = mb[(mb["rule"] == "calibrated") & (mb["metric"] == m)]["value"].iloc[0]
                        gaps[m].append((g - truth, c - truth))
                cells = []
                for m in metrics:
                    g, c = np.mean(gaps[m], axis=0)
                    cells.append(f"{100 * g:+6.1f} / {100 * c:+5.1f}")
                print(
                    f"{bias:4.0f} {temp:4.1f} {noise:8.2f} | "
                    + " | ".join(f"{x:>15}" for x in cells)
                )


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
    part_a1(args, rng)
    part_a2(args, rng)
    part_b(args)
    print(f"\n{time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
