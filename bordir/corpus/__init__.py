"""Corpora: the passages retrieval draws from, in memory and on disk, and the one loader.

Modules:

* :mod:`~bordir.corpus.base` — :class:`Corpus`, the in-memory type (pools by (territory, language));
* :mod:`~bordir.corpus.pooled` — :class:`PooledCorpus`, passages shared by several pools;
* :mod:`~bordir.corpus.parts` — passages and pool rows as Parquet parts;
* :mod:`~bordir.corpus.manifest` — a corpus directory's ``manifest.json`` and signature;
* :mod:`~bordir.corpus.store` — :class:`CorpusStore` (append, compact) and :func:`save_corpus`;
* :mod:`~bordir.corpus.readers` — one reader per file format;
* :mod:`~bordir.corpus.load` — :func:`load_corpus`, which picks the reader.

Example:
    >>> from bordir.corpus import Corpus, load_corpus
    >>> corpus = load_corpus("demo")
    >>> isinstance(corpus, Corpus)
    True
    >>> pool = corpus.pool("Crimea", "uk")
    >>> 8 <= len(pool) <= 15 and all(p.lang == "uk" for p in pool)
    True
"""

from __future__ import annotations

from .base import Corpus
from .load import corpus_kind, load_corpus
from .manifest import FORMAT, is_corpus_dir, read_manifest, signature
from .pooled import PooledCorpus, PoolRow
from .store import CorpusStore, save_corpus

__all__ = [
    "Corpus",
    "PooledCorpus",
    "PoolRow",
    "CorpusStore",
    "FORMAT",
    "save_corpus",
    "load_corpus",
    "corpus_kind",
    "read_manifest",
    "is_corpus_dir",
    "signature",
]
