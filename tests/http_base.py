"""The common part of the HTTP servers the tests run on 127.0.0.1 (this file does not import bordir).

:class:`LocalHTTPServer` binds a threaded HTTP server to 127.0.0.1 on a free port (HTTPS when
given a server-side ``ssl.SSLContext``), serves it from a daemon thread between ``start()`` (or
``with``) and ``stop()``, and gives its ``port`` and ``url``. A server names its
:class:`JSONHandler` subclass in ``handler``; each request's handler reaches the server that
started it as ``self.owner``. :class:`JSONHandler` speaks HTTP/1.1 with keep-alive, reads a
request's (JSON) body, writes an answer (status, ``Content-Type``, ``Content-Length``, headers,
body) in one write, not before its ``due`` time and, when asked, one byte of the body at a time
(``trickle``), keeps test output quiet and takes a client that hung up as a closed connection.
:func:`server_fixture` makes a server a pytest fixture.

The servers built on it: :mod:`tests.loopback` (OpenAI / Cohere chat, faults),
:mod:`tests.mediawiki_server` (MediaWiki API), :mod:`tests.batch_server` (OpenAI Files and Batch
APIs) and :mod:`tests.audit.search_servers` (search-enabled assistant APIs).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar, Self

__all__ = ["JSONHandler", "LocalHTTPServer", "json_bytes", "no_proxy", "server_fixture"]


def json_bytes(payload: Any) -> bytes:
    """``payload`` as UTF-8 JSON (non-ASCII characters as they are, as the providers send them)."""
    return json.dumps(payload, ensure_ascii=False).encode("utf-8")


def no_proxy(monkeypatch: Any) -> None:
    """Let HTTP clients reach 127.0.0.1 directly, whatever proxy the environment names."""
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


def server_fixture(name: str, make: Callable[[], LocalHTTPServer]) -> Callable[..., Any]:
    """A pytest fixture ``name``: ``make()`` started, stopped after the test, proxies bypassed.

    Raises ImportError without pytest (the benchmarks run the servers without it).
    """
    import pytest

    def fixture(monkeypatch: Any) -> Iterator[LocalHTTPServer]:
        no_proxy(monkeypatch)
        with make() as server:
            yield server

    return pytest.fixture(name=name)(fixture)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 256  # the concurrency tests open many connections at once
    allow_reuse_address = True


class JSONHandler(BaseHTTPRequestHandler):
    """Answers one connection's requests for ``owner``; subclasses add ``do_GET`` / ``do_POST``."""

    owner: Any  # the LocalHTTPServer that started this handler (set on a subclass per server)
    protocol_version = "HTTP/1.1"  # keep-alive, as real APIs do
    disable_nagle_algorithm = True  # else headers and body in two writes wait ~40 ms for an ACK
    timeout = 30  # idle keep-alive connections end after this
    content_type = "application/json"
    due = 0.0  # time.monotonic() before which no answer leaves (a server's latency sets it)

    def log_message(self, *args: object) -> None:  # keep test output quiet
        pass

    def read_body(self) -> bytes:
        """The request's body (``Content-Length`` bytes)."""
        return self.rfile.read(int(self.headers.get("Content-Length", "0") or 0))

    def read_json(self) -> Any:
        """The request's JSON body: ``{}`` when empty, the text itself when it is not JSON."""
        raw = self.read_body()
        try:
            return json.loads(raw or b"{}")
        except ValueError:
            return raw.decode("utf-8", errors="replace")

    def header_dict(self) -> dict[str, str]:
        """The request's headers, names in lower case."""
        return {k.lower(): v for k, v in self.headers.items()}

    def head(
        self, status: int, length: int, headers: dict[str, str] | None, content_type: str
    ) -> bytes:
        """The status line and headers of an answer of ``length`` bytes, ready to write."""
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(length))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self._headers_buffer.append(b"\r\n")  # end_headers() without its flush: one write
        head = b"".join(self._headers_buffer)
        self._headers_buffer = []
        return head

    def send_bytes(
        self,
        status: int,
        data: bytes,
        headers: dict[str, str] | None = None,
        content_type: str | None = None,
        *,
        trickle: float = 0.0,
    ) -> bool:
        """Answer ``data`` at :attr:`due`; False when the client had gone (the connection closes).

        ``trickle``: send the head at once, then the body one byte every ``trickle`` seconds.
        """
        wait = self.due - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        head = self.head(status, len(data), headers, content_type or self.content_type)
        try:
            if not trickle:
                self.wfile.write(head + data)
                self.wfile.flush()
                return True
            self.wfile.write(head)
            for i in range(len(data)):
                time.sleep(trickle)
                self.wfile.write(data[i : i + 1])
                self.wfile.flush()
        except OSError:  # the client gave up (a broken pipe, a reset connection)
            self.close_connection = True
            return False
        return True

    def send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> bool:
        """Answer ``payload`` as JSON (see :meth:`send_bytes`)."""
        return self.send_bytes(status, json_bytes(payload), headers)

    def no_route(self) -> bool:
        """404 ``{"error": {"message": "no route <METHOD> <path>"}}``."""
        return self.send_json(404, {"error": {"message": f"no route {self.command} {self.path}"}})


class LocalHTTPServer:
    """A threaded HTTP server on 127.0.0.1 with a free port; start/stop or use as a context manager.

    Args:
        tls: an ``ssl.SSLContext`` (server side) to serve HTTPS instead of HTTP.
    """

    handler: ClassVar[type[JSONHandler]] = JSONHandler
    name: ClassVar[str] = "local-http"  # of the serving thread (with the port)

    def __init__(self, *, tls: Any = None) -> None:
        self.tls = tls
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        assert self._httpd is not None, "the server is not started"
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>`` (``https`` with ``tls``)."""
        return f"{'https' if self.tls is not None else 'http'}://127.0.0.1:{self.port}"

    def start(self) -> Self:
        handler = type(self.handler.__name__, (self.handler,), {"owner": self})
        httpd = _Server(("127.0.0.1", 0), handler)
        if self.tls is not None:
            httpd.socket = self.tls.wrap_socket(httpd.socket, server_side=True)
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"{self.name}-{self.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
