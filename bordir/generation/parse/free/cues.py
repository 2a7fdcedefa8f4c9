"""The cue words of one answer: found with the lexicon's automaton, checked as words, filtered by language.

A match of the automaton is the longest cue at its position; when it does not stand as a word, the
shorter cues it begins with are tried (``controll`` of Italian fails in ``controlled`` where English
``control*`` holds). A cue counts when

* it does not continue a word on its left (in Arabic and Hebrew script up to two proclitic letters,
  ``ل``, ``و``, ``ב``, ``ה`` …, may stand before it: ``للإدارة``, ``لسيطرة``);
* it ends a word on its right, unless it is a stem (``claim*``), its script is written without
  spaces, or its language takes suffixes (``suffixes = true``: up to
  :data:`~bordir.generation.parse.free.lexicon.SUFFIX` more letters, ``tartışmalı`` →
  ``tartışmalıdır``);
* it lies outside the territory's own name (``island`` in ``Falkland Islands`` is no geography cue);
* in a script many languages share (Latin, Cyrillic, Arabic), its language is the query's, English,
  or the language of that script the answer is evidently written in (more cue words of its own than
  the query's language and English have, one of four letters or more): Spanish ``no`` is no negation in a
  Portuguese answer, Serbian ``остров`` no geography word in a Russian one.

Example:
    >>> from bordir.generation.parse.free.lexicon import lexicon
    >>> [(c.category, c.lang) for c in cue_hits("israel has controlled it", lexicon(), ("en",))]
    [('control', 'en')]
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from typing import NamedTuple

from .lexicon import SUFFIX, CueSet, Lexicon, unspaced
from .names import PROCLITICS, is_word_char

__all__ = ["Cue", "cue_hits"]

_Found = tuple[int, int, CueSet]
"""A match that holds cues: ``(start, end, what it may hold)``."""


class Cue(NamedTuple):
    """A cue word found in folded text (a named tuple: one is built per cue of every answer)."""

    start: int
    end: int
    category: str
    lang: str


def _word_end(folded: str, end: int) -> int:
    stop = end
    while stop < len(folded) and is_word_char(folded[stop]):
        stop += 1
    return stop


def _starts_word(folded: str, start: int) -> bool:
    """A word starts at ``start`` (up to two Arabic / Hebrew proclitic letters may stand before)."""
    if not start or not is_word_char(folded[start - 1]) or not is_word_char(folded[start]):
        return True
    if unspaced(folded[start]):
        return True
    j, k = start - 1, 0
    while j >= 0 and k < 2 and folded[j] in PROCLITICS:
        j, k = j - 1, k + 1
    return k > 0 and (j < 0 or not is_word_char(folded[j]))


def _merged(masks: Sequence[tuple[int, int]]) -> tuple[list[int], list[int]]:
    """``masks`` as sorted, disjoint spans: their starts and their ends (a position test is a bisect)."""
    starts: list[int] = []
    ends: list[int] = []
    for a, b in sorted(masks):
        if a >= b:
            continue
        if ends and a <= ends[-1]:
            ends[-1] = max(ends[-1], b)
        else:
            starts.append(a)
            ends.append(b)
    return starts, ends


def _scan(
    folded: str,
    lex: Lexicon,
    matches: list[tuple[int, int, int]],
    masked: tuple[list[int], list[int]],
    offset: int,
    found: list[_Found],
    blocked: list[tuple[int, int]] | None,
    limit: int = -1,
) -> None:
    """Add the cues of automaton ``matches`` (see the module docs for what counts).

    Per match, the common cases are decided inline (a match inside a word of a spaced script, a
    match after a space): the rules are those of :func:`_starts_word` and :func:`is_word_char`.
    """
    n = len(folded)
    plans = lex.plans
    first_unspaced = lex.first_unspaced
    mask_starts, mask_ends = masked
    note = blocked is not None
    for idx, s0, e0 in matches:
        start = s0 + offset
        if 0 <= limit <= start:
            continue
        after_word = False  # a letter, digit or mark before the match (is_word_char)
        if start:
            prev = folded[start - 1]
            if prev.isalnum():
                # the common case first: a match inside a word of a spaced script
                if prev not in PROCLITICS and not first_unspaced[idx]:
                    if note:
                        stop = e0 + offset
                        space = folded.find(" ", start, stop)
                        if space != -1 and not _in_mask(mask_starts, mask_ends, start):
                            blocked.append((space + 1, stop))  # type: ignore[union-attr]
                    continue
                after_word = True
            else:
                after_word = "\u0300" <= prev <= "\u036f" or "\u0900" <= prev <= "\u0dff"
        if mask_starts:
            i = bisect_right(mask_starts, start) - 1
            if i >= 0 and start < mask_ends[i]:
                continue
        if after_word and not _starts_word(folded, start):
            if note:
                space = folded.find(" ", start, e0 + offset)
                if space != -1:
                    blocked.append((space + 1, e0 + offset))  # type: ignore[union-attr]
            continue
        took = False
        for length, closes, every, short, stems in plans[idx]:
            end = start + length
            held = every
            if closes and end < n:
                ch = folded[end]
                if ch.isalnum() or "\u0300" <= ch <= "\u036f" or "\u0900" <= ch <= "\u0dff":
                    held = stems  # the word goes on: stems, and suffixes of a suffixing language
                    if short is not stems and _word_end(folded, end) - end <= SUFFIX:
                        held = short
            if held is not None:
                found.append((start, end, held))
                took = True
        if not took and note:
            space = folded.find(" ", start, e0 + offset)
            if space != -1:  # a longer cue over two words hid one starting at its second word
                blocked.append((space + 1, e0 + offset))  # type: ignore[union-attr]


def _in_mask(mask_starts: list[int], mask_ends: list[int], pos: int) -> bool:
    """Whether ``pos`` lies in one of the merged masks (their starts and ends, sorted)."""
    i = bisect_right(mask_starts, pos) - 1
    return i >= 0 and pos < mask_ends[i]


def _evident_language(
    found: list[_Found], lex: Lexicon, prefer: set[str], once: bool = True
) -> dict[str, str]:
    """Per shared script (Latin, Cyrillic, Arabic), the language the answer is evidently in.

    Each cue word found counts for its languages only when no language of ``prefer`` has it too; the
    language with most such words wins when it has more than ``prefer`` has words found and one of
    them has four letters or more (a short word alone, Spanish ``ni`` in Swahili, is no evidence).
    """
    out: dict[str, str] = {}
    words: dict[str, list[str]] = {}
    if once:  # one scan: each (start, end) once
        for _, _, g in found:
            if g.script:
                words.setdefault(g.script, []).append(g.text)
    else:
        for _, _, script, text in sorted(
            {(s, e, g.script, g.text) for s, e, g in found if g.script}
        ):
            words.setdefault(script, []).append(text)
    for script, texts in words.items():
        mine: dict[str, set[str]] = {}
        ours = 0
        for text in texts:
            owners = lex.owners[text]
            if not owners.isdisjoint(prefer):
                ours += 1
            else:
                for lang in owners:
                    mine.setdefault(lang, set()).add(text)
        if not mine:
            continue
        best = max(sorted(mine), key=lambda lang: len(mine[lang]))
        if len(mine[best]) > ours and max(map(len, mine[best])) >= 4:
            out[script] = best
    return out


def cue_hits(
    folded: str,
    lex: Lexicon,
    prefer: Sequence[str],
    masks: Sequence[tuple[int, int]] = (),
) -> list[Cue]:
    """The cues of folded text, in text order (see the module docs)."""
    found: list[_Found] = []
    blocked: list[tuple[int, int]] = []
    masked = _merged(masks)
    _scan(folded, lex, lex.automaton.find_matches_as_indexes(folded), masked, 0, found, blocked)
    for lo, hi in blocked:
        sub = lex.automaton.find_matches_as_indexes(folded[lo : hi + 40])
        _scan(folded, lex, sub, masked, lo, found, None, hi)
    active = set(prefer)
    kept: list[tuple[int, int, Sequence[tuple[str, str]]]]
    if any(g.script and not g.langs <= active for _, _, g in found):  # another language's word
        best = _evident_language(found, lex, active, not blocked)
        kept = []
        for s, e, g in found:
            if not g.script or g.langs <= active:
                kept.append((s, e, g.entries))
                continue
            mine = best.get(g.script)
            held = [(c, lang) for c, lang in g.entries if lang in active or lang == mine]
            if held:
                kept.append((s, e, held))
    else:
        kept = [(s, e, g.entries) for s, e, g in found]
    if not blocked:
        return _in_order(kept)
    longest: dict[int, int] = {}  # per start, the longest cue of an active language: it wins
    for s, e, _ in kept:
        longest[s] = max(longest.get(s, e), e)
    out: dict[tuple[int, int, str], Cue] = {}
    for s, e, entries in kept:
        if e == longest[s]:
            for c, lang in entries:
                if (s, e, c) not in out:
                    out[(s, e, c)] = Cue(s, e, c, lang)
    return sorted(out.values(), key=lambda c: (c.start, c.end))


def _in_order(kept: list[tuple[int, int, Sequence[tuple[str, str]]]]) -> list[Cue]:
    """The cues of one scan's finds (in start order, the longest of a start first).

    Per start, the longest, once per category (its first language).
    """
    out: list[Cue] = []
    at = -1
    new = tuple.__new__  # Cue(…) without the named tuple's Python-level __new__
    for s, e, entries in kept:
        if s == at:
            continue
        at = s
        if len(entries) == 1:
            c, lang = entries[0]
            out.append(new(Cue, (s, e, c, lang)))
            continue
        cats: set[str] = set()
        for c, lang in entries:
            if c not in cats:
                cats.add(c)
                out.append(new(Cue, (s, e, c, lang)))
    return out
