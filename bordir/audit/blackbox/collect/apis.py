"""The search-enabled assistant APIs as backends: one HTTP attempt each, the raw response kept.

Models are written ``api/model``: ``openai-search/gpt-4.1-mini`` (OpenAI Responses API with the
``web_search`` tool), ``perplexity/sonar`` (chat completions), ``gemini/gemini-2.5-flash``
(``generateContent`` with the ``google_search`` tool), ``anthropic/claude-sonnet-4-5`` (Messages
with the ``web_search_20250305`` tool). Each backend sends the question as the user message,
reads its API key from the environment only (:data:`KEY_ENV`) and its base URL from
``base_url=`` or :data:`URL_ENV` (for a proxy or a local server), and returns the answer text
with the response object as it came in ``meta["raw"]`` (what the log stores beside the parsed
record). A 408/409/425/429 or 5xx answer, a timeout or a malformed body is a
:class:`~bordir.errors.TransientError` (retried by the executor, honouring ``Retry-After``);
any other error status a :class:`~bordir.errors.PermanentError`.

Example:
    >>> b = search_backend("perplexity/sonar", base_url="http://127.0.0.1:9")
    >>> b.name, b.url(), SEARCH_APIS["gemini"].path_for("gemini-2.5-flash")
    ('perplexity/sonar', 'http://127.0.0.1:9/chat/completions', '/v1beta/models/gemini-2.5-flash:generateContent')
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from typing import Any, ClassVar

from ....errors import ConfigError, PermanentError, TransientError, redactor
from ....generation.backend import Backend
from ....generation.types import GenerationRequest, GenerationResult
from ....settings import ANTHROPIC_URL, GEMINI_URL, OPENAI_SEARCH_URL, PERPLEXITY_URL, Setting
from ..providers import parse_response

__all__ = ["SearchBackend", "SEARCH_APIS", "search_backend", "KEY_ENV", "URL_ENV"]

KEY_ENV: dict[str, tuple[str, ...]] = {
    "openai-search": ("OPENAI_API_KEY",),
    "perplexity": ("PERPLEXITY_API_KEY", "PPLX_API_KEY"),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "anthropic": ("ANTHROPIC_API_KEY",),
}
URL_ENV: dict[str, Setting[str | None]] = {
    "openai-search": OPENAI_SEARCH_URL,
    "perplexity": PERPLEXITY_URL,
    "gemini": GEMINI_URL,
    "anthropic": ANTHROPIC_URL,
}
"""The ``BORDIR_*_URL`` setting that overrides each API's base URL (bordir/settings.py)."""
_TRANSIENT = {408, 409, 425, 429}


class SearchBackend(Backend):
    """One search API (a subclass per API sets the route, the body and the headers)."""

    provider: ClassVar[str] = ""
    fmt: ClassVar[str] = ""
    default_url: ClassVar[str] = ""
    max_concurrency: ClassVar[int] = 4

    def __init__(
        self, model: str, *, base_url: str | None = None, timeout: float = 120.0, **options: Any
    ) -> None:
        for name in ("api_key", "key", "token"):
            if name in options:
                raise ConfigError(
                    f"the {self.provider} API key is read only from the environment ({' or '.join(KEY_ENV[self.provider])})"
                )
        super().__init__(model, **options)
        self.base_url = (base_url or URL_ENV[self.provider].get() or self.default_url).rstrip("/")
        self.timeout = timeout
        self._key: str | None = None

    @classmethod
    def path_for(cls, model: str) -> str:
        raise NotImplementedError

    def url(self) -> str:
        return self.base_url + self.path_for(self.model)

    def key(self) -> str:
        if self._key is None:
            for name in KEY_ENV[self.provider]:
                v = os.environ.get(name, "").strip()
                if v:
                    self._key = v
                    break
            else:
                raise ConfigError(
                    f"the {self.provider} API needs a key: export {' or '.join(KEY_ENV[self.provider])} (keys are read only from the environment)"
                )
        return self._key

    def secrets(self) -> tuple[str, ...]:
        return (self.key(),)

    def body(self, request: GenerationRequest) -> dict[str, Any]:
        raise NotImplementedError

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key()}"}

    def generate(self, request: GenerationRequest) -> GenerationResult:
        return self.generate_within(request, None)

    def generate_within(
        self, request: GenerationRequest, timeout: float | None
    ) -> GenerationResult:
        limit = self.timeout if timeout is None else min(self.timeout, max(0.001, timeout))
        data = json.dumps(self.body(request), ensure_ascii=False).encode("utf-8")
        req = urllib.request.Request(
            self.url(),
            data=data,
            method="POST",
            headers={"Content-Type": "application/json", **self.headers()},
        )
        clean = redactor(self.secrets())
        start = time.perf_counter()
        try:
            with urllib.request.urlopen(req, timeout=limit) as resp:  # noqa: S310 - an https/http API URL
                raw = resp.read()
        except urllib.error.HTTPError as exc:
            body = exc.read().decode("utf-8", "replace")[:300]
            msg = clean(f"{self.name}: HTTP {exc.code}: {' '.join(body.split())}")
            if exc.code in _TRANSIENT or exc.code >= 500:
                ra = exc.headers.get("Retry-After") if exc.headers else None
                try:
                    retry_after = float(ra) if ra else None
                except ValueError:
                    retry_after = None
                raise TransientError(msg, status=exc.code, retry_after=retry_after) from None
            raise PermanentError(msg, status=exc.code) from None
        except TimeoutError:
            raise TransientError(f"{self.name}: request timed out after {limit:g}s") from None
        except urllib.error.URLError as exc:
            raise TransientError(clean(f"{self.name}: connection failed: {exc.reason}")) from None
        latency = time.perf_counter() - start
        try:
            obj = json.loads(raw)
        except ValueError:
            raise TransientError(f"{self.name}: malformed response (not JSON)") from None
        if not isinstance(obj, dict):
            raise TransientError(f"{self.name}: malformed response (not a JSON object)")
        try:
            parsed = parse_response(obj, self.fmt)
        except ValueError as exc:
            raise PermanentError(f"{self.name}: {exc}") from None
        meta = {
            "raw": obj,
            "format": self.fmt,
            "cost_usd": parsed.cost_usd,
            "searches": parsed.searches,
        }
        return GenerationResult(
            text=parsed.answer, model=request.model, input_tokens=parsed.input_tokens,
            output_tokens=parsed.output_tokens, latency_s=latency, finish_reason="stop", meta=meta,
        )  # fmt: skip


