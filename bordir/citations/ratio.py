"""The citation ratio and the intervals of every rate of a cell.

Every rate row of a cell (:func:`summarize_cell`) carries its point value and the
interval every rate bordir prints gets (:func:`bordir.stats.rate_interval`: the
continuity-corrected cluster Wilson interval over the cell's clusters; never zero width);
the ratio carries the cluster score test and its interval
(:mod:`~bordir.citations.ratio_test`) and its cluster-bootstrap percentile interval
(resamples from :mod:`~bordir.citations.resample`). The answer-level shares
(:func:`summarize_scalars`) get :func:`~bordir.stats.rate_interval` too.

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

import math
from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from ..stats.percentile import percentile_columns
from ..stats.rate import rate_interval
from .rates import RATE_MEASURES, RATE_VARIANTS, CellStats, rates_from_sums, scalar_rate
from .ratio_test import VARIANT_TERMS, ratio_score_test
from .resample import BootSums, bootstrap_sums

__all__ = ["INTERVAL_MEASURES", "RATE_TERMS", "summarize_cell", "summarize_scalars"]

INTERVAL_MEASURES: tuple[str, ...] = (
    "inclusion_rate",
    "inclusion_rate_citing",
    "citation_rate",
    "ratio",
)

RATE_TERMS: dict[str, dict[str, tuple[str, str]]] = {
    "pooled": {
        "inclusion_rate": ("docs", "docs_total"),
        "inclusion_rate_citing": ("docs_citing", "docs_citing_total"),
        "citation_rate": ("cites", "cites_total"),
    },
    "per_query": {
        "inclusion_rate": ("share_docs", "with_docs"),
        "inclusion_rate_citing": ("share_docs_citing", "citing"),
        "citation_rate": ("share_cites", "citing"),
    },
}
"""Per variant, each rate's (per-language numerator, scalar denominator) of :func:`~.rates.rates_from_sums`."""


def _rate_bounds(cell: CellStats, num: np.ndarray, den: np.ndarray) -> tuple[Any, Any]:
    if not cell.n_profiles:
        return None, None
    ci = rate_interval(num, den, weights=cell.weight)
    return ci.low, ci.high


def _f(x: Any) -> float | None:
    x = float(x)
    return None if math.isnan(x) or math.isinf(x) else x


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
    for v, (xn, yn, un, vn) in VARIANT_TERMS.items():
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
            bounds[m] = (b, *percentile_columns(b, conf))
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
                if m in RATE_TERMS[v]:  # a rate: its score interval
                    xn, dn = RATE_TERMS[v][m]
                    row[f"{m}_low"], row[f"{m}_high"] = (
                        _rate_bounds(cell, cell.lang[xn][:, j], cell.scalars[dn])
                        if row[m] is not None
                        else (None, None)
                    )
                    continue
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
    """Ratios of two summed per-answer values (``(name, numerator, denominator)``) with score intervals.

    A numerator of the form ``"a-b"`` is ``a − b`` (e.g. answers with documents
    but no citation: ``with_docs-citing``). Every sum named is also returned as
    ``n_<name>``. ``boot``: resampled sums from :func:`bootstrap_sums` (shared with
    :func:`summarize_cell`; default: drawn here).
    """
    _, s = cell.sums()

    def value(sums: dict[str, np.ndarray], expr: str) -> np.ndarray:
        if "-" in expr:
            a, b = expr.split("-", 1)
            return cast("np.ndarray", np.asarray(sums[a]) - np.asarray(sums[b]))
        return np.asarray(sums[expr])

    if boot is None:
        boot = bootstrap_sums(cell, n_resamples=n_resamples, seed=seed, name=name, method=method)
    out: dict[str, Any] = {"n_clusters": cell.n_clusters, "bootstrap": boot.method}
    for k, v in s.items():
        out[f"n_{k}"] = _f(v) if not float(v).is_integer() else int(v)
    for rname, num, den in rates:
        est = scalar_rate(value(s, num), value(s, den))
        out[rname] = _f(est)
        lo, hi = (
            _rate_bounds(cell, value(cell.scalars, num), value(cell.scalars, den))
            if out[rname] is not None
            else (None, None)
        )
        out[f"{rname}_low"], out[f"{rname}_high"] = lo, hi
    return out
