"""Pools that share passages: :class:`PooledCorpus`, a corpus whose passages may belong to several pools.

A Wikipedia paragraph of a claimant country's article (e.g. *Russia*) belongs to
the pools of every territory that country claims; each ``(lang, doc_id)`` is
stored once and the extra memberships are ``(territory, lang, doc_id)`` rows.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable
from functools import cached_property

import pandas as pd

from ..errors import DataError
from ..records import Passage
from .base import Corpus

__all__ = ["PooledCorpus", "PoolRow"]

PoolRow = tuple[str, str, str]
"""One extra pool membership: ``(territory, lang, doc_id)``."""


class PooledCorpus(Corpus):
    """A :class:`~bordir.corpus.Corpus` whose passages may belong to several (territory, language) pools.

    A passage is in the pool of its own ``territory`` (if any) and in the pool of
    every territory ``extra_pools`` lists for its key. A pool keeps corpus order.

    Args:
        passages: the passages (keys unique).
        extra_pools: ``(territory, lang, doc_id)`` rows, each adding one passage to one more pool.

    Example:
        >>> ps = [Passage("1_p0", "en", "Russia is a country.", territory="Crimea"),
        ...       Passage("9_p0", "en", "Crimea is a peninsula.", territory="Crimea")]
        >>> c = PooledCorpus(ps, extra_pools=[("Kuril Islands", "en", "1_p0")])
        >>> [p.doc_id for p in c.pool("Kuril Islands", "en")], c.territories
        (['1_p0'], ('Crimea', 'Kuril Islands'))
        >>> c.territories_of("en", "1_p0")
        ('Crimea', 'Kuril Islands')
    """

    def __init__(
        self,
        passages: Iterable[Passage],
        *,
        extra_pools: Iterable[PoolRow] = (),
        name: str = "",
        source: str = "",
    ) -> None:
        super().__init__(passages, name=name, source=source)
        primary = {p.key: p.territory for p in self}
        extra: dict[tuple[str, str], list[str]] = defaultdict(list)
        rows: list[PoolRow] = []
        for territory, lang, doc_id in extra_pools:
            key = (lang, doc_id)
            if key not in primary:
                raise DataError(
                    f"pool row ({territory!r}, {lang!r}, {doc_id!r}) names a document the corpus does not have",
                    path=source or None,
                )
            if not territory or territory == primary[key] or territory in extra[key]:
                continue
            extra[key].append(territory)
            rows.append((territory, lang, doc_id))
        self._extra = {k: tuple(v) for k, v in extra.items()}
        self._extra_rows = tuple(rows)

    @property
    def extra_pools(self) -> tuple[PoolRow, ...]:
        """The extra ``(territory, lang, doc_id)`` memberships, in the order given."""
        return self._extra_rows

    def territories_of(self, lang: str, doc_id: str) -> tuple[str, ...]:
        """Every territory whose pool holds the passage (its own first)."""
        p = self.get(lang, doc_id)
        own = (p.territory,) if p.territory else ()
        return own + self._extra.get(p.key, ())

    @cached_property
    def _multi_pools(self) -> dict[tuple[str, str], tuple[Passage, ...]]:
        pools: dict[tuple[str, str], list[Passage]] = defaultdict(list)
        for p in self:
            if p.territory:
                pools[(p.territory, p.lang)].append(p)
            for t in self._extra.get(p.key, ()):
                pools[(t, p.lang)].append(p)
        return {k: tuple(v) for k, v in pools.items()}

    def pool(self, territory: str, lang: str) -> tuple[Passage, ...]:
        return self._multi_pools.get((territory, lang), ())

    @property
    def territories(self) -> tuple[str, ...]:
        return tuple(sorted({t for t, _ in self._multi_pools}))

    def content_hash(self) -> str:
        """The :class:`~bordir.corpus.Corpus` hash, extended by the extra pool rows when there are any."""
        base = super().content_hash()
        if not self._extra_rows:
            return base
        h = hashlib.sha256(base.encode("ascii") + b"\x1d")
        for row in self._extra_rows:
            h.update("\x1f".join(row).encode("utf-8") + b"\x1e")
        return "sha256-" + h.hexdigest()[:16]

    def to_frame(self) -> pd.DataFrame:
        """As :meth:`Corpus.to_frame`, plus ``pools``: every territory of the passage, ``;``-joined."""
        df = super().to_frame()
        df["pools"] = [";".join(self.territories_of(p.lang, p.doc_id)) for p in self]
        return df

    def __repr__(self) -> str:
        return (
            f"PooledCorpus(name={self.name!r}, passages={len(self)}, langs={len(self.langs)}, "
            f"extra_pool_rows={len(self._extra_rows)})"
        )
