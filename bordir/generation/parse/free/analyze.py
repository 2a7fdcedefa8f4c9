"""The roles of the countries a free answer names: sentences, their parts, and the cue nearest each name.

The answer (folded) is cut into **sentences** (``. ! ? 。 ！ ？ । ۔ ؟ ։ ። ။ ។`` and line breaks),
each sentence into **segments** at a contrast word (but, however, while, но, pero, 但, しかし …) or a
semicolon, and each segment into **clauses** at commas (``, ، 、 ，``). Every country a sentence names
gets one **role**:

1. ``negated``: a negation of its clause binds to it (the nearest country after the negation in a
   language that negates before, ``not part of Russia``; before it in one that negates after,
   ``ロシアの領土ではない``);
2. in a segment with a claim word (claims, considers, according to, считает …): ``recognized`` if
   the segment also names the international community / law / the UN, else ``claimed`` — a
   reported position, never the answer's own;
3. ``disputed``: its clause calls the territory disputed;
4. else the category of the nearest cue of the segment (at most :data:`REACH` characters away):
   ``sovereign`` (belongs to, part of, territory …; ``historical`` instead when its clause speaks of
   the past: was, until, formerly …), ``recognized``, ``control`` (administered, occupied, de facto
   …) or ``geo`` (borders, near, island …);
5. else, in a short sentence: ``bare`` when the sentence is little more than the name (``Ukraine.``,
   ``Answer: Russia``), ``demonym`` for an adjective (``Crimea is Ukrainian.``), ``copula`` for a
   name (``Крым — Россия.``); otherwise ``mentioned``.

Example:
    >>> from bordir.generation.parse.free.lexicon import lexicon
    >>> t = "crimea belongs to ukraine, but it is occupied by russia."
    >>> hits = [(18, 25, "UA", "name"), (49, 55, "RU", "name")]
    >>> [(m.code, m.role) for m in analyze(t, hits, cue_hits(t, lexicon(), ("en",)))]
    [('UA', 'sovereign'), ('RU', 'control')]
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .lexicon import Lexicon, unspaced
from .names import Hit, is_word_char

__all__ = ["Mention", "Cue", "cue_hits", "analyze", "REACH", "sentences"]

REACH = 60
"""Characters between a country and the cue that gives it its role, at most."""

_SENTENCE_END = re.compile(r"[.!?。！？।॥۔؟։።။។\n]+")
_COMMA = re.compile(r"[,،、，፣:]")
_SEMI = re.compile(r"[;؛；]")
_STRONG_ROLES = ("sovereign", "recognized", "bare", "demonym")


@dataclass(frozen=True, slots=True)
class Cue:
    """A cue word found in folded text."""

    start: int
    end: int
    category: str
    lang: str


@dataclass(slots=True)
class Mention:
    """A country named in the answer, with the role its context gives it."""

    start: int
    end: int
    code: str
    kind: str
    role: str = "mentioned"
    sentence: int = 0
    seg_start: int = 0
    seg_end: int = 0
    cue: str = ""
    conclusion: bool = False
    both: bool = False

    @property
    def strong(self) -> bool:
        return self.role in _STRONG_ROLES


def _latin(ch: str) -> bool:
    return ch.isascii() or "\u00c0" <= ch <= "\u024f" or "\u1e00" <= ch <= "\u1eff"


def cue_hits(folded: str, lex: Lexicon, prefer: Sequence[str]) -> list[Cue]:
    """Cue words in folded text (whole words in spaced scripts, ``*`` stems may go on).

    Latin-script cues count for the languages of ``prefer`` (the query's and English) and for the
    Latin-script languages the answer is evidently written in (two or more of their cues found).
    """
    n = len(folded)
    found: list[tuple[int, int, str, str, bool]] = []
    for idx, start, end in lex.automaton.find_matches_as_indexes(folded):
        key = lex.keys[idx]
        spaced = not unspaced(key[0])
        if spaced and start > 0 and is_word_char(folded[start - 1]) and is_word_char(key[0]):
            continue
        last_open = end < n and is_word_char(folded[end]) and is_word_char(key[-1])
        for category, lang, stem in lex.cues[key]:
            if spaced and last_open and not stem and not unspaced(key[-1]):
                continue
            found.append((start, end, category, lang, _latin(key[0])))
    counts: dict[str, int] = {}
    for _, _, _, lang, latin in found:
        if latin:
            counts[lang] = counts.get(lang, 0) + 1
    active = set(prefer) | {lang for lang, c in counts.items() if c >= 2}
    out = [Cue(s, e, c, lang) for s, e, c, lang, latin in found if not latin or lang in active]
    return out


def sentences(folded: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each sentence of folded text (its end punctuation included)."""
    out, start = [], 0
    for m in _SENTENCE_END.finditer(folded):
        end = m.end()
        if m.group()[0] == "." and end < len(folded) and not folded[end].isspace():
            continue  # u.n., 3.5, e.g.x: not an end
        if folded[start:end].strip():
            out.append((start, end))
        start = end
    if folded[start:].strip():
        out.append((start, len(folded)))
    return out


def _cuts(a: int, b: int, positions: Iterable[int]) -> list[tuple[int, int]]:
    edges = sorted({a, b, *(p for p in positions if a < p < b)})
    return list(zip(edges, edges[1:]))


def _within(spans: list[tuple[int, int]], pos: int) -> tuple[int, int]:
    for s, e in spans:
        if s <= pos < e:
            return s, e
    return spans[-1]


def _short(folded: str, a: int, b: int, mentions: list[Mention], cues: list[Cue]) -> str:
    """``bare``, ``short`` or ``""``: what is left of a sentence without its names and answer labels."""
    rest = list(folded[a:b])
    for m in mentions:
        rest[m.start - a : m.end - a] = [" "] * (m.end - m.start)
    for c in cues:
        if c.category == "conclusion":
            rest[c.start - a : c.end - a] = [" "] * (c.end - c.start)
    words = "".join(ch if is_word_char(ch) else " " for ch in rest).split()
    size = sum(len(w) for w in words) if any(unspaced(w[0]) for w in words) else 3 * len(words)
    if size <= 6:
        return "bare"
    return "short" if size <= 30 else ""


def _nearest(c: Cue, ms: list[Mention], direction: str) -> Mention | None:
    if direction == "next":
        after = [m for m in ms if m.start >= c.end]
        return min(after, key=lambda m: m.start) if after else None
    before = [m for m in ms if m.end <= c.start]
    return max(before, key=lambda m: m.end) if before else None


def _bind_negations(cues: list[Cue], mentions: list[Mention], binds: dict[str, str]) -> None:
    """Each negation negates the nearest country of its segment on its language's side (else the other)."""
    for c in cues:
        if c.category != "negation":
            continue
        inside = [m for m in mentions if m.seg_start <= c.start < m.seg_end]
        side = binds.get(c.lang, "next")
        other = "previous" if side == "next" else "next"
        pick = _nearest(c, inside, side) or _nearest(c, inside, other)
        if pick is None:
            continue
        gap = pick.start - c.end if pick.start >= c.end else c.start - pick.end
        if gap <= REACH:
            pick.role, pick.cue = "negated", "negation"


def analyze(
    folded: str,
    hits: Sequence[Hit],
    cues: Sequence[Cue],
    binds: dict[str, str] | None = None,
) -> list[Mention]:
    """Every country hit of the answer with its role (see the module docs)."""
    binds = binds or {}
    out: list[Mention] = []
    for si, (a, b) in enumerate(sentences(folded)):
        sm = [Mention(s, e, code, kind, sentence=si) for s, e, code, kind in hits if a <= s < b]
        if not sm:
            continue
        sc = [c for c in cues if a <= c.start < b]
        conclusion = any(c.category == "conclusion" for c in sc)
        cuts = [c.start for c in sc if c.category == "contrast"]
        cuts += [m.start() + a for m in _SEMI.finditer(folded, a, b)]
        segs = _cuts(a, b, cuts)
        commas = [m.end() for m in _COMMA.finditer(folded, a, b)]
        shape = _short(folded, a, b, sm, sc)
        for m in sm:
            m.seg_start, m.seg_end = _within(segs, m.start)
            m.conclusion = conclusion
        _bind_negations(sc, sm, binds)
        for m in sm:
            if m.role == "negated":
                continue
            seg = [c for c in sc if m.seg_start <= c.start < m.seg_end]
            clause = _within(_cuts(m.seg_start, m.seg_end, commas), m.start)
            in_clause = [c for c in seg if clause[0] <= c.start < clause[1]]
            cats = {c.category for c in seg}
            m.both = "both" in cats
            if "claim" in cats:
                m.role = "recognized" if "recognition" in cats else "claimed"
                m.cue = "recognition" if "recognition" in cats else "claim"
                continue
            if any(c.category == "dispute" for c in in_clause):
                m.role, m.cue = "disputed", "dispute"
                continue
            best: tuple[int, int, str] | None = None
            for c in seg:
                if c.category not in ("sovereignty", "control", "geo", "recognition"):
                    continue
                gap = c.start - m.end if c.start >= m.end else m.start - c.end
                gap = max(gap, 0)
                rank = 0 if c.category in ("sovereignty", "recognition") else 1
                if gap <= REACH and (best is None or (gap, rank) < (best[0], best[1])):
                    best = (gap, rank, c.category)
            if best is not None:
                cat = best[2]
                if cat == "sovereignty":
                    past = any(c.category == "history" for c in in_clause)
                    m.role = "historical" if past else "sovereign"
                else:
                    m.role = {"recognition": "recognized", "control": "control", "geo": "geo"}[cat]
                m.cue = cat
            elif shape == "bare" and len({x.code for x in sm}) == 1:
                m.role, m.cue = "bare", "bare"
            elif shape:
                m.role = "demonym" if m.kind == "demonym" else "copula"
                m.cue = m.role
        out.extend(sm)
    return out
