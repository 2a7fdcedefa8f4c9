"""``cohere/<model>``: Cohere embeddings (default ``embed-multilingual-v3.0``).

Uses the official ``cohere`` client's v2 API (``ClientV2.embed``) with
``input_type="search_document"`` for passages and ``"search_query"`` for
queries, ``embedding_types=["float"]``, in batches of 96 texts (the API's
limit). The key comes from ``CO_API_KEY`` (or ``COHERE_API_KEY``, or
``api_key=``) and the endpoint from ``CO_API_URL`` (or ``base_url=``); the key is
handed to the client only. 429 and 5xx responses are retried by the client,
honouring ``Retry-After``; ``max_retries`` is set explicitly (default 6).

Install with ``pip install 'bordir[cohere]'``.

Example:
    >>> from bordir.retrieval import get_retriever
    >>> get_retriever("cohere", use_cache=False).signature()
    {'ret': 'cohere/embed-multilingual-v3.0', 'model': 'embed-multilingual-v3.0', 'dims': '1024', 'norm': 'l2', 'truncate': 'END'}
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, ClassVar

from ..._extras import require
from ..._net.http import short_body
from ...errors import ConfigError, FetchError, describe_transport_error, register_secret
from ..base import register
from .api import APIEmbeddings, InputType

__all__ = ["CohereEmbeddings"]

MAX_BATCH = 96
"""Texts per request the Cohere embed API accepts."""


@register("cohere")
class CohereEmbeddings(APIEmbeddings):
    """Embeddings from the Cohere API (v2 ``/v2/embed``).

    Args:
        model: the embedding model (default ``embed-multilingual-v3.0``).
        dims: ``output_dimension`` for models that support it (``embed-v4.0``).
        base_url: the API endpoint (default ``$CO_API_URL``, else Cohere's).
        api_key: the key (default ``$CO_API_KEY`` or ``$COHERE_API_KEY``); never stored outside the client.
        truncate: how the API shortens over-long texts (``END``, ``START`` or ``NONE``).
        max_retries: retries on 429 / 5xx.
        timeout: seconds per request.
        **options: see :class:`~bordir.retrieval.dense.api.APIEmbeddings` (``batch_size`` default 96).
    """

    provider: ClassVar[str] = "cohere"
    default_model: ClassVar[str] = "embed-multilingual-v3.0"
    known_dims: ClassVar[dict[str, int]] = {
        "embed-multilingual-v3.0": 1024,
        "embed-multilingual-light-v3.0": 384,
        "embed-english-v3.0": 1024,
        "embed-english-light-v3.0": 384,
        "embed-v4.0": 1536,
    }
    default_batch_size: ClassVar[int] = MAX_BATCH

    def __init__(self, *, truncate: str = "END", **options: Any) -> None:
        self._cohere = require("cohere", "cohere", purpose="Cohere embeddings")
        self._api_error = require("cohere.core", "cohere").ApiError
        self._http_error = require("httpx", "cohere").HTTPError
        super().__init__(**options)
        if self.batch_size > MAX_BATCH:
            raise ConfigError(
                f"Cohere embeds at most {MAX_BATCH} texts per request; got batch_size={self.batch_size}"
            )
        if truncate not in ("END", "START", "NONE"):
            raise ConfigError(f"truncate must be END, START or NONE, got {truncate!r}")
        self.truncate = truncate
        self._key_source = "CO_API_KEY"

    def embedding_params(self) -> dict[str, str]:
        return {"truncate": self.truncate}

    def make_client(self, api_key: str | None, base_url: str | None) -> Any:
        key, self._key_source = api_key, "api_key="
        for name in ("CO_API_KEY", "COHERE_API_KEY"):
            if not key and os.environ.get(name, "").strip():
                key, self._key_source = os.environ[name].strip(), name
        if not key:
            raise ConfigError(
                "Cohere embeddings need an API key; neither CO_API_KEY nor COHERE_API_KEY is set. "
                "Set one (export CO_API_KEY=…) or pass api_key=…"
            )
        # ClientV2 reads CO_API_URL when cohere is imported; read it now instead
        client = self._cohere.ClientV2(
            api_key=key,
            base_url=base_url or os.environ.get("CO_API_URL") or None,
            max_retries=self.max_retries,
            timeout=self.timeout,
            client_name="bordir",
        )
        register_secret(key)  # masked in every error from now on
        return client

    def embed_batch(self, client: Any, chunk: list[str], input_type: InputType) -> Sequence[Any]:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "input_type": f"search_{input_type}",
            "texts": chunk,
            "embedding_types": ["float"],
            "truncate": self.truncate,
        }
        if self._request_dims is not None:
            kwargs["output_dimension"] = self._request_dims
        try:
            resp = client.embed(**kwargs)
        except self._api_error as exc:
            hint = f" (check {self._key_source})" if exc.status_code in (401, 403, 498) else ""
            raise FetchError(
                f"{self.name}: embed request failed with HTTP {exc.status_code}{hint}: {short_body(exc.body)}",
                provider=self.name,
                status=exc.status_code,
            ) from None
        except self._http_error as exc:
            raise FetchError(
                f"{self.name}: embed request failed: {describe_transport_error(exc)}",
                provider=self.name,
            ) from None
        except ValueError as exc:  # a body that is not JSON
            raise FetchError(
                f"{self.name}: malformed embed response: {exc}", provider=self.name
            ) from None
        got = resp.embeddings.float_ if resp.embeddings is not None else None
        if got is None or len(got) != len(chunk):
            n = 0 if got is None else len(got)
            raise FetchError(
                f"{self.name}: asked for {len(chunk)} float embeddings, the API returned {n}",
                provider=self.name,
            )
        return list(got)
