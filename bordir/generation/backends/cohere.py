"""``cohere/<model>``: the official ``cohere`` ClientV2 chat, one attempt per call, with native citations.

The key comes from ``CO_API_KEY`` (or ``COHERE_API_KEY``); the base URL from
the ``base_url`` option, else ``CO_API_URL``, else the SDK default. In the
citation format the prompt's documents also go through Cohere's native
``documents`` parameter, with ids ``doc{index}``; the citations Cohere returns
(each with the document ids it rests on) become
``GenerationResult.native_citations``: one tuple of prompt document indices per
citation, in the order Cohere gives them. The text answer is returned as well,
so the format's own parser still sees ``<docN>`` tags the model wrote.

Errors map like the OpenAI backend's: 429 (with Retry-After), 408/409, 5xx,
timeouts, connection errors and malformed JSON are
:class:`~bordir.generation.backend.TransientError`; other 4xx are
:class:`~bordir.generation.backend.PermanentError`. The SDK's own retries are
off. Keys never appear in results, errors or reprs.

Options: ``base_url``, ``timeout`` (seconds, default 60), ``max_concurrency`` (default 16).
The client's connection pool is sized to the executor's concurrency
(:meth:`CohereBackend.reserve`; httpx would keep only 20 connections alive and
open at most 100).
"""

from __future__ import annotations

import math
import os
import re
import time
from typing import Any

from ..._extras import require
from ..._io.json_read import NESTED_TOO_DEEPLY
from ..._net import http as _http
from ..._net.http import (
    attempt_seconds,
    env_key,
    env_key_source,
    extra_params,
    reject_key_options,
    short_body,
)
from ..._net.retry import is_transient_status, status_error
from ...errors import PermanentError, TransientError, redact
from ..backend import Backend, backend
from ..types import GenerationRequest, GenerationResult
from . import _aio
from ._deadline import attempt_deadline, deadline_transport
from .attempt_errors import connection_failed, timed_out

__all__ = ["CohereBackend", "doc_id_for", "citation_indices"]

_KEY_ENV = ("CO_API_KEY", "COHERE_API_KEY")
_DOC_RE = re.compile(r"^doc(\d+)\b")


def doc_id_for(index: int) -> str:
    """The Cohere document id of prompt document ``index``.

    Example:
        >>> doc_id_for(3)
        'doc3'
    """
    return f"doc{index}"


def citation_indices(source_ids: list[str | None], known: set[int]) -> tuple[int, ...]:
    """Prompt document indices of one citation's sources (unknown or tool sources dropped, repeats removed).

    Example:
        >>> citation_indices(["doc2", "doc0", "doc2", "web-1", "doc9"], {0, 1, 2})
        (2, 0)
    """
    out: list[int] = []
    for sid in source_ids:
        m = _DOC_RE.match(sid or "")
        if m is None:
            continue
        i = int(m.group(1))
        if i in known and i not in out:
            out.append(i)
    return tuple(out)


