"""``openai/<model>`` and ``openai-compatible/<model>``: the official ``openai`` client, one attempt per call.

``openai`` talks to the OpenAI API (key from ``OPENAI_API_KEY``; base URL from
the ``base_url`` option, else ``OPENAI_BASE_URL``, else the SDK default).
``openai-compatible`` is the same client for any server that speaks the chat
completions protocol (vLLM, Ollama, the llama.cpp server, LM Studio): its
``base_url`` is required (option or ``OPENAI_COMPATIBLE_BASE_URL``) and its
key comes from ``OPENAI_COMPATIBLE_API_KEY`` (default ``"none"``).

The SDK's own retries are switched off (``max_retries=0``): retrying, backing
off and rate limiting are the executor's job.

**Throughput.** Calls go through ``openai.AsyncOpenAI`` clients built once per
backend and run on bordir's shared event loop thread (:mod:`._aio`): the
executor runs :meth:`OpenAIBackend.agenerate_within` there as tasks, with no
thread per call in flight (``generate`` waits for the same coroutine). Their
connection pools together hold as many connections as calls in flight
(:meth:`OpenAIBackend.reserve`, called by the executor with its concurrency).
One client serves up to :data:`POOL_PER_CLIENT` connections, a larger
concurrency gets several (taken in turn), because ``httpcore`` scans every
connection of a pool for each request: at 128 connections in one pool that
scan costs more CPU than the rest of the call. Each call is the SDK's documented low-level
``client.post("/chat/completions", cast_to=httpx.Response)``: the SDK still builds
the request (auth, headers, timeout) and maps HTTP errors to its exceptions, but
the body is sent as given and the answer parsed once as JSON, without the SDK's
per-call type transformation and pydantic models, which cost about as much CPU
as the rest of the call (``docs/design/throughput.md``). Where the SDK allows it,
the request goes one step lower: the SDK's own ``httpx`` client posts the JSON
body with the SDK's headers (its defaults and its authentication, read once per
client), and an error answer becomes the SDK's own exception
(``_make_status_error_from_response``; timeouts and connection failures
``APITimeoutError`` / ``APIConnectionError``, as the SDK raises them), which
saves another ~0.35 ms of CPU per call (the SDK's request options, header
merging and auth-retry wrapper). A sync ``openai.OpenAI``
client (``_client``, built when first used) stays for the Batch API. Failures map to
:class:`~bordir.generation.backend.TransientError` (429 with its Retry-After,
408/409, 5xx, timeouts, connection errors, malformed responses) or
:class:`~bordir.generation.backend.PermanentError` (400, 401, 403, 404, 422 …).
API keys never appear in results, error messages or reprs.

Options (keyword arguments of :func:`~bordir.generation.backend.get_backend`):
    base_url: the API root (``http://127.0.0.1:8000/v1``).
    timeout: seconds per attempt (default 60).
    max_concurrency: calls in flight the executor may run (default 32).
    token_param: ``max_tokens`` (default) or ``max_completion_tokens`` (o-series models).
    transport: ``"aiohttp"`` (the default where ``aiohttp`` is installed, as ``bordir[openai]``
        installs it) or ``"httpx"``: what carries the async calls (see **Transport**).

**Transport.** With ``aiohttp`` installed the async clients are the SDK's own
``DefaultAioHttpClient`` (``openai[aiohttp]``): the same requests and answers, at about
half the client CPU per call of ``httpx``'s own transport. The SDK maps aiohttp's
errors to ``httpx`` classes coarsely (a server that disconnects becomes a
``ConnectTimeout``, a body cut short a ``ReadError``); bordir reads the aiohttp error
behind them, so a disconnect is a connection error, not a timeout, and a cut body is
a truncated response body, as with ``httpx`` (:func:`~bordir.errors.describe_transport_error`).
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import sys
import time
from collections.abc import Mapping
from typing import Any

from ..._extras import require
from ..._io.json_read import loads
from ..._net.http import (
    attempt_seconds,
    env_key,
    env_key_source,
    extra_params,
    reject_key_options,
    short_body,
    tls_context,
)
from ..._net.retry import is_transient_status, status_error
from ...errors import ConfigError, PermanentError, TransientError, redact
from ..backend import Backend, backend
from ..types import GenerationRequest, GenerationResult
from . import _aio
from .attempt_errors import connection_failed, timed_out

__all__ = ["OpenAIBackend", "OpenAICompatibleBackend", "POOL_PER_CLIENT", "TRANSPORTS"]

TRANSPORTS = ("aiohttp", "httpx")
"""The ``transport`` option's values: what carries the async calls."""

