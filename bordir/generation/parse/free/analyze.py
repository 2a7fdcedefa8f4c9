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

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial

from .agency import holder, legal, occupier, opens, subject_marked
from .cues import Cue
from .mention import Mention
from .names import Hit
from .parts import (
    COMMA,
    PARENS,
    SEMI,
    cut_at,
    inside_clause,
    merge_bare,
    said_size,
    sentences,
    set_off,
    starting_in,
    visible,
    within,
)

__all__ = ["Mention", "analyze", "REACH", "BEHIND"]

REACH = 60
"""Characters between a country and the cue that gives it its role, at most."""
BEHIND = 20
"""In a head-final language (Japanese, Hindi, Turkish …), a cue before a name counts this much farther."""
AFTER = 3
"""In a head-initial language, a cue after a name counts this much farther: of two cues as near, the one
before governs it (``administered by Russia as part of …`` is control)."""
GEO_AFTER = 10
"""And a geography cue after a name this much more (``… Kanchanaburi, Thailand, on the border with
Myanmar``: the border is Myanmar's)."""
HISTORY_NEAR = 6
"""Characters around a name and its cue within which a word of the past makes a statement historical."""

_ROLE_CUES = ("sovereignty", "control", "geo", "recognition", "location")


def _nearest(c: Cue, ms: list[Mention], direction: str) -> Mention | None:
    if direction == "next":
        after = [m for m in ms if m.start >= c.end]
        return min(after, key=lambda m: m.start) if after else None
    before = [m for m in ms if m.end <= c.start]
    return max(before, key=lambda m: m.end) if before else None


def _bind_negations(
    cues: Sequence[Cue],
    mentions: list[Mention],
    binds: Mapping[str, str],
    parens: list[tuple[int, int]] = [],  # noqa: B006 - read only
) -> None:
    """Each negation negates the nearest country of its clause on its language's side (else the other)."""
    starts = [m.start for m in mentions]
    for c in cues:
        if c.category != "negation":
            continue
        near = starting_in(mentions, c.start - 4 * REACH, c.end + REACH + 1, starts)
        inside = [m for m in near if m.clause[0] <= c.start < m.clause[1] and visible(c, m, parens)]
        side = binds.get(c.lang, "next")
        pick = _nearest(c, inside, side) or _nearest(
            c, inside, "previous" if side == "next" else "next"
        )
        if pick is None:
            continue
        gap = pick.start - c.end if pick.start >= c.end else c.start - pick.end
        if gap <= REACH:
            pick.role, pick.cue = "negated", "negation"


def _claim_reach(m: Mention, seg: list[Cue], first: tuple[int, int], folded: str) -> list[Cue]:
    """The cues reporting a position that cover ``m``.

    A claim word or an attribution of its clause, or an attribution opening its segment
    (``According to Moscow, …``; ``China's position: …``; ``first``: the segment's first clause).
    """
    return [
        c
        for c in seg
        if (c.category in ("claim", "attribution") and m.clause[0] <= c.start < m.clause[1])
        or (first[0] <= c.start < min(first[1], first[0] + 16) and opens(c, folded))
    ]


def _after_claim(c: Cue, cues: Sequence[Cue], commas: list[int]) -> bool:
    """True for a cue said inside a reported position (a claim word before it in its clause)."""
    lo = max((p for p in commas if p <= c.start), default=0)
    return any(x.category in ("claim", "attribution") and lo <= x.start < c.start for x in cues)


def _nearest_cue(
    m: Mention, seg: list[Cue], binds: Mapping[str, str], agent: bool = False
) -> Cue | None:
    """The role cue of the segment nearest the name (see the module docs).

    Only the cues of the name's clause count; a ``location`` cue only right before it. The subject
    of a head-final clause (``agent``) takes the clause's last cue, its verb.
    """
    if agent:
        verbs = [c for c in seg if c.category in _ROLE_CUES and m.end <= c.start < m.clause[1]]
        if verbs:
            return verbs[-1]
    best: tuple[int, int, Cue] | None = None
    for c in seg:
        if c.category not in _ROLE_CUES:
            continue
        before = c.end <= m.start
        gap = max(m.start - c.end if before else c.start - m.end, 0)
        if c.category == "location" and (not before or gap > 4):
            continue
        if not m.clause[0] <= c.start < m.clause[1]:
            continue
        side = binds.get(c.lang)
        if before and side == "previous":
            gap += BEHIND
        elif not before and side != "previous":
            gap += AFTER + (GEO_AFTER if c.category == "geo" else 0)
        rank = 0 if c.category in ("sovereignty", "recognition", "location") else 1
        if gap <= REACH and (best is None or (gap, rank) < (best[0], best[1])):
            best = (gap, rank, c)
    return None if best is None else best[2]


