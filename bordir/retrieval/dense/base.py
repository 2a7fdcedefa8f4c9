"""The dense retriever: cosine similarity between query and passage embeddings.

Subclasses wrap one embedding model and implement two methods,
:meth:`DenseRetriever.embed_documents` and :meth:`DenseRetriever.embed_queries`
(models such as e5 embed queries and passages differently). Everything else
is shared: passage vectors come from an
:class:`~bordir.retrieval.dense.store.EmbeddingStore` (computed once per corpus
and cached on disk), query vectors from an in-memory LRU cache, and scores are
cosine similarities (L2-normalised vectors, dot product), so they are on one
scale across document languages and the default fusion is ``raw``
(as BordIRLines, which ranks pooled languages by one cosine score).

Example:
    >>> import numpy as np
    >>> from bordir.corpus import Corpus
    >>> from bordir.records import Passage
    >>> class Letters(DenseRetriever):
    ...     '''Toy embedder: counts of the letters a, b, c.'''
    ...     name = "letters"
    ...     default_model = "abc"
    ...     def embed_documents(self, texts):
    ...         return np.array([[t.count(c) for c in "abc"] for t in texts], dtype=float)
    ...     embed_queries = embed_documents
    >>> corpus = Corpus([Passage("d1", "en", "aaa"), Passage("d2", "en", "bbb c")])
    >>> r = Letters(use_cache=False)
    >>> r.fit(corpus)
    >>> np.round(r.score("ab", "en", list(corpus)), 3).tolist()
    [0.707, 0.671]
    >>> r.signature()
    {'ret': 'letters', 'model': 'abc', 'dims': 'native', 'norm': 'l2'}
"""

from __future__ import annotations

import os
from abc import abstractmethod
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from typing import ClassVar, cast

import numpy as np

from ...corpus import Corpus
from ...errors import ConfigError
from ...records import Passage
from ..base import Retriever
from .query_store import QueryStore
from .store import CorpusEmbeddings, EmbeddingStore, l2_normalise

__all__ = ["DenseRetriever"]


