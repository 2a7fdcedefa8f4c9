"""``bordir._net.http.tls_context``: one verifying TLS context per process, shared by every client bordir builds.

A real HTTPS server on 127.0.0.1 (a self-signed certificate made with ``openssl``) checks that the
shared context still verifies: trusted through ``SSL_CERT_FILE`` the calls go through, and with the
variable unset (certifi's bundle, a new context) the same server is refused.
"""

from __future__ import annotations

import shutil
import ssl
import subprocess

import pytest

from bordir._net import http as _http
from bordir._net.http import tls_context
from bordir.errors import BordirError
from bordir.generation import GenerationRequest, Message, get_backend

from .loopback import LoopbackServer

httpx = pytest.importorskip("httpx")

pytestmark = pytest.mark.slow  # a certificate from openssl, an HTTPS server


@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    """A self-signed certificate for 127.0.0.1 and its key (``openssl req``)."""
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is not installed")
    d = tmp_path_factory.mktemp("tls")
    cert, key = d / "cert.pem", d / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


@pytest.fixture
def https(certificate, monkeypatch):
    cert, key = certificate
    server_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_ctx.load_cert_chain(cert, key)
    monkeypatch.setattr(_http, "_TLS", {})  # no context from an earlier test
    for var in ("SSL_CERT_DIR", "OPENAI_COMPATIBLE_API_KEY", "OPENAI_COMPATIBLE_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    with LoopbackServer(tls=server_ctx) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-tls-test")
        monkeypatch.setenv("OPENAI_BASE_URL", server.openai_url)
        yield server


def _request() -> GenerationRequest:
    return GenerationRequest(
        model="openai/gpt-4o-mini",
        messages=(Message("user", "Is Crimea a territory of A) Ukraine or B) Russia?"),),
        temperature=0.0,
        max_tokens=8,
    )


@pytest.mark.parametrize("transport", ["httpx", "aiohttp"])
def test_backends_share_one_context_that_verifies_the_server(
    https, certificate, monkeypatch, transport
):
    if transport == "aiohttp":
        pytest.importorskip("aiohttp")
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate[0]))
    built = []
    backends = [get_backend("openai/gpt-4o-mini", transport=transport) for _ in range(3)]
    try:
        sdk_httpx = backends[0]._httpx
        make = sdk_httpx.create_ssl_context

        def counted(verify=True, *args, **kwargs):  # a call handed a context builds none
            if not isinstance(verify, ssl.SSLContext):
                built.append(verify)
            return make(verify, *args, **kwargs)

        monkeypatch.setattr(sdk_httpx, "create_ssl_context", counted)
        for b in backends:
            assert b.generate(_request()).ok
        sync = backends[0]._client._client  # the Batch API's sync client: the same context
        assert sync._transport._pool._ssl_context is tls_context(sdk_httpx)
        assert len(built) == 1, "one TLS context for every client of the process"
        assert https.requests, "the calls went over HTTPS to the loopback server"
    finally:
        for b in backends:
            b.close()
    # certifi's bundle (the variable unset): a new context, and the self-signed server is refused
    monkeypatch.delenv("SSL_CERT_FILE")
    b = get_backend("openai/gpt-4o-mini", transport=transport)
    try:
        with pytest.raises(BordirError):
            b.generate(_request())
    finally:
        b.close()
    assert len(built) == 2


def test_the_context_follows_the_certificate_variables(certificate, monkeypatch):
    monkeypatch.setattr(_http, "_TLS", {})
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    default = tls_context(httpx)
    assert tls_context(httpx) is default and default.verify_mode == ssl.CERT_REQUIRED
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate[0]))
    own = tls_context(httpx)
    assert own is not default and own.check_hostname
    assert any(c["subject"] == ((("commonName", "127.0.0.1"),),) for c in own.get_ca_certs())
    monkeypatch.delenv("SSL_CERT_FILE")
    assert tls_context(httpx) is default
    assert tls_context(object()) is None  # a module without create_ssl_context: the client's own


def test_the_wikipedia_and_cohere_clients_use_the_shared_context(monkeypatch):
    from bordir.wiki.endpoint import wikipedia_class

    pytest.importorskip("wikipediaapi")
    _, cls = wikipedia_class()
    wiki = cls(user_agent="bordir-test (test@example.org)", language="en", endpoint="x/{edition}")
    pool = wiki._client._transport._pool
    assert pool._ssl_context is tls_context(httpx)
    pytest.importorskip("cohere")
    monkeypatch.setenv("CO_API_KEY", "co-tls-test")
    b = get_backend("cohere/command-r")
    try:
        assert (
            b._client._client_wrapper.httpx_client.httpx_client._transport._pool._ssl_context
            is (tls_context(httpx))
        )
    finally:
        b.close()
