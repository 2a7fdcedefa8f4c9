"""Corpus embeddings, computed once per (corpus, embedder) and cached on disk.

An :class:`EmbeddingStore` keeps one file per corpus content hash and embedder
signature::

    $BORDIR_CACHE/embeddings/<embedder-slug>/<corpus-hash>.npz    matrix + keys + parameters
    $BORDIR_CACHE/embeddings/<embedder-slug>/<corpus-hash>.json   the same parameters, for people

``$BORDIR_CACHE`` defaults to ``~/.cache/bordir``. Before the cache, the store
looks in a read-only *shipped* directory laid out the same way
(``<embedder-slug>/<corpus-hash>.npz``; default :data:`SHIPPED_DIR`, which holds
the demo corpus's ``e5-small`` embeddings, so ``bordir demo`` never embeds it).
A shipped file is verified exactly like a cache file; one that does not match
is ignored with an :class:`EmbeddingCacheWarning` and the cache is used.

The ``.npz`` holds the
``float32`` L2-normalised matrix (row ``i`` is passage ``i`` of the corpus), the
``(lang, doc_id)`` keys and the embedder's parameters; it is self-contained, the
JSON is only a readable copy. Both are written atomically through
:mod:`bordir._io.atomic` (a unique temporary file in the same directory, then
:func:`os.replace`), so an interrupted run never
leaves a half-written cache. A cache whose keys, dimensions or parameters do
not match is recomputed with an :class:`EmbeddingCacheWarning`.

Example:
    >>> import numpy as np
    >>> m = np.array([[1.0, 0.0], [0.6, 0.8], [0.0, 1.0]], dtype=np.float32)
    >>> rows, scores = cosine_top_k(m, np.array([1.0, 0.0], dtype=np.float32), k=2)
    >>> rows.tolist(), [round(float(s), 2) for s in scores]
    ([0, 1], [1.0, 0.6])
    >>> embedder_slug("openai/text-embedding-3-large", {"dims": "3072"})[:30]
    'openai-text-embedding-3-large-'
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import warnings
import zipfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol, cast

import numpy as np

from ..._io.atomic import atomic_path, atomic_write_text
from ..._io.json_read import loads
from ..._version import __version__
from ...corpus import Corpus
from ...errors import BordirError, ConfigError
from ...records import Passage
from ...registry import Registry
from ...settings import CACHE
from .query_store import QueryStore

__all__ = [
    "SHIPPED_DIR",
    "STORE_FORMAT",
    "CorpusEmbeddings",
    "DocumentEmbedder",
    "EmbeddingCacheWarning",
    "EmbeddingStore",
    "cosine_top_k",
    "default_cache_dir",
    "embedder_slug",
    "l2_normalise",
]

STORE_FORMAT = 1
"""Version of the on-disk layout; a cache of another format is recomputed."""

SHIPPED_DIR = Path(__file__).resolve().parents[2] / "data" / "demo" / "embeddings"
"""Precomputed embeddings shipped with bordir (read-only, laid out like ``$BORDIR_CACHE/embeddings``)."""


class EmbeddingCacheWarning(UserWarning):
    """A cached embedding file did not match and is being recomputed."""


class DocumentEmbedder(Protocol):
    """What the store needs from an embedder (:class:`~bordir.retrieval.dense.base.DenseRetriever` is one)."""

    @property
    def name(self) -> str: ...

    batch_size: int

    def embedding_signature(self) -> dict[str, str]:
        """Parameters that change document vectors (model, dims …): the cache key."""
        ...

    def expected_dims(self) -> int | None:
        """The vector size the model returns, when known in advance."""
        ...

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """One row per text."""
        ...


def default_cache_dir() -> Path:
    """``$BORDIR_CACHE`` if set, else ``~/.cache/bordir`` (read at call time)."""
    return CACHE.get()


def embedder_slug(name: str, params: Mapping[str, str]) -> str:
    """A directory name for an embedder: its readable name plus a digest of its parameters."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.") or "embedder"
    digest = hashlib.sha256(
        json.dumps(dict(sorted(params.items())), sort_keys=True).encode()
    ).hexdigest()[:10]
    return f"{safe}-{digest}"