class DenseRetriever(Retriever):
    """A retriever that scores passages by cosine similarity of embeddings.

    Args:
        model: the embedding model (default: the class's ``default_model``).
        dims: the vector size; ``None`` uses the model's known size (``known_dims``)
            and otherwise accepts what the model returns ("native").
        batch_size: texts per embedding call (default: the class's ``default_batch_size``).
        cache_dir: where passage embeddings are cached (default ``$BORDIR_CACHE`` or ``~/.cache/bordir``).
        use_cache: False to neither read nor write the embedding cache.
        progress: progress bar while embedding a corpus (None: only on a terminal).
        query_cache_size: query vectors kept in memory (least recently used are dropped).
        store: an explicit :class:`EmbeddingStore` (overrides ``cache_dir``/``use_cache``/``progress``).

    Class attributes subclasses set: ``name`` (or ``provider`` for ``provider/model``
    names), ``default_model``, ``known_dims``, ``default_batch_size``.
    """

    cross_lingual: ClassVar[bool] = True
    default_fusion: ClassVar[str] = "raw"
    provider: ClassVar[str] = ""
    """Registry prefix of provider-addressed retrievers; their name is ``provider/model``."""
    default_model: ClassVar[str] = ""
    known_dims: ClassVar[Mapping[str, int]] = {}
    default_batch_size: ClassVar[int] = 32

    def __init__(
        self,
        *,
        model: str | None = None,
        dims: int | None = None,
        batch_size: int | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
        use_cache: bool = True,
        progress: bool | None = None,
        query_cache_size: int = 4096,
        store: EmbeddingStore | None = None,
    ) -> None:
        self.model = model or self.default_model
        if not self.model:
            raise ConfigError(f"{type(self).__name__} needs a model name")
        if dims is not None and (not isinstance(dims, int) or dims < 1):
            raise ConfigError(f"dims must be a positive integer, got {dims!r}")
        self.dims = dims if dims is not None else self.known_dims.get(self.model)
        self.batch_size = int(batch_size or self.default_batch_size)
        if self.batch_size < 1:
            raise ConfigError(f"batch_size must be >= 1, got {batch_size!r}")
        if query_cache_size < 0:
            raise ConfigError(f"query_cache_size must be >= 0, got {query_cache_size!r}")
        if self.provider:
            self.name = f"{self.provider}/{self.model}"  # type: ignore[misc]
        self.store = (
            store
            if store is not None
            else EmbeddingStore(cache_dir, use_cache=use_cache, progress=progress)
        )
        self._query_cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._query_cache_size = query_cache_size
        self._query_disk: QueryStore | None | bool = False  # False: not opened yet
        self._embeddings: CorpusEmbeddings | None = None

    # -- what subclasses implement ----------------------------------------------

    @abstractmethod
    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Embed passages: an ``(len(texts), d)`` array (need not be normalised)."""

    @abstractmethod
    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed search queries: an ``(len(texts), d)`` array (need not be normalised)."""

    def model_id(self) -> str:
        """The model as it appears in signatures (e.g. the upstream Hugging Face id)."""
        return self.model

    def embedding_params(self) -> dict[str, str]:
        """Extra parameters that change the vectors (prefixes, quantisation, truncation …)."""
        return {}

    def scoring_params(self) -> dict[str, str]:
        """Extra parameters that change scores but not the cached passage vectors (re-ranking …)."""
        return {}

    # -- signature ---------------------------------------------------------------

    def expected_dims(self) -> int | None:
        return self.dims

    def embedding_signature(self) -> dict[str, str]:
        """What determines the passage vectors: the key of the embedding cache. Never holds credentials."""
        return {
            "model": self.model_id(),
            "dims": str(self.dims) if self.dims else "native",
            "norm": "l2",
            **self.embedding_params(),
        }

    def signature(self) -> dict[str, str]:
        return {"ret": self.name, **self.embedding_signature(), **self.scoring_params()}

    # -- Retriever -------------------------------------------------------------

    def fit(self, corpus: Corpus) -> None:
        """Load (or compute and cache) the embeddings of every passage of ``corpus``."""
        self._embeddings = self.store.get(corpus, self)

    @property
    def embeddings(self) -> CorpusEmbeddings:
        """The fitted corpus's embeddings."""
        if self._embeddings is None:
            raise ConfigError(f"retriever {self.name!r} is not fitted; call fit(corpus) first")
        return self._embeddings

    def score(self, query_text: str, query_lang: str, docs: Sequence[Passage]) -> np.ndarray:
        """Cosine similarity of the query to each of ``docs`` (all from the fitted corpus)."""
        emb = self.embeddings
        if len(docs) == 0:
            return np.zeros(0)
        rows = emb.rows(docs)
        q = self.query_vector(query_text)
        return cast("np.ndarray", (emb.matrix[rows] @ q).astype(float))

    def search(
        self, query_text: str, k: int = 10, *, langs: Iterable[str] | None = None
    ) -> list[tuple[str, str, float]]:
        """Exact cosine search over the whole fitted corpus: ``(lang, doc_id, score)``, best first.

        Args:
            query_text: the query.
            k: how many passages.
            langs: only passages of these languages.
        """
        emb = self.embeddings
        rows = None
        if langs is not None:
            wanted = set(langs)
            rows = np.array(
                [i for i, key in enumerate(emb.keys) if key[0] in wanted], dtype=np.intp
            )
        idx, scores = emb.search(self.query_vector(query_text), k, rows)
        return [(*emb.keys[i], float(s)) for i, s in zip(idx.tolist(), scores.tolist())]

    # -- query vectors -----------------------------------------------------------

    def query_vector(self, text: str) -> np.ndarray:
        """The L2-normalised embedding of one query (cached)."""
        hit = self._query_cache.get(text)
        if hit is not None:
            self._query_cache.move_to_end(text)
            return hit
        self.warm_queries([text])
        vec = self._query_cache.get(text)
        if vec is None:  # no memory cache (query_cache_size=0): embedded again
            vec = self._from_disk([text]).get(text)
            if vec is None:
                vec = self._embed_query_batch([text])[0]
        return vec

    def warm_queries(self, texts: Iterable[str]) -> None:
        """Embed many queries in batches ahead of scoring (fewer API calls than one at a time).

        Queries embedded in an earlier run with the same embedder and parameters are read from
        the cache (:class:`~bordir.retrieval.dense.query_store.QueryStore`), not embedded again.
        """
        todo = list(dict.fromkeys(t for t in texts if t not in self._query_cache))
        for t, v in self._from_disk(todo).items():
            self._remember(t, v)
        todo = [t for t in todo if t not in self._query_cache]
        for start in range(0, len(todo), self.batch_size):
            chunk = todo[start : start + self.batch_size]
            vectors = dict(zip(chunk, self._embed_query_batch(chunk)))
            for t, v in vectors.items():
                self._remember(t, v)
            disk = self._disk()
            if disk is not None:
                disk.put(vectors)

    def _disk(self) -> QueryStore | None:
        if self._query_disk is False:
            self._query_disk = self.store.query_store(self)
        return self._query_disk  # type: ignore[return-value]

    def _from_disk(self, texts: list[str]) -> dict[str, np.ndarray]:
        disk = self._disk()
        if disk is None or not texts:
            return {}
        want = self._passage_dims()
        return {t: v for t, v in disk.get(texts).items() if not want or v.shape[0] == want}

    def _passage_dims(self) -> int | None:
        """The size query vectors must have: the fitted passages', else :attr:`dims` (None: any)."""
        if self._embeddings is not None and len(self._embeddings):
            return self._embeddings.dims
        return self.dims

    def _embed_query_batch(self, texts: list[str]) -> np.ndarray:
        out = np.asarray(self.embed_queries(texts), dtype=np.float32)
        if out.ndim != 2 or out.shape[0] != len(texts):
            raise ConfigError(
                f"{self.name} returned query embeddings of shape {out.shape} for {len(texts)} texts"
            )
        want = self._passage_dims()
        if want and out.shape[1] != want:
            raise ConfigError(
                f"{self.name} returned {out.shape[1]}-dimensional query vectors; passages have {want}"
            )
        return l2_normalise(out)

    def _remember(self, text: str, vec: np.ndarray) -> None:
        if self._query_cache_size == 0:
            return
        self._query_cache[text] = vec
        self._query_cache.move_to_end(text)
        while len(self._query_cache) > self._query_cache_size:
            self._query_cache.popitem(last=False)
