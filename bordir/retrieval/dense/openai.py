"""``openai/<model>``: OpenAI embeddings (default ``text-embedding-3-large``, BordIRLines' system).

Uses the official ``openai`` client: ``client.embeddings.create(model=…, input=[…])``
in batches of 64 texts. The API key comes from ``OPENAI_API_KEY`` (or
``api_key=``) and the endpoint from ``OPENAI_BASE_URL`` (or ``base_url=``); the key
is handed to the client only, never kept in signatures, caches or logs.
Rate limits (429) and server errors (5xx) are retried by the client with
exponential backoff that honours ``Retry-After``; ``max_retries`` is set
explicitly (default 6).

Install with ``pip install 'bordir[openai]'``.

Example:
    >>> from bordir.retrieval import get_retriever
    >>> get_retriever("openai", use_cache=False).signature()
    {'ret': 'openai/text-embedding-3-large', 'model': 'text-embedding-3-large', 'dims': '3072', 'norm': 'l2'}
    >>> get_retriever("openai/text-embedding-3-small", dims=512, use_cache=False).signature()["dims"]
    '512'
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, ClassVar
from urllib.parse import urlsplit

from ..._extras import require
from ..._net.http import short_body
from ...errors import ConfigError, FetchError, describe_transport_error, register_secret
from ..base import register
from .api import APIEmbeddings, InputType

__all__ = ["OpenAIEmbeddings"]


@register("openai")
class OpenAIEmbeddings(APIEmbeddings):
    """Embeddings from the OpenAI API (or any server speaking its ``/v1/embeddings`` protocol).

    Args:
        model: the embedding model (default ``text-embedding-3-large``).
        dims: request shortened vectors (``dimensions=``; ``text-embedding-3-*`` only).
        base_url: the API endpoint (default ``$OPENAI_BASE_URL``, else OpenAI's).
        api_key: the key (default ``$OPENAI_API_KEY``); never stored outside the client.
        max_retries: retries on 429 / 5xx / connection errors.
        timeout: seconds per request.
        **options: see :class:`~bordir.retrieval.dense.api.APIEmbeddings` (``batch_size`` default 64).
    """

    provider: ClassVar[str] = "openai"
    default_model: ClassVar[str] = "text-embedding-3-large"
    known_dims: ClassVar[dict[str, int]] = {
        "text-embedding-3-large": 3072,
        "text-embedding-3-small": 1536,
        "text-embedding-ada-002": 1536,
    }
    default_batch_size: ClassVar[int] = 64

    def __init__(self, **options: Any) -> None:
        self._openai = require("openai", "openai", purpose="OpenAI embeddings")
        super().__init__(**options)

    def make_client(self, api_key: str | None, base_url: str | None) -> Any:
        key = api_key or os.environ.get("OPENAI_API_KEY")
        if not key:
            raise ConfigError(
                "OpenAI embeddings need an API key; OPENAI_API_KEY is not set. "
                "Set it (export OPENAI_API_KEY=…) or pass api_key=…"
            )
        base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
        client = self._openai.OpenAI(
            api_key=key, base_url=base_url, max_retries=self.max_retries, timeout=self.timeout
        )
        register_secret(key)  # masked in every error from now on
        return client

    def embed_batch(self, client: Any, chunk: list[str], input_type: InputType) -> Sequence[Any]:
        kwargs: dict[str, Any] = {"model": self.model, "input": chunk, "encoding_format": "float"}
        if self._request_dims is not None:
            kwargs["dimensions"] = self._request_dims
        try:
            resp = client.embeddings.create(**kwargs)
        except self._openai.APIError as exc:
            raise _provider_error(exc, self.name, client) from None
        except ValueError as exc:  # a body that is not JSON
            raise FetchError(
                f"{self.name}: malformed embeddings response: {exc}", provider=self.name
            ) from None
        data = sorted(getattr(resp, "data", None) or [], key=lambda d: d.index)
        if len(data) != len(chunk):
            raise FetchError(
                f"{self.name}: asked for {len(chunk)} embeddings, the API returned {len(data)}",
                provider=self.name,
            )
        return [d.embedding for d in data]


def _provider_error(exc: Exception, name: str, client: Any) -> FetchError:
    """One line for a failed embeddings call: host, status and the provider's message (secrets masked)."""
    status = getattr(exc, "status_code", None)
    host = urlsplit(str(getattr(client, "base_url", ""))).netloc or "the API"
    if status:
        body = getattr(exc, "body", None)
        detail = short_body(body if body is not None else getattr(exc, "message", str(exc)))
        hint = " (check OPENAI_API_KEY)" if status in (401, 403) else ""
        return FetchError(
            f"{name}: embeddings request to {host} failed with HTTP {status}{hint}: {detail}",
            provider=name,
            status=status,
        )
    cause = exc.__cause__ or exc.__context__
    what = describe_transport_error(cause) if cause is not None else f"{type(exc).__name__}: {exc}"
    return FetchError(f"{name}: embeddings request to {host} failed: {what}", provider=name)
