"""Dense (embedding) retrievers: e5-small (local), OpenAI, Cohere and BGE-M3.

The provider modules (``e5``, ``openai``, ``cohere``, ``bge``) are imported on
first use through :func:`bordir.retrieval.get_retriever`; importing this
package loads no third-party SDK.
"""

from __future__ import annotations

from .base import DenseRetriever
from .store import (
    CorpusEmbeddings,
    EmbeddingCacheWarning,
    EmbeddingStore,
    cosine_top_k,
    default_cache_dir,
)

__all__ = [
    "DenseRetriever",
    "CorpusEmbeddings",
    "EmbeddingCacheWarning",
    "EmbeddingStore",
    "cosine_top_k",
    "default_cache_dir",
]
