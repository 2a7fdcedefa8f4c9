"""The citation ratio and cluster-bootstrap intervals for every rate of a cell.

Clusters (territories in experiments; records, or a chosen key such as a
conversation id, in audits) are resampled with replacement. A cell's clusters
are stored as distinct profiles with multiplicities (:class:`~.rates.CellStats`),
so a resample is a multinomial draw of profile counts — exactly the ordinary
cluster bootstrap, vectorised: every statistic of every resample is one matrix
product over the (few) profiles.

When a cell has so many distinct profiles that the exact draw would be slow
(``n_resamples × profiles`` above :data:`EXACT_LIMIT`, e.g. a million log
records with varied prompts), ``method="auto"`` switches to the **normal**
approximation of the same bootstrap: the vector of cell sums is drawn from the
Gaussian with the exact mean and covariance of the multinomial resampling of
clusters (sums clipped at 0), and the rates are computed from each draw as
before. With thousands of clusters the two agree closely (central limit
theorem); the method used is reported per row (``bootstrap``).

Each cell gets its own random stream, derived from the seed and the cell's
name, so a cell's interval does not depend on which other cells are present
or on row order. The rate rows and the answer-level shares of a cell use the
same resamples (:func:`bootstrap_sums`).

The ratio's interval and its test are **not** bootstrap percentiles: with few
clusters those cover too little (63 % for 5 clusters, 79 % for 8, 88 % for 12
in the simulation of ``docs/citations.md``) and a Wald p-value from the
bootstrap standard error is far too small in the tail. Instead
:func:`ratio_score_test` uses the cluster **score test** of ``ratio = ρ``: with
``Y``/``V`` the citation / citing-document totals (pooled; the citing answers
for ``per_query``) and ``q`` the inclusion rate, each cluster contributes
``s_k(ρ) = x_k / Y − ρ · u_k / V + ρ · q · (v_k / V − y_k / Y)`` (zero mean under
the null, summing to ``citation_rate − ρ · inclusion_rate_citing``), and
``T(ρ) = Σ s_k / √Σ s_k²`` is referred to the normal distribution. ``p_value``
is the two-sided p of ``T(1)``; the interval is the set of ρ with ``|T(ρ)| <
z``, a quadratic inequality in ρ (a Fieller-type interval, solved exactly),
which may be unbounded above (``ratio_high`` = inf, ``None`` in JSON) when the
cell is too small to bound it. Because ``|T| ≤ √(clusters)``, a cell with
fewer than 4 clusters can never reach p < 0.05, and a cell whose clusters are
all alike gets a zero-width interval, which never flags
(:mod:`~bordir.citations.flags`). The percentile interval of the ratio is kept
as ``ratio_boot_low`` / ``ratio_boot_high``.

Example:
    >>> from bordir.citations.rates import CellStats
    >>> inc = np.array([[1, 1]] * 40)               # every prompt: one en, one sw document
    >>> cit = np.array([[1, 0]] * 30 + [[0, 1]] * 10)  # en cited by 30 answers, sw by 10
    >>> rows = summarize_cell(CellStats.from_answers(("en", "sw"), inc, cit), n_resamples=500, seed=1)
    >>> r = next(r for r in rows if r["doc_lang"] == "en" and r["rate"] == "pooled")
    >>> r["citation_rate"], r["inclusion_rate_citing"], r["ratio"]
    (0.75, 0.5, 1.5)
    >>> r["ratio_low"] > 1.0
    True
"""

from __future__ import annotations

import hashlib
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ConfigError
from .rates import RATE_MEASURES, RATE_VARIANTS, CellStats, rates_from_sums, scalar_rate

__all__ = [
    "cell_rng",
    "multinomial_weights",
    "BootSums",
    "bootstrap_sums",
    "summarize_cell",
    "summarize_scalars",
    "INTERVAL_MEASURES",
    "BOOT_METHODS",
    "EXACT_LIMIT",
    "RatioTest",
    "ratio_score_test",
    "score_terms",
    "RATIO_TEST",
]

INTERVAL_MEASURES: tuple[str, ...] = (
    "inclusion_rate",
    "inclusion_rate_citing",
    "citation_rate",
    "ratio",
)
_MAX_CELLS = 4_000_000  # resample × profile entries per chunk
BOOT_METHODS: tuple[str, ...] = ("auto", "multinomial", "normal")
EXACT_LIMIT = 2_000_000
"""``auto`` draws the exact multinomial while ``n_resamples × profiles`` is at most this."""


