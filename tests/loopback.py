"""A real HTTP server on 127.0.0.1 that speaks the OpenAI and Cohere chat protocols, for tests and benchmarks.

It answers ``POST /v1/chat/completions`` (OpenAI chat completions) and
``POST /v2/chat`` (Cohere v2 chat), records every request it receives (path,
headers, JSON body), and can be programmed to misbehave, one fault per incoming
request in order::

    server.push(Fault.status(429, retry_after=2), Fault.status(500), Fault.delay(3.0), Fault.malformed())

The 200 answers actually written to the client are listed in ``answered`` (and
``on_answer`` is called after each, e.g. to interrupt the client right then).
A fixed ``latency`` (seconds) delays every answer (for throughput benchmarks):
the answer leaves ``latency`` seconds after the request arrived (the server's
own work happens within that time, not on top of it).
More routes can be added with :meth:`LoopbackServer.route` (e.g. embeddings).
``GET /_stats`` returns the request count, the requests in flight now and at
most (``in_flight``, ``max_in_flight``) and the monotonic times of the first
arrival and the last answer (``first_at``, ``last_at``), all also attributes
of the server, so a server running in another process (``python
tests/loopback.py --latency 0.1``, which prints ``PORT <n>``) can be checked
too; ``POST /_reset`` clears them. The HTTP plumbing (thread, port, JSON answers) is
:mod:`tests.http_base`.

Use the ``loopback`` pytest fixture (see ``conftest.py`` of the tests that use it)
or the context manager::

    with LoopbackServer() as server:
        client = openai.OpenAI(base_url=server.openai_url, api_key="x")
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

if __package__:
    from .http_base import JSONHandler, LocalHTTPServer, json_bytes, server_fixture
else:  # ``python tests/loopback.py`` (the benchmarks): tests/ is the first entry of sys.path
    from http_base import JSONHandler, LocalHTTPServer, json_bytes, server_fixture

__all__ = ["Fault", "Recorded", "LoopbackServer", "Reply"]


@dataclass(frozen=True)
class Fault:
    """What the server does instead of (or before) answering one request."""

    kind: str  # "status" | "delay" | "malformed" | "trickle"
    code: int = 200
    headers: tuple[tuple[str, str], ...] = ()
    seconds: float = 0.0
    body: str = ""

    @classmethod
    def status(cls, code: int, *, retry_after: float | str | None = None, body: str = "") -> Fault:
        """Answer with HTTP ``code`` (and a ``Retry-After`` header when given) and an error body."""
        headers = () if retry_after is None else (("Retry-After", str(retry_after)),)
        return cls("status", code=code, headers=headers, body=body)

    @classmethod
    def delay(cls, seconds: float) -> Fault:
        """Answer normally, but only after ``seconds`` (longer than the client's timeout)."""
        return cls("delay", seconds=seconds)

    @classmethod
    def trickle(cls, seconds_per_byte: float) -> Fault:
        """Answer normally, but send the body one byte at a time, ``seconds_per_byte`` apart.

        Every read of the client gets a byte well within a per-read timeout, so only a limit on
        the whole attempt cuts it (a server that is alive but far too slow).
        """
        return cls("trickle", seconds=seconds_per_byte)

    @classmethod
    def malformed(cls) -> Fault:
        """HTTP 200 with ``Content-Type: application/json`` and a body that is not JSON."""
        return cls("malformed", body='{"id": "broken", "choices": [{"index": 0, "mess')


@dataclass
class Recorded:
    """One request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    at: float


@dataclass
class Reply:
    """What the chat routes answer (when no fault applies).

    Attributes:
        text: the assistant text, or a function of the request body returning it.
        citations: Cohere only: one list of source document ids per citation
            (``[["doc1"], ["doc0", "doc2"]]``); the server fills in start/end/text
            and each source's document from the request's ``documents``.
        input_tokens, output_tokens: reported usage.
        finish_reason: OpenAI's (``stop``); Cohere gets ``COMPLETE``.
    """

    text: str | Callable[[dict], str] = "A) Россия"
    citations: list[list[str]] = field(default_factory=list)
    input_tokens: int = 42
    output_tokens: int = 7
    finish_reason: str = "stop"

    def text_for(self, body: dict) -> str:
        return self.text(body) if callable(self.text) else self.text


Handler = Callable[["LoopbackServer", dict], tuple[int, Any, dict[str, str]]]


class _RequestHandler(JSONHandler):
    owner: LoopbackServer

    def do_GET(self) -> None:
        if self.path == "/_stats":
            self.send_json(
                200,
                {
                    "count": self.owner.count,
                    "in_flight": self.owner.in_flight,
                    "max_in_flight": self.owner.max_in_flight,
                    "first_at": self.owner.first_at,
                    "last_at": self.owner.last_at,
                },
            )
        else:
            self.no_route()

    def do_POST(self) -> None:
        if self.path == "/_reset":
            self.read_body()
            self.owner.reset()
            self.send_json(200, {"ok": True})
            return
        # the answer is built at once and sent `latency` seconds after the request arrived, so
        # that the server's own work does not add to the latency a benchmark sets
        self.due = time.monotonic() + self.owner.latency
        self.owner._enter()
        try:
            self._answer()
        finally:
            self.owner._leave()

    def _answer(self) -> None:
        body = self.read_json()
        headers = self.header_dict()
        fault = self.owner._record(Recorded("POST", self.path, headers, body, time.time()))
        handler = self.owner._routes.get(("POST", self.path))
        if fault is not None:
            if fault.kind == "status":
                message = fault.body or {429: "rate limit exceeded", 500: "internal error"}.get(
                    fault.code, "error"
                )
                payload = _error_payload(self.path, message, fault.code)
                self.send_json(fault.code, payload, dict(fault.headers))
                return
            if fault.kind == "malformed":
                self.send_bytes(200, fault.body.encode("utf-8"))
                return
            if fault.kind == "delay":
                self.due += fault.seconds
        if handler is None:
            self.no_route()
            return
        status, payload, extra_headers = handler(self.owner, body)
        rec = Recorded("POST", self.path, headers, body, time.time())
        gap = fault.seconds if fault is not None and fault.kind == "trickle" else 0.0
        if (
            self.send_bytes(status, json_bytes(payload), extra_headers, trickle=gap)
            and status == 200
        ):
            with self.owner._lock:
                self.owner.answered.append(rec)
            if self.owner.on_answer is not None:
                self.owner.on_answer(rec)


class LoopbackServer(LocalHTTPServer):
    """A threaded HTTP server on 127.0.0.1 with a random port; start/stop or use as a context manager."""

    handler = _RequestHandler
    name = "loopback"

    def __init__(
        self, *, latency: float = 0.0, reply: Reply | None = None, tls: Any = None
    ) -> None:
        """``tls``: an ``ssl.SSLContext`` (server side) to serve HTTPS instead of HTTP."""
        super().__init__(tls=tls)
        self.latency = latency
        self.reply = reply or Reply()
        self.requests: list[Recorded] = []
        self._faults: deque[Fault] = deque()
        self._lock = threading.Lock()
        self._count = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.first_at: float | None = None  # time.monotonic() of the first API request's arrival
        self.last_at: float | None = None  # ... and of the last answer's end
        self._routes: dict[tuple[str, str], Handler] = {
            ("POST", "/v1/chat/completions"): _openai_chat,
            ("POST", "/v2/chat"): _cohere_chat,
        }
        self.record_bodies = True
        self.answered: list[Recorded] = []  # the 200 answers written to the client, in order
        self.on_answer: Callable[[Recorded], object] | None = None  # called after each of them

    # -- programming -----------------------------------------------------------------
    def push(self, *faults: Fault) -> None:
        """Queue faults; each incoming API request consumes the next one."""
        with self._lock:
            self._faults.extend(faults)

    def route(self, method: str, path: str, handler: Handler) -> None:
        """Add a route: ``handler(server, body) -> (status, json_payload, headers)``."""
        self._routes[(method.upper(), path)] = handler

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self._faults.clear()
            self._count = 0
            self.max_in_flight = self.in_flight
            self.first_at = self.last_at = None

    @property
    def count(self) -> int:
        """API requests received (``/_stats`` excluded)."""
        return self._count

    def _enter(self) -> None:
        with self._lock:
            if self.first_at is None:
                self.first_at = time.monotonic()
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1
            self.last_at = time.monotonic()

    def bodies(self, path: str) -> list[Any]:
        return [r.body for r in self.requests if r.path == path]

    # -- addresses -------------------------------------------------------------------
    @property
    def openai_url(self) -> str:
        return self.url + "/v1"

    # -- called by the handler -------------------------------------------------------
    def _record(self, rec: Recorded) -> Fault | None:
        with self._lock:
            self._count += 1
            if self.record_bodies:
                self.requests.append(rec)
            return self._faults.popleft() if self._faults else None


def _error_payload(path: str, message: str, status: int) -> dict:
    if path.startswith("/v2/"):
        return {"message": message}
    kind = {429: "rate_limit_error", 400: "invalid_request_error", 401: "invalid_api_key"}.get(
        status, "server_error"
    )
    return {"error": {"message": message, "type": kind, "param": None, "code": kind}}


def chat_completion(reply: Reply, body: dict, completion_id: str) -> dict:
    """An OpenAI ``chat.completion`` object answering ``body`` with ``reply`` (online and in batches)."""
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", ""),
        "system_fingerprint": "fp_loopback",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": reply.text_for(body), "refusal": None},
                "logprobs": None,
                "finish_reason": reply.finish_reason,
            }
        ],
        "usage": {
            "prompt_tokens": reply.input_tokens,
            "completion_tokens": reply.output_tokens,
            "total_tokens": reply.input_tokens + reply.output_tokens,
        },
    }


def _openai_chat(server: LoopbackServer, body: dict) -> tuple[int, Any, dict[str, str]]:
    return 200, chat_completion(server.reply, body, f"chatcmpl-loopback-{server.count}"), {}


def _cohere_chat(server: LoopbackServer, body: dict) -> tuple[int, Any, dict[str, str]]:
    r = server.reply
    text = r.text_for(body)
    docs = {d.get("id"): d for d in body.get("documents") or [] if isinstance(d, dict)}
    citations = []
    for n, ids in enumerate(r.citations):
        start = min(n * 3, max(len(text) - 1, 0))
        end = min(start + 3, len(text))
        citations.append(
            {
                "start": start,
                "end": end,
                "text": text[start:end],
                "type": "TEXT_CONTENT",
                "sources": [
                    {
                        "type": "document",
                        "id": i,
                        "document": {"id": i, **(docs.get(i, {}).get("data") or {})},
                    }
                    for i in ids
                ],
            }
        )
    message: dict[str, Any] = {"role": "assistant", "content": [{"type": "text", "text": text}]}
    if citations:
        message["citations"] = citations
    return (
        200,
        {
            "id": f"cohere-loopback-{server.count}",
            "finish_reason": "COMPLETE",
            "message": message,
            "usage": {
                "billed_units": {"input_tokens": r.input_tokens, "output_tokens": r.output_tokens},
                "tokens": {"input_tokens": r.input_tokens + 100, "output_tokens": r.output_tokens},
            },
        },
        {},
    )


def main(argv: list[str] | None = None) -> None:
    """Serve in the foreground (for benchmarks in another process); prints ``PORT <n>``; stops at EOF on stdin."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--latency", type=float, default=0.0)
    args = ap.parse_args(argv)
    server = LoopbackServer(latency=args.latency)
    server.record_bodies = False
    server.start()
    print(f"PORT {server.port}", flush=True)
    try:
        sys.stdin.read()  # the parent closes our stdin to stop us
    finally:
        server.stop()


try:  # the fixture, for test modules: ``from .loopback import loopback``
    loopback = server_fixture("loopback", LoopbackServer)
except ImportError:  # pragma: no cover - benchmarks run without pytest
    pass


if __name__ == "__main__":
    main()