def _role_of(
    m: Mention,
    seg: list[Cue],
    in_clause: list[Cue],
    claims: list[Cue],
    binds: Mapping[str, str],
    clause_size: Callable[[], int],
    bare: Callable[[], bool],
    folded: str,
    bracketed: bool = False,
    after: frozenset[str] = frozenset(),
    agents: tuple[str, ...] = (),
) -> tuple[str, str]:
    near = _nearest_cue(m, seg, binds, bool(agents) and subject_marked(m, folded, agents))
    held = holder(m, seg, folded)
    if claims or held:
        if near is not None and near.category == "control" and occupier(near, m, folded, after):
            return "control", "control"  # under Israeli military occupation, occupied by Israel
        where = [c for c in seg if c.start >= min((x.start for x in claims), default=0) - REACH]
        lawful = bool(claims) and legal(m, where, claims, folded) and not held
        negated = any(c.category == "negation" for c in where)
        return ("recognized", "recognition") if lawful and not negated else ("claimed", "claim")
    if any(c.category == "dispute" for c in in_clause):
        return "disputed", "dispute"
    best = None if near is None else (0, 0, near)
    past = [c for c in in_clause if c.category == "history"]
    if best is not None:
        cue = best[2]
        if cue.category in ("sovereignty", "location"):
            lo = min(cue.start, m.start) - HISTORY_NEAR
            hi = max(cue.end, m.end) + HISTORY_NEAR
            final = binds.get(cue.lang) == "previous"  # a head-final clause ends in its verb (was)
            if any(lo <= c.start <= hi or (final and c.start >= m.end) for c in past):
                return "historical", "sovereignty"
            lead = max(m.clause[0] - 16, m.seg_start)  # its clause, or a short one before it
            if any(
                c.category == "control"
                and lead <= c.start < cue.start
                and folded[c.end : c.end + 1] == ","
                for c in seg
            ):
                return "control", "control"  # De facto, it belongs to Spain
            return "sovereign", "sovereignty"
        role = {"recognition": "recognized", "control": "control", "geo": "geo"}[cue.category]
        return role, cue.category
    if m.kind == "independent" and not past:  # Kosovo is an independent state
        return "independent", "independent"
    if bracketed:
        return "mentioned", ""  # an aside: (au titre de la Nouvelle-Calédonie)
    if bare():
        return "bare", "bare"
    if m.kind == "demonym" and not past:
        return "demonym", "demonym"
    if not past and clause_size() <= 15:
        return "copula", "copula"
    return "mentioned", ""


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
    spans = spans if spans is not None else sentences(folded)
    if not hits:
        return out
    brackets = "(" in folded or "（" in folded  # no sentence has brackets or a semicolon else
    semis = ";" in folded or "؛" in folded or "；" in folded
    gr = _Grammar(binds, after, adverbs, tuple(agents), brackets, semis)
    span_starts = [a for a, _ in spans]
    cue_starts = [c.start for c in cues]
    by_sentence: dict[int, list[Hit]] = {}  # only the sentences naming a country are read
    for h in hits:
        si = bisect_right(span_starts, h[0]) - 1
        if si >= 0 and h[0] < spans[si][1]:
            by_sentence.setdefault(si, []).append(h)
    for si, found in by_sentence.items():
        a, b = spans[si]
        sm = [Mention(s, e, code, kind, sentence=si) for s, e, code, kind in found]
        sc = cues[bisect_left(cue_starts, a) : bisect_left(cue_starts, b)]
        mk = [x for x in masks if a <= x[0] < b]
        out.extend(_sentence(folded, a, b, sm, list(sc), claimants, mk, gr))
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
    kinds = {c.category for c in sc}
    conclusion = "conclusion" in kinds
    ends = {m.end for m in sm}
    starts = [m.start for m in sm]
    commas = []
    for x in COMMA.finditer(folded, a, b):  # "Japan, China and Taiwan": a list, not a clause end
        nxt = bisect_left(starts, x.end())
        listed = x.start() in ends and nxt < len(starts) and starts[nxt] <= x.end() + 5
        if not listed:
            commas.append(x.end())
    contrasts: list[int] = []
    asides: list[Cue] = []
    if "contrast" in kinds or "conclusion" in kinds:
        asides = [c for c in sc if c.category in ("contrast", "conclusion") and set_off(folded, c)]
        if asides:  # "Serbia, however, does not …": no part ends there
            near = {p for c in asides for p in (c.start - 1, c.start - 2, c.end + 1)}
            commas = [x for x in commas if x not in near]
        skip = {c.start for c in asides}
        skip.update(c.start for c in sc if inside_clause(folded, c, a, gr.adverbs))
        contrasts = sorted(
            {c.start for c in sc if c.category == "contrast" and c.start not in skip}
        )
    parens = [(x.start(), x.end()) for x in PARENS.finditer(folded, a, b)] if gr.brackets else []
    if parens:  # (1974, 1976, 2009): no clause ends inside brackets
        commas = [x for x in commas if not any(p < x < q for p, q in parens)]
    commas = merge_bare(commas, a, b, sc, starts, [x for x, _ in masks])
    first = min(commas, default=b)
    cuts = list(contrasts)
    # a sentence opened by a contrast word (Although …, Хотя …, رغم …): its first clause is a part
    if any(p < first for p in contrasts):
        cuts.append(first)
    if gr.semis:
        cuts += [x.start() for x in SEMI.finditer(folded, a, b)]
    segs = cut_at(a, b, cuts) if cuts else [(a, b)]
    seg_starts = [x for x, _ in segs]
    clauses: dict[tuple[int, int], list[tuple[int, int]]] = {}

    def clauses_of(seg: tuple[int, int]) -> list[tuple[int, int]]:
        if seg not in clauses:
            inner = commas[bisect_right(commas, seg[0]) : bisect_left(commas, seg[1])]
            clauses[seg] = cut_at(seg[0], seg[1], inner) if inner else [seg]
        return clauses[seg]

    opened = set(seg_starts) & set(contrasts)
    if any(p < first for p in contrasts):
        opened.add(a)
    named = {m.code for m in sm} & claimants
    described = (
        len(named) >= 2
        and "dispute" in kinds
        and any(c.category == "dispute" and not _after_claim(c, sc, commas) for c in sc)
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
        m.seg_start, m.seg_end = segs[0] if len(segs) == 1 else within(segs, m.start, seg_starts)
        inner_clauses = clauses_of((m.seg_start, m.seg_end))
        m.clause = inner_clauses[0] if len(inner_clauses) == 1 else within(inner_clauses, m.start)
        if parens:
            inner = next(((p, q) for p, q in parens if p < m.start < q), None)
            if inner is not None:  # a name in brackets: the brackets are its clause
                m.clause = inner
        m.conclusion = conclusion
    if "negation" in kinds:
        _bind_negations(sc, sm, binds, parens)
    for m in sm:
        seg = list(starting_in(sc, m.seg_start, m.seg_end, sc_starts))
        if parens:
            seg = [c for c in seg if visible(c, m, parens)]
        here = {c.category for c in seg}
        m.both = "both" in here
        if m.role == "negated":
            continue
        if "refusal" in here:  # I'd rather not say whether … Israeli …
            m.role, m.cue = "refused", "refusal"
            continue
        if described and m.seg_start not in opened:
            m.role, m.cue = "disputed", "dispute"
            continue
        in_clause = list(starting_in(seg, m.clause[0], m.clause[1]))
        head = clauses_of((m.seg_start, m.seg_end))[0]
        reach = _claim_reach(m, seg, head, folded)
        inside = bool(parens) and any(p < m.start < q for p, q in parens)
        m.role, m.cue = _role_of(
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
    if said:
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
    brackets: bool
    """The answer holds an opening bracket (else no sentence is searched for brackets)."""
    semis: bool
    """The answer holds a semicolon."""
