"""Retrieval quality and the language mix of what each mode retrieves.

Quality needs relevance judgments (``qrels``: ``query_id, doc_lang, doc_id,
relevance``; relevance > 0 is relevant). For the bundled demo corpus,
:func:`demo_qrels` derives topical judgments from each paragraph's ``about``
field: paragraphs about the territory are relevant, the off-topic paragraphs
about a claimant country are not.

Measures, per (mode, query language), averaged over queries that have at
least one relevant document among their mode's candidates:

* ``Recall@k`` = relevant documents in the top k / relevant candidates
  (candidates: the mode's pool, so a mode is not penalised for documents it
  cannot see);
* ``MRR`` = 1 / rank of the first relevant hit (0 if none in the stored depth);
* ``nDCG@k`` with gain = relevance and log2 discount, ideal ranking from the
  candidate pool's judgments.

Example:
    >>> import pandas as pd
    >>> hits = pd.DataFrame({"query_id": ["q"] * 3, "query_lang": ["en"] * 3, "mode": ["qlang"] * 3,
    ...     "rank": [1, 2, 3], "doc_lang": ["en"] * 3, "doc_id": ["a", "b", "c"]})
    >>> qrels = pd.DataFrame({"query_id": ["q", "q"], "doc_lang": ["en", "en"], "doc_id": ["b", "c"],
    ...     "relevance": [1, 1]})
    >>> m = per_query_quality(hits, qrels, k=2)
    >>> float(m["MRR"].iloc[0]), float(m["Recall@2"].iloc[0])
    (0.5, 0.5)
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..corpus import Corpus
from ..dataset import BorderLines

__all__ = ["per_query_quality", "quality", "language_mix", "language_mix_by_mode", "demo_qrels"]


def demo_qrels(dataset: BorderLines, corpus: Corpus) -> pd.DataFrame:
    """Topical judgments for every (query, passage of the query's territory) from ``about``."""
    rows = []
    for q in dataset.queries:
        for p in corpus:
            if p.territory == q.territory:
                rows.append((q.query_id, p.lang, p.doc_id, int(dict(p.meta).get("about") == "territory")))
    return pd.DataFrame(rows, columns=["query_id", "doc_lang", "doc_id", "relevance"])


def per_query_quality(hits: pd.DataFrame, qrels: pd.DataFrame, *, k: int = 10) -> pd.DataFrame:
    """One row per (query, mode): ``Recall@k``, ``MRR``, ``nDCG@k`` and ``n_relevant``.

    Relevant documents are counted among those judged for the query; queries
    with none are left out (their count is the difference to the hits' queries).
    """
    judged: dict[tuple[str, str, str], float] = {}
    relevant_by_query: dict[str, list[tuple[str, float]]] = {}
    for q, l, d, r in qrels[["query_id", "doc_lang", "doc_id", "relevance"]].itertuples(index=False):
        judged[(q, l, d)] = r
        if r > 0:
            relevant_by_query.setdefault(q, []).append((l, r))
    discounts = 1.0 / np.log2(np.arange(2, k + 2))
    out = []
    for (qid, mode), g in hits.sort_values("rank").groupby(["query_id", "mode"], sort=False):
        # candidates visible to this mode: judged documents in the languages the mode returned
        langs = set(g["doc_lang"])
        rel_here = [r for l, r in relevant_by_query.get(qid, ()) if l in langs]
        if not rel_here:
            continue
        gains = np.array([judged.get((qid, l, d), 0) for l, d in zip(g["doc_lang"], g["doc_id"])], dtype=float)
        top = gains[:k]
        first = np.flatnonzero(gains > 0)
        ideal_gains = np.array(sorted(rel_here, reverse=True)[:k], dtype=float)
        idcg = float((ideal_gains * discounts[: len(ideal_gains)]).sum())
        out.append({
            "query_id": qid,
            "query_lang": g["query_lang"].iloc[0],
            "mode": mode,
            f"Recall@{k}": float((top > 0).sum()) / len(rel_here),
            "MRR": 1.0 / (first[0] + 1) if len(first) else 0.0,
            f"nDCG@{k}": float((top * discounts[: len(top)]).sum()) / idcg if idcg > 0 else 0.0,
            "n_relevant": len(rel_here),
        })
    return pd.DataFrame(out)


def quality(hits: pd.DataFrame, qrels: pd.DataFrame, *, k: int = 10, by: tuple[str, ...] = ("mode", "query_lang")) -> pd.DataFrame:
    """Mean of :func:`per_query_quality` per group, with the number of queries behind each mean."""
    pq = per_query_quality(hits, qrels, k=k)
    if pq.empty:
        return pq
    cols = [f"Recall@{k}", "MRR", f"nDCG@{k}"]
    agg = pq.groupby(list(by))[cols].mean()
    agg["n_queries"] = pq.groupby(list(by)).size()
    return agg.reset_index()


def language_mix(hits: pd.DataFrame, dataset: BorderLines, *, k: int = 10) -> pd.DataFrame:
    """Share of the top-k documents in the query language, English, other claimant languages, other.

    One row per (mode, query language) with the shares (they sum to 1) and
    ``n_docs``, the number of documents behind them. A document in English
    counts as ``en`` even for English queries only if the query is not English
    (then it counts as ``query_lang``).
    """
    top = hits[hits["rank"] <= k]
    rows = []
    for (mode, qlang, territory), g in top.groupby(["mode", "query_lang", "territory"]):
        claim = set(dataset.claimant_langs(territory))
        for dl in g["doc_lang"]:
            cat = ("query_lang" if dl == qlang else "en" if dl == "en" else
                   "other_claimant" if dl in claim else "other")
            rows.append((mode, qlang, cat))
    df = pd.DataFrame(rows, columns=["mode", "query_lang", "category"])
    if df.empty:
        return pd.DataFrame(columns=["mode", "query_lang", "query_lang_share", "en_share", "other_claimant_share",
                                     "other_share", "n_docs"])
    counts = df.groupby(["mode", "query_lang", "category"]).size().unstack(fill_value=0)
    for c in ("query_lang", "en", "other_claimant", "other"):
        if c not in counts:
            counts[c] = 0
    n = counts.sum(axis=1)
    out = counts[["query_lang", "en", "other_claimant", "other"]].div(n, axis=0).add_suffix("_share")
    out["n_docs"] = n
    return out.reset_index()


def language_mix_by_mode(hits: pd.DataFrame, dataset: BorderLines, *, k: int = 10) -> pd.DataFrame:
    """:func:`language_mix` pooled over query languages: one row per mode (shares weighted by documents)."""
    mix = language_mix(hits, dataset, k=k)
    shares = [c for c in mix.columns if c.endswith("_share")]
    weighted = mix[shares].mul(mix["n_docs"], axis=0).assign(mode=mix["mode"], n_docs=mix["n_docs"])
    by_mode = weighted.groupby("mode").sum()
    by_mode[shares] = by_mode[shares].div(by_mode["n_docs"], axis=0)
    return by_mode