def l2_normalise(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length, as ``float32``; all-zero rows stay zero."""
    m = np.asarray(matrix, dtype=np.float32)
    if m.ndim == 1:
        n = float(np.linalg.norm(m))
        return m / n if n > 0 else m.copy()
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return cast("np.ndarray", (m / norms).astype(np.float32, copy=False))


def cosine_top_k(
    matrix: np.ndarray, query: np.ndarray, k: int, rows: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Exact cosine search: the ``k`` best rows of an L2-normalised ``matrix`` for ``query``.

    Args:
        matrix: ``(n, d)`` unit rows.
        query: ``(d,)`` unit vector.
        k: how many rows to return (fewer if there are fewer candidates).
        rows: restrict the search to these row indices.

    Returns:
        Row indices and their scores, best first; ties keep row order.
    """
    cand = np.arange(len(matrix)) if rows is None else np.asarray(rows, dtype=np.intp)
    scores = matrix[cand] @ np.asarray(query, dtype=np.float32)
    k = max(0, min(int(k), len(cand)))
    order = np.lexsort((cand, -scores))[:k]
    return cand[order], scores[order]


@dataclass(frozen=True, eq=False)
class CorpusEmbeddings:
    """The embedding matrix of one corpus under one embedder.

    Attributes:
        matrix: ``(n, d)`` ``float32``, L2-normalised; row ``i`` is passage ``i`` of the corpus.
        keys: the ``(lang, doc_id)`` of each row.
        path: the cache file (``None`` when caching is off).
        computed: True if the vectors were computed by this call, False if loaded from the cache.
    """

    matrix: np.ndarray
    keys: tuple[tuple[str, str], ...]
    path: Path | None = None
    computed: bool = True
    _index: dict[tuple[str, str], int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_index", {k: i for i, k in enumerate(self.keys)})

    @property
    def dims(self) -> int:
        return int(self.matrix.shape[1]) if self.matrix.ndim == 2 else 0

    def __len__(self) -> int:
        return len(self.keys)

    def rows(self, docs: Sequence[Passage]) -> np.ndarray:
        """Row indices of ``docs``; every document must belong to the embedded corpus."""
        out = np.empty(len(docs), dtype=np.intp)
        for i, p in enumerate(docs):
            row = self._index.get(p.key)
            if row is None:
                raise ConfigError(
                    f"document {p.doc_id!r} ({p.lang}) is not in the corpus the retriever was fitted on; "
                    "call fit() with the corpus the pools come from"
                )
            out[i] = row
        return out

    def search(
        self, query: np.ndarray, k: int = 10, rows: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """:func:`cosine_top_k` over this matrix."""
        return cosine_top_k(self.matrix, query, k, rows)


EmbedTexts = Callable[..., list[np.ndarray]]
"""``(texts, embedder, *, batch_size, progress, address) -> matrices`` whose rows, stacked, are ``texts``."""

EMBEDDING_EXECUTORS: Registry[EmbedTexts] = Registry("embedding executor")
"""Where an :class:`EmbeddingStore` embeds the passages it has not cached (``executor=``)."""


@EMBEDDING_EXECUTORS.register("local", description="batches in this process")
def embed_locally(
    texts: Sequence[str],
    embedder: DocumentEmbedder,
    *,
    batch_size: int,
    progress: bool | None = None,
    address: str | None = None,
) -> list[np.ndarray]:
    """``texts`` embedded ``batch_size`` at a time in this process, with a progress bar."""
    batch = batch_size
    parts: list[np.ndarray] = []
    from ..._progress import progress_bar

    with progress_bar(
        progress, total=len(texts), desc=f"embed {embedder.name}", unit="passage"
    ) as bar:
        for start in range(0, len(texts), batch):
            chunk = texts[start : start + batch]
            out = np.asarray(embedder.embed_documents(chunk), dtype=np.float32)
            if out.ndim != 2 or out.shape[0] != len(chunk):
                raise BordirError(
                    f"{embedder.name} returned embeddings of shape {out.shape} for {len(chunk)} texts; "
                    f"expected ({len(chunk)}, dims)"
                )
            parts.append(out)
            bar.update(len(chunk))
    return parts


EMBEDDING_EXECUTORS.register(
    "ray",
    module="bordir.retrieval.dense.ray_embed",
    description="Ray Data map_batches over a cluster (the same matrix)",
)


class EmbeddingStore:
    """Computes corpus embeddings once and keeps them on disk.

    Args:
        cache_dir: the cache root (default: :func:`default_cache_dir`, read when used).
        use_cache: False to always compute and never write.
        progress: show a progress bar while embedding (None: only on a terminal).
        shipped_dir: read-only precomputed embeddings consulted before the cache
            (default :data:`SHIPPED_DIR`; None to ignore them). Not used when ``use_cache`` is False.
        executor: ``"local"`` (batches in this process) or ``"ray"`` (Ray Data
            ``map_batches`` over a cluster, :mod:`~bordir.retrieval.dense.ray_embed`; same matrix).
        address: the Ray cluster for ``executor="ray"`` (default: ``$RAY_ADDRESS``, else a local one).
    """

    def __init__(
        self,
        cache_dir: str | os.PathLike[str] | None = None,
        *,
        use_cache: bool = True,
        progress: bool | None = None,
        shipped_dir: str | os.PathLike[str] | None = SHIPPED_DIR,
        executor: str = "local",
        address: str | None = None,
    ) -> None:
        if executor not in EMBEDDING_EXECUTORS:
            raise EMBEDDING_EXECUTORS.unknown(executor)
        self.executor = executor
        self.address = address
        self._cache_dir = None if cache_dir is None else Path(cache_dir).expanduser()
        self.use_cache = use_cache
        self.progress = progress
        self.shipped_dir = None if shipped_dir is None else Path(shipped_dir)

    @property
    def cache_dir(self) -> Path:
        return self._cache_dir if self._cache_dir is not None else default_cache_dir()

    def path_for(self, corpus: Corpus, embedder: DocumentEmbedder) -> Path:
        """Where the embeddings of ``corpus`` by ``embedder`` are cached."""
        slug = embedder_slug(embedder.name, embedder.embedding_signature())
        return self.cache_dir / "embeddings" / slug / f"{corpus.content_hash()}.npz"

    def query_store(self, embedder: DocumentEmbedder) -> QueryStore | None:
        """The on-disk query vectors of ``embedder`` (None when the cache is off)."""
        if not self.use_cache:
            return None
        slug = embedder_slug(embedder.name, embedder.embedding_signature())
        return QueryStore(self.cache_dir / "embeddings" / slug / "queries.sqlite3")

    def shipped_path_for(self, corpus: Corpus, embedder: DocumentEmbedder) -> Path | None:
        """Where shipped embeddings of ``corpus`` by ``embedder`` would be (None: no shipped directory)."""
        if self.shipped_dir is None:
            return None
        slug = embedder_slug(embedder.name, embedder.embedding_signature())
        return self.shipped_dir / slug / f"{corpus.content_hash()}.npz"

    def __repr__(self) -> str:
        return f"EmbeddingStore(cache_dir={str(self.cache_dir)!r}, use_cache={self.use_cache})"

    # -- public ---------------------------------------------------------------

    def get(self, corpus: Corpus, embedder: DocumentEmbedder) -> CorpusEmbeddings:
        """Embeddings of every passage of ``corpus``: loaded from the shipped files or the cache, or computed and cached."""
        keys = tuple(p.key for p in corpus)
        params = dict(embedder.embedding_signature())
        dims = embedder.expected_dims()
        path = self.path_for(corpus, embedder) if self.use_cache else None
        shipped = self.shipped_path_for(corpus, embedder) if self.use_cache else None
        # shipped (read-only) files first, then the cache; both go through the same verification
        for candidate, what, fallback in (
            (shipped, "shipped embeddings", "using the cache instead"),
            (path, "embedding cache", "recomputing it"),
        ):
            if candidate is None or not candidate.exists():
                continue
            matrix, problem = _load(candidate, keys, params, dims)
            if matrix is not None:
                return CorpusEmbeddings(matrix, keys, candidate, computed=False)
            warnings.warn(
                f"{what} {candidate} does not match ({problem}); {fallback}",
                EmbeddingCacheWarning,
                stacklevel=3,
            )
        matrix = self._compute(corpus, embedder, dims)
        if path is not None:
            meta = {
                "format": STORE_FORMAT,
                "embedder": embedder.name,
                "params": params,
                "corpus": corpus.content_hash(),
                "corpus_name": corpus.name,
                "passages": len(keys),
                "dims": int(matrix.shape[1]),
                "dtype": "float32",
                "normalisation": "l2",
                "bordir": __version__,
                "created": datetime.now(UTC).isoformat(timespec="seconds"),
            }
            _write(path, matrix, keys, meta)
        return CorpusEmbeddings(matrix, keys, path, computed=True)

    # -- internals --------------------------------------------------------------

    def _compute(self, corpus: Corpus, embedder: DocumentEmbedder, dims: int | None) -> np.ndarray:
        # identical texts (e.g. a paragraph present in two language editions) are embedded once
        unique: dict[str, int] = {}
        where = np.array([unique.setdefault(p.text, len(unique)) for p in corpus], dtype=np.intp)
        texts = list(unique)
        batch = max(1, int(embedder.batch_size))
        parts = EMBEDDING_EXECUTORS.get(self.executor)(
            texts, embedder, batch_size=batch, progress=self.progress, address=self.address
        )
        if not parts:
            return np.zeros((0, dims or 0), dtype=np.float32)
        width = {p.shape[1] for p in parts}
        if len(width) != 1:
            raise BordirError(
                f"{embedder.name} returned vectors of different sizes {sorted(width)} in one corpus"
            )
        got = width.pop()
        if dims is not None and got != dims:
            raise ConfigError(
                f"{embedder.name} returned {got}-dimensional vectors; its signature says {dims}. "
                "Pass dims= to match the model"
            )
        return l2_normalise(np.concatenate(parts))[where]


def _load(
    path: Path, keys: tuple[tuple[str, str], ...], params: dict[str, str], dims: int | None
) -> tuple[np.ndarray | None, str]:
    """The cached matrix if it matches ``keys``/``params``/``dims``, else ``(None, why)``."""
    try:
        # the file is opened here: np.load leaves its own handle open when the archive is truncated
        with open(path, "rb") as fh, np.load(fh, allow_pickle=False) as z:
            meta = loads(str(z["meta"][()]))
            matrix = np.asarray(z["matrix"])
            langs = z["langs"].tolist()
            ids = z["doc_ids"].tolist()
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
        return None, f"unreadable: {type(exc).__name__}: {exc}"
    if meta.get("format") != STORE_FORMAT:
        return None, f"format {meta.get('format')!r}, expected {STORE_FORMAT}"
    if meta.get("params") != params:
        return None, f"parameters {meta.get('params')!r}, expected {params!r}"
    if matrix.dtype != np.float32 or matrix.ndim != 2:
        return None, f"matrix {matrix.dtype}{list(matrix.shape)}, expected float32 (n, d)"
    if len(langs) != len(keys) or len(ids) != len(keys) or matrix.shape[0] != len(keys):
        return None, f"{matrix.shape[0]} rows for a corpus of {len(keys)} passages"
    if list(zip(langs, ids)) != list(keys):
        return None, "document keys differ from the corpus"
    if dims is not None and matrix.shape[1] != dims and len(keys) > 0:
        return None, f"{matrix.shape[1]} dimensions, expected {dims}"
    return matrix, ""


def _write(
    path: Path, matrix: np.ndarray, keys: tuple[tuple[str, str], ...], meta: dict[str, Any]
) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    langs = np.array([k[0] for k in keys], dtype=str)
    ids = np.array([k[1] for k in keys], dtype=str)
    text = json.dumps(meta, ensure_ascii=False, indent=2)
    with atomic_path(path) as tmp, open(tmp, "wb") as f:
        np.savez(f, matrix=matrix, langs=langs, doc_ids=ids, meta=np.array(text))
    atomic_write_text(path.with_suffix(".json"), text + "\n")
