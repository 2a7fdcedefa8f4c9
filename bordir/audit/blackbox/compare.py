"""Paired comparisons of source shares: between query languages on the same questions, and between models.

"Asked in Russian, 41 % [33, 49] of the sources are Russian; asked in Ukrainian, 6 % [3, 11];
difference 35 points [26, 44], p after Holm 0.002." Two cells are compared on the **question
groups both answered** (the same question in two languages, or put to two models): per group
``g``, ``a_g`` / ``b_g`` the URLs in the category and all URLs on side A, likewise on side B.

* each side's share and interval: the cluster Wilson interval over the paired groups (:func:`bordir.stats.cluster_wilson.wilson_from_sums`, Student's t);
* the difference ``value_a − value_b`` and its interval: MOVER (Newcombe) from the two Wilson
  intervals and the correlation of the two shares across the paired groups
  (:func:`bordir.stats.mover_difference`, :func:`bordir.stats.correlation`); the paired cluster
  bootstrap percentile interval is kept beside it (``boot_low``/``boot_high``) — the coverage of
  both is simulated in ``benchmarks/audit_coverage.py`` (``docs/audit.md``);
* the p-value: the paired swap permutation test (a's and b's sums exchanged within random groups,
  ``p = (c + 1) / (n + 1)``): the computation of :func:`bordir.stats.paired_test`, with its
  resampling and swap matrices drawn once per number of groups and shared by every comparison of
  that size (the same seed gives the same matrices; ``tests/audit`` checks the numbers are equal);
* Holm's correction over each family: the pairs compared for one model (languages) or one query
  language (models) and one measure.

A comparison with fewer than ``min_groups`` groups citing on both sides is not tested: ``too few
to judge``, with the power the test would have had against a difference of 10 and 20 points
(:func:`bordir.metrics.perlang.power.power_at`, the sign-flip model with the per-group
differences' spread).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations
from typing import cast

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ...metrics.perlang.power import PLANNING_SD, power_at
from ...signature import Signature
from ...stats import (
    bootstrap_weights,
    correlation,
    flip_matrix,
    holm,
    influence,
    mover_difference,
    percentile_bounds,
    permutation_pvalue,
)
from ...stats.cluster_wilson import wilson_from_sums
from .codes import as_array, factorize, list_lengths
from .urltable import UrlTable

__all__ = ["CompareOptions", "Measure", "compare_all", "COMPARE_COLUMNS"]

COMPARE_COLUMNS: tuple[str, ...] = (
    "factor", "fixed", "a", "b", "dimension", "category", "value_a", "low_a", "high_a", "value_b",
    "low_b", "high_b", "diff", "ci_low", "ci_high", "boot_low", "boot_high", "p_value", "p_holm",
    "significant", "status", "n_groups", "n_urls_a", "n_urls_b", "power_10", "power_20", "signature",
)  # fmt: skip


@dataclass(frozen=True)
class Measure:
    """A share to compare: a dimension and one of its categories (``country``/``RU``, ``relation``/``own``)."""

    dimension: str
    category: str

    def __str__(self) -> str:
        return f"{self.dimension}:{self.category}"


@dataclass(frozen=True)
class CompareOptions:
    """Resamples, permutations, seed, level, and the fewest paired groups judged."""

    n_resamples: int = 2000
    n_permutations: int = 2000
    seed: int = 12345
    conf: float = 0.95
    min_groups: int = 10
    alpha: float = 0.05


def _per_answer(
    n_answers: int,
    cats: dict[str, tuple[np.ndarray, np.ndarray, list[str]]],
    url_answer: np.ndarray,
    m: Measure,
) -> np.ndarray | None:
    rows, codes, labels = cats[m.dimension]
    if m.category not in labels:
        return None
    k = labels.index(m.category)
    hit = rows[codes == k]
    return np.bincount(url_answer[hit], minlength=n_answers).astype(float)


def _wilson(a: np.ndarray, b: np.ndarray, conf: float) -> tuple[float, float, float]:
    est, lo, hi = wilson_from_sums(
        np.array([a.sum()]), np.array([(a * a).sum()]), np.array([(a * b).sum()]),
        np.array([b.sum()]), np.array([(b * b).sum()]), np.array([(b > 0).sum()]), conf, small_sample=True,
    )  # fmt: skip
    return float(est[0]), float(lo[0]), float(hi[0])


class _Draws:
    """The bootstrap weights and swap matrix of ``n`` groups, drawn once (as :func:`bordir.stats.paired_test` draws them)."""

    def __init__(self, o: CompareOptions) -> None:
        self.o = o
        self._w: dict[int, np.ndarray] = {}
        self._f: dict[int, np.ndarray] = {}

    def weights(self, n: int) -> np.ndarray:
        if n not in self._w:
            self._w[n] = bootstrap_weights(
                n, self.o.n_resamples, np.random.default_rng(self.o.seed)
            ).astype(float)
        return self._w[n]

    def flips(self, n: int) -> np.ndarray:
        """The swap matrix as 0/1 floats (a swapped group moves ``b − a`` from one side to the other)."""
        if n not in self._f:
            self._f[n] = flip_matrix(
                self.o.n_permutations, n, np.random.default_rng(self.o.seed)
            ).astype(float)
        return self._f[n]


def _paired(
    an: np.ndarray, ad: np.ndarray, bn: np.ndarray, bd: np.ndarray, draws: _Draws
) -> tuple[float | None, float | None, float]:
    """Paired cluster-bootstrap interval and swap-test p of ``Σan/Σad − Σbn/Σbd`` (``paired_test``'s numbers)."""
    return _paired_many([(an, ad, bn, bd)], draws)[0]


_Paired = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""The paired groups' arrays of a comparison: ``a``'s numerators and denominators, ``b``'s."""
_BATCH = 256
"""Comparisons of one size whose resamples are drawn in one matrix product."""


def _paired_many(
    jobs: list[_Paired], draws: _Draws
) -> list[tuple[float | None, float | None, float]]:
    """:func:`_paired` of comparisons of one number of groups, their resampled sums in one product.

    The sums are of URL counts (integers) weighted by resample counts (integers): exact in
    floating point whatever the order of the additions, so the numbers are those of one product
    per comparison.
    """
    n = len(jobs[0][0])
    w, f = draws.weights(n), draws.flips(n)
    out: list[tuple[float | None, float | None, float]] = []
    for start in range(0, len(jobs), _BATCH):
        chunk = jobs[start : start + _BATCH]
        cols = np.column_stack([c for job in chunk for c in job])  # an, ad, bn, bd of each
        moves = np.column_stack(
            [c for an, ad, bn, bd in chunk for c in (bn - an, bd - ad)]
        )  # what a swapped group moves from one side to the other
        with np.errstate(divide="ignore", invalid="ignore"):
            s = w @ cols
            moved = f @ moves
            for k, (an, ad, bn, bd) in enumerate(chunk):
                diff = an.sum() / ad.sum() - bn.sum() / bd.sum()
                boot = s[:, 4 * k] / s[:, 4 * k + 1] - s[:, 4 * k + 2] / s[:, 4 * k + 3]
                lo, hi, _ = percentile_bounds(boot, draws.o.conf)
                dn, dd = moved[:, 2 * k], moved[:, 2 * k + 1]
                perm = (an.sum() + dn) / (ad.sum() + dd) - (bn.sum() - dn) / (bd.sum() - dd)
                out.append((lo, hi, permutation_pvalue(float(diff), perm)))
    return out


def _sides(
    a_num: np.ndarray,
    a_den: np.ndarray,
    b_num: np.ndarray,
    b_den: np.ndarray,
    o: CompareOptions,
) -> tuple[dict[str, float | int | str | None], _Paired | None]:
    """Everything of a comparison but its resampling; the paired arrays when it is to be judged."""
    both = (a_den > 0) & (b_den > 0)
    n = int(both.sum())
    an, ad, bn, bd = a_num[both], a_den[both], b_num[both], b_den[both]
    out: dict[str, float | int | str | None] = {
        "n_groups": n,
        "n_urls_a": int(ad.sum()),
        "n_urls_b": int(bd.sum()),
    }
    if n == 0:
        return {**out, "status": "undefined", "p_value": math.nan}, None
    e1, l1, h1 = _wilson(an, ad, o.conf)
    e2, l2, h2 = _wilson(bn, bd, o.conf)
    d = an / ad - bn / bd
    sd = float(np.std(d, ddof=1)) if n >= 2 else PLANNING_SD
    out.update(value_a=e1, value_b=e2, diff=e1 - e2)
    out["power_10"] = power_at(n, 0.10, sigma_d=min(sd, 1.0) or PLANNING_SD, alpha=o.alpha)
    out["power_20"] = power_at(n, 0.20, sigma_d=min(sd, 1.0) or PLANNING_SD, alpha=o.alpha)
    if n < o.min_groups:
        return {**out, "status": "too few to judge", "p_value": math.nan}, None
    rho = correlation(influence(an, ad), influence(bn, bd))
    _, lo, hi = mover_difference(e1, l1, h1, e2, l2, h2, rho)
    out.update(low_a=l1, high_a=h1, low_b=l2, high_b=h2, ci_low=lo, ci_high=hi, status="judged")
    return out, (an, ad, bn, bd)


def _one(
    a_num: np.ndarray,
    a_den: np.ndarray,
    b_num: np.ndarray,
    b_den: np.ndarray,
    o: CompareOptions,
    seed: int,
    draws: _Draws | None = None,
) -> dict[str, float | int | str | None]:
    """One comparison (see the module docs); ``seed`` is ``o.seed``'s (kept for callers)."""
    out, paired = _sides(a_num, a_den, b_num, b_den, o)
    if paired is not None:
        an, ad, bn, bd = paired
        blo, bhi, p = _paired(an, ad, bn, bd, draws or _Draws(o))
        out.update(boot_low=blo, boot_high=bhi, p_value=p)
    return out


def compare_all(
    answers: pa.Table,
    urls: UrlTable,
    cats: dict[str, tuple[np.ndarray, np.ndarray, list[str]]],
    measures: list[Measure],
    options: CompareOptions,
) -> pd.DataFrame:
    """Every paired comparison (languages within a model, models within a language) of every measure."""
    n = answers.num_rows
    group = as_array(answers["group"])
    has_group = group.is_valid().to_numpy(zero_copy_only=False)
    gcodes, _ = factorize(pc.fill_null(group, ""))
    mcodes, models = factorize(answers["model"], sort=True)
    lcodes, langs = factorize(answers["query_lang"], sort=True)
    url_answer = urls.answer.astype(np.int64)
    n_urls = answers["n_urls"].to_numpy().astype(float)
    has_claim = list_lengths(answers["claimants"]) > 0
    G = int(gcodes.max()) + 1 if n else 0
    L = len(langs)
    sel = np.flatnonzero(has_group)
    cell = (mcodes * L + lcodes)[sel]  # cell = model × query language
    key = cell * G + gcodes[sel]
    size = len(models) * L * G

    def by_cell_group(weights: np.ndarray) -> np.ndarray:
        return np.bincount(key, weights=weights[sel], minlength=size).reshape(len(models) * L, G)

    present = by_cell_group(np.ones(n)) > 0
    den_all, den_claim = by_cell_group(n_urls), by_cell_group(n_urls * has_claim)
    rows: list[dict[str, object]] = []
    draws = _Draws(options)
    jobs: dict[int, list[tuple[int, _Paired]]] = {}  # by number of groups
    families: list[tuple[int, int]] = []
    for m in measures:
        num_ans = _per_answer(n, cats, url_answer, m)
        if num_ans is None:
            continue
        num = by_cell_group(num_ans)
        den = den_claim if m.dimension == "claimant" else den_all
        for factor in ("query_lang", "model"):
            fixed_names, side_names = (models, langs) if factor == "query_lang" else (langs, models)
            for fi, fixed in enumerate(fixed_names):
                cells = [
                    ((si * L + fi) if factor == "model" else (fi * L + si), str(side))
                    for si, side in enumerate(side_names)
                ]
                cells = [(c, name) for c, name in cells if present[c].any()]
                fam_start = len(rows)
                for (ca, a), (cb, b) in combinations(cells, 2):
                    common = present[ca] & present[cb]
                    if not common.any():
                        continue
                    res, paired = _sides(
                        num[ca][common], den[ca][common], num[cb][common], den[cb][common], options
                    )
                    if paired is not None:
                        jobs.setdefault(len(paired[0]), []).append((len(rows), paired))
                    rows.append(
                        {
                            "factor": factor,
                            "fixed": str(fixed),
                            "a": a,
                            "b": b,
                            "dimension": m.dimension,
                            "category": m.category,
                            **res,
                        }
                    )
                families.append((fam_start, len(rows)))
    for todo in jobs.values():
        for (i, _), (blo, bhi, p) in zip(todo, _paired_many([j for _, j in todo], draws)):
            rows[i].update(boot_low=blo, boot_high=bhi, p_value=p)
    for start, stop in families:
        fam = rows[start:stop]
        ps = [
            float(cast(float, r["p_value"])) if r.get("status") == "judged" else math.nan
            for r in fam
        ]
        adj, rej = holm(ps, alpha=options.alpha)
        for r, p, j in zip(fam, adj, rej):
            r["p_holm"] = None if math.isnan(p) else float(p)
            r["significant"] = bool(j)
    df = pd.DataFrame(rows, columns=[c for c in COMPARE_COLUMNS if c != "signature"])
    df["signature"] = [
        str(Signature.build("source_share_diff", measure=f"{r.dimension}:{r.category}", factor=r.factor,
                            cmp=f"{r.b}-vs-{r.a}", cluster="group", ci="mover", boot=options.n_resamples,
                            perm=options.n_permutations, seed=options.seed, holm="yes"))
        for r in df.itertuples()
    ]  # fmt: skip
    return df
