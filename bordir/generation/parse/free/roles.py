"""The role one country of a sentence takes from the cue words around it (see :mod:`.analyze`).

:func:`bind_negations` gives ``negated`` to the country each negation binds; :func:`role_of` gives
every other country the role of its claim reach, its clause or its nearest cue.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from .cues import Cue
from .lexicon import unspaced
from .mention import Mention
from .parts import starting_in

__all__ = ["REACH", "BEHIND", "AGENTS", "bind_negations", "claim_reach", "role_of", "visible"]

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


def bind_negations(
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


def claim_reach(m: Mention, seg: list[Cue], first: tuple[int, int], folded: str) -> list[Cue]:
    """The cues reporting a position that cover ``m``.

    A claim word or an attribution of its clause, or an attribution opening its segment
    (``According to Moscow, …``; ``China's position: …``; ``first``: the segment's first clause).
    """
    return [
        c
        for c in seg
        if (c.category in ("claim", "attribution") and m.clause[0] <= c.start < m.clause[1])
        or (first[0] <= c.start < min(first[1], first[0] + 16) and _opens(c, folded))
    ]


def _holder(m: Mention, seg: list[Cue], folded: str) -> bool:
    """The name is the holder of a claim named right after it (``the Comorian claim``, ``中国的立场``)."""
    return any(
        c.category == "claim"
        and 0 <= c.start - m.end <= 3
        and not _PUNCT.search(folded, m.end, c.start)
        for c in seg
    )


_PUNCT = re.compile(r"[^\w\s']")


def _opens(c: Cue, folded: str) -> bool:
    """A reported position that opens what follows.

    An attribution, or a claim word before a colon (``China's position: …``, ``**Russia**:
    considers …``).
    """
    if c.category == "attribution":
        return True
    return c.category == "claim" and ":" in folded[c.end : c.end + 4].replace("：", ":")


def _legal(m: Mention, where: list[Cue], claims: list[Cue], folded: str) -> bool:
    """The reported position is the international community's, law's or a treaty's own.

    A recognition word counts before the claim word (``most countries consider``), as its passive
    agent (``considered by the UN``), or anywhere with an attribution (``according to the ICJ``).
    """
    said = [c for c in claims if c.category == "claim"]
    if not said or any(c.category == "attribution" for c in claims):
        return any(c.category == "recognition" for c in where)
    first = min(said, key=lambda c: c.start)
    return any(
        c.category == "recognition"
        and (c.start < first.start or (c.start >= first.end and _by(folded, first.end, c.start)))
        for c in where
    )


AGENTS = frozenset(
    "by par por pela pelo da dal dalla dai dalle von vom durch przez door oleh na ng".split()
)
"""Words that introduce the agent of a passive verb (``considered by``, ``considéré par``, ``oleh``)."""


def _by(folded: str, a: int, b: int, *, bare: bool = True) -> bool:
    """``folded[a:b]`` ends a word and introduces an agent, or (``bare``) is nothing.

    ``ed by the`` introduces one; with ``bare``, nothing between counts too (``признан
    международным сообществом``).
    """
    while a < b and folded[a].isalpha():
        a += 1  # the rest of the stem's word
    words = folded[a:b].split()
    return (bare and not words) or (0 < len(words) <= 2 and words[0] in AGENTS)


def _occupier(c: Cue, m: Mention, folded: str, after: frozenset[str]) -> bool:
    """The name is who controls.

    The control word names it as its agent (``occupied by Israel``), follows it (``Israel
    occupies``, ``Israeli military occupation``), or, for an adjective of a language whose
    adjectives follow their noun, precedes it (``occupation israélienne``).
    """
    if c.start >= m.end:
        if m.kind == "demonym" and c.lang in after:
            return False  # territoire palestinien occupé: the territory is occupied
        return c.start - m.end <= 3 or (unspaced(folded[m.end]) and c.start - m.end <= 4)
    if m.kind == "demonym" and c.lang in after and m.start - c.end <= 2:
        return True
    return _by(folded, c.end, m.start, bare=False)


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


def role_of(
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
    """The ``(role, cue category)`` of a country not negated, refused or in a described dispute.

    ``claims``: the reported positions that cover it (:func:`claim_reach`); ``in_clause``: the cues
    of its clause; ``clause_size`` and ``bare`` say, when asked, how much its clause and its
    sentence say besides names; ``bracketed``: it stands in brackets (see :mod:`.analyze`).
    """
    near = _nearest_cue(m, seg, binds, bool(agents) and _agent(m, folded, agents))
    holder = _holder(m, seg, folded)
    if claims or holder:
        if near is not None and near.category == "control" and _occupier(near, m, folded, after):
            return "control", "control"  # under Israeli military occupation, occupied by Israel
        where = [c for c in seg if c.start >= min((x.start for x in claims), default=0) - REACH]
        legal = bool(claims) and _legal(m, where, claims, folded) and not holder
        negated = any(c.category == "negation" for c in where)
        return ("recognized", "recognition") if legal and not negated else ("claimed", "claim")
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


def _agent(m: Mention, folded: str, agents: tuple[str, ...]) -> bool:
    """The name carries a subject marker (Nepali भारतले, Hindi भारत ने)."""
    return any(
        folded.endswith(mk, m.start, m.end) or folded.startswith(" " + mk, m.end) for mk in agents
    )


def visible(c: Cue, m: Mention, parens: list[tuple[int, int]]) -> bool:
    """Whether cue ``c`` speaks of ``m``.

    A cue in brackets speaks only of the names in the same brackets, or of the name right before
    them (``Ukraine (de jure)``).
    """
    return not any(
        p < c.start < q and not p < m.start < q and not 0 <= p - m.end <= 1 for p, q in parens
    )