def _question(request: GenerationRequest) -> str:
    return request.messages[-1].content


class OpenAISearch(SearchBackend):
    """OpenAI Responses API, ``tools=[{"type": "web_search"}]``."""

    provider, fmt, default_url = "openai-search", "openai-responses", "https://api.openai.com"

    @classmethod
    def path_for(cls, model: str) -> str:
        return "/v1/responses"

    def body(self, request: GenerationRequest) -> dict[str, Any]:
        return {"model": self.model, "input": _question(request), "tools": [{"type": "web_search"}],
                "max_output_tokens": request.max_tokens}  # fmt: skip


class PerplexitySearch(SearchBackend):
    """Perplexity chat completions (search is built in)."""

    provider, fmt, default_url = "perplexity", "perplexity", "https://api.perplexity.ai"

    @classmethod
    def path_for(cls, model: str) -> str:
        return "/chat/completions"

    def body(self, request: GenerationRequest) -> dict[str, Any]:
        return {"model": self.model, "messages": [{"role": "user", "content": _question(request)}],
                "max_tokens": request.max_tokens}  # fmt: skip


class GeminiSearch(SearchBackend):
    """Gemini ``generateContent`` with ``tools=[{"google_search": {}}]``."""

    provider, fmt, default_url = "gemini", "gemini", "https://generativelanguage.googleapis.com"

    @classmethod
    def path_for(cls, model: str) -> str:
        return f"/v1beta/models/{model}:generateContent"

    def headers(self) -> dict[str, str]:
        return {"x-goog-api-key": self.key()}

    def body(self, request: GenerationRequest) -> dict[str, Any]:
        return {"contents": [{"role": "user", "parts": [{"text": _question(request)}]}],
                "tools": [{"google_search": {}}], "generationConfig": {"maxOutputTokens": request.max_tokens}}  # fmt: skip


class AnthropicSearch(SearchBackend):
    """Anthropic Messages with ``tools=[{"type": "web_search_20250305", "name": "web_search"}]``."""

    provider, fmt, default_url = "anthropic", "anthropic", "https://api.anthropic.com"

    @classmethod
    def path_for(cls, model: str) -> str:
        return "/v1/messages"

    def headers(self) -> dict[str, str]:
        return {"x-api-key": self.key(), "anthropic-version": "2023-06-01"}

    def body(self, request: GenerationRequest) -> dict[str, Any]:
        return {"model": self.model, "max_tokens": request.max_tokens,
                "messages": [{"role": "user", "content": _question(request)}],
                "tools": [{"type": "web_search_20250305", "name": "web_search", "max_uses": 5}]}  # fmt: skip


SEARCH_APIS: dict[str, type[SearchBackend]] = {
    c.provider: c for c in (OpenAISearch, PerplexitySearch, GeminiSearch, AnthropicSearch)
}
"""The search APIs by the prefix of their models."""


def search_backend(model: str, **options: Any) -> SearchBackend:
    """The backend of ``api/model`` (:data:`SEARCH_APIS`)."""
    api, sep, name = model.partition("/")
    if not sep or not name:
        raise ConfigError(
            f"model {model!r} must be written api/model (e.g. perplexity/sonar); APIs: {', '.join(SEARCH_APIS)}"
        )
    if api not in SEARCH_APIS:
        raise ConfigError(
            f"unknown search API {api!r} in {model!r}; known: {', '.join(SEARCH_APIS)}"
        )
    return SEARCH_APIS[api](name, **options)
