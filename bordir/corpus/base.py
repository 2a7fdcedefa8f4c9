"""The in-memory corpus type: passages retrieval draws from, grouped in (territory, language) pools.

Every corpus source loads into :class:`Corpus` (or its subclass
:class:`~bordir.corpus.pooled.PooledCorpus`): the bundled demo corpus, passages
files, a corpus directory, BordIRLines ``all_docs.json`` and raw articles.

Example:
    >>> from bordir.loaders import load_demo_corpus
    >>> corpus = load_demo_corpus()
    >>> pool = corpus.pool("Crimea", "uk")
    >>> 8 <= len(pool) <= 15 and all(p.lang == "uk" for p in pool)
    True
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable
from functools import cached_property

import pandas as pd

from .._sequence import TupleSequence
from ..errors import ConfigError, DataError
from ..records import Passage

__all__ = ["Corpus"]


class Corpus(TupleSequence[Passage]):
    """An immutable, ordered collection of :class:`Passage` keyed by ``(lang, doc_id)``."""

    def __init__(self, passages: Iterable[Passage], *, name: str = "", source: str = "") -> None:
        super().__init__(passages)
        self.name = name
        self.source = source
        index: dict[tuple[str, str], int] = {}
        for i, p in enumerate(self._items):
            if p.key in index:
                raise DataError(
                    f"duplicate document {p.doc_id!r} in language {p.lang!r}", path=source or None
                )
            index[p.key] = i
        self._index = index

    def get(self, lang: str, doc_id: str) -> Passage:
        """The passage ``doc_id`` of language ``lang``."""
        try:
            return self._items[self._index[(lang, doc_id)]]
        except KeyError:
            raise ConfigError(
                f"corpus {self.name!r} has no document {doc_id!r} in language {lang!r}"
            ) from None

    @cached_property
    def _pools(self) -> dict[tuple[str, str], tuple[Passage, ...]]:
        pools: dict[tuple[str, str], list[Passage]] = defaultdict(list)
        for p in self._items:
            pools[(p.territory, p.lang)].append(p)
        return {k: tuple(v) for k, v in pools.items()}

    def pool(self, territory: str, lang: str) -> tuple[Passage, ...]:
        """The passages of one (territory, language) pool; empty if there are none."""
        return self._pools.get((territory, lang), ())

    @property
    def langs(self) -> tuple[str, ...]:
        return tuple(sorted({p.lang for p in self._items}))

    @property
    def territories(self) -> tuple[str, ...]:
        return tuple(sorted({p.territory for p in self._items if p.territory}))

    def lang_counts(self) -> dict[str, int]:
        counts: dict[str, int] = defaultdict(int)
        for p in self._items:
            counts[p.lang] += 1
        return dict(sorted(counts.items()))

    def content_hash(self) -> str:
        """``sha256-…`` of the passages' keys and texts, in order: the corpus identity in signatures."""
        h = hashlib.sha256()
        for p in self._items:
            for part in (p.lang, p.doc_id, p.territory, p.text):
                h.update(part.encode("utf-8"))
                h.update(b"\x1f")
            h.update(b"\x1e")
        return "sha256-" + h.hexdigest()[:16]

    def to_frame(self) -> pd.DataFrame:
        """One row per passage: ``doc_id, lang, territory, title, section, text`` plus meta keys."""
        rows = []
        for p in self._items:
            row = {
                "doc_id": p.doc_id,
                "lang": p.lang,
                "territory": p.territory,
                "title": p.title,
                "section": p.section,
                "text": p.text,
            }
            row.update(dict(p.meta))
            rows.append(row)
        return pd.DataFrame(rows)

    def __repr__(self) -> str:
        return f"Corpus(name={self.name!r}, passages={len(self)}, langs={len(self.langs)})"
