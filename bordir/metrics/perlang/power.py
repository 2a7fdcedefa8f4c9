"""Power per query language: how small a difference between two modes the design can detect.

The comparison is paired: two modes on the same territories, tested by the
sign-flip permutation test of :func:`bordir.metrics.intervals.paired.paired_comparison`.
For a cell (query language × metric) with *n* territories, the **minimum
detectable difference** (MDE) is the smallest δ whose power is ≥ 0.8 at
α = 0.05 (two-sided).

**The design model.** Each territory contributes one paired difference
dₜ = xₜ(mode a) − xₜ(mode b) of answers that agree with the controller (or, for
Cst CS, answer pairs that agree). For binary answers dₜ ∈ {−1, 0, +1}, with
P(+1) = q₊, P(−1) = q₋, the effect δ = q₊ − q₋ and the variance
σ_d² = q₊ + q₋ − δ². Given σ_d (the planning value :data:`PLANNING_SD` = 0.5 before
a run — modes correlated 0.5 on a territory at a 50 % rate; the observed SD of
the per-territory differences, runs pooled, in a report) the discordance is
ψ = q₊ + q₋ = min(1, max(σ_d² + δ², |δ|)): at least a share |δ| of territories must
change for the rate to move by δ.

**Exact power** (n ≤ :data:`EXACT_MAX`): with k = #nonzero differences and
S = Σ dₜ, the exact sign-flip p-value is P(|2B − k| ≥ |S|), B ~ Binomial(k, ½);
the power is the sum of the multinomial probabilities of (n₊, n₋) whose
p-value is ≤ α. It is exact for the model, at every n; in particular the test
can never reject with n ≤ 5 (the smallest p-value is 2/2ⁿ ≥ 1/16), so such a
cell is *undetectable* whatever the effect. **Analytic** (n > EXACT_MAX): the
normal approximation δ = (z₁₋α/₂ + z_power) · σ_d / √n with ψ as above, solved
by bisection.

Cells with fewer than :data:`THIN` territories are marked *thin* (most
BorderLines query languages have fewer than 10).

Example:
    >>> mde(3) is None, round(mde(200), 3), round(mde(200, sigma_d=0.3), 3)
    (True, 0.105, 0.065)
    >>> round(sign_flip_power(100, 0.1, 0.1), 2)
    0.94
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import cache
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ...signature import Signature

if TYPE_CHECKING:  # pragma: no cover
    from ...dataset import BorderLines
    from ...records import Query

__all__ = [
    "ALPHA",
    "POWER",
    "THIN",
    "PLANNING_SD",
    "EXACT_MAX",
    "POWER_COLUMNS",
    "sign_flip_power",
    "mde",
    "min_territories",
    "design_power",
    "observed_power",
]

ALPHA = 0.05
POWER = 0.8
THIN = 10
"""Cells with fewer territories are marked thin."""
PLANNING_SD = 0.5
"""σ_d assumed before a run (see the module docs)."""
EXACT_MAX = 400
POWER_COLUMNS = (
    "query_lang",
    "metric",
    "n_territories",
    "sd",
    "sd_source",
    "mde",
    "method",
    "thin",
    "detectable",
    "signature",
)


def _binom_pmf_row(k: int) -> np.ndarray:
    return _binom_pmf(np.arange(k + 1), k, 0.5)


@cache
def _p_values(k: int) -> np.ndarray:
    """Exact two-sided sign-flip p-value for S = k − 2j, j = 0..k (j = #negative differences)."""
    pmf = _binom_pmf_row(k)
    stat = np.abs(2 * np.arange(k + 1) - k)  # |2B − k| for B = 0..k
    out = np.empty(k + 1)
    for j in range(k + 1):
        s = abs(k - 2 * j)
        out[j] = pmf[stat >= s].sum()
    return out


@cache
def _log_comb(n: int) -> np.ndarray:
    return np.array(
        [math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) for k in range(n + 1)]
    )


def _binom_pmf(ks: np.ndarray, n: int, p: float) -> np.ndarray:
    """Binomial(n, p) probabilities at ``ks`` (numpy only: a dry run needs no scipy)."""
    ks = np.asarray(ks, dtype=int)
    if p <= 0.0:
        return (ks == 0).astype(float)
    if p >= 1.0:
        return (ks == n).astype(float)
    return np.exp(_log_comb(n)[ks] + ks * math.log(p) + (n - ks) * math.log1p(-p))


@cache
def sign_flip_power(n: int, delta: float, psi: float, alpha: float = ALPHA) -> float:
    """Exact power of the two-sided sign-flip test for n ternary differences with P(±1) = (ψ ± δ)/2."""
    qp, qm = (psi + delta) / 2, (psi - delta) / 2
    if qp < -1e-12 or qm < -1e-12 or psi > 1 + 1e-12:
        return float("nan")
    qp, qm, psi = max(qp, 0.0), max(qm, 0.0), min(psi, 1.0)
    total = 0.0
    pk = _binom_pmf(np.arange(n + 1), n, psi)  # k nonzero differences
    frac = qm / psi if psi > 0 else 0.0
    for k in range(n + 1):
        if pk[k] < 1e-12 or k == 0:
            continue
        reject = _p_values(k) <= alpha + 1e-12  # index j = number of negative differences
        if not reject.any():
            continue
        total += float(pk[k]) * float(_binom_pmf(np.flatnonzero(reject), k, frac).sum())
    return float(total)


