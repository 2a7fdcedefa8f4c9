"""Who is cited, per model × query language (× month): shares of the cited sources by country, language, list and claimant.

Each distinct URL an answer cites counts once (a URL repeated in one answer is counted once,
and said so in ``n_dup``). For a cell and a category, the **share** is ``Σ a_g / Σ b_g`` over
the cell's clusters ``g`` (each answer, or each question group: the same question asked
several times or in several languages of a pooled cell is one cluster), ``a_g`` the
cluster's URLs in the category and ``b_g`` all its URLs; its interval is the cluster Wilson
score interval (:func:`bordir.stats.cluster_wilson.wilson_from_sums` with Student's t; simulated coverage in ``docs/audit.md``). A cell with fewer
than ``min_clusters`` clusters citing anything gets no interval: ``too few to judge``.

The dimensions (:data:`DIMENSIONS`), each with the category ``unattributed`` for the URLs the
rules give nothing:

* ``country`` — the source's country (ISO code, ``intl``, ``EU``);
* ``lang`` — the source's language;
* ``relation`` — the source's language against the query's: ``own``, ``en`` (English, for a
  question not asked in English), ``other``;
* ``list`` — each user list's label (a URL may be on several; ``none``: on none);
* ``claimant`` — for questions about a territory with known claimants: a source from the
  claimant whose language is the query's (``own_claimant``), from another claimant
  (``other_claimant``), from a country that is no claimant (``non_claimant``).

Pooled rows (``query_lang`` ``*``) pool every query language of a model.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ...stats.cluster_wilson import wilson_from_sums
from .codes import as_array, factorize, first_seen, group_codes, list_lengths
from .roles import claimant_slots, own_claimants, url_roles
from .urltable import UNATTRIBUTED, UrlTable

__all__ = [
    "DIMENSIONS",
    "UNATTRIBUTED",
    "ShareOptions",
    "url_categories",
    "cell_codes",
    "share_table",
    "answer_table",
    "cluster_keys",
    "own_claimants",
]

DIMENSIONS: tuple[str, ...] = ("country", "lang", "relation", "list", "claimant")
ALWAYS: dict[str, tuple[str, ...]] = {
    "relation": ("own", "en", "other", UNATTRIBUTED),
    "claimant": ("own_claimant", "other_claimant", "non_claimant", UNATTRIBUTED),
}


@dataclass(frozen=True)
class ShareOptions:
    """How shares are computed: month cells, the cluster, the interval level, the smallest cell judged."""

    by_month: bool = False
    cluster: str = "answer"
    conf: float = 0.95
    min_clusters: int = 10


Categories = dict[str, tuple[np.ndarray, np.ndarray, list[str]]]


def url_categories(answers: pa.Table, urls: UrlTable, lists: tuple[str, ...] = ()) -> Categories:
    """Per dimension: ``(url rows, category codes, category labels)``; a row may repeat (lists, claimants) or be absent (claimant).

    Labels are in the order they first appear among the URLs (``relation``, ``claimant`` and
    ``list``: fixed).
    """
    ans = urls.answer.astype(np.int64)
    n = len(ans)
    rows = np.arange(n)
    out: Categories = {}
    country, clabels = urls.country_codes()
    out["country"] = (rows, country, clabels)
    lang, llabels = urls.lang_codes()
    out["lang"] = (rows, lang, llabels)
    qcodes, qlangs = factorize(answers["query_lang"])
    to_lang = {x: i for i, x in enumerate(llabels)}
    q_in_lang = np.array([to_lang.get(q, -2) for q in qlangs] + [-2], dtype=np.int32)
    kind = np.array(
        [3 if x == UNATTRIBUTED else 1 if x == "en" else 2 for x in llabels], dtype=np.int8
    )
    rel = kind[lang] if n else np.zeros(0, dtype=np.int8)  # unattributed, English, other ...
    own = (
        np.flatnonzero((q_in_lang[qcodes[ans]] == lang) & (rel != 3))
        if n
        else np.zeros(0, np.int64)
    )
    rel[own] = 0  # ... or the query's own language
    out["relation"] = (rows, rel, list(ALWAYS["relation"]))
    lcats = [*lists, "none"]
    hl = urls.hosts.get("lists") if n else None
    h_len = list_lengths(hl) if hl is not None and len(hl) else np.zeros(0, np.int64)
    if not h_len.any():
        lrows, lcodes = rows, np.full(n, len(lcats) - 1, dtype=np.int32)
    else:
        h_codes = pc.fill_null(
            pc.index_in(pc.list_flatten(hl), value_set=pa.array(lcats, pa.string())), len(lcats) - 1
        )
        h_codes = h_codes.to_numpy(zero_copy_only=False).astype(np.int32)
        h_start = np.concatenate([[0], np.cumsum(h_len)])
        lens = h_len[urls.host_id]
        listed = np.repeat(rows, lens)
        within = np.arange(len(listed)) - np.repeat(np.cumsum(lens) - lens, lens)
        lrows = np.concatenate([listed, rows[lens == 0]])
        lcodes = np.concatenate(
            [
                h_codes[h_start[urls.host_id[listed]] + within],
                np.full(int((lens == 0).sum()), len(lcats) - 1, np.int32),
            ]
        )
    out["list"] = (lrows, lcodes, lcats)
    crows, ccodes = url_roles(claimant_slots(answers), answers.num_rows, ans, country, clabels)
    out["claimant"] = (crows, ccodes, list(ALWAYS["claimant"]))
    return out


def cell_codes(answers: pa.Table, by_month: bool, pooled: bool) -> tuple[np.ndarray, pd.DataFrame]:
    """Each answer's cell code and the cells (``model``, ``query_lang`` [, ``month``]), sorted; ``pooled``: query_lang ``*``."""
    n = answers.num_rows
    cols: list[tuple[str, np.ndarray, list[str]]] = [
        ("model", *factorize(answers["model"], sort=True))
    ]
    if pooled:
        cols.append(("query_lang", np.zeros(n, dtype=np.int64), ["*"]))
    else:
        cols.append(("query_lang", *factorize(answers["query_lang"], sort=True)))
    if by_month:
        cols.append(
            ("month", *factorize(pc.fill_null(as_array(answers["month"]), "unknown"), sort=True))
        )
    codes, firsts = group_codes(*(c for _, c, _ in cols))
    cells = pd.DataFrame(
        [tuple(labels[c[i]] for _, c, labels in cols) for i in firsts.tolist()],
        columns=[name for name, _, _ in cols],
    )
    return codes, cells


