"""The dense retriever of an embeddings API: a client made on first use, texts sent in batches.

:class:`APIEmbeddings` holds what the API-backed retrievers (``openai/…``,
``cohere/…``) share: the endpoint, the key (registered as a secret and handed to
the client only), retries and timeout, the batching (an empty text is sent as
one space: the APIs reject empty strings) and the matrix the batches make.
Subclasses make the client (:meth:`APIEmbeddings.make_client`) and send one batch
(:meth:`APIEmbeddings.embed_batch`).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from ...errors import register_secret
from .base import DenseRetriever

__all__ = ["APIEmbeddings", "InputType"]

InputType = Literal["document", "query"]
"""What a batch embeds: passages or queries (models such as Cohere's embed them differently)."""


class APIEmbeddings(DenseRetriever):
    """A :class:`~bordir.retrieval.dense.base.DenseRetriever` whose embeddings come from an HTTP API.

    Args:
        model: the embedding model (default: the class's ``default_model``).
        dims: the vector size, also asked of the API where given (``dimensions`` …).
        base_url: the API endpoint (default: the provider's environment variable, else its own).
        api_key: the key (default: the provider's environment variable); never stored outside the client.
        max_retries: retries on 429 / 5xx.
        timeout: seconds per request.
        **options: see :class:`~bordir.retrieval.dense.base.DenseRetriever`.
    """

    def __init__(
        self,
        *,
        model: str | None = None,
        dims: int | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        max_retries: int = 6,
        timeout: float = 60.0,
        **options: Any,
    ) -> None:
        super().__init__(model=model, dims=dims, **options)
        self._request_dims = dims
        self._base_url = base_url
        self._api_key = api_key
        self.max_retries = int(max_retries)
        self.timeout = float(timeout)
        self._client: Any = None
        register_secret(api_key)

    @abstractmethod
    def make_client(self, api_key: str | None, base_url: str | None) -> Any:
        """The provider's client, from the key and endpoint given (None: read the environment).

        Raises:
            ConfigError: no key is given nor set in the environment.
        """

    @abstractmethod
    def embed_batch(self, client: Any, chunk: list[str], input_type: InputType) -> Sequence[Any]:
        """The embeddings of one batch (one vector per text, in order).

        Raises:
            FetchError: the request failed or the API returned another number of vectors.
        """

    def client(self) -> Any:
        """The provider's client, made on first use; the key then lives in the client only."""
        if self._client is None:
            self._client = self.make_client(self._api_key, self._base_url)
            self._api_key = None  # the client holds it now
        return self._client

    def embed_texts(self, texts: Sequence[str], input_type: InputType) -> np.ndarray:
        """``texts`` embedded in batches of ``batch_size``: a float32 ``(len(texts), d)`` array."""
        client = self.client()
        rows: list[Any] = []
        for start in range(0, len(texts), self.batch_size):
            # the APIs reject empty strings
            chunk = [t if t.strip() else " " for t in texts[start : start + self.batch_size]]
            rows.extend(self.embed_batch(client, chunk, input_type))
        if not rows:
            return np.zeros((0, self.dims or 0), dtype=np.float32)
        return np.asarray(rows, dtype=np.float32)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed_texts(texts, "document")

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed_texts(texts, "query")