def _psi(delta: float, sd: float) -> float:
    return min(1.0, max(sd * sd + delta * delta, abs(delta)))


def _power(n: int, delta: float, sd: float, alpha: float) -> float:
    psi = _psi(delta, sd)
    if n <= EXACT_MAX:
        return sign_flip_power(int(n), round(delta, 6), round(psi, 6), alpha)
    from statistics import NormalDist

    norm = NormalDist()
    s = math.sqrt(max(psi - delta * delta, 1e-12))
    z = norm.inv_cdf(1 - alpha / 2)
    ncp = delta * math.sqrt(n) / s
    return float(1 - norm.cdf(z - ncp) + norm.cdf(-z - ncp))


def _first(ok: Callable[[int], bool], lo: int, hi: int) -> int:
    """The smallest ``i`` in ``[lo, hi]`` with ``ok(i)`` by bisection (``ok`` monotone, ``ok(hi)`` true)."""
    while lo < hi:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid + 1
    return hi


def mde(
    n: int, *, sigma_d: float = PLANNING_SD, alpha: float = ALPHA, power: float = POWER
) -> float | None:
    """The smallest difference δ ∈ (0, 1] detected with ``power`` by the paired sign-flip test; None if none is.

    δ is searched on a 0.005 grid by bisection (the power of the discrete test grows with δ up to small
    steps); None when even δ = 1 is not detected with that power (e.g. n ≤ 5: the test cannot reject).
    """
    n = int(n)
    if n < 1 or n < math.log2(
        2.0 / alpha
    ):  # the smallest attainable p-value, 2 / 2^n, exceeds alpha
        return None
    sd = float(min(max(sigma_d, 0.0), 1.0))
    grid = np.round(np.arange(0.005, 1.0 + 1e-9, 0.005), 3)

    def ok(i: int) -> bool:
        return _power(n, float(grid[i]), sd, alpha) >= power

    if not ok(len(grid) - 1):
        return None
    # bisection: power grows with the effect (up to the test's discreteness)
    return float(grid[_first(ok, 0, len(grid) - 1)])


def min_territories(
    target: float,
    *,
    sigma_d: float = PLANNING_SD,
    alpha: float = ALPHA,
    power: float = POWER,
    max_n: int = 100_000,
) -> int | None:
    """The fewest territories whose MDE is ≤ ``target`` (bisection; None beyond ``max_n``).

    >>> min_territories(0.5), min_territories(0.1) > 100
    (15, True)
    """

    def ok(n: int) -> bool:
        m = mde(n, sigma_d=sigma_d, alpha=alpha, power=power)
        return m is not None and m <= target + 1e-9

    if not ok(max_n):
        return None
    lo, hi = 1, 8
    while not ok(hi):
        lo, hi = hi, min(hi * 2, max_n)
    return _first(ok, lo, hi)


def _row(
    lang: str,
    metric: str,
    n: int,
    sd: float,
    source: str,
    runs: int | None,
    alpha: float,
    power: float,
) -> dict:
    m = mde(n, sigma_d=sd, alpha=alpha, power=power)
    sig = Signature.build(
        "mde",
        metric=metric,
        lang=lang,
        alpha=alpha,
        power=power,
        test="signflip-exact" if n <= EXACT_MAX else "normal",
        sd=f"{sd:.3f}",
        sd_src=source,
        runs=runs,
    )
    return {
        "query_lang": lang,
        "metric": metric,
        "n_territories": int(n),
        "sd": float(sd),
        "sd_source": source,
        "mde": m,
        "method": "exact" if n <= EXACT_MAX else "analytic",
        "thin": n < THIN,
        "detectable": m is not None,
        "signature": str(sig),
    }