def cell_rng(seed: int, name: str) -> np.random.Generator:
    """The random stream of one cell: ``seed`` and a stable hash of the cell's ``name``."""
    h = int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:8], "little")
    return np.random.default_rng(np.random.SeedSequence(entropy=int(seed), spawn_key=(h,)))


def multinomial_weights(
    weight: np.ndarray, n_resamples: int, rng: np.random.Generator
) -> np.ndarray:
    """Resample counts of each profile, shape ``(n_resamples, K)``: n clusters drawn with replacement."""
    w = np.asarray(weight, dtype=np.float64)
    n = int(round(float(w.sum())))
    if len(w) == 0 or n == 0:
        return np.zeros((n_resamples, len(w)))
    p = w / w.sum()
    return rng.multinomial(n, p, size=n_resamples).astype(np.float64)


def _chunks(n_resamples: int, k: int) -> list[int]:
    size = max(1, min(n_resamples, _MAX_CELLS // max(k, 1)))
    out, left = [], n_resamples
    while left > 0:
        out.append(min(size, left))
        left -= size
    return out


def _interval(values: np.ndarray, conf: float) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bounds per column, ignoring NaN; NaN where a column has no defined value."""
    a = (1 - conf) / 2
    with (
        warnings.catch_warnings()
    ):  # all-NaN columns (undefined in every resample) give NaN quietly
        warnings.simplefilter("ignore", RuntimeWarning)
        lo = np.nanquantile(values, a, axis=0)
        hi = np.nanquantile(values, 1 - a, axis=0)
    return lo, hi


RATIO_TEST = "score"
"""How the ratio's p-value and interval are made (see the module docs)."""

_VARIANT_TERMS: dict[str, tuple[str, str, str, str]] = {
    # (x: per-language numerator of the citation rate, y: its denominator,
    #  u: per-language numerator of the citing inclusion rate, v: its denominator)
    "pooled": ("cites", "cites_total", "docs_citing", "docs_citing_total"),
    "per_query": ("share_cites", "citing", "share_docs_citing", "citing"),
}


def score_terms(
    x: np.ndarray, y: np.ndarray, u: np.ndarray, v: np.ndarray, weight: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Sufficient sums of the score test of ``(Σx/Σy) / (Σu/Σv) = ρ`` over clusters (the last axis).

    ``x``, ``u`` have shape ``(..., K, L)`` (one column per document language),
    ``y``, ``v`` shape ``(..., K)``; ``weight`` ``(..., K)`` counts identical
    clusters (default 1). Returns ``(ratio, q, S_aa, S_ab, S_bb, n)`` with
    ``s_k(ρ) = a_k + ρ b_k``, ``a_k = x_k / Y``, ``b_k = q (v_k / V − y_k / Y) − u_k / V``
    (``Σ a = ratio · q``, ``Σ b = −q``), each of shape ``(..., L)``: everything
    :func:`ratio_score_test` needs, so many cells can be tested at once.
    """
    x, u = np.asarray(x, dtype=np.float64), np.asarray(u, dtype=np.float64)
    y, v = np.asarray(y, dtype=np.float64)[..., None], np.asarray(v, dtype=np.float64)[..., None]
    w = np.ones(y.shape) if weight is None else np.asarray(weight, dtype=np.float64)[..., None]
    Y, V = (w * y).sum(-2), (w * v).sum(-2)
    X, U = (w * x).sum(-2), (w * u).sum(-2)
    with np.errstate(invalid="ignore", divide="ignore"):
        q = U / V
        ratio = np.where((Y > 0) & (V > 0) & (U > 0), (X / Y) / q, np.nan)
        a = x / Y[..., None, :]
        b = q[..., None, :] * (v / V[..., None, :] - y / Y[..., None, :]) - u / V[..., None, :]
        saa, sab, sbb = (w * a * a).sum(-2), (w * a * b).sum(-2), (w * b * b).sum(-2)
    n = np.broadcast_to(w.sum(-2), ratio.shape)
    return ratio, q, saa, sab, sbb, n


@dataclass(frozen=True)
class RatioTest:
    """The score test of ``ratio = 1`` and the score interval of the ratio, per document language.

    Attributes:
        ratio: the estimate (NaN when undefined).
        p_value: two-sided p of ``ratio = 1`` (NaN when undefined; 1 when no cluster deviates at all).
        low, high: the interval (``high`` may be inf: not bounded by the data).
        zero_width: every cluster alike: the interval is the estimate alone (never flagged).
    """

    ratio: np.ndarray
    p_value: np.ndarray
    low: np.ndarray
    high: np.ndarray
    zero_width: np.ndarray


def ratio_score_test(
    x: np.ndarray,
    y: np.ndarray,
    u: np.ndarray,
    v: np.ndarray,
    weight: np.ndarray | None = None,
    *,
    conf: float = 0.95,
) -> RatioTest:
    """Score test and interval of the citation ratio from per-cluster sums (see the module docs).

    Arguments as :func:`score_terms`; vectorised over any leading axes.

    >>> x = np.array([[1.0], [1.0], [0.0], [1.0]] * 5)          # citations to L of 20 single-citation answers
    >>> one = np.ones(20)
    >>> u = np.array([[1.0]] * 20); v = 2 * one                 # every prompt: 1 document in L out of 2
    >>> t = ratio_score_test(x, one, u, v)
    >>> float(t.ratio[0]), round(float(t.p_value[0]), 4), bool(t.low[0] > 1.0), bool(t.zero_width[0])
    (1.5, 0.0253, True, False)
    """
    ratio, q, saa, sab, sbb, _ = score_terms(x, y, u, v, weight)
    z = _normal_quantile(1 - (1 - conf) / 2)
    z2 = z * z
    ok = np.isfinite(ratio)
    with np.errstate(invalid="ignore", divide="ignore"):
        # T(1) = (Σa + Σb) / sqrt(Σ(a + b)²) with Σa = ratio·q, Σb = −q
        num = np.where(ok, ratio * q - q, np.nan)
        var1 = saa + 2 * sab + sbb
        p = np.where(
            var1 > _TINY * np.maximum(q * q, _TINY),
            _erfc(np.abs(num) / np.sqrt(np.where(var1 > 0, var1, 1.0)) / math.sqrt(2.0)),
            1.0,
        )
        p = np.where(ok, p, np.nan)
        # |T(ρ)| < z  ⇔  (A + ρB)² − z² (Saa + 2ρ Sab + ρ² Sbb) < 0 with A = ratio·q, B = −q
        A, B = ratio * q, -q
        a2 = B * B - z2 * sbb
        a1 = 2 * A * B - 2 * z2 * sab
        a0 = A * A - z2 * saa
        disc = np.maximum(a1 * a1 - 4 * a2 * a0, 0.0)
        root = np.sqrt(disc)
        bounded = a2 > _TINY * np.maximum(B * B, _TINY)
        safe = np.where(bounded, a2, 1.0)
        r_lo = np.where(bounded, (-a1 - root) / (2 * safe), np.nan)
        r_hi = np.where(bounded, (-a1 + root) / (2 * safe), np.nan)
        # a2 <= 0: the accepted set is the line outside the roots (or all of it); within [0, ∞) its hull is
        # [0, ∞) unless the lower part lies below 0
        nb = np.where(a2 < 0, a2, -1.0)
        s_lo = (-a1 + root) / (2 * nb)  # the smaller root (a2 < 0)
        s_hi = (-a1 - root) / (2 * nb)
        unb_low = np.where(
            (a2 < 0) & (disc > 0) & (s_lo < 0) & (s_hi <= ratio), np.maximum(s_hi, 0.0), 0.0
        )
    low = np.where(bounded, np.maximum(np.minimum(r_lo, ratio), 0.0), unb_low)
    high = np.where(bounded, np.maximum(r_hi, ratio), np.inf)
    low, high = np.where(ok, low, np.nan), np.where(ok, high, np.nan)
    width_tol = 1e-9 * np.maximum(1.0, np.abs(np.nan_to_num(ratio)))
    zero_width = ok & np.isfinite(high) & ((high - low) <= width_tol)
    return RatioTest(ratio, p, low, high, zero_width)


_TINY = 1e-24


def _normal_quantile(p: float) -> float:
    from statistics import NormalDist

    return NormalDist().inv_cdf(p)


_erfc = np.vectorize(math.erfc, otypes=[float])


def _f(x: Any) -> float | None:
    x = float(x)
    return None if math.isnan(x) or math.isinf(x) else x


@dataclass(frozen=True)
class BootSums:
    """The cell sums of every resample: ``lang`` arrays ``(B, L)``, ``scal`` arrays ``(B,)``, and the method."""

    lang: dict[str, np.ndarray]
    scal: dict[str, np.ndarray]
    method: str


def _normal_sums(cell: CellStats, n_resamples: int, rng: np.random.Generator) -> tuple[dict, dict]:
    names_l, names_s = list(cell.lang), list(cell.scalars)
    L = len(cell.langs)
    x = np.hstack([cell.lang[k] for k in names_l] + [cell.scalars[k][:, None] for k in names_s])
    w = cell.weight
    n = w.sum()
    p = w / n
    mu = p @ x
    cov = n * ((x * p[:, None]).T @ x - np.outer(mu, mu))
    vals, vecs = np.linalg.eigh((cov + cov.T) / 2)
    root = vecs * np.sqrt(np.clip(vals, 0.0, None))
    draws = n * mu + rng.standard_normal((n_resamples, len(mu))) @ root.T
    draws = np.clip(draws, 0.0, None)
    lang = {k: draws[:, i * L : (i + 1) * L] for i, k in enumerate(names_l)}
    scal = {k: draws[:, len(names_l) * L + j] for j, k in enumerate(names_s)}
    return lang, scal


def bootstrap_sums(
    cell: CellStats,
    *,
    n_resamples: int = 2000,
    seed: int = 12345,
    name: str = "",
    method: str = "auto",
) -> BootSums:
    """The cell's sums in ``n_resamples`` cluster-bootstrap resamples (see the module docs for ``method``)."""
    if n_resamples < 1:
        raise ConfigError(f"n_resamples must be >= 1, found {n_resamples}")
    if method not in BOOT_METHODS:
        raise ConfigError(f"unknown bootstrap method {method!r}; known: {', '.join(BOOT_METHODS)}")
    if method == "auto":
        method = "multinomial" if n_resamples * max(cell.n_profiles, 1) <= EXACT_LIMIT else "normal"
    rng = cell_rng(seed, name)
    if method == "normal" and cell.n_profiles > 0:
        lang, scal = _normal_sums(cell, n_resamples, rng)
        return BootSums(lang, scal, method)
    parts_l: dict[str, list[np.ndarray]] = {k: [] for k in cell.lang}
    parts_s: dict[str, list[np.ndarray]] = {k: [] for k in cell.scalars}
    for size in _chunks(n_resamples, cell.n_profiles):
        sl, ss = cell.sums(multinomial_weights(cell.weight, size, rng))
        for k, v in sl.items():
            parts_l[k].append(v)
        for k, v in ss.items():
            parts_s[k].append(v)
    return BootSums(
        {k: np.vstack(v) for k, v in parts_l.items()},
        {k: np.concatenate(v) for k, v in parts_s.items()},
        "multinomial",
    )


def summarize_cell(
    cell: CellStats,
    *,
    n_resamples: int = 2000,
    seed: int = 12345,
    name: str = "",
    conf: float = 0.95,
    boot: BootSums | None = None,
    method: str = "auto",
) -> list[dict[str, Any]]:
    """One row per (document language, rate variant): counts, rates, intervals, ratio and its p-value.

    Row keys: ``doc_lang``, ``rate`` (``pooled`` / ``per_query``), ``n_clusters``,
    ``n_clusters_lang`` (clusters whose citing answers had a document in the language), ``n_answers``, ``n_citing``, ``n_docs``, ``n_docs_citing``, ``n_citations``,
    then for each of :data:`INTERVAL_MEASURES` the estimate and ``_low`` /
    ``_high`` bounds (percentile bootstrap for the rates; the score interval
    of :func:`ratio_score_test` for the ratio, whose percentile bounds are
    ``ratio_boot_low`` / ``ratio_boot_high``), ``ratio_zero_width``,
    ``ratio_undefined`` (resamples where the ratio was undefined), ``p_value``
    (score test of ratio = 1) and ``bootstrap`` (the method).

    ``boot``: resampled sums from :func:`bootstrap_sums` (default: drawn here).
    """
    lang_sums, scal_sums = cell.sums()
    est = rates_from_sums(lang_sums, scal_sums)
    # clusters whose citing answers were shown the language: the clusters that can say anything about its ratio
    lang_clusters = (
        [int(round(float(x))) for x in cell.weight @ (cell.lang["docs_citing"] > 0)]
        if cell.n_profiles
        else [0] * len(cell.langs)
    )
    tests = {}
    for v, (xn, yn, un, vn) in _VARIANT_TERMS.items():
        tests[v] = (
            ratio_score_test(
                cell.lang[xn],
                cell.scalars[yn],
                cell.lang[un],
                cell.scalars[vn],
                cell.weight,
                conf=conf,
            )
            if cell.n_profiles
            else None
        )
    if boot is None:
        boot = bootstrap_sums(cell, n_resamples=n_resamples, seed=seed, name=name, method=method)
    r = rates_from_sums(boot.lang, boot.scal)
    boots = {v: {m: [r[v][m]] for m in RATE_MEASURES} for v in RATE_VARIANTS}
    rows = []
    for v in RATE_VARIANTS:
        bounds = {}
        for m in INTERVAL_MEASURES:
            b = np.vstack(boots[v][m]) if boots[v][m] else np.full((0, len(cell.langs)), np.nan)
            bounds[m] = (b, *_interval(b, conf))
        for j, lang in enumerate(cell.langs):
            row: dict[str, Any] = {
                "doc_lang": lang,
                "rate": v,
                "n_clusters": cell.n_clusters,
                "n_clusters_lang": lang_clusters[j],
                "n_answers": int(round(float(scal_sums["answers"]))),
                "n_citing": int(round(float(scal_sums["citing"]))),
                "n_docs": int(round(lang_sums["docs"][j])),
                "n_docs_citing": int(round(lang_sums["docs_citing"][j])),
                "n_citations": int(round(lang_sums["cites"][j])),
            }
            for m in INTERVAL_MEASURES:
                b, lo, hi = bounds[m]
                row[m] = _f(est[v][m][j])
                row[f"{m}_low"] = _f(lo[j]) if len(lo) else None
                row[f"{m}_high"] = _f(hi[j]) if len(hi) else None
            rb = bounds["ratio"][0][:, j]
            row["ratio_boot_low"], row["ratio_boot_high"] = row["ratio_low"], row["ratio_high"]
            tr = tests[v]
            if tr is None or row["ratio"] is None:
                row["ratio_low"] = row["ratio_high"] = row["p_value"] = None
                row["ratio_zero_width"] = False
            else:
                row["ratio_low"] = _f(tr.low[j])
                row["ratio_high"] = float(tr.high[j])  # inf: not bounded above by the data
                row["p_value"] = _f(tr.p_value[j])
                row["ratio_zero_width"] = bool(tr.zero_width[j])
            row["ratio_undefined"] = int(np.sum(~np.isfinite(rb)))
            row["bootstrap"] = boot.method
            rows.append(row)
    return rows


def summarize_scalars(
    cell: CellStats,
    rates: Sequence[tuple[str, str, str]],
    *,
    n_resamples: int = 2000,
    seed: int = 12345,
    name: str = "",
    conf: float = 0.95,
    boot: BootSums | None = None,
    method: str = "auto",
) -> dict[str, Any]:
    """Ratios of two summed per-answer values (``(name, numerator, denominator)``) with percentile CIs.

    A numerator of the form ``"a-b"`` is ``a − b`` (e.g. answers with documents
    but no citation: ``with_docs-citing``). Every sum named is also returned as
    ``n_<name>``. ``boot``: resampled sums from :func:`bootstrap_sums` (shared with
    :func:`summarize_cell`; default: drawn here).
    """
    _, s = cell.sums()

    def value(sums: dict[str, np.ndarray], expr: str) -> np.ndarray:
        if "-" in expr:
            a, b = expr.split("-", 1)
            return np.asarray(sums[a]) - np.asarray(sums[b])
        return np.asarray(sums[expr])

    if boot is None:
        boot = bootstrap_sums(cell, n_resamples=n_resamples, seed=seed, name=name, method=method)
    out: dict[str, Any] = {"n_clusters": cell.n_clusters, "bootstrap": boot.method}
    for k, v in s.items():
        out[f"n_{k}"] = _f(v) if not float(v).is_integer() else int(v)
    for rname, num, den in rates:
        est = scalar_rate(value(s, num), value(s, den))
        b = scalar_rate(value(boot.scal, num), value(boot.scal, den))
        lo, hi = _interval(b[:, None], conf) if len(b) else (np.array([np.nan]), np.array([np.nan]))
        out[rname] = _f(est)
        out[f"{rname}_low"] = _f(lo[0])
        out[f"{rname}_high"] = _f(hi[0])
    return out
