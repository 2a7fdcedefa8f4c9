"""Where the parts of a free answer begin and end: sentences, segments and clauses.

:mod:`~bordir.generation.parse.free.analyze` gives each country a role inside these parts; this
module holds the cutting (sentence ends, commas that end a clause or only list names, asides set
off by commas, brackets) and how much a part says besides its names.

Example:
    >>> sentences("crimea is ukrainian. it is occupied by russia.")
    [(0, 20), (20, 46)]
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from typing import Protocol, TypeVar

from .cues import Cue

__all__ = [
    "COMMA",
    "PARENS",
    "SEMI",
    "Spanned",
    "cut_at",
    "inside_clause",
    "merge_bare",
    "said_size",
    "sentences",
    "set_off",
    "starting_in",
    "visible",
    "within",
]

_T = TypeVar("_T")


class Spanned(Protocol):
    """Anything found in the answer at ``[start, end)`` (a country's name, a cue word)."""

    @property
    def start(self) -> int: ...

    @property
    def end(self) -> int: ...


_SENTENCE_END = re.compile(r"[.!?。！？।॥۔؟։።။។\n]+")
COMMA = re.compile(r"[,،、，፣]")
PARENS = re.compile(r"[(（][^()（）]*[)）]")
SEMI = re.compile(r"[;؛；]")


def sentences(folded: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each sentence of folded text (its end punctuation included)."""
    out, start = [], 0
    n = len(folded)
    for m in _SENTENCE_END.finditer(folded):
        end = m.end()
        last = folded[end - 1]
        if last == "." and end < n and end - m.start() == 1 and not folded[end].isspace():
            continue  # u.n., 3.5: not an end (a full stop before a line break is one)
        # a run ending in punctuation holds more than spaces: only line breaks need a look
        if last != "\n" or folded[start:end].strip():
            out.append((start, end))
        start = end
    if folded[start:].strip():
        out.append((start, n))
    return out


def cut_at(a: int, b: int, positions: Iterable[int]) -> list[tuple[int, int]]:
    """The adjacent spans ``[a, b)`` is cut into at ``positions`` (those inside it)."""
    edges = sorted({a, b, *(p for p in positions if a < p < b)})
    return list(zip(edges, edges[1:]))


def within(
    spans: list[tuple[int, int]], pos: int, starts: list[int] | None = None
) -> tuple[int, int]:
    """The span of ``spans`` (sorted, adjacent) holding ``pos`` (``starts``: their starts, if at hand)."""
    i = bisect_right(starts if starts is not None else [a for a, _ in spans], pos) - 1
    return spans[i] if 0 <= i < len(spans) and pos < spans[i][1] else spans[-1]


_WORDS = re.compile(r"[^\W\d_]+")
_UNSPACED_RUN = re.compile("[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u2e80-\U0002ffff]")


def said_size(
    folded: str,
    a: int,
    b: int,
    mentions: Sequence[Spanned],
    cues: Sequence[Cue],
    mention_starts: Sequence[int] | None = None,
    cue_starts: Sequence[int] | None = None,
) -> int:
    """How much is said between ``a`` and ``b`` besides the names and answer labels (≈ letters).

    ``mentions`` and ``cues`` are in text order; only those inside ``[a, b)`` are looked at.
    """
    inside: list[Spanned] = list(starting_in(mentions, a, b, mention_starts))
    inside += [c for c in starting_in(cues, a, b, cue_starts) if c.category == "conclusion"]
    pieces, pos = [], a
    for lo, hi in sorted((max(x.start, a), min(x.end, b)) for x in inside):
        if lo > pos:
            pieces.append(folded[pos:lo])
        pos = max(pos, hi)
    pieces.append(folded[pos:b])
    rest = " ".join(pieces)
    if _UNSPACED_RUN.search(rest):
        return sum(len(w) for w in _WORDS.findall(rest))
    return 3 * len(_WORDS.findall(rest))


def starting_in(
    items: Sequence[_T], a: int, b: int, starts: Sequence[int] | None = None
) -> Sequence[_T]:
    """The items (in text order, with ``.start``) starting in ``[a, b)`` (``starts``: theirs, if at hand)."""
    if starts is None:
        starts = [x.start for x in items]  # type: ignore[attr-defined]
    return items[bisect_left(starts, a) : bisect_left(starts, b)]


def inside_clause(folded: str, c: Cue, a: int, adverbs: frozenset[str]) -> bool:
    """A contrast adverb inside its clause (``betrachtet es jedoch als``): no new part starts there."""
    if c.category != "contrast" or folded[c.start : c.end] not in adverbs:
        return False
    before = folded[a : c.start].rstrip()
    return bool(before) and before[-1].isalnum()


def set_off(folded: str, c: Cue) -> bool:
    """A connective between commas (``, however,``): an aside, not the start of a new part."""
    before = folded[max(c.start - 2, 0) : c.start].rstrip()
    return before.endswith(",") and folded[c.end : c.end + 1] == ","


def merge_bare(
    commas: list[int], a: int, b: int, sc: list[Cue], starts: list[int], masked: list[int]
) -> list[int]:
    """Drop the comma after a clause that holds names and nothing else to say.

    Such a clause (no cue word, not the territory: ``Sudan, and later South Sudan, has claimed
    it``) belongs with the clause that says something of them (the one before, for the last
    clause).
    """
    if not commas:
        return commas
    cue_starts = [c.start for c in sc]
    out, lo = [], a
    for x in commas:
        has_cue = bisect_left(cue_starts, lo) < bisect_left(cue_starts, x)
        has_name = bisect_left(starts, lo) < bisect_left(starts, x)
        says = has_cue or any(lo <= p < x for p in masked)
        if says or not has_name:
            out.append(x)
            lo = x
    if out:  # a last clause listing names only (… claimed by several countries, including A, B, C)
        has_cue = bisect_left(cue_starts, out[-1]) < bisect_left(cue_starts, b)
        names = bisect_left(starts, b) - bisect_left(starts, out[-1])
        if names >= 2 and not has_cue and not any(out[-1] <= p < b for p in masked):
            out.pop()
    return out


def visible(c: Cue, m: Spanned, parens: list[tuple[int, int]]) -> bool:
    """Whether a cue in brackets may speak of this name.

    It speaks only of the names in the same brackets, or of the name right before them
    (``Ukraine (de jure)``).
    """
    return not any(
        p < c.start < q and not p < m.start < q and not 0 <= p - m.end <= 1 for p, q in parens
    )