@backend("cohere")
class CohereBackend(Backend):
    """Chat through Cohere's v2 API (``ClientV2.chat``)."""

    provider = "cohere"
    max_concurrency = 16

    def __init__(self, model: str, **options: Any) -> None:
        reject_key_options(options, provider=self.provider, env=" or ".join(_KEY_ENV))
        super().__init__(model, **options)
        self._sdk = require("cohere", "cohere", purpose="the cohere backend")
        self._httpx = require("httpx", "cohere", purpose="the cohere backend")
        self.base_url: str | None = options.get("base_url") or os.environ.get("CO_API_URL") or None
        self.timeout = float(options.get("timeout", 60.0))
        self._timeout_given = "timeout" in options  # then a cap on the executor's limit
        if "max_concurrency" in options:
            self.max_concurrency = int(options["max_concurrency"])  # type: ignore[misc]
        self._key = env_key(_KEY_ENV, provider=self.provider)
        self._pool = int(self.max_concurrency)
        self._client = self._build_client()
        _aio.close_when_collected(self, lambda state: _close(state["_client"]))

    def _build_client(self) -> Any:
        """A ``ClientV2`` whose httpx pool keeps ``self._pool`` connections (httpx's default: 20)."""
        limits = self._httpx.Limits(
            max_connections=self._pool, max_keepalive_connections=self._pool
        )
        kwargs: dict[str, Any] = {
            "api_key": self._key,
            "timeout": self.timeout,
            "max_retries": 0,
            "log_warning_experimental_features": False,
            "httpx_client": self._httpx.Client(
                # its connections stop at the attempt's end (a server that trickles its answer)
                transport=deadline_transport(
                    self._httpx, limits=limits, verify=_http.tls_context(self._httpx) or True
                ),
                timeout=self.timeout,
                follow_redirects=True,
            ),
        }
        if self.base_url:
            kwargs["base_url"] = self.base_url
        return self._sdk.ClientV2(**kwargs)

    def reserve(self, concurrency: int) -> None:
        """Size the connection pool for ``concurrency`` calls in flight (the executor calls this)."""
        if concurrency > self._pool:
            self._pool = int(concurrency)
            old, self._client = self._client, self._build_client()
            _close(old)

    def __repr__(self) -> str:
        where = f", base_url={self.base_url!r}" if self.base_url else ""
        return f"{type(self).__name__}({self.name!r}{where})"

    def close(self) -> None:
        _close(self._client)

    # -- one attempt -----------------------------------------------------------
    def _params(self, request: GenerationRequest) -> dict[str, Any]:
        params: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "temperature": float(request.temperature),
            "max_tokens": int(request.max_tokens),
        }
        if request.seed is not None:
            params["seed"] = int(request.seed)
        if request.response_format == "citation" and request.documents:
            params["documents"] = [
                {"id": doc_id_for(d.index), "data": {"text": d.text}} for d in request.documents
            ]
        extra = extra_params(request.extra)
        if extra:
            params["request_options"] = {"additional_body_parameters": extra}
        return params

    def generate(self, request: GenerationRequest) -> GenerationResult:
        return self.generate_within(request, None)

    def secrets(self) -> tuple[str, ...]:
        return (self._key,)

    def generate_within(
        self, request: GenerationRequest, timeout: float | None
    ) -> GenerationResult:
        sdk, httpx = self._sdk, self._httpx
        limit = attempt_seconds(self.timeout, timeout, own_given=self._timeout_given)
        params = self._params(request)
        if limit != self.timeout:
            params.setdefault("request_options", {})["timeout_in_seconds"] = max(
                1, math.ceil(limit)
            )
        start = time.perf_counter()
        try:
            with attempt_deadline(limit):  # the limit bounds the whole attempt, not each read
                response = self._client.chat(**params)
        except sdk.core.api_error.ApiError as exc:
            raise self._status_error(exc) from None
        except httpx.TimeoutException:
            raise timed_out(self.name, limit) from None
        except httpx.TransportError as exc:  # a DNS failure is not retried
            raise connection_failed(self.name, exc, self._clean) from None
        except ValueError as exc:  # malformed JSON or a response that does not parse
            raise TransientError(self._clean(f"{self.name}: malformed response: {exc}")) from None
        except RecursionError:  # the SDK's json.loads of a body nested too deeply
            raise TransientError(f"{self.name}: malformed response: {NESTED_TOO_DEEPLY}") from None
        except sdk.core.parse_error.ParsingError as exc:
            raise TransientError(self._clean(f"{self.name}: malformed response: {exc}")) from None
        latency = time.perf_counter() - start
        return self._result(request, response, latency)

    def _result(
        self, request: GenerationRequest, response: Any, latency: float
    ) -> GenerationResult:
        try:
            message = response.message
            parts = message.content or []
            text = "".join(p.text for p in parts if getattr(p, "type", "text") == "text")
            finish = str(response.finish_reason or "")
        except (AttributeError, TypeError):
            raise TransientError(
                f"{self.name}: malformed response: expected message.content[].text, got {type(response).__name__}"
            ) from None
        native: tuple[tuple[int, ...], ...] | None = None
        if request.response_format == "citation" and request.documents:
            known = {d.index for d in request.documents}
            native = tuple(
                citation_indices([getattr(s, "id", None) for s in (c.sources or [])], known)
                for c in (getattr(message, "citations", None) or [])
            )
        usage = getattr(response, "usage", None)
        tokens = getattr(usage, "tokens", None)
        billed = getattr(usage, "billed_units", None)
        in_tok = _first_int(
            getattr(tokens, "input_tokens", None), getattr(billed, "input_tokens", None)
        )
        out_tok = _first_int(
            getattr(tokens, "output_tokens", None), getattr(billed, "output_tokens", None)
        )
        meta: dict[str, Any] = {}
        if getattr(response, "id", None):
            meta["response_id"] = str(response.id)
        if billed is not None:
            meta["billed_units"] = {
                k: int(v)
                for k in ("input_tokens", "output_tokens")
                if (v := getattr(billed, k, None)) is not None
            }
        return GenerationResult(
            text=text,
            model=request.model,
            input_tokens=in_tok,
            output_tokens=out_tok,
            latency_s=latency,
            finish_reason=finish,
            native_citations=native,
            meta=meta,
        )

    def _status_error(self, exc: Any) -> TransientError | PermanentError:
        status = exc.status_code
        detail = short_body(exc.body if exc.body is not None else "")
        if status is None or 200 <= status < 300:
            return TransientError(self._clean(f"{self.name}: malformed JSON response: {detail}"))
        source = env_key_source(_KEY_ENV)
        fix = {
            401: f"; check the API key in {source}",
            498: f"; the API key is invalid: check {source}",
            404: f"; is {self.model!r} a Cohere chat model?",
        }.get(status, "")
        return status_error(
            f"{self.name}: HTTP {status}: {detail}",
            status,
            exc.headers,
            transient=is_transient_status(status, also=(499,)),
            fix=fix,
            clean=self._clean,
        )

    def _clean(self, text: str) -> str:
        return redact(text, [self._key])


def _first_int(*xs: Any) -> int | None:
    for x in xs:
        if x is not None:
            try:
                return int(x)
            except (TypeError, ValueError):
                continue
    return None


def _close(client: Any) -> None:
    try:
        client._client_wrapper.httpx_client.httpx_client.close()
    except AttributeError:  # pragma: no cover - SDK internals moved
        pass
