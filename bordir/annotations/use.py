"""Labels in experiments: the relevance filter, retrieval precision@k, viewpoint following.

**Relevance filter** (BordIRLines' ``relevance_filter``): before the top-k
documents are taken, the ranked hits of every (query, mode) are filtered by
their labels, keeping the ranking order:

* ``all`` — every hit (no labels needed);
* ``relevant`` — hits labelled ``relevant`` **or** ``partially_relevant``
  (BordIRLines' relevance is binary; a partially relevant document bears on the
  question, so it counts as relevant here);
* ``non-relevant`` — hits labelled ``not_relevant``.

Unlabelled hits are dropped by ``relevant`` and ``non-relevant`` (a filter
cannot vouch for them) and counted. A (query, mode) left with no hit gets no
prompt; the runner records it as skipped. BordIRLines likewise restricts its
relevance-filter experiment to queries with at least one relevant document.

**Precision@k** per language: for each (query, mode), the share of the first
``k`` hits labelled relevant (by default relevant or partially relevant), out
of ``k`` (as ``ir_measures``' ``P@k``: missing ranks and unlabelled hits count
as not relevant; ``judged@k`` says how many of the first k were labelled);
then the mean over the queries of each (mode, query language).

**Viewpoint following**: for each response, the majority viewpoint of its
prompt's (``included``) or cited (``cited``) documents, counted over the
documents whose label supports a claimant (``neutral`` and ``not_applicable``
documents do not vote). A tie or no supporting document leaves the majority
undefined; such responses are counted and left out of the rate. A response
*follows* when it answered and chose that claimant; an unanswered response
(refused, unparsed, failed) scores 0, and is counted.

Example:
    >>> hits = pd.DataFrame({"query_id": ["Crimea_uk"] * 3, "mode": ["qlang"] * 3, "rank": [1, 2, 3],
    ...                      "doc_lang": ["uk"] * 3, "doc_id": ["crimea_uk_p0", "crimea_uk_p4", "crimea_uk_p1"]})
    >>> from bordir.annotations import load_gold
    >>> filter_hits(hits, load_gold(), "relevant")[["doc_id", "rank", "orig_rank"]].values.tolist()
    [['crimea_uk_p0', 1, 1], ['crimea_uk_p1', 2, 3]]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from ..errors import ConfigError, DataError
from .labelset import LabelSet, query_info
from .schema import NEUTRAL, NOT_APPLICABLE, RELEVANCE, RELEVANT_LEVELS

__all__ = [
    "RELEVANCE_FILTERS",
    "parse_relevance_filter",
    "filter_hits",
    "precision_at_k",
    "viewpoint_following",
    "viewpoint_summary",
]

RELEVANCE_FILTERS: tuple[str, ...] = ("all", "relevant", "non-relevant")
"""The filter names (BordIRLines' ``relevance_filter`` values)."""


def parse_relevance_filter(name: str) -> str:
    """The canonical filter name (``non_relevant`` and ``nonrelevant`` are accepted for ``non-relevant``).

    >>> parse_relevance_filter("non_relevant")
    'non-relevant'
    """
    key = str(name).strip().casefold().replace("_", "-")
    key = {
        "nonrelevant": "non-relevant",
        "not-relevant": "non-relevant",
        "irrelevant": "non-relevant",
    }.get(key, key)
    if key not in RELEVANCE_FILTERS:
        raise ConfigError(
            f"unknown relevance filter {name!r}; valid: {', '.join(RELEVANCE_FILTERS)}"
        )
    return key


def filter_hits(hits: pd.DataFrame, labels: LabelSet | None, relevance_filter: str) -> pd.DataFrame:
    """The hits kept by ``relevance_filter``, re-ranked 1, 2, … per (query, mode) in their original order.

    The original rank is kept in ``orig_rank``; ``.attrs["bordir.relevance_filter"]``
    counts kept, dropped and unlabelled hits.

    Args:
        hits: a hits table (``query_id, mode, rank, doc_lang, doc_id`` …).
        labels: one annotator's labels (None only with ``all``).
        relevance_filter: ``all``, ``relevant`` or ``non-relevant``.
    """
    name = parse_relevance_filter(relevance_filter)
    out = hits.copy()
    out["orig_rank"] = out["rank"]
    if name == "all":
        out.attrs["bordir.relevance_filter"] = {
            "filter": name,
            "kept": len(out),
            "dropped": 0,
            "unlabelled": 0,
        }
        return out
    if labels is None:
        raise ConfigError(
            f"relevance_filter {name!r} needs labels; pass a label set (e.g. load_gold('demo'))"
        )
    rel = labels.single().lookup("relevance")
    keys = list(zip(out["query_id"], out["doc_lang"], out["doc_id"]))
    got = [rel.get(k) for k in keys]
    wanted = set(RELEVANT_LEVELS) if name == "relevant" else {"not_relevant"}
    keep = np.array([g in wanted for g in got], dtype=bool)
    unlabelled = sum(g is None for g in got)
    out = out[keep].sort_values(["query_id", "mode", "orig_rank"], kind="stable")
    out["rank"] = out.groupby(["query_id", "mode"], sort=False).cumcount() + 1
    out = out.reset_index(drop=True)
    out.attrs["bordir.relevance_filter"] = {
        "filter": name,
        "kept": int(keep.sum()),
        "dropped": int(len(keep) - keep.sum()),
        "unlabelled": int(unlabelled),
        "labels": labels.content_hash(),
    }
    return out


def precision_at_k(
    hits: pd.DataFrame,
    labels: LabelSet,
    *,
    k: int = 10,
    min_relevance: Literal["relevant", "partially_relevant"] = "partially_relevant",
    per_query: bool = False,
) -> pd.DataFrame:
    """Precision@k per (mode, query language), from labels.

    Args:
        hits: a hits table.
        labels: one annotator's labels.
        k: cut-off.
        min_relevance: the lowest level that counts as relevant.
        per_query: return the per-(query, mode) table instead of the means.

    Returns:
        With ``per_query=False``: ``measure, mode, query_lang, n_queries, precision, judged`` (means
        over queries); else ``measure, query_id, mode, query_lang, n_hits, n_relevant, n_judged,
        precision, judged``.
    """
    if k < 1:
        raise ConfigError(f"k must be >= 1, got {k}")
    if min_relevance not in RELEVANT_LEVELS:
        raise ConfigError(
            f"min_relevance must be one of {', '.join(RELEVANT_LEVELS)}, not {min_relevance!r}"
        )
    counted = set(RELEVANCE[: RELEVANCE.index(min_relevance) + 1])
    measure = f"P@{k}" if min_relevance == "partially_relevant" else f"P(rel=relevant)@{k}"
    rel = labels.single().lookup("relevance")
    top = hits[hits["rank"] <= k]
    rows = []
    for (qid, mode), g in top.groupby(["query_id", "mode"], sort=True):
        got = [rel.get(key) for key in zip(g["query_id"], g["doc_lang"], g["doc_id"])]
        n_rel = sum(x in counted for x in got)
        n_judged = sum(x is not None for x in got)
        lang = (
            g["query_lang"].iloc[0]
            if "query_lang" in g.columns
            else query_info(qid, labels.dataset)[1]
        )
        rows.append(
            {
                "measure": measure,
                "query_id": qid,
                "mode": mode,
                "query_lang": lang,
                "n_hits": len(g),
                "n_relevant": n_rel,
                "n_judged": n_judged,
                "precision": n_rel / k,
                "judged": n_judged / k,
            }
        )
    per = pd.DataFrame(
        rows,
        columns=[
            "measure",
            "query_id",
            "mode",
            "query_lang",
            "n_hits",
            "n_relevant",
            "n_judged",
            "precision",
            "judged",
        ],
    )
    if per_query:
        return per
    agg = (
        per.groupby(["measure", "mode", "query_lang"], sort=True)
        .agg(
            n_queries=("query_id", "count"),
            precision=("precision", "mean"),
            judged=("judged", "mean"),
        )
        .reset_index()
    )
    return agg


def _majority_claimant(viewpoints: Sequence[str | None]) -> tuple[str | None, str]:
    votes = Counter(v for v in viewpoints if v not in (None, NEUTRAL, NOT_APPLICABLE))
    if not votes:
        return None, "no_stance"
    ranked = votes.most_common()
    if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
        return None, "tie"
    return ranked[0][0], "defined"


def _as_list(x: Any) -> list[Any]:
    if x is None:
        return []
    if isinstance(x, float) and np.isnan(x):
        return []
    return list(x)


def viewpoint_following(
    responses: pd.DataFrame,
    labels: LabelSet,
    *,
    docs: Literal["included", "cited"] = "included",
) -> pd.DataFrame:
    """Per response: the majority viewpoint of its documents and whether the answer follows it.

    Args:
        responses: a responses table (``responses.parquet``: ``query_id, mode, model, run,
            outcome, choice_name, doc_ids, doc_langs, cited_doc_ids`` …).
        labels: one annotator's labels.
        docs: ``included`` (the prompt's documents) or ``cited`` (the documents the answer cites).

    Returns:
        The response keys plus ``n_docs, n_labelled, majority, majority_status`` (``defined``,
        ``tie``, ``no_stance``), ``answered`` and ``follows`` (1/0; NaN when the majority is undefined).
    """
    if docs not in ("included", "cited"):
        raise ConfigError(f"docs must be 'included' or 'cited', not {docs!r}")
    need = ["query_id", "mode", "outcome", "choice_name", "doc_ids", "doc_langs"] + (
        ["cited_doc_ids"] if docs == "cited" else []
    )
    missing = [c for c in need if c not in responses.columns]
    if missing:
        raise DataError(f"the responses table lacks column(s) {', '.join(missing)}")
    vp = labels.single().lookup("viewpoint")
    keys = [c for c in ("query_id", "query_lang", "mode", "model", "run") if c in responses.columns]
    rows = []
    for rec in responses.to_dict("records"):
        ids, langs = _as_list(rec["doc_ids"]), _as_list(rec["doc_langs"])
        lang_of = dict(zip(ids, langs))
        if docs == "included":
            chosen = list(zip(langs, ids))
        else:
            chosen = [(lang_of.get(d, ""), d) for d in _as_list(rec["cited_doc_ids"])]
        got = [vp.get((rec["query_id"], lang, d)) for lang, d in chosen]
        majority, status = _majority_claimant(got)
        answered = rec["outcome"] == "answered"
        follows = np.nan if majority is None else float(answered and rec["choice_name"] == majority)
        row = {k: rec[k] for k in keys}
        row.update(
            docs=docs,
            n_docs=len(chosen),
            n_labelled=sum(g is not None for g in got),
            majority=majority,
            majority_status=status,
            answered=answered,
            follows=follows,
        )
        rows.append(row)
    return pd.DataFrame(
        rows,
        columns=[
            *keys,
            "docs",
            "n_docs",
            "n_labelled",
            "majority",
            "majority_status",
            "answered",
            "follows",
        ],
    )


def viewpoint_summary(
    per_response: pd.DataFrame, by: Sequence[str] = ("model", "mode", "query_lang")
) -> pd.DataFrame:
    """Viewpoint-following rates from :func:`viewpoint_following`, grouped by ``by``.

    Columns: ``n_responses``, ``n_defined`` (majority defined), ``n_tie``, ``n_no_stance``,
    ``n_unanswered`` (among defined; scored 0), ``follow_rate`` (mean of ``follows`` over defined).
    """
    by = [c for c in by if c in per_response.columns]
    if not by:
        raise ConfigError(
            "viewpoint_summary needs at least one grouping column present in the table"
        )
    df = per_response.assign(
        _defined=per_response["majority_status"].eq("defined"),
        _tie=per_response["majority_status"].eq("tie"),
        _none=per_response["majority_status"].eq("no_stance"),
        _unans=per_response["majority_status"].eq("defined")
        & ~per_response["answered"].astype(bool),
    )
    out = (
        df.groupby(by, sort=True)
        .agg(
            n_responses=("follows", "size"),
            n_defined=("_defined", "sum"),
            n_tie=("_tie", "sum"),
            n_no_stance=("_none", "sum"),
            n_unanswered=("_unans", "sum"),
            follow_rate=("follows", "mean"),
        )
        .reset_index()
    )
    return out
