"""Retrieval quality and the language mix of what each mode retrieves.

Quality needs relevance judgments (``qrels``: ``query_id, doc_lang, doc_id,
relevance``; relevance > 0 is relevant). For the bundled demo corpus,
:func:`demo_qrels` derives topical judgments from each paragraph's ``about``
field: paragraphs about the territory are relevant, the off-topic paragraphs
about a claimant country are not.

Measures, per (mode, query language), averaged over queries that have at
least one relevant document among their mode's candidates. **The queries are
the judged ones** (a relevant document in the judgments) together with those
of the hits: a judged query that no mode retrieved anything for scores 0 in
every mode whose pool holds one of its relevant documents, and is counted
(``has_hits`` per query, ``n_without_hits`` per group), as trec_eval and
``ir_measures`` score a judged query missing from the run:

* ``Recall@k`` = relevant documents in the top k / relevant candidates;
* ``MRR`` = 1 / rank of the first relevant hit (0 if none in the stored depth);
* ``nDCG@k`` with gain = relevance and log2 discount, ideal ranking from the
  candidates' judgments.

**Candidates are the mode's pool**: the judged documents of the query in the
languages the mode searches (:func:`~bordir.modes.mode_langs`:
``{l}`` for ``qlang``, ``{l, en}`` for ``qlang+en``, ``C(t) ∪ {en}`` for
``rel_langs`` …), whether or not the run returned any of them. A mode that
never retrieves an English document still has the English relevant documents
of its pool in its denominator. ``rel_langs`` and ``swap_docs`` need the
dataset (``dataset=``) to know the pool; the other modes follow from the query
language. A query with relevant candidates but no hits in a mode scores 0.

**Malformed input** is refused or repaired, never counted silently:

* a document listed twice for one (query, mode) in the hits, or judged twice
  for one query in the qrels, is a :class:`~bordir.errors.DataError` naming
  both rows (de-duplicate first, e.g. ``hits.drop_duplicates(["query_id",
  "mode", "doc_lang", "doc_id"])``);
* a missing or non-numeric relevance is a ``DataError``; a **negative grade
  counts as 0** (not relevant, no gain), as in trec_eval;
* **ties in ``rank``** are broken by ``doc_lang``, then ``doc_id``
  (ascending), so the result never depends on row order.

The measures agree with trec_eval (through ``ir_measures``: ``R@k``,
``nDCG@k``, ``RR``) on the same run and the qrels restricted to each pool
(``tests/retrieval/test_retrieval_eval.py``).

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

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..corpus import Corpus
from ..dataset import BorderLines
from ..errors import ConfigError, DataError
from ..modes import Mode, mode_langs, pool_langs

__all__ = [
    "per_query_quality",
    "quality",
    "language_mix",
    "language_mix_by_mode",
    "demo_qrels",
    "mode_pool",
    "check_hits",
    "check_qrels",
]

_HIT_KEYS = ("query_id", "mode", "doc_lang", "doc_id")
_QREL_KEYS = ("query_id", "doc_lang", "doc_id")


def demo_qrels(dataset: BorderLines, corpus: Corpus) -> pd.DataFrame:
    """Topical judgments for every (query, passage of the query's territory) from ``about``."""
    rows = []
    for q in dataset.queries:
        for p in corpus:
            if p.territory == q.territory:
                rows.append(
                    (q.query_id, p.lang, p.doc_id, int(dict(p.meta).get("about") == "territory"))
                )
    return pd.DataFrame(rows, columns=["query_id", "doc_lang", "doc_id", "relevance"])


def _require(frame: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise DataError(
            f"{what} has no column(s) {', '.join(missing)}; expected {', '.join(columns)}",
            field=missing[0],
        )


def _first_duplicate(frame: pd.DataFrame, keys: Sequence[str]) -> tuple[int, int] | None:
    dup = frame.duplicated(list(keys), keep=False).to_numpy()
    if not dup.any():
        return None
    rows = np.flatnonzero(dup)
    first = frame.iloc[rows[0]][list(keys)].tolist()
    other = next(r for r in rows[1:] if frame.iloc[r][list(keys)].tolist() == first)
    return int(rows[0]), int(other)


def check_hits(hits: pd.DataFrame) -> pd.DataFrame:
    """The hits, validated: required columns, no document twice per (query, mode), integral ranks.

    Raises:
        DataError: naming the two rows (0-based positions) of a duplicated hit, or the bad column.
    """
    _require(
        hits, ("query_id", "query_lang", "mode", "rank", "doc_lang", "doc_id"), "the hits table"
    )
    dup = _first_duplicate(hits, _HIT_KEYS)
    if dup is not None:
        r = hits.iloc[dup[0]]
        raise DataError(
            f"document ({r['doc_lang']}, {r['doc_id']}) is listed twice for query {r['query_id']!r}, "
            f"mode {r['mode']!r} (rows {dup[0]} and {dup[1]}); a run lists each document once per "
            "(query, mode): drop the duplicates first",
            field="doc_id",
        )
    ranks = pd.to_numeric(hits["rank"], errors="coerce")
    if ranks.isna().any():
        bad = int(np.flatnonzero(ranks.isna().to_numpy())[0])
        raise DataError(
            f"rank {hits['rank'].iloc[bad]!r} in row {bad} is not a number", field="rank"
        )
    return hits


def check_qrels(qrels: pd.DataFrame) -> pd.DataFrame:
    """The judgments, validated, with negative grades set to 0 (as trec_eval counts them).

    Raises:
        DataError: a document judged twice for one query (naming both rows), or a
            missing / non-numeric relevance.
    """
    _require(qrels, ("query_id", "doc_lang", "doc_id", "relevance"), "the qrels table")
    dup = _first_duplicate(qrels, _QREL_KEYS)
    if dup is not None:
        r = qrels.iloc[dup[0]]
        raise DataError(
            f"document ({r['doc_lang']}, {r['doc_id']}) is judged twice for query {r['query_id']!r} "
            f"(rows {dup[0]} and {dup[1]}); keep one judgment per (query, document)",
            field="relevance",
        )
    rel = pd.to_numeric(qrels["relevance"], errors="coerce")
    if rel.isna().any() or not np.isfinite(rel.to_numpy(dtype=float)).all():
        bad = int(np.flatnonzero(~np.isfinite(rel.to_numpy(dtype=float)))[0])
        raise DataError(
            f"relevance {qrels['relevance'].iloc[bad]!r} in row {bad} is not a number "
            "(expected a grade: 0 = not relevant, > 0 = relevant)",
            field="relevance",
        )
    return qrels.assign(relevance=rel.clip(lower=0))


def mode_pool(
    mode: str, query_id: str, query_lang: str, dataset: BorderLines | None = None
) -> tuple[str, ...]:
    """The document languages ``mode`` searches for a query (its candidate pool).

    >>> mode_pool("qlang+en", "Crimea_uk", "uk")
    ('uk', 'en')
    """
    m = Mode.parse(mode)
    if dataset is not None:
        return mode_langs(m, dataset.query(query_id), dataset)
    langs = pool_langs(m, query_lang)
    if langs is not None:
        return langs
    raise ConfigError(
        f"the candidate pool of mode {m.value} depends on the territory's claimants: "
        "pass dataset= to per_query_quality / quality"
    )


def _ranked_docs(hits: pd.DataFrame) -> dict[tuple[Any, Any], list[tuple[Any, Any]]]:
    """(query, mode) → its hits' ``(doc_lang, doc_id)`` in rank order, ties broken by (doc_lang, doc_id)."""
    key = hits.assign(
        _r=pd.to_numeric(hits["rank"]),
        _l=hits["doc_lang"].astype(str),
        _d=hits["doc_id"].astype(str),
    ).sort_values(["query_id", "mode", "_r", "_l", "_d"], kind="mergesort")
    out: dict[tuple[Any, Any], list[tuple[Any, Any]]] = {}
    for q, m, lang, doc in zip(key["query_id"], key["mode"], key["doc_lang"], key["doc_id"]):
        out.setdefault((q, m), []).append((lang, doc))
    return out


def per_query_quality(
    hits: pd.DataFrame, qrels: pd.DataFrame, *, k: int = 10, dataset: BorderLines | None = None
) -> pd.DataFrame:
    """One row per (query, mode): ``Recall@k``, ``MRR``, ``nDCG@k`` and ``n_relevant``.

    Args:
        hits: the hits table (``query_id, query_lang, mode, rank, doc_lang, doc_id``).
        qrels: relevance judgments (``query_id, doc_lang, doc_id, relevance``).
        k: the cut-off of Recall and nDCG.
        dataset: the dataset of the queries; needed for ``rel_langs`` and
            ``swap_docs``, whose pools depend on the territory.

    The queries are those of the hits and every judged query (a relevant document in ``qrels``): a
    judged query without any hit scores 0 in each mode of the hits, with ``has_hits`` False. Its
    language comes from the hits, else from ``dataset``, else from a ``query_lang`` column of
    ``qrels``. Candidates are the judged documents of the mode's pool (:func:`mode_pool`);
    (query, mode) pairs without a relevant candidate are left out.

    Raises:
        DataError: duplicated hits or judgments, a non-numeric rank or relevance.
        ConfigError: ``rel_langs`` / ``swap_docs`` hits without ``dataset``; a judged query without
            hits whose language is unknown (no ``dataset``, no ``query_lang`` column in ``qrels``).
    """
    check_hits(hits)
    qrels = check_qrels(qrels)
    judged: dict[tuple[str, str, str], float] = {}
    relevant_by_query: dict[str, list[tuple[str, float]]] = {}
    for q, l, d, r in qrels[["query_id", "doc_lang", "doc_id", "relevance"]].itertuples(
        index=False
    ):
        judged[(q, l, d)] = float(r)
        if r > 0:
            relevant_by_query.setdefault(q, []).append((l, float(r)))
    discounts = 1.0 / np.log2(np.arange(2, k + 2))
    out = []
    groups = _ranked_docs(hits)
    with_hits = set(hits["query_id"])
    query_langs = dict(zip(hits["query_id"], hits["query_lang"]))
    query_langs.update(_judged_query_langs(qrels, relevant_by_query, with_hits, dataset))
    pairs = sorted({(q, m) for q in query_langs for m in set(hits["mode"])})
    for qid, mode in pairs:
        g = groups.get((qid, mode))
        pool = set(mode_pool(mode, qid, query_langs[qid], dataset))
        rel_here = [r for l, r in relevant_by_query.get(qid, ()) if l in pool]
        if not rel_here:
            continue
        if g is None:
            gains = np.zeros(0)
        else:
            gains = np.array(
                [judged.get((qid, l, d), 0.0) if l in pool else 0.0 for l, d in g], dtype=float
            )
        top = gains[:k]
        first = np.flatnonzero(gains > 0)
        ideal_gains = np.array(sorted(rel_here, reverse=True)[:k], dtype=float)
        idcg = float((ideal_gains * discounts[: len(ideal_gains)]).sum())
        out.append(
            {
                "query_id": qid,
                "query_lang": query_langs[qid],
                "mode": mode,
                f"Recall@{k}": float((top > 0).sum()) / len(rel_here),
                "MRR": 1.0 / (first[0] + 1) if len(first) else 0.0,
                f"nDCG@{k}": float((top * discounts[: len(top)]).sum()) / idcg if idcg > 0 else 0.0,
                "n_relevant": len(rel_here),
                "has_hits": qid in with_hits,
            }
        )
    cols = [
        "query_id", "query_lang", "mode", f"Recall@{k}", "MRR", f"nDCG@{k}", "n_relevant", "has_hits",
    ]  # fmt: skip
    return pd.DataFrame(out, columns=cols)


def _judged_query_langs(
    qrels: pd.DataFrame,
    relevant_by_query: dict[str, list[tuple[str, float]]],
    with_hits: set[str],
    dataset: BorderLines | None,
) -> dict[str, str]:
    """The language of every judged query (a relevant document) that has no hit at all."""
    missing = sorted(q for q in relevant_by_query if q not in with_hits)
    if not missing:
        return {}
    given: dict[str, str] = {}
    if "query_lang" in qrels.columns:
        given = dict(zip(qrels["query_id"].astype(str), qrels["query_lang"].astype(str)))
    out = {}
    for q in missing:
        found = dataset.find_query(q) if dataset is not None else None
        if found is not None:
            out[q] = found.lang
        elif q in given:
            out[q] = given[q]
        else:
            raise ConfigError(
                f"judged query {q!r} has no hit in any mode and its language is unknown: pass the "
                "dataset (dataset=) or give the qrels a query_lang column, so that it scores 0 "
                "instead of leaving the mean"
            )
    return out


def quality(
    hits: pd.DataFrame,
    qrels: pd.DataFrame,
    *,
    k: int = 10,
    by: tuple[str, ...] = ("mode", "query_lang"),
    dataset: BorderLines | None = None,
) -> pd.DataFrame:
    """Mean of :func:`per_query_quality` per group, with the number of queries behind each mean.

    ``n_queries`` counts every scored query of the group, ``n_without_hits`` those among them that
    have no hit in any mode (each scored 0).
    """
    pq = per_query_quality(hits, qrels, k=k, dataset=dataset)
    cols = [f"Recall@{k}", "MRR", f"nDCG@{k}"]
    if pq.empty:
        return pd.DataFrame(columns=[*by, *cols, "n_queries", "n_without_hits"])
    g = pq.groupby(list(by))
    agg = g[cols].mean()
    agg["n_queries"] = g.size()
    agg["n_without_hits"] = g["has_hits"].agg(lambda x: int((~x.astype(bool)).sum()))
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
            cat = (
                "query_lang"
                if dl == qlang
                else "en"
                if dl == "en"
                else "other_claimant"
                if dl in claim
                else "other"
            )
            rows.append((mode, qlang, cat))
    df = pd.DataFrame(rows, columns=["mode", "query_lang", "category"])
    if df.empty:
        return pd.DataFrame(
            columns=[
                "mode",
                "query_lang",
                "query_lang_share",
                "en_share",
                "other_claimant_share",
                "other_share",
                "n_docs",
            ]
        )
    counts = df.groupby(["mode", "query_lang", "category"]).size().unstack(fill_value=0)
    for c in ("query_lang", "en", "other_claimant", "other"):
        if c not in counts:
            counts[c] = 0
    n = counts.sum(axis=1)
    out = (
        counts[["query_lang", "en", "other_claimant", "other"]].div(n, axis=0).add_suffix("_share")
    )
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
