"""The embedding cache of dense retrievers: computed once, reloaded, invalidated, written atomically."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bordir.corpus import Corpus
from bordir.errors import ConfigError
from bordir.records import Passage
from bordir.retrieval.dense import store as store_mod
from bordir.retrieval.dense.base import DenseRetriever
from bordir.retrieval.dense.store import EmbeddingCacheWarning, EmbeddingStore, default_cache_dir

from .._dense_fakes import hash_matrix

DIM = 32


class Counting(DenseRetriever):
    """A fake embedder that counts its calls (the caching logic is what is under test)."""

    name = "counting"
    default_model = "hash-bow"
    known_dims = {"hash-bow": DIM}
    default_batch_size = 2

    def __init__(self, **kw):
        super().__init__(**kw)
        self.doc_calls: list[list[str]] = []
        self.query_calls: list[list[str]] = []

    def embed_documents(self, texts):
        self.doc_calls.append(list(texts))
        return hash_matrix(texts, DIM) * 3.0  # not normalised: the store must normalise

    def embed_queries(self, texts):
        self.query_calls.append(list(texts))
        return hash_matrix(texts, DIM)

    @property
    def docs_embedded(self) -> int:
        return sum(len(c) for c in self.doc_calls)


def make_corpus(extra: str = "") -> Corpus:
    return Corpus(
        [
            Passage("c0", "en", "Crimea is a peninsula on the Black Sea", territory="Crimea"),
            Passage("c1", "en", "Russia annexed Crimea in 2014" + extra, territory="Crimea"),
            Passage("c0", "uk", "Крим півострів у Чорному морі", territory="Crimea"),
            Passage(
                "f0",
                "en",
                "The Falkland Islands lie in the South Atlantic",
                territory="Falkland Islands",
            ),
            Passage(
                "f1",
                "es",
                "Las islas Malvinas están en el Atlántico Sur",
                territory="Falkland Islands",
            ),
        ],
        name="tiny",
    )


@pytest.fixture
def cache(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv("BORDIR_CACHE", str(d))
    return d


def test_default_cache_dir_follows_env(cache, monkeypatch):
    assert default_cache_dir() == cache
    monkeypatch.delenv("BORDIR_CACHE")
    assert default_cache_dir().parts[-2:] == (".cache", "bordir")


def test_computed_once_then_reloaded(cache):
    corpus = make_corpus()
    first = Counting(progress=False)
    first.fit(corpus)
    assert first.docs_embedded == len(corpus)
    assert [len(c) for c in first.doc_calls] == [2, 2, 1]  # batches of batch_size
    assert first.embeddings.computed
    path = first.embeddings.path
    assert path is not None and path.is_file()
    assert path.parent.parent == cache / "embeddings"
    assert path.name == corpus.content_hash() + ".npz"
    assert path.parent.name.startswith("counting-")

    meta = json.loads(path.with_suffix(".json").read_text())
    assert meta["params"] == first.embedding_signature()
    assert meta["corpus"] == corpus.content_hash()
    assert meta["passages"] == len(corpus) and meta["dims"] == DIM and meta["normalisation"] == "l2"
    assert "bordir" in meta

    second = Counting(progress=False)
    second.fit(corpus)
    assert second.doc_calls == []  # nothing re-embedded
    assert not second.embeddings.computed
    np.testing.assert_array_equal(second.embeddings.matrix, first.embeddings.matrix)
    assert second.embeddings.keys == tuple(p.key for p in corpus)

    m = second.embeddings.matrix
    assert m.dtype == np.float32 and m.shape == (len(corpus), DIM)
    np.testing.assert_allclose(np.linalg.norm(m, axis=1), 1.0, rtol=1e-6)


def test_corpus_change_invalidates(cache):
    a = Counting(progress=False)
    a.fit(make_corpus())
    b = Counting(progress=False)
    changed = make_corpus(extra=" after a referendum")
    b.fit(changed)
    assert b.docs_embedded == len(changed)
    assert b.embeddings.path != a.embeddings.path
    assert len(list((cache / "embeddings").rglob("*.npz"))) == 2


def test_embedder_change_invalidates(cache):
    a = Counting(progress=False)
    a.fit(make_corpus())
    b = Counting(progress=False, model="hash-bow-v2", dims=DIM)
    b.fit(make_corpus())
    assert b.docs_embedded == 5
    assert a.embeddings.path.parent != b.embeddings.path.parent


def test_mismatching_cache_is_recomputed_with_warning(cache):
    corpus = make_corpus()
    a = Counting(progress=False)
    a.fit(corpus)
    path = a.embeddings.path
    with np.load(path) as z:
        parts = dict(z)
    parts["doc_ids"] = np.array(["x"] * len(corpus))  # keys no longer match the corpus
    with open(path, "wb") as f:
        np.savez(f, **parts)
    b = Counting(progress=False)
    with pytest.warns(EmbeddingCacheWarning, match="document keys differ"):
        b.fit(corpus)
    assert b.docs_embedded == len(corpus)
    c = Counting(progress=False)  # the rewritten cache is good again
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c.fit(corpus)
    assert c.doc_calls == []


def test_wrong_dims_in_cache_is_recomputed(cache):
    corpus = make_corpus()
    a = Counting(progress=False)
    a.fit(corpus)
    path = a.embeddings.path
    with np.load(path) as z:
        parts = dict(z)
    parts["matrix"] = np.zeros((len(corpus), DIM + 1), dtype=np.float32)
    with open(path, "wb") as f:
        np.savez(f, **parts)
    b = Counting(progress=False)
    with pytest.warns(EmbeddingCacheWarning, match="dimensions"):
        b.fit(corpus)
    assert b.embeddings.dims == DIM


def test_truncated_cache_is_recomputed(cache):
    corpus = make_corpus()
    a = Counting(progress=False)
    a.fit(corpus)
    path = a.embeddings.path
    path.write_bytes(path.read_bytes()[:100])
    b = Counting(progress=False)
    with pytest.warns(EmbeddingCacheWarning, match="unreadable"):
        b.fit(corpus)
    assert b.docs_embedded == len(corpus)


def test_write_is_atomic(cache, monkeypatch):
    corpus = make_corpus()

    def crash(f, **arrays):
        f.write(b"PK\x03\x04 half a zip file")
        raise KeyboardInterrupt("killed while writing")

    monkeypatch.setattr(store_mod.np, "savez", crash)
    r = Counting(progress=False)
    with pytest.raises(KeyboardInterrupt):
        r.fit(corpus)
    path = EmbeddingStore().path_for(corpus, r)
    assert not path.exists()
    assert [p.name for p in path.parent.iterdir()] == []  # no temporary file left behind
    monkeypatch.undo()
    monkeypatch.setenv("BORDIR_CACHE", str(cache))

    r.fit(corpus)  # a later run writes a complete file
    assert path.is_file()
    assert sorted(p.name for p in path.parent.iterdir()) == sorted(
        [path.name, path.with_suffix(".json").name]
    )


def test_use_cache_false_writes_nothing(cache):
    r = Counting(use_cache=False, progress=False)
    r.fit(make_corpus())
    assert r.embeddings.path is None
    assert not cache.exists()


def test_identical_texts_are_embedded_once(cache):
    corpus = Corpus(
        [
            Passage("a", "en", "same text"),
            Passage("a", "de", "same text"),
            Passage("b", "en", "other"),
        ]
    )
    r = Counting(progress=False, batch_size=8)
    r.fit(corpus)
    assert r.doc_calls == [["same text", "other"]]
    m = r.embeddings.matrix
    np.testing.assert_array_equal(m[0], m[1])


def test_scores_are_cosines_and_queries_are_cached(cache):
    corpus = make_corpus()
    r = Counting(progress=False)
    r.fit(corpus)
    docs = list(corpus.pool("Crimea", "en")) + list(corpus.pool("Falkland Islands", "en"))
    q = "Black Sea peninsula Crimea"
    scores = r.score(q, "en", docs)
    ref = hash_matrix([p.text for p in docs], DIM) @ np.array(hash_matrix([q], DIM)[0])
    np.testing.assert_allclose(scores, ref, rtol=1e-5, atol=1e-6)
    assert int(np.argmax(scores)) == 0
    r.score(q, "uk", list(corpus.pool("Crimea", "uk")))
    assert r.query_calls == [[q]]  # one embedding call for the same query text
    assert r.search(q, k=2)[0][:2] == ("en", "c0")
    assert {lang for lang, _, _ in r.search(q, k=5, langs=["uk", "es"])} == {"uk", "es"}


def test_score_needs_fit_and_corpus_documents(cache):
    r = Counting(progress=False)
    with pytest.raises(ConfigError, match="not fitted"):
        r.score("q", "en", [Passage("c0", "en", "x")])
    r.fit(make_corpus())
    with pytest.raises(ConfigError, match="not in the corpus"):
        r.score("q", "en", [Passage("zz", "en", "x")])
    assert r.score("q", "en", []).shape == (0,)


def test_query_cache_is_bounded(cache):
    r = Counting(progress=False, query_cache_size=2)
    r.fit(make_corpus())
    doc = [make_corpus()[0]]
    for q in ["a", "b", "c", "a"]:
        r.score(q, "en", doc)
    assert len(r._query_cache) == 2
    # "a" was evicted from memory by "c", and read back from the query store, not embedded again
    assert [c[0] for c in r.query_calls] == ["a", "b", "c"]
    r.warm_queries(["x", "y", "a"])
    assert r.query_calls[-1] == ["x", "y"]


def test_query_vectors_are_embedded_once_across_runs(cache):
    corpus, doc = make_corpus(), [make_corpus()[0]]
    first = Counting(progress=False)
    first.fit(corpus)
    first.warm_queries(["Crimea", "Kuril Islands"])
    scores = first.score("Crimea", "en", doc)
    again = Counting(progress=False)  # a later run: same embedder, same parameters
    again.fit(corpus)
    again.warm_queries(["Crimea", "Kuril Islands"])
    assert again.query_calls == [] and again.score("Crimea", "en", doc).tolist() == scores.tolist()
    off = Counting(use_cache=False, progress=False)
    off.fit(corpus)
    off.warm_queries(["Crimea"])
    assert off.query_calls == [["Crimea"]]


def test_signature_and_repr(cache):
    r = Counting(progress=False)
    assert r.signature() == {"ret": "counting", "model": "hash-bow", "dims": str(DIM), "norm": "l2"}
    assert "counting" in repr(r)
    assert r.cross_lingual and r.default_fusion == "raw"


@settings(max_examples=25, deadline=None)
@given(st.permutations(range(5)))
def test_scores_do_not_depend_on_document_order(perm):
    corpus = make_corpus()
    r = Counting(use_cache=False, progress=False)
    r.fit(corpus)
    docs = list(corpus)
    base = r.score("Crimea Black Sea", "en", docs)
    shuffled = r.score("Crimea Black Sea", "en", [docs[i] for i in perm])
    np.testing.assert_array_equal(shuffled, base[list(perm)])
