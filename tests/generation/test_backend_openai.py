"""The openai and openai-compatible backends: the real ``openai`` client against a loopback server."""

from __future__ import annotations

import pytest

from bordir.errors import ConfigError, PermanentError, TransientError
from bordir.generation import (
    GenerationRequest,
    Message,
    get_backend,
)

from ..loopback import Fault, loopback  # noqa: F401  (fixture)

pytest.importorskip("openai")

CANARY = "sk-canary-5d1e0c9b7a3f2e11"
CHAT = "/v1/chat/completions"


def request(model: str = "openai/gpt-4o-mini", **kw) -> GenerationRequest:
    base = dict(
        model=model,
        messages=(
            Message("system", "You are a geopolitical expert."),
            Message("user", "Является ли Крым территорией A) Россия или B) Украина?"),
        ),
        temperature=0.5,
        seed=2557,
        max_tokens=64,
    )
    return GenerationRequest(**{**base, **kw})


@pytest.fixture
def server(loopback, monkeypatch):
    for var in ("OPENAI_COMPATIBLE_API_KEY", "OPENAI_COMPATIBLE_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", CANARY)
    monkeypatch.setenv("OPENAI_BASE_URL", loopback.openai_url)
    return loopback


TRANSPORTS = ["aiohttp", "httpx"]


@pytest.fixture(params=TRANSPORTS)
def client(server, request):
    """The backend on each transport: every protocol test below runs on both."""
    if request.param == "aiohttp":
        pytest.importorskip("aiohttp")
    b = get_backend("openai/gpt-4o-mini", timeout=1.0, transport=request.param)
    yield b
    b.close()


def test_the_default_transport_is_aiohttp_where_installed(server):
    pytest.importorskip("aiohttp")
    b = get_backend("openai/gpt-4o-mini")
    try:
        assert b.transport == "aiohttp" and b.generate(request()).ok
        assert type(b._ahttp[0]).__name__ == "_InstalledAioHttpClient"
    finally:
        b.close()


def test_an_unknown_transport_is_refused(server):
    with pytest.raises(
        ConfigError, match=r"transport must be one of 'aiohttp', 'httpx', not 'curl'"
    ):
        get_backend("openai/gpt-4o-mini", transport="curl")


def test_request_carries_settings_and_usage_is_recorded(server, client):
    res = client.generate(request())
    assert res.ok and res.text == "A) Россия"
    assert (res.input_tokens, res.output_tokens, res.finish_reason) == (42, 7, "stop")
    assert res.latency_s > 0 and res.meta["response_id"].startswith("chatcmpl-loopback")
    (rec,) = server.requests
    assert rec.path == CHAT
    assert rec.body["model"] == "gpt-4o-mini"
    assert rec.body["messages"] == [
        {"role": "system", "content": "You are a geopolitical expert."},
        {"role": "user", "content": "Является ли Крым территорией A) Россия или B) Украина?"},
    ]
    assert (
        rec.body["temperature"] == 0.5 and rec.body["seed"] == 2557 and rec.body["max_tokens"] == 64
    )
    assert rec.headers["authorization"] == f"Bearer {CANARY}"
    assert rec.headers.get("x-stainless-retry-count", "0") == "0"


def test_seed_none_is_not_sent_and_extra_goes_in_the_body(server, client):
    client.generate(request(seed=None, extra=(("top_p", "0.9"),)))
    body = server.requests[-1].body
    assert "seed" not in body and body["top_p"] == 0.9


def test_key_never_in_result_or_repr(server, client):
    res = client.generate(request())
    assert CANARY not in res.to_json()
    assert CANARY not in repr(client) and CANARY not in str(vars(client).get("options"))


@pytest.mark.parametrize("retry_after,expected", [("2", 2.0), ("0.25", 0.25)])
def test_429_is_transient_with_retry_after(server, client, retry_after, expected):
    server.push(Fault.status(429, retry_after=retry_after))
    with pytest.raises(TransientError) as info:
        client.generate(request())
    err = info.value
    assert err.status == 429 and err.retry_after == pytest.approx(expected)
    assert "429" in str(err) and "rate limit" in str(err)
    assert len(server.requests) == 1  # the SDK did not retry on its own
    assert CANARY not in str(err) and CANARY not in repr(err)


