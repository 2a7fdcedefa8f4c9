"""The cohere backend: the real ``cohere`` ClientV2 against a loopback server, native citations included."""

from __future__ import annotations

import pytest

from bordir.errors import ConfigError, PermanentError, TransientError
from bordir.generation import (
    Document,
    GenerationRequest,
    Message,
    get_backend,
)

from ..loopback import Fault, Reply, loopback  # noqa: F401  (fixture)

pytest.importorskip("cohere")
pytestmark = pytest.mark.filterwarnings("ignore:The `__fields__` attribute is deprecated")

CANARY = "co-canary-8e2f4a6c1d0b9e77"
CHAT = "/v2/chat"
MODEL = "cohere/command-r-08-2024"

DOCS = (
    Document(
        0, "crimea_en_p0", "en", "Crimea is a peninsula on the northern coast of the Black Sea."
    ),
    Document(1, "crimea_ru_p3", "ru", "Крым — полуостров на севере Чёрного моря."),
    Document(2, "crimea_uk_p1", "uk", "Крим — півострів на півночі Чорного моря."),
)


def request(**kw) -> GenerationRequest:
    base = dict(
        model=MODEL,
        messages=(
            Message("system", "You are a helpful assistant who cites documents."),
            Message("user", "Query: Is Crimea a territory of A) Russia or B) Ukraine?"),
        ),
        temperature=0.3,
        seed=2557,
        max_tokens=512,
        response_format="citation",
        documents=DOCS,
    )
    return GenerationRequest(**{**base, **kw})


@pytest.fixture
def server(loopback, monkeypatch):
    monkeypatch.delenv("COHERE_API_KEY", raising=False)
    monkeypatch.setenv("CO_API_KEY", CANARY)
    monkeypatch.setenv("CO_API_URL", loopback.url)
    return loopback


@pytest.fixture
def client(server):
    b = get_backend(MODEL, timeout=1.0)
    yield b
    b.close()


def test_citation_request_carries_documents_and_maps_citations(server, client):
    server.reply = Reply(
        text="Chosen Option: B) Ukraine\nExplanation: because <doc2> and <doc0,1>.",
        citations=[["doc2"], ["doc0", "doc1", "doc0"], ["doc7", "web-search-1"]],
    )
    res = client.generate(request())
    assert res.ok and res.text.startswith("Chosen Option: B) Ukraine")
    assert res.native_citations == ((2,), (0, 1), ())
    assert res.finish_reason == "COMPLETE"
    assert (res.input_tokens, res.output_tokens) == (142, 7)  # tokens, not billed units
    assert res.meta["billed_units"] == {"input_tokens": 42, "output_tokens": 7}
    (rec,) = server.requests
    assert rec.path == CHAT
    body = rec.body
    assert body["model"] == "command-r-08-2024"
    assert body["messages"][0] == {
        "role": "system",
        "content": "You are a helpful assistant who cites documents.",
    }
    assert body["messages"][1]["role"] == "user"
    assert (body["temperature"], body["seed"], body["max_tokens"]) == (0.3, 2557, 512)
    assert body["documents"] == [{"id": f"doc{d.index}", "data": {"text": d.text}} for d in DOCS]
    assert rec.headers["authorization"] == f"Bearer {CANARY}"
    assert CANARY not in res.to_json() and CANARY not in repr(client)


def test_direct_format_sends_no_documents(server, client):
    res = client.generate(request(response_format="direct"))
    assert "documents" not in server.requests[-1].body
    assert res.native_citations is None and res.text == "A) Россия"


def test_citation_indices_follow_the_prompt_numbering(server, client):
    shifted = tuple(Document(d.index + 5, d.doc_id, d.lang, d.text) for d in DOCS)
    server.reply = Reply(text="x", citations=[["doc6"], ["doc0"]])
    res = client.generate(request(documents=shifted))
    assert [d["id"] for d in server.requests[-1].body["documents"]] == ["doc5", "doc6", "doc7"]
    assert res.native_citations == ((6,), ())


def test_429_is_transient_with_retry_after(server, client):
    server.push(Fault.status(429, retry_after=3))
    with pytest.raises(TransientError) as info:
        client.generate(request())
    assert info.value.status == 429 and info.value.retry_after == pytest.approx(3.0)
    assert len(server.requests) == 1  # no SDK retries
    assert CANARY not in str(info.value) and CANARY not in repr(info.value)


@pytest.mark.parametrize("status", [500, 503])
def test_5xx_is_transient(server, client, status):
    server.push(Fault.status(status))
    with pytest.raises(TransientError) as info:
        client.generate(request())
    assert info.value.status == status


def test_timeout_is_transient(server, client):
    server.push(Fault.delay(3.0))
    with pytest.raises(TransientError, match="timed out"):  # the server answers after 3 s
        client.generate(request())


def test_malformed_json_is_transient(server, client):
    server.push(Fault.malformed())
    with pytest.raises(TransientError, match="malformed"):
        client.generate(request())


@pytest.mark.parametrize("status", [400, 401, 404])
def test_client_errors_are_permanent(server, client, status):
    server.push(Fault.status(status, body=f"bad token {CANARY}"))
    with pytest.raises(PermanentError) as info:
        client.generate(request())
    assert info.value.status == status
    assert CANARY not in str(info.value) and CANARY not in repr(info.value)


def test_key_from_cohere_api_key_and_required(loopback, monkeypatch):
    monkeypatch.delenv("CO_API_KEY", raising=False)
    monkeypatch.delenv("COHERE_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="CO_API_KEY"):
        get_backend(MODEL, base_url=loopback.url)
    monkeypatch.setenv("COHERE_API_KEY", CANARY)
    b = get_backend(MODEL, base_url=loopback.url)
    assert b.generate(request()).ok
    assert loopback.requests[-1].headers["authorization"] == f"Bearer {CANARY}"


def test_extra_parameters_and_no_key_in_logs(server, client, caplog):
    caplog.set_level("DEBUG")
    client.generate(request(extra=(("k", "40"), ("safety_mode", "OFF"))))
    body = server.requests[-1].body
    assert body["k"] == 40 and body["safety_mode"] == "OFF"
    server.push(Fault.status(401, body=f"invalid key {CANARY}"))
    with pytest.raises(PermanentError):
        client.generate(request())
    assert CANARY not in caplog.text
