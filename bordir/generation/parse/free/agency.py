"""Whom a cue word speaks for.

A claim's holder, a passive verb's agent, the one who controls, a subject marker, a position
opening its segment, and a position that is the law's own: predicates on folded text that
:mod:`~bordir.generation.parse.free.analyze` asks while giving each country its role.
"""

from __future__ import annotations

import re

from .cues import Cue
from .lexicon import unspaced
from .mention import Mention

__all__ = ["AGENTS", "by_agent", "holder", "legal", "occupier", "opens", "subject_marked"]


def holder(m: Mention, seg: list[Cue], folded: str) -> bool:
    """The name is the holder of a claim named right after it (``the Comorian claim``, ``中国的立场``)."""
    return any(
        c.category == "claim"
        and 0 <= c.start - m.end <= 3
        and not _PUNCT.search(folded, m.end, c.start)
        for c in seg
    )


_PUNCT = re.compile(r"[^\w\s']")


def opens(c: Cue, folded: str) -> bool:
    """A reported position that opens what follows.

    An attribution, or a claim word before a colon (``China's position: …``,
    ``**Russia**: considers …``).
    """
    if c.category == "attribution":
        return True
    return c.category == "claim" and ":" in folded[c.end : c.end + 4].replace("：", ":")


def legal(m: Mention, where: list[Cue], claims: list[Cue], folded: str) -> bool:
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
        and (
            c.start < first.start or (c.start >= first.end and by_agent(folded, first.end, c.start))
        )
        for c in where
    )


AGENTS = frozenset(
    "by par por pela pelo da dal dalla dai dalle von vom durch przez door oleh na ng".split()
)
"""Words that introduce the agent of a passive verb (``considered by``, ``considéré par``, ``oleh``)."""


def by_agent(folded: str, a: int, b: int, *, bare: bool = True) -> bool:
    """Whether ``folded[a:b]`` ends a word and introduces an agent.

    An agent as in ``ed by the``, or (``bare``) nothing (``признан международным сообществом``).
    """
    while a < b and folded[a].isalpha():
        a += 1  # the rest of the stem's word
    words = folded[a:b].split()
    return (bare and not words) or (0 < len(words) <= 2 and words[0] in AGENTS)


def occupier(c: Cue, m: Mention, folded: str, after: frozenset[str]) -> bool:
    """Whether the name is who controls.

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
    return by_agent(folded, c.end, m.start, bare=False)


def subject_marked(m: Mention, folded: str, agents: tuple[str, ...]) -> bool:
    """The name carries a subject marker (Nepali भारतले, Hindi भारत ने)."""
    return any(
        folded.endswith(mk, m.start, m.end) or folded.startswith(" " + mk, m.end) for mk in agents
    )