def test_500_is_transient(server, client):
    server.push(Fault.status(500), Fault.status(503))
    for status in (500, 503):
        with pytest.raises(TransientError) as info:
            client.generate(request())
        assert info.value.status == status and info.value.retry_after is None
    assert len(server.requests) == 2
    assert client.generate(request()).ok  # the server recovers, so does the client


def test_timeout_is_transient(server, client):
    server.push(Fault.delay(3.0))
    # the server answers after 3 s: an error at all means the client's timeout came first
    with pytest.raises(TransientError) as info:
        client.generate(request())
    assert "timed out" in str(info.value) and info.value.status is None


def test_malformed_json_is_transient(server, client):
    server.push(Fault.malformed())
    with pytest.raises(TransientError) as info:
        client.generate(request())
    assert "malformed" in str(info.value)
    assert CANARY not in repr(info.value)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_connection_refused_is_transient(server, monkeypatch, transport):
    pytest.importorskip(transport)
    port = server.port
    server.stop()
    b = get_backend(
        "openai/gpt-4o-mini",
        base_url=f"http://127.0.0.1:{port}/v1",
        timeout=1.0,
        transport=transport,
    )
    with pytest.raises(TransientError) as info:
        b.generate(request())
    b.close()
    # aiohttp's refusal reaches the SDK as a ConnectTimeout: it must still read as what it is
    assert "connection error: ConnectionRefusedError" in str(info.value)
    assert "timed out" not in str(info.value)


@pytest.mark.parametrize("status", [400, 401, 404, 422])
def test_client_errors_are_permanent(server, client, status):
    server.push(Fault.status(status, body=f"echo {CANARY} back"))
    with pytest.raises(PermanentError) as info:
        client.generate(request())
    err = info.value
    assert err.status == status and not isinstance(err, TransientError)
    assert CANARY not in str(err) and CANARY not in repr(err) and "***" in str(err)


def test_openai_compatible_with_base_url(loopback, monkeypatch):
    monkeypatch.delenv("OPENAI_COMPATIBLE_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_COMPATIBLE_BASE_URL", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", CANARY)  # must not leak to a third-party server
    b = get_backend(
        "openai-compatible/meta-llama/Llama-3.1-8B-Instruct", base_url=loopback.openai_url
    )
    res = b.generate(request(model="openai-compatible/meta-llama/Llama-3.1-8B-Instruct"))
    assert res.ok and res.model == "openai-compatible/meta-llama/Llama-3.1-8B-Instruct"
    rec = loopback.requests[-1]
    assert rec.body["model"] == "meta-llama/Llama-3.1-8B-Instruct"
    assert rec.headers["authorization"] == "Bearer none"
    assert loopback.openai_url in repr(b)


def test_openai_compatible_env_and_key(loopback, monkeypatch):
    monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", loopback.openai_url)
    monkeypatch.setenv("OPENAI_COMPATIBLE_API_KEY", CANARY)
    b = get_backend("openai-compatible/qwen2.5:7b")
    res = b.generate(request(model="openai-compatible/qwen2.5:7b"))
    assert loopback.requests[-1].headers["authorization"] == f"Bearer {CANARY}"
    assert CANARY not in res.to_json() and CANARY not in repr(b)


def test_configuration_errors(monkeypatch):
    monkeypatch.delenv("OPENAI_COMPATIBLE_BASE_URL", raising=False)
    with pytest.raises(ConfigError, match="OPENAI_COMPATIBLE_BASE_URL"):
        get_backend("openai-compatible/x")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        get_backend("openai/gpt-4o-mini")
    monkeypatch.setenv("OPENAI_API_KEY", CANARY)
    with pytest.raises(ConfigError, match="only from the environment") as info:
        get_backend("openai/gpt-4o-mini", api_key=CANARY)
    assert CANARY not in str(info.value)


def test_key_never_in_logs(server, client, caplog):
    caplog.set_level("DEBUG")
    client.generate(request())
    server.push(Fault.status(401, body=f"invalid key {CANARY}"))
    with pytest.raises(PermanentError):
        client.generate(request())
    assert caplog.records and CANARY not in caplog.text
