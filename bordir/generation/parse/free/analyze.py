"""The roles of the countries a free answer names: sentences, their parts, and the cue nearest each name.

The answer (folded) is cut into **sentences** (``. ! ? 。 ！ ？ । ۔ ؟ ։ ። ။ ។`` and line breaks),
each sentence into **segments** at a contrast word (but, however, while, но, pero, 但, しかし …) or a
semicolon, and each segment into **clauses** at commas (``, ، 、 ，``). Every country a sentence names
gets one **role**:

1. ``negated``: a negation of its clause binds to it (the nearest country after the negation in a
   language that negates before, ``not part of Russia``; before it in one that negates after,
   ``ロシアの領土ではない``);
2. in the reach of a claim word (claims, considers, according to, считает …: its clause, or its whole
   segment when the claim word opens the segment, ``According to Moscow, …``): ``recognized`` if a
   word of the international community / law / a treaty stands there too and no negation, else
   ``claimed`` — a reported position, never the answer's own;
3. ``disputed``: its clause calls the territory disputed;
4. else the category of the nearest cue of the segment (at most :data:`REACH` characters away; in a
   head-final language a cue before the name counts :data:`BEHIND` characters farther):
   ``sovereign`` (belongs to, part of, territory …; ``historical`` instead when a word of the past
   — was, until, formerly … — stands next to the name or its cue), ``recognized``, ``control``
   (administered, occupied, de facto …) or ``geo`` (borders, near …);
5. else: ``bare`` when the sentence is little more than the name (``Ukraine.``, ``Answer: Russia``);
   ``demonym`` for an adjective (``Crimea is Ukrainian.``, ``the islands are British and …``) unless
   its clause speaks of the past; ``copula`` for a name in a short clause (``Крым — Россия``);
   otherwise ``mentioned``.

Example:
    >>> from bordir.generation.parse.free.cues import cue_hits
    >>> from bordir.generation.parse.free.lexicon import lexicon
    >>> t = "crimea belongs to ukraine, but it is occupied by russia."
    >>> hits = [(18, 25, "UA", "name"), (49, 55, "RU", "name")]
    >>> [(m.code, m.role) for m in analyze(t, hits, cue_hits(t, lexicon(), ("en",)))]
    [('UA', 'sovereign'), ('RU', 'control')]
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial

from .cues import Cue
from .mention import Mention
from .names import Hit
from .parts import cuts, said_size, sentences, starting_in, within
from .roles import BEHIND, REACH, bind_negations, claim_reach, role_of, visible

__all__ = ["Mention", "analyze", "REACH", "BEHIND", "sentences"]

_COMMA = re.compile(r"[,،、，፣]")
_PARENS = re.compile(r"[(（][^()（）]*[)）]")
_SEMI = re.compile(r"[;؛；]")


def analyze(
    folded: str,
    hits: Sequence[Hit],
    cues: Sequence[Cue],
    binds: Mapping[str, str] | None = None,
    claimants: frozenset[str] = frozenset(),
    spans: Sequence[tuple[int, int]] | None = None,
    masks: Sequence[tuple[int, int]] = (),
    after: frozenset[str] = frozenset(),
    adverbs: frozenset[str] = frozenset(),
    agents: Sequence[str] = (),
) -> list[Mention]:
    """Every country hit of the answer with its role (see the module docs).

    ``claimants``: the codes of the query's claimants; a sentence that calls the territory disputed
    and names two of them describes the dispute (their roles are ``disputed``), except in a part of
    it that a contrast word opens. ``spans``: the sentences, when the caller has them already.
    ``masks``: where the territory is named (a clause naming it says something); ``after``: the
    languages whose adjectives follow their noun; ``adverbs``: contrast words that may stand inside
    a clause; ``agents``: the markers of a verb's subject (Nepali ले).
    ``hits`` and ``cues`` are in text order.
    """
    binds = binds or {}
    out: list[Mention] = []
    hit_starts = [h[0] for h in hits]
    cue_starts = [c.start for c in cues]
    for si, (a, b) in enumerate(spans if spans is not None else sentences(folded)):
        lo, hi = bisect_left(hit_starts, a), bisect_left(hit_starts, b)
        if lo == hi:
            continue
        sm = [Mention(s, e, code, kind, sentence=si) for s, e, code, kind in hits[lo:hi]]
        sc = list(cues[bisect_left(cue_starts, a) : bisect_left(cue_starts, b)])
        mk = [x for x in masks if a <= x[0] < b]
        gr = _Grammar(binds, after, adverbs, tuple(agents))
        out.extend(_sentence(folded, a, b, sm, sc, claimants, mk, gr))
    return out


def _sentence(
    folded: str,
    a: int,
    b: int,
    sm: list[Mention],
    sc: list[Cue],
    claimants: frozenset[str],
    masks: list[tuple[int, int]],
    gr: _Grammar,
) -> list[Mention]:
    """The roles of the countries of one sentence ``[a, b)``."""
    binds, after = gr.binds, gr.after
    conclusion = any(c.category == "conclusion" for c in sc)
    ends = {m.end for m in sm}
    starts = [m.start for m in sm]
    commas = []
    for x in _COMMA.finditer(folded, a, b):  # "Japan, China and Taiwan": a list, not a clause end
        nxt = bisect_left(starts, x.end())
        listed = x.start() in ends and nxt < len(starts) and starts[nxt] <= x.end() + 5
        if not listed:
            commas.append(x.end())
    asides = [c for c in sc if c.category in ("contrast", "conclusion") and _set_off(folded, c)]
    if asides:  # "Serbia, however, does not …": no part ends there
        near = {p for c in asides for p in (c.start - 1, c.start - 2, c.end + 1)}
        commas = [x for x in commas if x not in near]
    skip = {c.start for c in asides}
    skip.update(c.start for c in sc if _inside_clause(folded, c, a, gr.adverbs))
    contrasts = sorted({c.start for c in sc if c.category == "contrast" and c.start not in skip})
    parens = [(x.start(), x.end()) for x in _PARENS.finditer(folded, a, b)]
    if parens:  # (1974, 1976, 2009): no clause ends inside brackets
        commas = [x for x in commas if not any(p < x < q for p, q in parens)]
    commas = _merge_bare(commas, a, b, sc, starts, [x for x, _ in masks])
    first = min(commas, default=b)
    breaks = list(contrasts)
    # a sentence opened by a contrast word (Although …, Хотя …, رغم …): its first clause is a part
    if any(p < first for p in contrasts):
        breaks.append(first)
    breaks += [x.start() for x in _SEMI.finditer(folded, a, b)]
    segs = cuts(a, b, breaks)
    seg_starts = [x for x, _ in segs]
    clauses: dict[tuple[int, int], list[tuple[int, int]]] = {}

    def clauses_of(seg: tuple[int, int]) -> list[tuple[int, int]]:
        if seg not in clauses:
            inner = commas[bisect_right(commas, seg[0]) : bisect_left(commas, seg[1])]
            clauses[seg] = cuts(seg[0], seg[1], inner)
        return clauses[seg]

    opened = set(seg_starts) & set(contrasts)
    if any(p < first for p in contrasts):
        opened.add(a)
    named = {m.code for m in sm} & claimants
    described = len(named) >= 2 and any(
        c.category == "dispute" and not _after_claim(c, sc, commas) for c in sc
    )
    one = len({x.code for x in sm}) == 1
    sc_starts = [c.start for c in sc]
    sizes: dict[tuple[int, int], int] = {}

    def size_of(clause: tuple[int, int]) -> int:
        if clause not in sizes:
            sizes[clause] = said_size(folded, clause[0], clause[1], sm, sc, starts, sc_starts)
        return sizes[clause]

    bare_cache: list[bool] = []

    def bare() -> bool:
        if not bare_cache:
            bare_cache.append(one and said_size(folded, a, b, sm, sc, starts, sc_starts) <= 6)
        return bare_cache[0]

    for m in sm:
        m.seg_start, m.seg_end = within(segs, m.start, seg_starts)
        m.clause = within(clauses_of((m.seg_start, m.seg_end)), m.start)
        inner = next(((p, q) for p, q in parens if p < m.start < q), None)
        if inner is not None:  # a name in brackets: the brackets are its clause
            m.clause = inner
        m.conclusion = conclusion
    bind_negations(sc, sm, binds, parens)
    for m in sm:
        seg = [
            c for c in starting_in(sc, m.seg_start, m.seg_end, sc_starts) if visible(c, m, parens)
        ]
        m.both = any(c.category == "both" for c in seg)
        if m.role == "negated":
            continue
        if any(c.category == "refusal" for c in seg):  # I'd rather not say whether … Israeli …
            m.role, m.cue = "refused", "refusal"
            continue
        if described and m.seg_start not in opened:
            m.role, m.cue = "disputed", "dispute"
            continue
        in_clause = list(starting_in(seg, m.clause[0], m.clause[1]))
        head = clauses_of((m.seg_start, m.seg_end))[0]
        reach = claim_reach(m, seg, head, folded)
        inside = any(p < m.start < q for p, q in parens)
        m.role, m.cue = role_of(
            m,
            seg,
            in_clause,
            reach,
            binds,
            partial(size_of, m.clause),
            bare,
            folded,
            inside,
            after,
            gr.agents,
        )
    said = {(m.code, m.seg_start): m.role for m in sm if m.role in ("claimed", "control")}
    for m in sm:  # Venezuela claims it … a Venezuelan state there: the claim's, too
        role = said.get((m.code, m.seg_start))
        if role is not None and m.role in _WEAK_ROLES:
            m.role, m.cue = role, ("claim" if role == "claimed" else "control")
    return sm


_WEAK_ROLES = ("demonym", "copula", "bare", "mentioned")


@dataclass(frozen=True, slots=True)
class _Grammar:
    binds: Mapping[str, str]
    after: frozenset[str]
    adverbs: frozenset[str]
    agents: tuple[str, ...]


def _inside_clause(folded: str, c: Cue, a: int, adverbs: frozenset[str]) -> bool:
    """A contrast adverb inside its clause (``betrachtet es jedoch als``): no new part starts there."""
    if c.category != "contrast" or folded[c.start : c.end] not in adverbs:
        return False
    before = folded[a : c.start].rstrip()
    return bool(before) and before[-1].isalnum()


def _set_off(folded: str, c: Cue) -> bool:
    """A connective between commas (``, however,``): an aside, not the start of a new part."""
    before = folded[max(c.start - 2, 0) : c.start].rstrip()
    return before.endswith(",") and folded[c.end : c.end + 1] == ","


def _merge_bare(
    commas: list[int], a: int, b: int, sc: list[Cue], starts: list[int], masked: list[int]
) -> list[int]:
    """Drop the comma after a clause that holds names and nothing else to say.

    Such a clause (no cue word, not the territory: ``Sudan, and later South Sudan, has claimed
    it``) belongs with the clause that says something of them (the one before, for the last clause).
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


def _after_claim(c: Cue, cues: Sequence[Cue], commas: list[int]) -> bool:
    """True for a cue said inside a reported position (a claim word before it in its clause)."""
    lo = max((p for p in commas if p <= c.start), default=0)
    return any(x.category in ("claim", "attribution") and lo <= x.start < c.start for x in cues)
