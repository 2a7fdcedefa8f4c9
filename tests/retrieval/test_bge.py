"""bge-m3: the weight lookup always; the model itself only where its weights are present locally."""

from __future__ import annotations

import importlib.util
import os

import numpy as np
import pytest

from bordir.errors import ConfigError
from bordir.retrieval.dense.bge import resolve_bge_m3_path

# looked up at import time: conftest points HF_HOME at an empty directory for each test
try:
    WEIGHTS = resolve_bge_m3_path()
except ConfigError:
    WEIGHTS = None


def test_missing_weights_explain_how_to_get_them(tmp_path, monkeypatch):
    monkeypatch.setenv("BORDIR_BGE_M3_PATH", str(tmp_path))
    with pytest.raises(ConfigError, match="BORDIR_BGE_M3_PATH"):
        resolve_bge_m3_path()
    monkeypatch.delenv("BORDIR_BGE_M3_PATH")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    with pytest.raises(ConfigError, match="huggingface-cli download BAAI/bge-m3"):
        resolve_bge_m3_path()


def test_weights_found_in_hf_cache_layout(tmp_path, monkeypatch):
    snap = tmp_path / "hub" / "models--BAAI--bge-m3" / "snapshots" / "abc123"
    snap.mkdir(parents=True)
    (snap / "config.json").write_text("{}")
    (snap / "pytorch_model.bin").write_bytes(b"")
    (tmp_path / "hub" / "models--BAAI--bge-m3" / "refs").mkdir()
    (tmp_path / "hub" / "models--BAAI--bge-m3" / "refs" / "main").write_text("abc123")
    monkeypatch.delenv("BORDIR_BGE_M3_PATH", raising=False)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    assert resolve_bge_m3_path() == snap


@pytest.mark.slow
@pytest.mark.skipif(
    WEIGHTS is None or importlib.util.find_spec("FlagEmbedding") is None,
    reason="BGE-M3 weights or FlagEmbedding not available locally",
)
def test_bge_m3_hybrid_rescoring(tmp_path, monkeypatch):
    from bordir.loaders import load_demo_corpus
    from bordir.retrieval.base import get_retriever
    from bordir.retrieval.dense.bge import OUTSIDE_PENALTY

    monkeypatch.setenv("BORDIR_CACHE", str(tmp_path))
    demo = load_demo_corpus()
    corpus = type(demo)(
        list(demo.pool("Crimea", "en")[:3]) + list(demo.pool("Falkland Islands", "en")[:3])
    )
    r = get_retriever("bge-m3", model_path=os.fspath(WEIGHTS), rerank_depth=2, progress=False)
    assert r.signature()["rescore"] == "m3-hybrid(1,0.3,1)@2"
    r.fit(corpus)
    docs = list(corpus)
    scores = r.score("Who controls Crimea?", "en", docs)
    dense = super(type(r), r).score("Who controls Crimea?", "en", docs)
    top = np.argsort(-dense, kind="stable")[:2]
    rest = np.setdiff1d(np.arange(len(docs)), top)
    np.testing.assert_allclose(scores[rest], dense[rest] - OUTSIDE_PENALTY)
    assert scores[top].min() > scores[rest].max()
    assert docs[int(np.argmax(scores))].territory == "Crimea"


def test_rescoring_logic_with_a_stub_model(tmp_path, monkeypatch):
    """The top-n/penalty arithmetic and the FlagEmbedding calls, with a stand-in for the model."""
    import sys
    import types

    from bordir.corpus import Corpus
    from bordir.records import Passage
    from bordir.retrieval.base import get_retriever
    from bordir.retrieval.dense.bge import OUTSIDE_PENALTY

    from .._dense_fakes import hash_matrix

    calls: dict[str, list] = {"init": [], "encode": [], "score": []}

    class StubM3:
        def __init__(self, path, **kw):
            calls["init"].append((path, kw))

        def encode(self, texts, **kw):
            calls["encode"].append((list(texts), kw))
            return {
                "dense_vecs": hash_matrix(texts, 16),
                "lexical_weights": None,
                "colbert_vecs": None,
            }

        def compute_score(self, pairs, **kw):
            calls["score"].append((list(pairs), kw))
            return {"colbert+sparse+dense": [5.0 + i for i in range(len(pairs))]}

    monkeypatch.setitem(sys.modules, "FlagEmbedding", types.SimpleNamespace(BGEM3FlagModel=StubM3))
    monkeypatch.setitem(
        sys.modules,
        "torch",
        types.SimpleNamespace(cuda=types.SimpleNamespace(is_available=lambda: False)),
    )
    weights = tmp_path / "m3"
    weights.mkdir()
    (weights / "config.json").write_text("{}")
    (weights / "model.safetensors").write_bytes(b"")
    monkeypatch.setenv("BORDIR_BGE_M3_PATH", str(weights))

    r = get_retriever("bge-m3", dims=16, rerank_depth=2, use_cache=False, progress=False)
    assert r.use_fp16 is False  # no GPU: fp32
    sig = r.signature()
    assert (
        sig["rescore"] == "m3-hybrid(1,0.3,1)@2"
        and sig["fp16"] == "false"
        and sig["maxlen"] == "512"
    )
    corpus = Corpus(
        [
            Passage("a", "en", "Crimea Black Sea"),
            Passage("b", "en", "Falkland Islands"),
            Passage("c", "en", "Crimea peninsula"),
            Passage("d", "en", "Kuril Islands"),
        ]
    )
    r.fit(corpus)
    assert calls["init"] == [(str(weights), {"use_fp16": False})]
    assert calls["encode"][0][0] == [
        "crimea black sea",
        "falkland islands",
        "crimea peninsula",
        "kuril islands",
    ]
    assert calls["encode"][0][1]["max_length"] == 512

    docs = list(corpus)
    scores = r.score("CRIMEA Sea", "en", docs)
    dense = hash_matrix([d.text.lower() for d in docs], 16) @ hash_matrix(["crimea sea"], 16)[0]
    top = [int(i) for i in np.argsort(-dense, kind="stable")[:2]]
    ((pairs, kw),) = calls["score"]
    assert pairs == [("crimea sea", docs[i].text.lower()) for i in top]
    assert kw["weights_for_different_modes"] == [1.0, 0.3, 1.0] and kw["max_passage_length"] == 512
    np.testing.assert_allclose(scores[top], [5.0, 6.0])
    rest = [i for i in range(4) if i not in top]
    np.testing.assert_allclose(scores[rest], dense[rest] - OUTSIDE_PENALTY, atol=1e-6)
    r.score("CRIMEA Sea", "en", docs)
    assert len(calls["score"]) == 1  # hybrid scores of a (query, candidates) are cached
