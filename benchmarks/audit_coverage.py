"""Black-box audits: coverage of the source-share intervals and of the paired differences, from a planted-bias generator.

The generator plants a true share ``p`` of sources from a country (or in a language): each
answer (cluster) cites 1–``max_urls`` URLs (its number drawn uniformly), each from the country
with probability ``q_g`` — its own share, drawn from a Beta distribution of mean ``p`` and
intra-cluster correlation ``icc`` (0: URLs independent; 0.3: answers lean strongly one way). The
true share of the cell is the ratio of expected sums, ``p`` (the number of URLs is independent of
``q_g``). Prints:

(a) the coverage of the 95 % cluster Wilson interval of a share (:func:`bordir.stats.cluster_wilson.wilson_from_sums`,
    with its floor and Student's t), by clusters (5–400) and ``p`` (0.01–0.5), at ``icc`` 0.05 and 0.3; and how often
    a cell had no URL of the category at all;
(b) the coverage of the paired difference between two query languages on the same question
    groups (``p_a − p_b``; groups share a random effect, correlation within a group) for the
    MOVER interval bordir reports and the paired percentile bootstrap beside it, at 5–200 groups.

Usage: ``python benchmarks/audit_coverage.py [--reps 1000] [--seed 1]`` (a few minutes on 2 cores).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bordir.audit.blackbox.compare import CompareOptions, _one  # noqa: E402
from bordir.stats.cluster_wilson import wilson_from_sums  # noqa: E402


def planted_cell(
    rng: np.random.Generator, g: int, p: float, icc: float, max_urls: int
) -> tuple[np.ndarray, np.ndarray]:
    """``(a, b)`` per cluster: URLs from the country, all URLs (see the module docs)."""
    b = rng.integers(1, max_urls + 1, g)
    if icc <= 0:
        q = np.full(g, p)
    else:
        s = (1 - icc) / icc
        q = rng.beta(p * s, (1 - p) * s, g)
    a = rng.binomial(b, q)
    return a.astype(float), b.astype(float)


def share_coverage(
    reps: int, g: int, p: float, icc: float, rng: np.random.Generator, max_urls: int = 6
) -> tuple[float, float]:
    hits, none = 0, 0
    for _ in range(reps):
        a, b = planted_cell(rng, g, p, icc, max_urls)
        none += a.sum() == 0
        _, lo, hi = wilson_from_sums(
            a.sum()[None],
            (a * a).sum()[None],
            (a * b).sum()[None],
            b.sum()[None],
            (b * b).sum()[None],
            np.array([g]),
            small_sample=True,
        )
        hits += lo[0] <= p <= hi[0]
    return hits / reps, none / reps


def diff_coverage(
    reps: int, g: int, pa: float, pb: float, icc: float, rng: np.random.Generator
) -> tuple[float, float]:
    o = CompareOptions(n_resamples=400, n_permutations=1, min_groups=1)
    mover = boot = n = 0
    for r in range(reps):
        shift = rng.normal(
            0, 0.6, g
        )  # a question's own pull, shared by both languages (the pairing)

        def side(p: float, shift: np.ndarray = shift) -> tuple[np.ndarray, np.ndarray]:
            b = rng.integers(1, 7, g)
            logit = np.log(p / (1 - p)) + shift
            q = 1 / (1 + np.exp(-logit))
            if icc > 0:
                s = (1 - icc) / icc
                q = rng.beta(q * s, (1 - q) * s)
            return rng.binomial(b, q).astype(float), b.astype(float)

        a1, b1 = side(pa)
        a2, b2 = side(pb)
        truth = _truth(pa, pb, icc)
        res = _one(a1, b1, a2, b2, o, seed=r)
        if res.get("status") != "judged":
            continue
        n += 1
        mover += res["ci_low"] <= truth <= res["ci_high"]
        boot += res["boot_low"] is not None and res["boot_low"] <= truth <= res["boot_high"]
    return mover / max(n, 1), boot / max(n, 1)


_TRUTH: dict[tuple[float, float, float], float] = {}


def _truth(pa: float, pb: float, icc: float) -> float:
    """The true difference of the two ratios of expected sums (by a large simulation, once)."""
    key = (pa, pb, icc)
    if key not in _TRUTH:
        rng = np.random.default_rng(99)
        shift = rng.normal(0, 0.6, 400_000)
        vals = []
        for p in (pa, pb):
            q = 1 / (1 + np.exp(-(np.log(p / (1 - p)) + shift)))
            vals.append(q.mean())  # E[b] is the same on both sides and independent of q
        _TRUTH[key] = float(vals[0] - vals[1])
    return _TRUTH[key]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    t0 = time.perf_counter()
    print(
        f"(a) coverage of the 95% cluster Wilson interval of a share ({args.reps} cells per row; 'none': cells without one URL of the category)"
    )
    for icc in (0.05, 0.3):
        print(f"  icc {icc}")
        print("  clusters " + "".join(f"   p={p:<5}" for p in (0.01, 0.05, 0.2, 0.5)))
        for g in (5, 10, 20, 50, 400):
            cells = []
            for p in (0.01, 0.05, 0.2, 0.5):
                cov, none = share_coverage(args.reps, g, p, icc, rng)
                cells.append(f"{100 * cov:5.1f}%({100 * none:3.0f})")
            print(f"  {g:>8} " + " ".join(cells))
    print(
        "(b) coverage of the paired difference p_a - p_b (MOVER reported; paired percentile bootstrap beside it)"
    )
    for icc in (0.05, 0.3):
        for pa, pb in ((0.3, 0.3), (0.4, 0.1), (0.05, 0.02)):
            row = []
            for g in (5, 10, 25, 100, 200):
                m, b = diff_coverage(max(200, args.reps // 4), g, pa, pb, icc, rng)
                row.append(f"{g}: {100 * m:4.1f}/{100 * b:4.1f}")
            print(f"  icc {icc} p_a {pa} p_b {pb}  " + "  ".join(row))
    print(f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
