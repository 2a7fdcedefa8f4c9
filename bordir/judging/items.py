"""Labelled items for judge calibration: :class:`JudgeItem` (one thing a judge rates, with its human labels) and :class:`ItemSet`.

An item is what one judge call rates: a question, its context passages, the text
judged (an answer, or one sentence of it) and the human label(s) of that text.
Items of one question share a ``cluster`` (the question's id): the bootstrap
resamples questions, not items, since sentences of one answer are not
independent ratings.

The human reference ``label`` is the one label of a single-label set, or the
plurality of several annotators (None on a tie: such an item is left out of the
agreement and counted). A label the task treats as an abstention (MEMERAG's
``Challenging to determine``) is kept as it is: the agreement leaves it out by
default and counts it.

Example:
    >>> it = JudgeItem("en/1/0", "en", "Why?", ("Because.",), "Because.", "Supported",
    ...                (("a1", "Supported"), ("a2", "Supported"), ("a3", "Not Supported")), "en/1")
    >>> it.label, it.n_annotators
    ('Supported', 3)
    >>> ItemSet([it], name="toy", ident="sha256-0").langs
    ('en',)
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .._sequence import TupleSequence

__all__ = ["JudgeItem", "ItemSet", "content_hash"]


@dataclass(frozen=True, slots=True)
class JudgeItem:
    """One rated text with its human label(s).

    Attributes:
        item_id: unique in its set (MEMERAG: ``<lang>/<query_id>/<sentence_id>``).
        lang: the item's language (a bordir code).
        question: the question asked.
        context: the passages the answer should rest on (never empty).
        text: the text the judge rates (an answer, or one sentence of it).
        label: the human reference label (the plurality of the annotators; None on a tie).
        annotations: ``(annotator, label)`` of every human who labelled it.
        cluster: the question's id: the bootstrap's resampling unit.
        source: where it was read (``path:line``).
        extra: further fields a task may need (``territory``, ``claimants`` …), as ``(key, value)`` pairs.
    """

    item_id: str
    lang: str
    question: str
    context: tuple[str, ...]
    text: str
    label: str | None
    annotations: tuple[tuple[str, str], ...]
    cluster: str
    source: str = ""
    extra: tuple[tuple[str, Any], ...] = field(default=())

    @property
    def n_annotators(self) -> int:
        """How many humans labelled the item."""
        return len(self.annotations)

    def get(self, key: str, default: Any = None) -> Any:
        """A value of ``extra``."""
        return dict(self.extra).get(key, default)


class ItemSet(TupleSequence[JudgeItem]):
    """The labelled items of one data set, in file order.

    Attributes:
        name: the data set's name in signatures (``memerag``, ``memerag_ext``, ``labels:my.jsonl``).
        ident: ``sha256-…`` of the bytes read (the data's identity in the signature).
        path: where it was read from.
        dropped: items left out while reading, by reason (``{"limit": 12}``); said, never silent.
        meta: facts about how it was read (the variant, the annotators …).
    """

    def __init__(
        self,
        items: Iterable[JudgeItem],
        *,
        name: str,
        ident: str,
        path: str = "",
        dropped: Mapping[str, int] | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(items)
        self.name = name
        self.ident = ident
        self.path = path
        self.dropped = dict(dropped or {})
        self.meta = dict(meta or {})

    def __repr__(self) -> str:
        return f"ItemSet({self.name!r}, {len(self)} items, langs={list(self.langs)!r})"

    @property
    def langs(self) -> tuple[str, ...]:
        """The languages of the items, sorted."""
        return tuple(sorted({i.lang for i in self}))

    @property
    def max_annotators(self) -> int:
        """The most annotators any item has."""
        return max((i.n_annotators for i in self), default=0)

    def select(self, langs: Iterable[str] | None = None, limit: int | None = None) -> ItemSet:
        """The items of ``langs`` (None: all), at most the first ``limit`` questions per language."""
        wanted = None if langs is None else set(langs)
        kept: list[JudgeItem] = []
        questions: dict[str, set[str]] = {}
        left = 0
        for it in self:
            if wanted is not None and it.lang not in wanted:
                continue
            seen = questions.setdefault(it.lang, set())
            if limit is not None and it.cluster not in seen and len(seen) >= limit:
                left += 1
                continue
            seen.add(it.cluster)
            kept.append(it)
        dropped = dict(self.dropped)
        if left:
            dropped["limit"] = dropped.get("limit", 0) + left
        return ItemSet(
            kept, name=self.name, ident=self.ident, path=self.path, dropped=dropped, meta=self.meta
        )


def content_hash(chunks: Iterable[bytes]) -> str:
    """``sha256-<12 hex>`` of the bytes read.

    >>> content_hash([b"a", b"b"]) == content_hash([b"ab"])
    True
    """
    h = hashlib.sha256()
    for c in chunks:
        h.update(c)
    return f"sha256-{h.hexdigest()[:12]}"
