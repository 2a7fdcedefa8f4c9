"""The six modes, pooling and fusion, with a tiny lexical test retriever (logic only).

The real retrievers (BM25, e5, providers) have their own tests; here a
character-overlap scorer keeps the mode logic fast and deterministic.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bordir.errors import ConfigError
from bordir.loaders import load_borderlines_files, load_demo, load_demo_corpus
from bordir.modes import Mode
from bordir.records import Passage
from bordir.retrieval import mode_langs, swap_eligible
from bordir.retrieval.base import Retriever
from bordir.retrieval.run import _fuse, load_hits, parse_modes, retrieve

DS = load_demo()
CORPUS = load_demo_corpus()


class Overlap(Retriever):
    """Score = number of distinct characters shared with the query (test-only)."""

    name = "overlap"
    cross_lingual = True

    def fit(self, corpus):
        self.fitted = len(corpus)

    def score(self, query_text: str, query_lang: str, docs: Sequence[Passage]) -> np.ndarray:
        q = set(query_text.lower())
        return np.array(
            [len(q & set(d.text.lower())) + (hash(d.doc_id) % 7) / 100 for d in docs], dtype=float
        )


@pytest.fixture(scope="module")
def run():
    return retrieve(DS, CORPUS, Overlap(), "all", k=4, depth=50, progress=False)


def test_mode_names_parse_both_spellings():
    assert parse_modes("qlang_en,en,ablate_swap") == (Mode.QLANG_EN, Mode.EN_ONLY, Mode.SWAP_DOCS)
    assert parse_modes("all") == tuple(Mode)
    with pytest.raises(ConfigError, match="valid: no_ir"):
        parse_modes("everything")


def test_mode_languages_follow_the_definitions():
    q = DS.query("Crimea_uk")
    assert mode_langs("no_ir", q, DS) == ()
    assert mode_langs("qlang", q, DS) == ("uk",)
    assert mode_langs("qlang+en", q, DS) == ("uk", "en")
    assert mode_langs("en_only", q, DS) == ("en",)
    assert mode_langs("rel_langs", q, DS) == ("ru", "uk", "en")
    assert mode_langs("swap_docs", q, DS) == ("ru",)
    en = DS.query("Crimea_en")
    assert mode_langs("qlang+en", en, DS) == ("en",)
    assert mode_langs("swap_docs", en, DS) == ()  # English is not a claimant language of Crimea


def test_every_mode_returns_only_its_languages(run):
    for (qid, mode), g in run.hits.groupby(["query_id", "mode"]):
        q = DS.query(qid)
        assert set(g["doc_lang"]) <= set(mode_langs(mode, q, DS)), (qid, mode)
        assert set(CORPUS.get(l, d).territory for l, d in zip(g["doc_lang"], g["doc_id"])) == {
            q.territory
        }
        assert list(g["rank"]) == list(range(1, len(g) + 1))
        assert g["score"].is_monotonic_decreasing


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from([q.query_id for q in DS.queries]),
    st.sampled_from(list(Mode)),
    st.integers(1, 12),
    st.booleans(),
    st.sampled_from(["raw", "minmax", "rrf"]),
)
def test_property_no_document_outside_the_mode(qid, mode, k, balanced, fusion):
    q = DS.query(qid)
    r = retrieve(
        DS,
        CORPUS,
        Overlap(),
        [mode],
        k=k,
        depth=k,
        balanced=balanced,
        fusion=fusion,
        queries=[q],
        progress=False,
    )
    allowed = set(mode_langs(mode, q, DS))
    assert set(r.hits["doc_lang"]) <= allowed
    assert len(r.hits) <= k
    if mode is Mode.NO_IR:
        assert r.hits.empty


def test_no_quota_by_default_but_balanced_on_request():
    q = DS.query("Senkaku_Islands_ja")
    pooled = retrieve(DS, CORPUS, Overlap(), ["rel_langs"], k=8, queries=[q], progress=False).top()
    bal = retrieve(
        DS, CORPUS, Overlap(), ["rel_langs"], k=8, balanced=True, queries=[q], progress=False
    ).top()
    assert pooled["doc_lang"].value_counts().max() > 2  # ranking decides the mix
    assert bal["doc_lang"].value_counts().to_dict() == {"zht": 2, "zhs": 2, "ja": 2, "en": 2}


def test_swap_docs_uses_the_partner_queries_qlang_hits(run):
    swap = run.hits[(run.hits["mode"] == "swap_docs") & (run.hits["query_id"] == "Crimea_uk")]
    qlang_ru = run.hits[(run.hits["mode"] == "qlang") & (run.hits["query_id"] == "Crimea_ru")]
    assert list(swap["doc_id"]) == list(qlang_ru["doc_id"])
    assert set(swap["source_query_id"]) == {"Crimea_ru"}


def test_swap_docs_skips_are_reported(run):
    skipped = {s.query_id: s.reason for s in run.skipped}
    assert "Western_Sahara_ar" in skipped and "share one language" in skipped["Western_Sahara_ar"]
    assert "Crimea_en" in skipped and "not a claimant language" in skipped["Crimea_en"]
    assert len(skipped) == len(DS.queries) - len(swap_eligible(DS))
    assert set(run.hits[run.hits["mode"] == "swap_docs"]["query_id"]).isdisjoint(skipped)


def test_swap_docs_eligible_count_on_real_borderlines(shared_borderlines):
    assert len(swap_eligible(load_borderlines_files(shared_borderlines))) == 460
    assert len(swap_eligible(load_borderlines_files(shared_borderlines, repair=True))) == 468


def test_fusion():
    s = np.array([3.0, 1.0, 2.0])
    assert _fuse(s, "minmax").tolist() == [1.0, 0.0, 0.5]
    assert _fuse(s, "rrf").tolist() == [1 / 61, 1 / 63, 1 / 62]
    assert _fuse(np.array([0.0, 0.0]), "minmax").tolist() == [0.0, 0.0]


def test_parquet_round_trip(run, tmp_path):
    path = run.to_parquet(tmp_path / "hits.parquet")
    back = load_hits(path)
    pd.testing.assert_frame_equal(back.hits, run.hits)
    assert back.skipped == run.skipped and back.k == run.k and back.signature == run.signature
    assert "ret:overlap" in run.signature and "corpus:sha256-" in run.signature


def test_top_k(run):
    assert run.top()["rank"].max() == 4
    assert run.hits["rank"].max() > 4  # depth is stored
