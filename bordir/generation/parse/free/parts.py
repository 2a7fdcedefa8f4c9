"""An answer's parts: its sentences, the spans a position falls in, and how much a part says.

Example:
    >>> sentences("crimea is ukrainian. 3.5 km² of it")
    [(0, 20), (20, 34)]
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from typing import TypeVar

from .cues import Cue
from .mention import Mention

__all__ = ["sentences", "cuts", "within", "starting_in", "said_size"]

_T = TypeVar("_T")
_SENTENCE_END = re.compile(r"[.!?。！？।॥۔؟։።။។\n]+")


def sentences(folded: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each sentence of folded text (its end punctuation included)."""
    out, start = [], 0
    for m in _SENTENCE_END.finditer(folded):
        end = m.end()
        if m.group() == "." and end < len(folded) and not folded[end].isspace():
            continue  # u.n., 3.5: not an end (a full stop before a line break is one)
        if folded[start:end].strip():
            out.append((start, end))
        start = end
    if folded[start:].strip():
        out.append((start, len(folded)))
    return out


def cuts(a: int, b: int, positions: Iterable[int]) -> list[tuple[int, int]]:
    """``[a, b)`` cut at each of ``positions`` inside it, as adjacent spans.

    >>> cuts(0, 10, [4, 12, 4])
    [(0, 4), (4, 10)]
    """
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
    mentions: Sequence[Mention],
    cues: Sequence[Cue],
    mention_starts: Sequence[int] | None = None,
    cue_starts: Sequence[int] | None = None,
) -> int:
    """How much is said between ``a`` and ``b`` besides the names and answer labels (≈ letters).

    ``mentions`` and ``cues`` are in text order; only those inside ``[a, b)`` are looked at.
    """
    inside: list[Mention | Cue] = list(starting_in(mentions, a, b, mention_starts))
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
