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

from collections.abc import Sequence
from dataclasses import dataclass

from .lexicon import SUFFIX, Lexicon, unspaced
from .names import PROCLITICS, is_word_char

__all__ = ["Cue", "cue_hits"]


@dataclass(frozen=True, slots=True)
class Cue:
    """A cue word found in folded text."""

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


def _scan(
    folded: str,
    lex: Lexicon,
    matches: list[tuple[int, int, int]],
    masked: set[int],
    offset: int,
    found: list[tuple[int, int, str, str, str]],
    blocked: list[tuple[int, int]] | None,
    limit: int = -1,
) -> None:
    """Add the cues of automaton ``matches`` (see the module docs for what counts)."""
    n = len(folded)
    plans = lex.plans
    for idx, s0, e0 in matches:
        start = s0 + offset
        if 0 <= limit <= start or start in masked:
            continue
        if start:
            prev = folded[
                start - 1
            ]  # the common case first: a match inside a word of a spaced script
            if prev.isalnum() and prev not in PROCLITICS and not unspaced(folded[start]):
                if blocked is not None and " " in folded[start : e0 + offset]:
                    blocked.append((folded.find(" ", start) + 1, e0 + offset))
                continue
        took = False
        for length, closes, entries in plans[idx] if _starts_word(folded, start) else ():
            end = start + length
            open_right = closes and end < n and is_word_char(folded[end])
            for category, lang, stem, script, suffixes in entries:
                if open_right and not stem:
                    if not suffixes or _word_end(folded, end) - end > SUFFIX:
                        continue
                found.append((start, end, category, lang, script))
                took = True
        if not took and blocked is not None:
            space = folded.find(" ", start, e0 + offset)
            if space != -1:  # a longer cue over two words hid one starting at its second word
                blocked.append((space + 1, e0 + offset))


def _evident_language(
    folded: str, found: list[tuple[int, int, str, str, str]], lex: Lexicon, prefer: set[str]
) -> dict[str, str]:
    """Per shared script (Latin, Cyrillic, Arabic), the language the answer is evidently in.

    Each cue word found counts for its languages only when no language of ``prefer`` has it too; the
    language with most such words wins when it has more than ``prefer`` has words found and one of
    them has four letters or more (a short word alone, Spanish ``ni`` in Swahili, is no evidence).
    """
    out: dict[str, str] = {}
    words: dict[str, list[str]] = {}
    for start, end, script in sorted({(s, e, sc) for s, e, _, _, sc in found if sc}):
        words.setdefault(script, []).append(folded[start:end])
    for script, texts in words.items():
        mine: dict[str, set[str]] = {}
        ours = 0
        for text in texts:
            owners = {lg for _, lg, _ in lex.cues[text]}
            if owners & prefer:
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
    found: list[tuple[int, int, str, str, str]] = []
    blocked: list[tuple[int, int]] = []
    masked: set[int] = set()
    for a, b in masks:
        masked.update(range(a, b))
    _scan(folded, lex, lex.automaton.find_matches_as_indexes(folded), masked, 0, found, blocked)
    for lo, hi in blocked:
        sub = lex.automaton.find_matches_as_indexes(folded[lo : hi + 40])
        _scan(folded, lex, sub, masked, lo, found, None, hi)
    active = set(prefer)
    best = _evident_language(folded, found, lex, active)
    longest: dict[int, int] = {}  # per start, the longest cue of an active language: it wins
    kept = [f for f in found if not f[4] or f[3] in active or best.get(f[4]) == f[3]]
    for s, e, *_ in kept:
        longest[s] = max(longest.get(s, e), e)
    out: dict[tuple[int, int, str], Cue] = {}
    for s, e, c, lang, _ in kept:
        if e == longest[s] and (s, e, c) not in out:
            out[(s, e, c)] = Cue(s, e, c, lang)
    return sorted(out.values(), key=lambda c: (c.start, c.end))
