"""OpenAI and Cohere embedding retrievers against a local server speaking their protocols.

The real ``openai`` and ``cohere`` clients talk HTTP to a server on 127.0.0.1;
the server returns deterministic bag-of-words embeddings, so the expected
scores can be computed here.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from bordir.corpus import Corpus
from bordir.errors import ConfigError
from bordir.records import Passage
from bordir.retrieval.base import get_retriever

from .._dense_fakes import hash_matrix, start_fake_api

pytest.importorskip("openai")
pytest.importorskip("cohere")

CANARY = "sk-canary-7f3e9d1c0b2a"

CORPUS = Corpus(
    [
        Passage(
            "c0",
            "en",
            "Crimea is a peninsula on the northern coast of the Black Sea",
            territory="Crimea",
        ),
        Passage(
            "c1",
            "en",
            "Russia annexed Crimea in 2014 after a disputed referendum",
            territory="Crimea",
        ),
        Passage("c2", "en", "Sevastopol hosts the Black Sea Fleet", territory="Crimea"),
        Passage("c0", "uk", "Крим півострів на півночі Чорного моря", territory="Crimea"),
        Passage(
            "f0",
            "en",
            "The Falkland Islands are an archipelago in the South Atlantic",
            territory="Falkland Islands",
        ),
        Passage(
            "f1",
            "en",
            "Argentina claims the islands as Islas Malvinas",
            territory="Falkland Islands",
        ),
        Passage(
            "f0", "es", "Las islas Malvinas están en el Atlántico Sur", territory="Falkland Islands"
        ),
    ],
    name="providers",
)


@pytest.fixture
def api(monkeypatch, tmp_path):
    state, server = start_fake_api()
    monkeypatch.setenv("BORDIR_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CO_API_KEY", "COHERE_API_KEY", "CO_API_URL"):
        monkeypatch.delenv(var, raising=False)
    yield state
    server.shutdown()
    server.server_close()


def expected_scores(query: str, docs, dim: int) -> np.ndarray:
    return hash_matrix([p.text for p in docs], dim) @ hash_matrix([query], dim)[0]


def assert_no_secret(retriever, cache_dir, secret: str) -> None:
    assert secret not in repr(retriever)
    assert secret not in str(retriever.signature())
    assert secret not in str(retriever.embedding_signature())
    files = [p for p in cache_dir.rglob("*") if p.is_file()]
    assert files, "the embedding cache was not written"
    for p in files:
        assert secret.encode() not in p.read_bytes(), p


# -- OpenAI -------------------------------------------------------------------------


@pytest.fixture
def openai_env(api, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", CANARY)
    monkeypatch.setenv("OPENAI_BASE_URL", api.url + "/v1")
    return api


def test_openai_requests_scores_and_cache(openai_env, tmp_path):
    api = openai_env
    r = get_retriever("openai", batch_size=3, progress=False)
    assert r.name == "openai/text-embedding-3-large" and r.batch_size == 3
    assert get_retriever("openai", use_cache=False).batch_size == 64
    r.fit(CORPUS)

    sent = api.bodies("/v1/embeddings")
    assert [len(b["input"]) for b in sent] == [3, 3, 1]
    assert [t for b in sent for t in b["input"]] == [p.text for p in CORPUS]
    assert {b["model"] for b in sent} == {"text-embedding-3-large"}
    assert all(b["encoding_format"] == "float" and "dimensions" not in b for b in sent)
    assert {r_.headers["authorization"] for r_ in api.requests} == {f"Bearer {CANARY}"}
    assert r.embeddings.dims == 3072

    query = "Russia Crimea peninsula Black Sea"
    docs = list(CORPUS.pool("Crimea", "en")) + list(CORPUS.pool("Falkland Islands", "en"))
    scores = r.score(query, "uk", docs)
    np.testing.assert_allclose(scores, expected_scores(query, docs, 3072), rtol=1e-5, atol=1e-6)
    assert docs[int(np.argmax(scores))].doc_id == "c0"
    assert set(np.argsort(-scores)[:3]) == {0, 1, 2}  # the Crimea paragraphs first
    r.score(query, "uk", list(CORPUS.pool("Crimea", "uk")))
    assert api.bodies("/v1/embeddings")[3:] == [
        {"model": "text-embedding-3-large", "input": [query], "encoding_format": "float"}
    ]  # one query request

    assert_no_secret(r, tmp_path / "cache", CANARY)

    n = len(api.requests)
    again = get_retriever("openai", progress=False)
    again.fit(CORPUS)  # passages from the cache: no request
    assert len(api.requests) == n


def test_openai_dimensions_and_model(openai_env):
    r = get_retriever("openai/text-embedding-3-small", dims=256, use_cache=False, progress=False)
    r.fit(CORPUS)
    body = openai_env.bodies("/v1/embeddings")[0]
    assert body["model"] == "text-embedding-3-small" and body["dimensions"] == 256
    assert r.embeddings.dims == 256
    assert r.signature()["dims"] == "256"


@pytest.mark.slow
def test_openai_retries_429_honouring_retry_after(openai_env):
    api = openai_env
    api.failures.append((429, {"Retry-After": "1"}))
    r = get_retriever("openai/fake-embed", use_cache=False, progress=False)
    t0 = time.monotonic()
    r.fit(CORPUS)
    elapsed = time.monotonic() - t0
    assert len(api.requests) == 2 and api.requests[0].body == api.requests[1].body
    assert elapsed >= 0.9, "the client did not wait for Retry-After"
    assert r.embeddings.dims == 64


def test_openai_gives_up_with_a_bordir_error(openai_env):
    from bordir.errors import BordirError

    openai_env.failures.extend([(503, {"Retry-After": "0.01"})] * 3)
    r = get_retriever("openai/fake-embed", use_cache=False, progress=False, max_retries=1)
    with pytest.raises(BordirError, match="HTTP 503"):
        r.fit(CORPUS)
    assert len(openai_env.requests) == 2


def test_openai_without_key(api):
    r = get_retriever("openai", use_cache=False, progress=False)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        r.fit(CORPUS)
    assert api.requests == []


# -- Cohere -------------------------------------------------------------------------


@pytest.fixture
def cohere_env(api, monkeypatch):
    monkeypatch.setenv("CO_API_KEY", CANARY)
    monkeypatch.setenv("CO_API_URL", api.url)
    return api


@pytest.mark.slow
def test_cohere_requests_scores_and_cache(cohere_env, tmp_path):
    api = cohere_env
    r = get_retriever("cohere", batch_size=4, progress=False)
    assert r.name == "cohere/embed-multilingual-v3.0"
    assert get_retriever("cohere", use_cache=False).batch_size == 96
    r.fit(CORPUS)

    sent = api.bodies("/v2/embed")
    assert [len(b["texts"]) for b in sent] == [4, 3]
    assert [t for b in sent for t in b["texts"]] == [p.text for p in CORPUS]
    for b in sent:
        assert b["model"] == "embed-multilingual-v3.0"
        assert b["input_type"] == "search_document"
        assert b["embedding_types"] == ["float"]
    assert {r_.headers["authorization"] for r_ in api.requests} == {f"Bearer {CANARY}"}
    assert r.embeddings.dims == 1024

    query = "Argentina Malvinas islands South Atlantic"
    docs = list(CORPUS.pool("Falkland Islands", "en")) + list(CORPUS.pool("Crimea", "en"))
    scores = r.score(query, "es", docs)
    np.testing.assert_allclose(scores, expected_scores(query, docs, 1024), rtol=1e-5, atol=1e-6)
    assert {docs[i].doc_id for i in np.argsort(-scores)[:2]} == {"f0", "f1"}
    q = api.bodies("/v2/embed")[2:]
    assert len(q) == 1 and q[0]["texts"] == [query] and q[0]["input_type"] == "search_query"

    assert_no_secret(r, tmp_path / "cache", CANARY)

    n = len(api.requests)
    get_retriever("cohere", progress=False).fit(CORPUS)
    assert len(api.requests) == n


def test_cohere_key_fallback_and_retry(api, monkeypatch):
    monkeypatch.setenv("COHERE_API_KEY", CANARY + "-alt")
    api.failures.append((503, {"Retry-After": "1"}))
    r = get_retriever(
        "cohere/embed-multilingual-light-v3.0", base_url=api.url, use_cache=False, progress=False
    )
    t0 = time.monotonic()
    r.fit(CORPUS)
    assert time.monotonic() - t0 >= 0.9
    assert len(api.requests) == 2
    assert api.requests[-1].headers["authorization"] == f"Bearer {CANARY}-alt"
    assert api.requests[-1].body["model"] == "embed-multilingual-light-v3.0"
    assert r.embeddings.dims == 384


def test_cohere_without_key(api):
    r = get_retriever("cohere", use_cache=False, progress=False)
    with pytest.raises(ConfigError, match="CO_API_KEY"):
        r.fit(CORPUS)
    with pytest.raises(ConfigError, match="at most 96"):
        get_retriever("cohere", batch_size=100)
