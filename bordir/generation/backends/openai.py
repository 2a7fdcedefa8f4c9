"""``openai/<model>`` and ``openai-compatible/<model>``: the official ``openai`` client, one attempt per call.

``openai`` talks to the OpenAI API (key from ``OPENAI_API_KEY``; base URL from
the ``base_url`` option, else ``OPENAI_BASE_URL``, else the SDK default).
``openai-compatible`` is the same client for any server that speaks the chat
completions protocol (vLLM, Ollama, the llama.cpp server, LM Studio): its
``base_url`` is required (option or ``OPENAI_COMPATIBLE_BASE_URL``) and its
key comes from ``OPENAI_COMPATIBLE_API_KEY`` (default ``"none"``).

The SDK's own retries are switched off (``max_retries=0``): retrying, backing
off and rate limiting are the executor's job. Failures map to
:class:`~bordir.generation.backend.TransientError` (429 with its Retry-After,
408/409, 5xx, timeouts, connection errors, malformed responses) or
:class:`~bordir.generation.backend.PermanentError` (400, 401, 403, 404, 422 …).
API keys never appear in results, error messages or reprs.

Options (keyword arguments of :func:`~bordir.generation.backend.get_backend`):
    base_url: the API root (``http://127.0.0.1:8000/v1``).
    timeout: seconds per attempt (default 60).
    max_concurrency: calls in flight the executor may run (default 32).
    token_param: ``max_tokens`` (default) or ``max_completion_tokens`` (o-series models).
"""

from __future__ import annotations

import os
import time
from typing import Any

from ..._extras import require
from ...errors import ConfigError
from ..backend import Backend, PermanentError, TransientError, backend
from ..types import GenerationRequest, GenerationResult
from ._common import (
    describe_transport_error,
    env_key,
    env_key_source,
    extra_params,
    parse_retry_after,
    redact,
    reject_key_options,
    short_body,
)

__all__ = ["OpenAIBackend", "OpenAICompatibleBackend"]

_TRANSIENT_STATUS = {408, 409, 425, 429}


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
        self.token_param = str(options.get("token_param", "max_tokens"))
        if self.token_param not in ("max_tokens", "max_completion_tokens"):
            raise ConfigError(
                f"token_param must be 'max_tokens' or 'max_completion_tokens', not {self.token_param!r}"
            )
        if "max_concurrency" in options:
            self.max_concurrency = int(options["max_concurrency"])  # type: ignore[misc]
        self._key = env_key(self.key_env, default=self.key_default, provider=self.provider)
        self._client = self._sdk.OpenAI(
            api_key=self._key, base_url=self.base_url, max_retries=0, timeout=self.timeout
        )

    def __repr__(self) -> str:
        where = f", base_url={self.base_url!r}" if self.base_url else ""
        return f"{type(self).__name__}({self.name!r}{where})"

    def close(self) -> None:
        self._client.close()

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

    def generate(self, request: GenerationRequest) -> GenerationResult:
        return self.generate_within(request, None)

    def secrets(self) -> tuple[str, ...]:
        return (self._key,) if self._key and self._key != self.key_default else ()

    def generate_within(
        self, request: GenerationRequest, timeout: float | None
    ) -> GenerationResult:
        sdk = self._sdk
        limit = self.timeout if timeout is None else min(self.timeout, max(0.001, timeout))
        client = self._client if limit == self.timeout else self._client.with_options(timeout=limit)
        start = time.perf_counter()
        try:
            completion = client.chat.completions.create(**self._params(request))
        except sdk.APIStatusError as exc:
            raise self._status_error(exc) from None
        except sdk.APITimeoutError:
            raise TransientError(f"{self.name}: request timed out after {limit:g}s") from None
        except sdk.APIConnectionError as exc:
            raise TransientError(
                self._clean(f"{self.name}: {describe_transport_error(exc)}")
            ) from None
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
        try:
            choice = completion.choices[0]
            message = choice.message
            text = message.content
            if text is not None and not isinstance(text, str):
                raise TypeError("content is not a string")
        except (AttributeError, IndexError, KeyError, TypeError):
            raise TransientError(
                f"{self.name}: malformed response: expected choices[0].message.content, "
                f"got {type(completion).__name__}"
            ) from None
        usage = getattr(completion, "usage", None)
        meta: dict[str, Any] = {}
        if getattr(completion, "id", None):
            meta["response_id"] = str(completion.id)
        if getattr(completion, "system_fingerprint", None):
            meta["system_fingerprint"] = str(completion.system_fingerprint)
        refusal = getattr(message, "refusal", None)
        if refusal:
            meta["refusal"] = str(refusal)
        return GenerationResult(
            text=text or "",
            model=request.model,
            input_tokens=_int_or_none(getattr(usage, "prompt_tokens", None)),
            output_tokens=_int_or_none(getattr(usage, "completion_tokens", None)),
            latency_s=latency,
            finish_reason=str(getattr(choice, "finish_reason", "") or ""),
            meta=meta,
        )

    def _status_error(self, exc: Any) -> TransientError | PermanentError:
        status = int(exc.status_code)
        detail = short_body(exc.body if exc.body is not None else exc.message)
        if status in _TRANSIENT_STATUS or status >= 500:
            retry_after = parse_retry_after(exc.response.headers)
            hint = f"; retry after {retry_after:g}s" if retry_after is not None else ""
            return TransientError(
                self._clean(f"{self.name}: HTTP {status}: {detail}{hint}"),
                retry_after=retry_after,
                status=status,
            )
        fix = {
            401: "; check the API key in " + env_key_source(self.key_env),
            403: "; the key has no access to this model or endpoint",
            404: f"; is {self.model!r} a model this endpoint serves?",
        }.get(status, "")
        return PermanentError(
            self._clean(f"{self.name}: HTTP {status}: {detail}{fix}"), status=status
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


def _int_or_none(x: Any) -> int | None:
    try:
        return None if x is None else int(x)
    except (TypeError, ValueError):
        return None
