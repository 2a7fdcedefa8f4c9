"""Citation flags: family-wise false flags of a fair assistant, power against a planted bias, interval coverage.

Prints, for simulated audits of 5 query languages × 2 document languages
(:mod:`benchmarks.simulate.citations`; records are clusters):

(a) **Family-wise error.** The share of fair audits with at least one flag
    anywhere (per query language or pooled, either rate), with 5, 8, 20 and
    400 records per query language: the current rule (score test, Holm
    across the audit, ``min_clusters`` = 10), the same with ``min_clusters``
    = 2 (the test alone), and the previous rule (percentile bootstrap
    interval, Wald p-value from the bootstrap standard error, min 5
    clusters, Holm per table and rate variant) for comparison. Target ≤ 5 %.
(b) **Power.** The share of audits in which a planted 1.5× over-citation of
    English (prompts of 1 English + 2 Swahili documents, one citation per
    record) is flagged, at 50–400 records per query language.
(c) **Coverage** of the ratio's 95 % interval (score interval vs percentile
    bootstrap) of a cell of fair records, at 5–60 records.

Usage: ``python benchmarks/coverage_citations.py [--audits 4000] [--seed 1]``
(about 2.5 minutes on 2 cores).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.simulate.citations import audit_flags, fair_audits, planted_audits  # noqa: E402
from bordir.citations.rates import answer_statistics  # noqa: E402
from bordir.citations.ratio_test import VARIANT_TERMS as _VARIANT_TERMS  # noqa: E402
from bordir.citations.ratio_test import ratio_score_test  # noqa: E402
from bordir.stats import holm_pvalues as holm_adjust  # noqa: E402


def _ratios(per_lang: dict, scal: dict, w: np.ndarray | None, v: str) -> np.ndarray:
    xn, yn, un, vn = _VARIANT_TERMS[v]
    if w is None:
        x, y, u, d = (
            per_lang[xn].sum(-2),
            scal[yn].sum(-1),
            per_lang[un].sum(-2),
            scal[vn].sum(-1),
        )
    else:
        x, y = (
            np.einsum("...bg,...gl->...bl", w, per_lang[xn]),
            np.einsum("...bg,...g->...b", w, scal[yn]),
        )
        u, d = (
            np.einsum("...bg,...gl->...bl", w, per_lang[un]),
            np.einsum("...bg,...g->...b", w, scal[vn]),
        )
    with np.errstate(invalid="ignore", divide="ignore"):
        return (x / y[..., None]) / (u / d[..., None])


def old_rule_fwer(
    rng: np.random.Generator, n_audits: int, n_records: int, n_resamples: int = 1000
) -> float:
    """The previous rule: percentile interval excluding 1 and Holm (per rate) on Wald p with the bootstrap SD."""
    inc, cit = fair_audits(rng, n_audits=n_audits, n_cells=5, n_records=n_records)
    a, c, g, L = inc.shape
    pl, sc = answer_statistics(inc.reshape(-1, L), cit.reshape(-1, L))
    pl = {k: v.reshape(a, c, g, L) for k, v in pl.items()}
    sc = {k: v.reshape(a, c, g) for k, v in sc.items()}
    any_flag = np.zeros(a, dtype=bool)
    for v in _VARIANT_TERMS:
        est = _ratios(pl, sc, None, v)  # (a, c, L)
        w = rng.multinomial(g, np.full(g, 1 / g), size=(a, c, n_resamples)).astype(float)
        boot = _ratios(pl, sc, w, v)  # (a, c, B, L)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            lo, hi = np.nanquantile(boot, 0.025, axis=2), np.nanquantile(boot, 0.975, axis=2)
            sd = np.nanstd(boot, axis=2, ddof=1)
        from math import erfc, sqrt

        with np.errstate(invalid="ignore", divide="ignore"):
            z = np.abs(est - 1) / sd
        p = np.where(
            sd == 0,
            np.where(np.abs(est - 1) < 1e-12, 1.0, 0.0),
            np.vectorize(lambda x: erfc(x / sqrt(2)))(z),
        )
        tested = (g >= 5) & np.isfinite(est) & np.isfinite(lo) & np.isfinite(p)
        for i in range(a):
            m = tested[i]
            if not m.any():
                continue
            adj = holm_adjust(p[i][m])
            excl = (lo[i][m] > 1) | (hi[i][m] < 1)
            any_flag[i] |= bool((excl & (adj < 0.05)).any())
    return float(any_flag.mean())


def coverage(
    rng: np.random.Generator, n_records: int, n_sets: int = 2000, n_resamples: int = 1000
) -> tuple[float, float, float]:
    """Coverage of the true ratio (1) by the score interval and the percentile interval; share unbounded."""
    inc, cit = fair_audits(rng, n_audits=n_sets, n_cells=1, n_records=n_records)
    a, c, g, L = inc.shape
    pl, sc = answer_statistics(inc.reshape(-1, L), cit.reshape(-1, L))
    pl = {k: v.reshape(a, c, g, L) for k, v in pl.items()}
    sc = {k: v.reshape(a, c, g) for k, v in sc.items()}
    xn, yn, un, vn = _VARIANT_TERMS["pooled"]
    t = ratio_score_test(pl[xn], sc[yn], pl[un], sc[vn])
    ok = np.isfinite(t.ratio[:, 0, 0])
    score = float(np.mean(((t.low <= 1) & (1 <= t.high))[:, 0, 0][ok]))
    w = rng.multinomial(g, np.full(g, 1 / g), size=(a, c, n_resamples)).astype(float)
    boot = _ratios(pl, sc, w, "pooled")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        lo, hi = np.nanquantile(boot, 0.025, axis=2), np.nanquantile(boot, 0.975, axis=2)
    pct = float(np.mean(((lo <= 1) & (1 <= hi))[:, 0, 0][ok]))
    return score, pct, float(np.mean(~np.isfinite(t.high[:, 0, 0][ok])))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--audits", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    t0 = time.perf_counter()
    print(
        "(a) family-wise false flags of a fair assistant (5 query languages x 2 document languages; target <= 5%)"
    )
    print(
        f"{'records/cell':>12} {'audits':>7} {'score, min 10':>14} {'score, min 2':>13} {'too few (min 10)':>17} "
        f"{'previous rule':>14}"
    )
    for g in (5, 8, 20, 400):
        n = args.audits if g < 400 else args.audits // 4
        inc, cit = fair_audits(rng, n_audits=n, n_cells=5, n_records=g)
        cur = audit_flags(inc, cit)
        low = audit_flags(inc, cit, min_clusters=2)
        share_few = len(cur["too_few"]) / len(cur["table"])
        old = old_rule_fwer(rng, min(n, 1000), g) if g <= 20 else float("nan")
        print(
            f"{g:>12} {n:>7} {cur['any_flag'].mean():>13.1%} {low['any_flag'].mean():>13.1%} {share_few:>17.0%} "
            f"{old:>14.1%}"
        )
    print(
        "\n(b) power: audits (of 500) flagging a planted 1.5x over-citation of English in one query language"
    )
    for g in (50, 100, 200, 400):
        inc, cit = planted_audits(rng, n_audits=500, n_cells=5, n_records=g)
        f = audit_flags(inc, cit)["flags"]
        hit = f[(f["query_lang"] == "q0") & (f["doc_lang"] == "en") & (f["flag"] == "over")][
            "audit"
        ].nunique()
        other = f[~f["query_lang"].isin(["q0", "*"])]["audit"].nunique()
        print(
            f"  {g:>4} records/cell: flagged in {hit / 500:.1%} of audits; a fair query language flagged in "
            f"{other / 500:.1%}"
        )
    print(
        "\n(c) coverage of the true ratio (1) by 95% intervals of one fair cell (2000 cells each)"
    )
    print(f"{'records':>8} {'score interval':>15} {'percentile':>11} {'score unbounded':>16}")
    for g in (5, 8, 12, 20, 60):
        s, p, u = coverage(rng, g)
        print(f"{g:>8} {s:>15.1%} {p:>11.1%} {u:>16.0%}")
    print(f"\n{time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
