"""A dense retriever whose passages live in an on-disk IVF-PQ index (``<retriever>+ivfpq``).

``get_retriever("e5-small+ivfpq")`` (or ``openai/text-embedding-3-large+ivfpq``, …)
wraps the dense retriever named before ``+``: that retriever still embeds the
queries and, through its :class:`~bordir.retrieval.dense.store.EmbeddingStore`,
the passages; its vectors are then written once into an
:class:`~bordir.retrieval.dense.index.IVFPQIndex` persisted next to the
embedding cache file::

    $BORDIR_CACHE/embeddings/<embedder-slug>/<corpus-hash>.npz                  the store
    $BORDIR_CACHE/embeddings/<embedder-slug>/<corpus-hash>.ivfpq-<digest>/      the index

The index records the store file it was built from (path, size, modification and
status-change times, inode), the corpus hash and the build parameters; when any of them changes the
index is rebuilt. A fitted corpus whose index is up to date is opened without
loading the embedding matrix: the vectors stay on disk (memory-mapped).

What the modes need: :func:`bordir.retrieval.run.retrieve` scores each
(territory, language) pool with :meth:`IndexedDenseRetriever.score`, which
reads only the pool's rows and computes their exact cosines, so every mode
ranks exactly as the exact retriever does. Corpus-wide search
(:meth:`IndexedDenseRetriever.search`, for pools too large to score or
corpora without territories) goes through the per-language IVF-PQ indexes,
restricted exactly to the requested languages.

Install with ``pip install 'bordir[index]'``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

import numpy as np

from ..._io.json_read import loads
from ...corpus import Corpus
from ...errors import ConfigError, DataError
from ...records import Passage
from ..base import Retriever, get_retriever
from ..bm25_store import index_lock
from .base import DenseRetriever
from .index import INDEX_FORMAT, IndexParams, IVFPQIndex, faiss_module

__all__ = ["INDEX_KINDS", "IndexedDenseRetriever", "e5_small_ivfpq", "indexed_retriever"]

INDEX_KINDS = ("ivfpq",)
"""Index kinds a retriever name may end with (``e5-small+ivfpq``)."""

_PARAM_NAMES = tuple(f.name for f in fields(IndexParams))


def indexed_retriever(base_name: str, kind: str, **options: Any) -> IndexedDenseRetriever:
    """Build ``<base_name>+<kind>``: index options (``nlist``, ``m``, ``nprobe`` …) go to the index, the rest to the base retriever."""
    if kind not in INDEX_KINDS:
        raise ConfigError(f"unknown index {kind!r}; valid: {', '.join(INDEX_KINDS)}")
    index_opts = {k: options.pop(k) for k in list(options) if k in _PARAM_NAMES}
    index_dir = options.pop("index_dir", None)
    inner = get_retriever(base_name, **options)
    if not isinstance(inner, DenseRetriever):
        raise ConfigError(
            f"{base_name}+{kind}: an index needs a dense (embedding) retriever; {base_name!r} is not one"
        )
    return IndexedDenseRetriever(inner, index_dir=index_dir, **index_opts)


def e5_small_ivfpq(**options: Any) -> IndexedDenseRetriever:
    """``e5-small+ivfpq`` (the registry's entry for the index; ``get_retriever`` builds any ``+ivfpq``)."""
    return indexed_retriever("e5-small", "ivfpq", **options)


class IndexedDenseRetriever(Retriever):
    """A dense retriever served by an on-disk IVF-PQ index.

    Args:
        inner: the dense retriever that embeds queries and passages.
        index_dir: where to keep the index (default: next to the embedding cache file; a
            temporary directory when the store does not cache).
        m: PQ sub-quantizers (default: the vector size / 8, i.e. 8 dimensions per code byte).
        **params: the other :class:`~bordir.retrieval.dense.index.IndexParams` (``nlist``,
            ``nbits``, ``nprobe``, ``refine``, ``min_ivf``, ``train_size``, ``seed``).

    Raises:
        ConfigError: a parameter is invalid.
        MissingExtraError: ``faiss`` is not installed.
    """

    cross_lingual = True
    default_fusion = "raw"

    def __init__(
        self,
        inner: DenseRetriever,
        *,
        index_dir: str | os.PathLike[str] | None = None,
        m: int | None = None,
        **params: Any,
    ) -> None:
        unknown = sorted(set(params) - set(_PARAM_NAMES))
        if unknown:
            raise ConfigError(
                f"unknown index parameter(s) {', '.join(unknown)}; valid: {', '.join(_PARAM_NAMES)}"
            )
        self._faiss = faiss_module()
        self.inner = inner
        self.name = f"{inner.name}+ivfpq"  # type: ignore[misc]
        self._m = m
        self._params = params
        IndexParams(m=m or 1, **params)  # validate now, not at fit
        self.index_dir = None if index_dir is None else Path(index_dir)
        self.index: IVFPQIndex | None = None
        self.rebuilt = False
        """True if the last :meth:`fit` built the index, False if it opened an up-to-date one."""

    def params_for(self, dims: int) -> IndexParams:
        """The index parameters for ``dims``-dimensional vectors."""
        m = self._m if self._m is not None else max(1, dims // 8 if dims % 8 == 0 else 1)
        return IndexParams(m=m, **self._params)

    # -- Retriever -------------------------------------------------------------

    def fit(self, corpus: Corpus) -> None:
        """Open the corpus's index if it is up to date with the embedding store, else (re)build it."""
        keys = tuple(p.key for p in corpus)
        dims = self.inner.expected_dims()
        target = self._target(corpus, dims)
        if dims is not None and target is not None:
            with index_lock(target):  # one process builds; the others wait and open its index
                opened = self._open_if_current(target, corpus, keys, self.params_for(dims))
                if opened is not None:
                    self.index, self.rebuilt = opened, False
                    return
                self._build(corpus, keys, target)
            return
        self._build(corpus, keys, None)

    def _build(
        self, corpus: Corpus, keys: tuple[tuple[str, str], ...], target: Path | None
    ) -> None:
        emb = self.inner.store.get(corpus, self.inner)
        params = self.params_for(emb.dims)
        if target is None:
            target = self._target(corpus, emb.dims) or self._tempdir()
        source = {
            **_source(emb.path),
            "corpus": corpus.content_hash(),
            "embedding": self.inner.embedding_signature(),
        }
        # the store's rows are unit already: copied bit for bit, so pool scores equal the exact ones
        self.index = IVFPQIndex.build(
            emb.matrix, keys, target, params, source=source, normalise=False
        )
        self.rebuilt = True

    def score(self, query_text: str, query_lang: str, docs: Sequence[Passage]) -> np.ndarray:
        """Exact cosine of the query to each of ``docs``, read from the memory-mapped vectors."""
        index = self._fitted()
        if len(docs) == 0:
            return np.zeros(0)
        rows = np.empty(len(docs), dtype=np.int64)
        for i, p in enumerate(docs):
            row = index.row(p.key)
            if row is None:
                raise ConfigError(
                    f"document {p.doc_id!r} ({p.lang}) is not in the corpus the retriever was fitted on; "
                    "call fit() with the corpus the pools come from"
                )
            rows[i] = row
        return index.score_rows(self.inner.query_vector(query_text), rows).astype(float)

    def search(
        self, query_text: str, k: int = 10, *, langs: Iterable[str] | None = None
    ) -> list[tuple[str, str, float]]:
        """Approximate cosine search over the fitted corpus: ``(lang, doc_id, score)``, best first.

        Args:
            query_text: the query.
            k: how many passages.
            langs: only passages of these languages (each language has its own index).
        """
        index = self._fitted()
        rows, scores = index.search(
            self.inner.query_vector(query_text), k, None if langs is None else list(langs)
        )
        return [(*index.key(r), float(s)) for r, s in zip(rows.tolist(), scores.tolist())]

    def warm_queries(self, texts: Iterable[str]) -> None:
        """Embed many queries ahead of scoring (see :meth:`DenseRetriever.warm_queries`)."""
        self.inner.warm_queries(texts)

    def signature(self) -> dict[str, str]:
        p = asdict(self.params_for(self.inner.expected_dims() or 8))
        return {
            **self.inner.signature(),
            "ret": self.name,
            "index": "ivfpq",
            **{k: str(p[k]) for k in ("nlist", "nbits", "nprobe", "refine", "min_ivf")},
            "m": str(self._m) if self._m is not None else "d/8",
            "faiss": str(getattr(self._faiss, "__version__", "unknown")),
        }

    # -- internals --------------------------------------------------------------

    def _fitted(self) -> IVFPQIndex:
        if self.index is None:
            raise ConfigError(f"retriever {self.name!r} is not fitted; call fit(corpus) first")
        return self.index

    def _target(self, corpus: Corpus, dims: int | None) -> Path | None:
        """The index directory for ``corpus`` (None: the store does not cache and no index_dir was given)."""
        if dims is None:
            return None
        digest = hashlib.sha256(
            json.dumps(
                {"format": INDEX_FORMAT, **self.params_for(dims).build_key()}, sort_keys=True
            ).encode()
        ).hexdigest()[:10]
        name = f"{corpus.content_hash()}.ivfpq-{digest}"
        if self.index_dir is not None:
            return self.index_dir / _slug(self.inner) / name
        store = self.inner.store
        if not store.use_cache:
            return None
        return store.path_for(corpus, self.inner).with_name(name)

    def _open_if_current(
        self, target: Path, corpus: Corpus, keys: tuple[tuple[str, str], ...], params: IndexParams
    ) -> IVFPQIndex | None:
        meta_path = target / "meta.json"
        if not meta_path.exists():
            return None
        try:
            meta = loads(meta_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        src = meta.get("source", {})
        store = self.inner.store
        candidates = [
            store.shipped_path_for(corpus, self.inner),
            store.path_for(corpus, self.inner),
        ]
        current = (
            meta.get("format") == INDEX_FORMAT
            and meta.get("params", {}).get("nlist") is not None
            and {k: meta["params"].get(k) for k in params.build_key()} == params.build_key()
            and src.get("corpus") == corpus.content_hash()
            and src.get("embedding") == self.inner.embedding_signature()
            and any(
                c is not None and _source(c) == {k: src.get(k) for k in _SOURCE_KEYS}
                for c in candidates
            )
        )
        if not current:
            return None
        try:
            index = IVFPQIndex(target, params)
        except (DataError, OSError, RuntimeError):  # damaged (e.g. removed by hand): rebuild
            return None
        return index if index.keys == keys else None

    def _tempdir(self) -> Path:
        tmp = tempfile.mkdtemp(prefix="bordir-ivfpq-")
        weakref.finalize(self, shutil.rmtree, tmp, True)
        return Path(tmp) / "index"


_SOURCE_KEYS = ("file", "size", "mtime_ns", "ctime_ns", "inode")


def _source(path: Path | None) -> dict[str, Any]:
    """What identifies a store file's contents cheaply: path, size, times and inode.

    Not a hash of the contents (reading gigabytes at every ``fit`` is what the index avoids).
    The corpus texts are covered by the corpus hash (in the directory name and the source).
    The store is written by renaming a new file into place, so a rewrite changes the inode
    and the status-change time even when the size is equal and the modification time was
    kept (``cp -p``, ``rsync -t``, a coarse-clock filesystem, the same second).
    """
    if path is None or not Path(path).exists():
        return dict.fromkeys(_SOURCE_KEYS)
    st = Path(path).stat()
    return {
        "file": str(path),
        "size": st.st_size,
        "mtime_ns": st.st_mtime_ns,
        "ctime_ns": st.st_ctime_ns,
        "inode": st.st_ino,
    }


def _slug(inner: DenseRetriever) -> str:
    from .store import embedder_slug

    return embedder_slug(inner.name, inner.embedding_signature())