POOL_PER_CLIENT = 16
"""Connections of one async client's pool; more calls in flight get more clients."""


@backend("openai")
class OpenAIBackend(Backend):
    """Chat completions through the official ``openai`` client."""

    provider = "openai"
    max_concurrency = 32
    key_env: tuple[str, ...] = ("OPENAI_API_KEY",)
    key_default: str | None = None
    base_url_env = "OPENAI_BASE_URL"
    base_url_required = False

    def __init__(self, model: str, **options: Any) -> None:
        reject_key_options(options, provider=self.provider, env=" or ".join(self.key_env))
        super().__init__(model, **options)
        self._sdk = require("openai", "openai", purpose=f"the {self.provider} backend")
        self.base_url: str | None = (
            options.get("base_url") or os.environ.get(self.base_url_env) or None
        )
        if self.base_url_required and not self.base_url:
            raise ConfigError(
                f"the {self.provider} backend needs the server's URL: pass base_url='http://host:port/v1' "
                f"or export {self.base_url_env}"
            )
        self.timeout = float(options.get("timeout", 60.0))
        self._timeout_given = "timeout" in options  # then a cap on the executor's limit
        self.token_param = str(options.get("token_param", "max_tokens"))
        if self.token_param not in ("max_tokens", "max_completion_tokens"):
            raise ConfigError(
                f"token_param must be 'max_tokens' or 'max_completion_tokens', not {self.token_param!r}"
            )
        if "max_concurrency" in options:
            self.max_concurrency = int(options["max_concurrency"])  # type: ignore[misc]
        self.transport = _transport(self._sdk, options.get("transport"))
        self._key = env_key(self.key_env, default=self.key_default, provider=self.provider)
        self._sync: Any = None  # the sync client (`_client`), built when first used
        self._httpx = _httpx_of(self._sdk)
        self._pool = int(self.max_concurrency)  # connections the async clients keep in all
        self._aclients: list[Any] = []  # built on the event loop thread at first use
        self._ahttp: list[Any] = []  # their httpx clients
        self._direct: tuple[str, dict[str, str]] | None = None
        self._aclients_pid = os.getpid()
        self._turn = 0
        _aio.close_when_collected(self, _release)

    def __repr__(self) -> str:
        where = f", base_url={self.base_url!r}" if self.base_url else ""
        return f"{type(self).__name__}({self.name!r}{where})"

    @property
    def _client(self) -> Any:
        """The sync ``openai.OpenAI`` client (the Batch API uses it), built on first use (~40 ms)."""
        if self._sync is None:
            tls = tls_context(self._httpx)
            self._sync = self._sdk.OpenAI(
                api_key=self._key,
                base_url=self.base_url,
                max_retries=0,
                timeout=self.timeout,
                http_client=None if tls is None else self._sdk.DefaultHttpxClient(verify=tls),
            )
        return self._sync

    def close(self) -> None:
        if self._sync is not None:
            self._sync.close()
        self._close_async()

    def _close_async(self) -> None:
        clients, self._aclients = self._aclients, []
        if self._aclients_pid != os.getpid():
            return  # a forked child does not own its parent's clients
        for client in clients:
            _aio.run(client.close())

    def reserve(self, concurrency: int) -> None:
        """Size the connection pools for ``concurrency`` calls in flight (the executor calls this)."""
        if concurrency > self._pool:
            self._pool = int(concurrency)
            self._close_async()

    async def _async_client(self) -> Any:
        """The next async client in turn (all built at the first call, on the event loop thread)."""
        if self._aclients and self._aclients_pid != os.getpid():
            self._aclients = []  # a forked child: the parent's clients belong to its event loop
        if not self._aclients:
            self._aclients_pid = os.getpid()
            hx = self._httpx
            n = -(-self._pool // POOL_PER_CLIENT)
            size = -(-self._pool // n)
            limits = hx.Limits(max_connections=size, max_keepalive_connections=size)
            # the process's one TLS context (building one costs ~27 ms of CPU)
            tls = tls_context(hx)
            verify: Any = True if tls is None else tls
            make_http = (
                self._sdk.DefaultAioHttpClient
                if self.transport == "aiohttp"
                else self._sdk.DefaultAsyncHttpxClient
            )
            https = [
                make_http(limits=limits, timeout=self.timeout, verify=verify) for _ in range(n)
            ]
            self._aclients = [
                self._sdk.AsyncOpenAI(
                    api_key=self._key,
                    base_url=self.base_url,
                    max_retries=0,
                    timeout=self.timeout,
                    http_client=http,
                )
                for http in https
            ]
            self._ahttp = https
            self._direct = _direct_route(self._aclients[0])
        self._turn = (self._turn + 1) % len(self._aclients)
        return self._aclients[self._turn]

    async def _post(self, body: dict[str, Any], limit: float) -> Any:
        client = await self._async_client()
        if self._direct is None:  # an SDK without the pieces the direct route needs
            options: dict[str, Any] = {} if limit == self.timeout else {"timeout": limit}
            response = await client.post(
                "/chat/completions", body=body, cast_to=self._httpx.Response, options=options
            )
            return loads(response.content)
        # the SDK's request, sent by its own httpx client (see the module docs)
        url, headers = self._direct
        hx, sdk = self._httpx, self._sdk
        try:
            response = await self._ahttp[self._turn].post(
                url, content=json.dumps(body).encode(), headers=headers, timeout=limit
            )
        except hx.TimeoutException as exc:
            raise sdk.APITimeoutError(request=exc.request) from exc
        except Exception as exc:  # as the SDK: any other failure to get a response
            raise sdk.APIConnectionError(request=getattr(exc, "request", None)) from exc
        if not response.is_success:
            raise client._make_status_error_from_response(response) from None
        return loads(response.content)

    # -- one attempt -----------------------------------------------------------
    def _params(self, request: GenerationRequest) -> dict[str, Any]:
        params: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "temperature": float(request.temperature),
            self.token_param: int(request.max_tokens),
        }
        if request.seed is not None:
            params["seed"] = int(request.seed)
        extra = extra_params(request.extra)
        if extra:
            params["extra_body"] = extra
        return params

    def _body(self, request: GenerationRequest) -> dict[str, Any]:
        """The JSON body of ``request`` as sent (``_params`` with ``extra_body`` merged in)."""
        params = self._params(request)
        extra = params.pop("extra_body", None)
        return {**params, **extra} if extra else params

    def generate(self, request: GenerationRequest) -> GenerationResult:
        return self.generate_within(request, None)

    def secrets(self) -> tuple[str, ...]:
        return (self._key,) if self._key and self._key != self.key_default else ()

    def generate_within(
        self, request: GenerationRequest, timeout: float | None
    ) -> GenerationResult:
        limit = attempt_seconds(self.timeout, timeout, own_given=self._timeout_given)
        try:
            return _aio.run(self.agenerate_within(request, timeout), timeout=limit + 5.0)
        except TimeoutError:
            raise timed_out(self.name, limit) from None

    async def agenerate_within(
        self, request: GenerationRequest, timeout: float | None
    ) -> GenerationResult:
        """One attempt as a coroutine on bordir's event loop (the executor's async lane uses this)."""
        sdk = self._sdk
        limit = attempt_seconds(self.timeout, timeout, own_given=self._timeout_given)
        start = time.perf_counter()
        try:
            # the limit bounds the whole attempt: the client's timeouts bound each read, and a
            # server that sends a byte now and then (alive, far too slow) never trips them
            async with asyncio.timeout(limit):  # no task of its own (wait_for makes one)
                completion = await self._post(self._body(request), limit)
        except TimeoutError:
            raise timed_out(self.name, limit) from None
        except sdk.APIStatusError as exc:
            raise self._status_error(exc) from None
        except sdk.APITimeoutError as exc:
            if _not_a_timeout(exc.__cause__):  # aiohttp's disconnect, mapped to ConnectTimeout
                raise connection_failed(self.name, exc, self._clean) from None
            raise timed_out(self.name, limit) from None
        except sdk.APIConnectionError as exc:  # a DNS failure is not retried
            raise connection_failed(self.name, exc, self._clean) from None
        except sdk.APIResponseValidationError as exc:
            raise TransientError(
                self._clean(f"{self.name}: malformed response: {exc.message}")
            ) from None
        except ValueError as exc:  # the body was not valid JSON
            raise TransientError(
                self._clean(f"{self.name}: malformed JSON response: {exc}")
            ) from None
        latency = time.perf_counter() - start
        return self._result(request, completion, latency)

    def _result(
        self, request: GenerationRequest, completion: Any, latency: float
    ) -> GenerationResult:
        """The result of a chat completion: its JSON body (a dict) or the SDK's ``ChatCompletion``."""
        kind = type(completion).__name__
        if not isinstance(completion, Mapping) and hasattr(completion, "model_dump"):
            completion = completion.model_dump()
        try:
            choice = completion["choices"][0]
            message = choice["message"]
            text = message.get("content")
            if text is not None and not isinstance(text, str):
                raise TypeError("content is not a string")
        except (AttributeError, IndexError, KeyError, TypeError):
            raise TransientError(
                f"{self.name}: malformed response: expected choices[0].message.content, got {kind}"
            ) from None
        usage = completion.get("usage")
        usage = usage if isinstance(usage, Mapping) else {}
        meta: dict[str, Any] = {}
        if completion.get("id"):
            meta["response_id"] = str(completion["id"])
        if completion.get("system_fingerprint"):
            meta["system_fingerprint"] = str(completion["system_fingerprint"])
        refusal = message.get("refusal")
        if refusal:
            meta["refusal"] = str(refusal)
        return GenerationResult(
            text=text or "",
            model=request.model,
            input_tokens=_int_or_none(usage.get("prompt_tokens")),
            output_tokens=_int_or_none(usage.get("completion_tokens")),
            latency_s=latency,
            finish_reason=str(choice.get("finish_reason") or ""),
            meta=meta,
        )

    def _status_error(self, exc: Any) -> TransientError | PermanentError:
        status = int(exc.status_code)
        detail = short_body(exc.body if exc.body is not None else exc.message)
        fix = {
            401: "; check the API key in " + env_key_source(self.key_env),
            403: "; the key has no access to this model or endpoint",
            404: f"; is {self.model!r} a model this endpoint serves?",
        }.get(status, "")
        return status_error(
            f"{self.name}: HTTP {status}: {detail}",
            status,
            exc.response.headers,
            transient=is_transient_status(status),
            fix=fix,
            clean=self._clean,
        )

    def _clean(self, text: str) -> str:
        return redact(text, [self._key])


@backend("openai-compatible")
class OpenAICompatibleBackend(OpenAIBackend):
    """The ``openai`` client against any OpenAI-compatible server (vLLM, Ollama, llama.cpp, LM Studio)."""

    provider = "openai-compatible"
    key_env = ("OPENAI_COMPATIBLE_API_KEY",)
    key_default = "none"
    base_url_env = "OPENAI_COMPATIBLE_BASE_URL"
    base_url_required = True


def _httpx_of(sdk: Any) -> Any:
    """The ``httpx`` module the SDK is built on (``httpx``, or ``httpx2`` in recent releases)."""
    for cls in sdk.DefaultAsyncHttpxClient.__mro__:
        module = sys.modules.get(cls.__module__.partition(".")[0])
        if module is not None and hasattr(module, "Limits") and hasattr(module, "Response"):
            return module
    import httpx

    return httpx


def _transport(sdk: Any, asked: Any) -> str:
    """The ``transport`` option: as asked, else aiohttp where it and the SDK's client for it are installed."""
    has_aiohttp = (
        hasattr(sdk, "DefaultAioHttpClient") and importlib.util.find_spec("aiohttp") is not None
    )
    if asked is None:
        return "aiohttp" if has_aiohttp else "httpx"
    if asked not in TRANSPORTS:
        raise ConfigError(
            f"transport must be one of {', '.join(map(repr, TRANSPORTS))}, not {asked!r}"
        )
    if asked == "aiohttp" and not has_aiohttp:
        raise ConfigError(
            "transport='aiohttp' needs aiohttp and an openai SDK with DefaultAioHttpClient: "
            "pip install 'openai[aiohttp]>=1.90'"
        )
    return str(asked)


def _not_a_timeout(exc: BaseException | None) -> bool:
    """True when ``exc`` (an ``httpx`` timeout) stands for an aiohttp error that is no timeout."""
    cause = exc.__cause__ if exc is not None else None
    return (
        cause is not None
        and type(cause).__module__.partition(".")[0] == "aiohttp"
        and not isinstance(cause, TimeoutError)
    )


def _direct_route(client: Any) -> tuple[str, dict[str, str]] | None:
    """The URL and headers of a chat completion as ``client`` (an ``AsyncOpenAI``) would send them.

    The SDK's default headers (content type, user agent, its platform headers) and its
    authentication headers, without the values it omits; None if this SDK lacks a piece.
    """
    if not callable(getattr(client, "_make_status_error_from_response", None)):
        return None
    try:
        headers = {**client.default_headers, **client.auth_headers}
    except AttributeError:
        return None
    headers = {k: v for k, v in headers.items() if isinstance(v, str)}
    return f"{str(client.base_url).rstrip('/')}/chat/completions", headers


def _int_or_none(x: Any) -> int | None:
    try:
        return None if x is None else int(x)
    except (TypeError, ValueError):
        return None


def _release(state: dict[str, Any]) -> None:
    """Close the clients of a collected backend (see :func:`_aio.close_when_collected`)."""
    if state.get("_sync") is not None:
        state["_sync"].close()
    _aio.close_async_clients(state.get("_aclients") or [], state.get("_aclients_pid"))