def cluster_keys(answers: pa.Table, cluster: str) -> np.ndarray:
    """Each answer's cluster code: the answer itself, or its question group (an answer without one is its own)."""
    n = answers.num_rows
    if cluster == "answer":
        return np.arange(n, dtype=np.int64)
    codes, uniq = factorize(answers["group"])
    alone = codes < 0
    codes[alone] = len(uniq) + np.flatnonzero(alone)
    return first_seen(codes)


def _pair_counts(
    cc: np.ndarray, codes: np.ndarray, K: int, ncc: int
) -> tuple[np.ndarray, np.ndarray]:
    """The distinct ``cc * K + codes`` (sorted) and how often each occurs."""
    if ncc * K <= 4 * len(cc) + (1 << 20):
        counts = np.bincount(cc * K + codes, minlength=ncc * K)
        keys = np.flatnonzero(counts)
        return keys, counts[keys]
    return np.unique(cc * K + codes, return_counts=True)


def share_table(
    answers: pa.Table,
    urls: UrlTable,
    cats: Categories,
    options: ShareOptions,
    *,
    focus: dict[str, tuple[str, ...]] | None = None,
) -> pd.DataFrame:
    """One row per cell × dimension × category cited (plus ``unattributed`` and the ``focus`` categories, always)."""
    focus = focus or {}
    n_urls = answers["n_urls"].to_numpy().astype(float)
    has_claim = list_lengths(answers["claimants"]) > 0
    url_ans = urls.answer.astype(np.int64)
    clus = cluster_keys(answers, options.cluster)
    frames = []
    for pooled in (False, True):
        cell, cells = cell_codes(answers, options.by_month, pooled)
        cc_codes = np.unique(cell * (clus.max() + 1) + clus, return_inverse=True)[1]
        ncc = int(cc_codes.max()) + 1 if len(cc_codes) else 0
        cell_of_cc = np.zeros(ncc, dtype=np.int64)
        cell_of_cc[cc_codes] = cell
        ncell = len(cells)
        n_ans = np.bincount(cell, minlength=ncell)
        for dim, (rows, codes, labels) in cats.items():
            K = len(labels)
            w = n_urls * has_claim if dim == "claimant" else n_urls
            b = np.bincount(cc_codes, weights=w, minlength=ncc)
            n = np.bincount(cell_of_cc, weights=b, minlength=ncell)
            s2 = np.bincount(cell_of_cc, weights=b * b, minlength=ncell)
            g = np.bincount(cell_of_cc, weights=(b > 0).astype(float), minlength=ncell)
            ccu = cc_codes[url_ans[rows]]
            keys, a = _pair_counts(ccu, codes, K, ncc)
            kcc, kk = keys // K, keys % K
            ck = cell_of_cc[kcc] * K + kk
            x = np.bincount(ck, weights=a, minlength=ncell * K)
            saa = np.bincount(ck, weights=a.astype(float) ** 2, minlength=ncell * K)
            sab = np.bincount(ck, weights=a * b[kcc], minlength=ncell * K)
            want = x > 0
            for extra in (*ALWAYS.get(dim, (UNATTRIBUTED,)), *focus.get(dim, ())):
                if extra in labels:
                    k = labels.index(extra)
                    want[np.arange(ncell) * K + k] = True
            idx = np.flatnonzero(want)
            idx = idx[n[idx // K] > 0]  # a cell citing nothing is in the answers table only
            ci, kk2 = idx // K, idx % K
            est, lo, hi = wilson_from_sums(
                x[idx], saa[idx], sab[idx], n[ci], s2[ci], g[ci], options.conf, small_sample=True
            )
            few = g[ci] < options.min_clusters
            df = cells.iloc[ci].reset_index(drop=True)
            df["dimension"] = dim
            df["category"] = [labels[k] for k in kk2]
            df["n_answers"] = n_ans[ci]
            df["n_clusters"] = g[ci].astype(int)
            df["n_urls"] = n[ci].astype(int)
            df["count"] = x[idx].astype(int)
            df["share"] = est
            df["low"] = np.where(few, np.nan, lo)
            df["high"] = np.where(few, np.nan, hi)
            df["status"] = np.where(few, "too few to judge", "ok")
            frames.append(df)
    out = pd.concat(frames, ignore_index=True)
    return out.sort_values(
        ["model", "query_lang", "dimension", "count"],
        ascending=[True, True, True, False],
        kind="stable",
    ).reset_index(drop=True)


def answer_table(answers: pa.Table, options: ShareOptions) -> pd.DataFrame:
    """Per cell: answers, the share citing ≥ 1 URL (cluster Wilson), citations per answer, repeats, bad URLs, detections."""
    n_urls = answers["n_urls"].to_numpy().astype(float)
    clus = cluster_keys(answers, options.cluster)
    cols = {
        c: answers[c].to_numpy(zero_copy_only=False).astype(float)
        for c in ("n_cited", "n_dup", "n_bad_urls")
    }
    detected = answers["qlang_detected"].to_numpy().astype(float)
    cost = pc.fill_null(answers["cost_usd"], 0.0).to_numpy().astype(float)
    frames = []
    for pooled in (False, True):
        cell, cells = cell_codes(answers, options.by_month, pooled)
        ncell = len(cells)
        cc = np.unique(cell * (clus.max() + 1) + clus, return_inverse=True)[1]
        ncc = int(cc.max()) + 1
        cell_of_cc = np.zeros(ncc, dtype=np.int64)
        cell_of_cc[cc] = cell
        a = np.bincount(cc, weights=(n_urls > 0).astype(float), minlength=ncc)
        b = np.bincount(cc, minlength=ncc).astype(float)
        x = np.bincount(cell_of_cc, weights=a, minlength=ncell)
        n = np.bincount(cell_of_cc, weights=b, minlength=ncell)
        est, lo, hi = wilson_from_sums(
            x, np.bincount(cell_of_cc, weights=a * a, minlength=ncell), np.bincount(cell_of_cc, weights=a * b, minlength=ncell),
            n, np.bincount(cell_of_cc, weights=b * b, minlength=ncell), np.bincount(cell_of_cc, minlength=ncell), options.conf,
            small_sample=True,
        )  # fmt: skip
        g = np.bincount(cell_of_cc, minlength=ncell)
        few = g < options.min_clusters
        df = cells.copy()
        df["n_answers"] = n.astype(int)
        df["n_clusters"] = g
        df["n_citing"] = x.astype(int)
        df["citing_share"] = est
        df["citing_low"] = np.where(few, np.nan, lo)
        df["citing_high"] = np.where(few, np.nan, hi)
        df["urls_per_answer"] = np.bincount(cell, weights=n_urls, minlength=ncell) / n
        df["cited_per_answer"] = np.bincount(cell, weights=cols["n_cited"], minlength=ncell) / n
        df["n_dup"] = np.bincount(cell, weights=cols["n_dup"], minlength=ncell).astype(int)
        df["n_bad_urls"] = np.bincount(cell, weights=cols["n_bad_urls"], minlength=ncell).astype(
            int
        )
        df["n_qlang_detected"] = np.bincount(cell, weights=detected, minlength=ncell).astype(int)
        df["cost_usd"] = np.bincount(cell, weights=cost, minlength=ncell)
        df["status"] = np.where(few, "too few to judge", "ok")
        frames.append(df)
    return pd.concat(frames, ignore_index=True)
