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

For the ratio, besides the percentile interval, a two-sided p-value for
"ratio = 1" is computed as a Wald test with the bootstrap standard error
(``z = (ratio − 1) / sd*``); it is only used to correct flags for the number of
cells tested (:mod:`~bordir.citations.flags`).

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

__all__ = ["cell_rng", "multinomial_weights", "BootSums", "bootstrap_sums", "summarize_cell", "summarize_scalars",
           "INTERVAL_MEASURES", "BOOT_METHODS", "EXACT_LIMIT"]

INTERVAL_MEASURES: tuple[str, ...] = ("inclusion_rate", "inclusion_rate_citing", "citation_rate", "ratio")
_MAX_CELLS = 4_000_000  # resample × profile entries per chunk
BOOT_METHODS: tuple[str, ...] = ("auto", "multinomial", "normal")
EXACT_LIMIT = 2_000_000
"""``auto`` draws the exact multinomial while ``n_resamples × profiles`` is at most this."""


def cell_rng(seed: int, name: str) -> np.random.Generator:
    """The random stream of one cell: ``seed`` and a stable hash of the cell's ``name``."""
    h = int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:8], "little")
    return np.random.default_rng(np.random.SeedSequence(entropy=int(seed), spawn_key=(h,)))


def multinomial_weights(weight: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
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
    with warnings.catch_warnings():  # all-NaN columns (undefined in every resample) give NaN quietly
        warnings.simplefilter("ignore", RuntimeWarning)
        lo = np.nanquantile(values, a, axis=0)
        hi = np.nanquantile(values, 1 - a, axis=0)
    return lo, hi


def _p_wald(estimate: float, boot: np.ndarray) -> float | None:
    """Two-sided p of ``ratio = 1`` with the bootstrap standard error; None when undefined."""
    v = boot[np.isfinite(boot)]
    if not math.isfinite(estimate) or len(v) < 2:
        return None
    sd = float(np.std(v, ddof=1))
    if sd == 0.0:
        return 1.0 if abs(estimate - 1.0) < 1e-12 else 0.0
    return float(math.erfc(abs(estimate - 1.0) / sd / math.sqrt(2.0)))


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
    lang = {k: draws[:, i * L:(i + 1) * L] for i, k in enumerate(names_l)}
    scal = {k: draws[:, len(names_l) * L + j] for j, k in enumerate(names_s)}
    return lang, scal


def bootstrap_sums(cell: CellStats, *, n_resamples: int = 2000, seed: int = 12345, name: str = "",
                   method: str = "auto") -> BootSums:
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
    return BootSums({k: np.vstack(v) for k, v in parts_l.items()},
                    {k: np.concatenate(v) for k, v in parts_s.items()}, "multinomial")


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
    ``n_answers``, ``n_citing``, ``n_docs``, ``n_docs_citing``, ``n_citations``,
    then for each of :data:`INTERVAL_MEASURES` the estimate and ``_low`` /
    ``_high`` percentile bounds, ``ratio_undefined`` (resamples where the ratio
    was undefined), ``p_value`` and ``bootstrap`` (the method).

    ``boot``: resampled sums from :func:`bootstrap_sums` (default: drawn here).
    """
    lang_sums, scal_sums = cell.sums()
    est = rates_from_sums(lang_sums, scal_sums)
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
                "n_answers": int(round(scal_sums["answers"])),
                "n_citing": int(round(scal_sums["citing"])),
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
            row["ratio_undefined"] = int(np.sum(~np.isfinite(rb)))
            row["p_value"] = _p_wald(float(est[v]["ratio"][j]), rb)
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
