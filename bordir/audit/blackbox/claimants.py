"""For territorial questions: the share of the cited sources from each claimant's country, per territory × model × query language.

An answer about a territory with known claimants (the log's ``claimants``, ISO codes or
names) contributes its attributed URLs; per territory, model and query language, each
claimant's share is ``Σ a_g / Σ b_g`` over the cell's clusters (answers or question groups),
with the cluster Wilson interval (:func:`bordir.stats.cluster_wilson.wilson_from_sums`, Student's t), ``too few to judge`` below ``min_clusters``.
``own`` marks the claimant whose language is the query's (the log's ``claimant_langs``, else
the country's official languages).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ...stats.cluster_wilson import wilson_from_sums
from .codes import as_array, factorize, group_codes
from .roles import claimant_slots, pair_lookup
from .shares import ShareOptions, cluster_keys
from .urltable import UrlTable

__all__ = ["claimant_table"]

COLUMNS = [
    "territory", "model", "query_lang", "claimant", "own", "n_answers", "n_clusters", "n_urls",
    "count", "share", "low", "high", "status",
]  # fmt: skip


def _hits(
    slots_answer: np.ndarray, slots_country: np.ndarray, labels: list[str], urls: UrlTable
) -> np.ndarray:
    """For each slot: the URLs of its answer from its country."""
    ucodes, ulabels = urls.country_codes()
    index = {c: i for i, c in enumerate(labels)}
    to_slot = np.array([index.get(c, -1) for c in ulabels] + [-1], dtype=np.int64)
    sc = to_slot[ucodes]
    mine = np.flatnonzero(sc >= 0)
    width = max(len(labels), 1)
    keys, counts = np.unique(
        urls.answer[mine].astype(np.int64) * width + sc[mine], return_counts=True
    )
    return pair_lookup(keys, counts, slots_answer * width + slots_country, 0)


def claimant_table(answers: pa.Table, urls: UrlTable, options: ShareOptions) -> pd.DataFrame:
    """One row per territory × model × query language × claimant (empty without territorial answers)."""
    slots = claimant_slots(answers)
    if not len(slots.answer):
        return pd.DataFrame(columns=COLUMNS)
    sa = slots.answer
    claim = as_array(answers["claimants"])
    terr = as_array(answers["territory"])
    terr = pc.if_else(pc.fill_null(pc.not_equal(terr, ""), False), terr, pc.binary_join(claim, "+"))
    t_codes, t_labels = factorize(terr, sort=True)
    m_codes, m_labels = factorize(answers["model"], sort=True)
    q_codes, q_labels = factorize(answers["query_lang"], sort=True)
    order = sorted(range(len(slots.countries)), key=slots.countries.__getitem__)
    rank = np.empty(len(order), dtype=np.int64)
    rank[np.asarray(order, dtype=np.int64)] = np.arange(len(order))
    c_labels = [slots.countries[i] for i in order]
    s_country = rank[slots.country]
    clus = cluster_keys(answers, options.cluster)
    b_ans = answers["n_urls"].to_numpy().astype(float)
    a_slot = _hits(sa, slots.country, slots.countries, urls).astype(float)
    # per territory × model × query language × claimant × cluster, then over the clusters
    g, gfirst = group_codes(t_codes[sa], m_codes[sa], q_codes[sa], s_country, clus[sa])
    ng = len(gfirst)
    ga = np.bincount(g, weights=a_slot, minlength=ng)
    gb = np.bincount(g, weights=b_ans[sa], minlength=ng)
    gn = np.bincount(g, minlength=ng)
    gown = np.bincount(g, weights=slots.own.astype(float), minlength=ng) > 0
    gs = sa[gfirst]
    c, cfirst = group_codes(t_codes[gs], m_codes[gs], q_codes[gs], s_country[gfirst])
    nc = len(cfirst)

    def total(w: np.ndarray) -> np.ndarray:
        return np.bincount(c, weights=w, minlength=nc)

    x, saa, sab, nn, s2 = total(ga), total(ga * ga), total(ga * gb), total(gb), total(gb * gb)
    G, n_answers, own = (
        total((gb > 0).astype(float)),
        total(gn.astype(float)),
        total(gown.astype(float)) > 0,
    )
    keep = nn > 0
    first = gfirst[cfirst][keep]
    x, saa, sab, nn, s2, G, n_answers, own = (
        v[keep] for v in (x, saa, sab, nn, s2, G, n_answers, own)
    )
    est, lo, hi = wilson_from_sums(x, saa, sab, nn, s2, G, options.conf, small_sample=True)
    few = G < options.min_clusters
    a_first = sa[first]
    return pd.DataFrame({
        "territory": [t_labels[i] for i in t_codes[a_first]], "model": [m_labels[i] for i in m_codes[a_first]],
        "query_lang": [q_labels[i] for i in q_codes[a_first]], "claimant": [c_labels[i] for i in s_country[first]],
        "own": own.astype(bool), "n_answers": n_answers.astype(int), "n_clusters": G.astype(int), "n_urls": nn.astype(int),
        "count": x.astype(int), "share": est, "low": np.where(few, np.nan, lo), "high": np.where(few, np.nan, hi),
        "status": np.where(few, "too few to judge", "ok"),
    })[COLUMNS]  # fmt: skip
