"""Retrieval measures (hand-computed), language mix, and BordIRLines hits in bordir's hits table."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from bordir.errors import ConfigError
from bordir.loaders import load_bordirlines, load_demo, load_demo_corpus
from bordir.retrieval.evaluate import demo_qrels, language_mix, per_query_quality, quality
from bordir.retrieval.run import HIT_COLUMNS, from_bordirlines, retrieve

from .test_bordirlines import write_bordirlines


def _hits(rows):
    return pd.DataFrame(rows, columns=["query_id", "query_lang", "mode", "rank", "doc_lang", "doc_id"])


def test_measures_by_hand():
    # ranking: x (irrelevant), a (rel 2), y (irrelevant), b (rel 1); c (rel 1) is not retrieved
    hits = _hits([("q", "en", "qlang", r, "en", d) for r, d in enumerate(["x", "a", "y", "b"], start=1)])
    qrels = pd.DataFrame({"query_id": ["q"] * 4, "doc_lang": ["en"] * 4, "doc_id": ["a", "b", "c", "x"],
                          "relevance": [2, 1, 1, 0]})
    m = per_query_quality(hits, qrels, k=3).iloc[0]
    # Recall@3: one of the three relevant documents (a) is in the top 3 -> 1/3
    assert m["Recall@3"] == pytest.approx(1 / 3)
    # MRR: first relevant at rank 2 -> 0.5
    assert m["MRR"] == 0.5
    # DCG@3 = 2/log2(3); IDCG@3 = 2/log2(2) + 1/log2(3) + 1/log2(4)
    dcg = 2 / math.log2(3)
    idcg = 2 + 1 / math.log2(3) + 1 / 2
    assert m["nDCG@3"] == pytest.approx(dcg / idcg)
    assert m["n_relevant"] == 3


def test_candidates_are_limited_to_the_modes_languages():
    hits = _hits([("q", "uk", "qlang", 1, "uk", "u1")])
    qrels = pd.DataFrame({"query_id": ["q", "q"], "doc_lang": ["uk", "en"], "doc_id": ["u1", "e1"],
                          "relevance": [1, 1]})
    m = per_query_quality(hits, qrels, k=10).iloc[0]
    assert m["Recall@10"] == 1.0  # the English relevant document is not visible to qlang


def test_bm25_beats_reverse_ranking_on_demo_judgments():
    ds, corpus = load_demo(), load_demo_corpus()
    run = retrieve(ds, corpus, "bm25", ["qlang"], k=3, progress=False)
    qrels = demo_qrels(ds, corpus)
    q = quality(run.hits, qrels, k=3, by=("mode",)).iloc[0]
    reversed_hits = run.hits.assign(rank=run.hits.groupby(["query_id", "mode"])["rank"].transform(lambda r: r.max() + 1 - r))
    worst = quality(reversed_hits, qrels, k=3, by=("mode",)).iloc[0]
    assert q["nDCG@3"] > worst["nDCG@3"] + 0.2
    assert q["n_queries"] == len(ds.queries)


def test_language_mix_shares_sum_to_one():
    ds, corpus = load_demo(), load_demo_corpus()
    run = retrieve(ds, corpus, "bm25", "all", k=4, progress=False)
    mix = language_mix(run.hits, ds, k=4)
    shares = mix[[c for c in mix.columns if c.endswith("_share")]].sum(axis=1)
    assert shares.round(9).eq(1).all()
    qlang = mix[mix["mode"] == "qlang"]
    assert (qlang["query_lang_share"] == 1).all()
    en_only = mix[(mix["mode"] == "en_only") & (mix["query_lang"] != "en")]
    assert (en_only["en_share"] == 1).all()


def test_bordirlines_hits_load_into_the_same_table(tmp_path):
    b = load_bordirlines(write_bordirlines(tmp_path / "bdl"))
    run = from_bordirlines(b, "openai", k=5)
    assert list(run.hits.columns) == HIT_COLUMNS
    assert set(run.hits["mode"]) <= {"qlang", "qlang+en", "en_only", "rel_langs"}
    assert run.top()["rank"].max() <= 5
    assert run.signature.startswith("ret:bordirlines/openai")
    sample = run.hits.iloc[0]
    assert sample["query_id"] == f"{sample['territory'].replace(' ', '_')}_{sample['query_lang']}"
    with pytest.raises(ConfigError, match="no BordIRLines hits for system"):
        from_bordirlines(b, "bm25")