def design_power(
    queries: Sequence[Query],
    dataset: BorderLines,
    *,
    sigma_d: float = PLANNING_SD,
    runs: int | None = None,
    alpha: float = ALPHA,
    power: float = POWER,
) -> pd.DataFrame:
    """The power table of a design before it is run: per query language, Control and Non-control CS.

    Territories per cell: Control CS in language *l* — territories asked in *l* whose controller's language
    is *l*; Non-control CS — territories asked in *l* with a known controller of another language. The
    ``*`` rows are the pooled metrics (KB CS: territories with a known controller and a control query;
    Cst CS: territories asked in ≥ 2 claimant languages). σ_d is the planning value.
    """
    by_terr: dict[str, set[str]] = {}
    for q in queries:
        if not q.is_control or q.lang in dataset.claimant_langs(q.territory):
            by_terr.setdefault(q.territory, set()).add(q.lang)
    control: dict[str, int] = {}
    non: dict[str, int] = {}
    for terr, langs in by_terr.items():
        t = dataset.territory(terr)
        code = dataset.controller_lang(terr)
        for lang in langs & set(dataset.claimant_langs(terr)):
            if not t.controller_known:
                continue
            d = control if lang == code else non
            d[lang] = d.get(lang, 0) + 1
    controls = {q.territory for q in queries if q.is_control}
    n_kb = sum(dataset.territory(t).controller_known for t in controls)
    n_cst = sum(len(langs & set(dataset.claimant_langs(t))) >= 2 for t, langs in by_terr.items())
    rows = [
        _row("*", "kb_cs", n_kb, sigma_d, "planning", runs, alpha, power),
        _row("*", "cst_cs", n_cst, sigma_d, "planning", runs, alpha, power),
    ]
    for lang in sorted(set(control) | set(non)):
        for metric, d in (("control_cs", control), ("non_control_cs", non)):
            if d.get(lang):
                rows.append(_row(lang, metric, d[lang], sigma_d, "planning", runs, alpha, power))
    return pd.DataFrame(rows, columns=list(POWER_COLUMNS))


def per_territory(responses: pd.DataFrame, dataset: BorderLines) -> pd.DataFrame:
    """Per (model, mode, territory, query_lang, metric): the value, runs pooled (mean)."""
    from ..cs.tables import territory_tables

    frames = []
    for (model, mode, run), ts in territory_tables(responses, dataset, validate=False).items():
        it = ts.items[
            ~ts.items["missing"].astype(bool) & ts.items["role"].isin(["control", "non_control"])
        ]
        frames.append(
            pd.DataFrame(
                {
                    "model": model,
                    "mode": mode,
                    "run": run,
                    "territory": it["territory"],
                    "query_lang": it["query_lang"],
                    "metric": it["role"] + "_cs",
                    "value": it["agree"].astype(float),
                }
            )
        )
        t = ts.table
        kb = t[t["kb_den"] > 0]
        frames.append(
            pd.DataFrame(
                {
                    "model": model,
                    "mode": mode,
                    "run": run,
                    "territory": kb["territory"],
                    "query_lang": "*",
                    "metric": "kb_cs",
                    "value": kb["kb_num"],
                }
            )
        )
        cst = t[t["cst_den"] > 0]
        frames.append(
            pd.DataFrame(
                {
                    "model": model,
                    "mode": mode,
                    "run": run,
                    "territory": cst["territory"],
                    "query_lang": "*",
                    "metric": "cst_cs",
                    "value": cst["cst_num"],
                }
            )
        )
    df = (
        pd.concat(frames, ignore_index=True)
        if frames
        else pd.DataFrame(
            columns=["model", "mode", "run", "territory", "query_lang", "metric", "value"]
        )
    )
    return df.groupby(["model", "mode", "territory", "query_lang", "metric"], as_index=False)[
        "value"
    ].mean()


def observed_power(
    responses: pd.DataFrame,
    dataset: BorderLines,
    *,
    baseline: str = "no_ir",
    alpha: float = ALPHA,
    power: float = POWER,
    min_sd: float = 0.0,
) -> pd.DataFrame:
    """The power table of a run: per query language and metric, with σ_d observed on its comparisons.

    For every model and every mode compared with ``baseline`` (as the report compares them), the SD of the
    per-territory differences (runs pooled) on the common territories; σ_d is the median over those
    comparisons (at least ``min_sd``), n the median number of common territories. Without a baseline in
    the responses, σ_d falls back to :data:`PLANNING_SD` (``sd_source`` says which).
    """
    runs = int(responses["run"].nunique()) if len(responses) else None
    per = per_territory(responses, dataset)
    rows = []
    for (lang, metric), g in per.groupby(["query_lang", "metric"], sort=True):
        sds, ns = [], []
        for _model, gm in g.groupby("model"):
            base = gm[gm["mode"] == baseline].set_index("territory")["value"]
            for mode, gx in gm.groupby("mode"):
                if mode == baseline:
                    continue
                other = gx.set_index("territory")["value"]
                common = base.index.intersection(other.index)
                if len(common) >= 2:
                    d = (other[common] - base[common]).to_numpy(float)
                    sds.append(float(np.std(d, ddof=1)))
                    ns.append(len(common))
        if sds:
            sd, n, src = max(float(np.median(sds)), min_sd), int(np.median(ns)), "observed"
        else:
            sd, n, src = PLANNING_SD, int(g["territory"].nunique()), "planning"
        rows.append(_row(lang, metric, n, sd, src, runs, alpha, power))
    order = {"*": 0}
    df = pd.DataFrame(rows, columns=list(POWER_COLUMNS))
    return df.sort_values(
        by=["query_lang", "metric"],
        key=lambda s: s.map(lambda v: (order.get(v, 1), v)) if s.name == "query_lang" else s,
    ).reset_index(drop=True)
