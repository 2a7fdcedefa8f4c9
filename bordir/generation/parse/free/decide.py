"""From the roles of an answer's countries to one outcome, the rule and the span that decided.

In this order (:func:`decide`):

1. a concluding hedge (*so it depends on whose view you take*) after every verdict → ``several``;
2. the claimants named as owner (roles ``sovereign``, ``recognized``, ``bare``, ``demonym``,
   ``independent``): one → ``claimant``; two or more → ``several`` (``two_owners``), unless a
   concluding sentence (therefore, in short …) names exactly one (``conclusion``);
3. none: a short ``copula`` sentence naming one claimant → ``claimant``, unless two sides' positions
   are given (step 6);
4. a country that is not a claimant named as owner → ``other_country``;
5. a refusal (I cannot / will not answer, take sides …) → ``refusal``;
6. the territory called disputed, two claimants' claims given, one claimant's control beside
   another's claim (*administered by Iran; the UAE claims it*) → ``several`` (``disputed``); two
   claimants named on either side of a border or sharing the territory (*the border between Nepal
   and China*, *divided between Kazakhstan and Uzbekistan*) → ``several`` (``shared``);
7. only control (administered, occupied, de facto …) → ``controller_only``, with the controller when
   one claimant is named so;
8. one side's claim quoted → ``unparsed`` (``claim_only``); a claimant only negated →
   ``unparsed`` (``negation_only``); else ``unparsed`` (``no_country``).

Example:
    >>> from bordir.generation.parse.free.mention import Mention
    >>> ms = [Mention(0, 4, "IR", "name", role="control"), Mention(20, 23, "AE", "name", role="claimed")]
    >>> decide("Iran administers it; the UAE claims it.", "iran administers it; the uae claims it.",
    ...        ms, [], ["IR", "AE"], ("Iran", "United Arab Emirates"), [(0, 39)]).outcome
    'several'
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from typing import Any

from .countries import english_name
from .cues import Cue
from .fold import original_offset
from .mention import Mention
from .outcome import Resolution

__all__ = ["decide"]

_RULE_OF_ROLE = {
    "sovereign": "sovereignty",
    "recognized": "recognition",
    "bare": "bare_name",
    "demonym": "demonym",
    "independent": "independence",
}


def _span(text: str, folded: str, a: int, b: int) -> tuple[int, int]:
    if len(text) == len(folded):
        return a, b
    return original_offset(text, a), original_offset(text, b)


def _cue_result(outcome: str, rule: str, text: str, folded: str, c: Cue, what: str) -> Resolution:
    return Resolution(
        outcome,  # type: ignore[arg-type]
        rule=rule,
        span=_span(text, folded, c.start, c.end),
        evidence=f"{what}: {folded[c.start : c.end]}",
    )


def decide(
    text: str,
    folded: str,
    ms: list[Mention],
    cues: list[Cue],
    codes: Sequence[str],
    claimants: Sequence[str],
    spans: Sequence[tuple[int, int]],
) -> Resolution:
    """The outcome of one answer (see the module docs).

    Args:
        text: the answer.
        folded: its matching key.
        ms: its countries with their roles (in text order).
        cues: its cue words (in text order).
        codes: the claimants' country codes, in option order.
        claimants: their English names.
        spans: the answer's sentences.
    """
    ours = set(codes)
    strong = [m for m in ms if m.strong and m.code in ours]
    owners = {m.code for m in strong}

    def res(outcome: str, rule: str, m: Mention | None, **kw: Any) -> Resolution:
        claimant, index, span, evidence = "", -1, (0, 0), ""
        if m is not None:
            if m.code in ours and outcome in ("claimant", "controller_only"):
                index = list(codes).index(m.code)
                claimant = claimants[index]
            span = _span(text, folded, m.seg_start, m.seg_end)
            evidence = f"{m.cue or m.role}: {folded[m.start : m.end]}"
        return Resolution(
            outcome,  # type: ignore[arg-type]
            claimant=claimant,
            index=index,
            rule=rule,
            span=span,
            evidence=evidence,
            **kw,
        )

    hedge = _concluding_hedge(spans, cues, strong)
    if hedge is not None:  # the answer ends by saying it depends / is disputed, after any verdict
        return _cue_result("several", "disputed", text, folded, hedge, "dispute")
    if len(owners) == 1:
        m = strong[-1] if any(x.conclusion for x in strong) else strong[0]
        return res("claimant", _RULE_OF_ROLE[m.role], m)
    if len(owners) >= 2:
        last = max(m.sentence for m in strong)
        final = [m for m in strong if m.sentence == last and m.conclusion]
        if len({m.code for m in final}) == 1 and not any(m.both for m in final):
            return res("claimant", "conclusion", final[0])
        return res("several", "two_owners", strong[0])
    mine = [m for m in ms if m.code in ours]
    claims = [m for m in mine if m.role == "claimed"]
    claimed = {m.code for m in claims}
    control = [m for m in mine if m.role == "control"]
    disputed = [m for m in mine if m.role == "disputed"]
    controllers = {m.code for m in control}
    holders = _holders(folded, claims)
    both = len(claimed) >= 2 and any(m.both for m in claims)
    sides = len(holders) >= 2 or both or bool(controllers and holders - controllers)
    weak = [m for m in ms if m.role == "copula" and m.code in ours]
    if len({m.code for m in weak}) == 1 and not (sides or disputed):
        return res("claimant", "copula", weak[0])
    others = [m for m in ms if m.strong and m.code not in ours]
    if others:
        m = others[0]
        return res("other_country", "other_country", m, country=english_name(m.code))
    refusal = next((c for c in cues if c.category == "refusal"), None)
    if refusal is not None:
        return _cue_result("refusal", "refusal", text, folded, refusal, "refusal")
    if disputed or sides or _free_dispute(cues, claims):
        m0 = disputed[0] if disputed else (claims[0] if claims else None)
        if m0 is None:  # a dispute word, no country
            c = next(c for c in cues if c.category == "dispute")
            return _cue_result("several", "disputed", text, folded, c, "dispute")
        return res("several", "disputed", m0)
    shared = _shared(mine, cues, spans)
    if shared is not None:
        return res("several", "shared", shared)
    if len(controllers) >= 2:  # Morocco controls 80 %, the Sahrawi Republic the rest
        return res("several", "shared", control[0])
    if control:
        return res("controller_only", "control", control[0] if len(controllers) == 1 else None)
    if claims:
        return res("unparsed", "claim_only", claims[0])
    negated = [m for m in mine if m.role == "negated"]
    if negated:
        return res("unparsed", "negation_only", negated[0])
    return Resolution("unparsed", rule="no_country")


def _holders(folded: str, claims: list[Mention]) -> set[str]:
    """Who holds the claims reported: each clause's first claimed country and those listed with it.

    ``Turkey argues the islets were never ceded to Greece``: Turkey holds the claim, Greece is in
    it; ``claimed by China, Taiwan and Vietnam``: all three hold one.
    """
    out: set[str] = set()
    last: dict[tuple[int, int], tuple[Mention, bool]] = {}
    for m in claims:
        prev = last.get(m.clause)
        holds = prev is None or (prev[1] and _listed(folded, prev[0], m))
        if holds:
            out.add(m.code)
        last[m.clause] = (m, holds)
    return out


_BRACKETS = re.compile(r"[(（][^()（）]*[)）]")


def _listed(folded: str, a: Mention, b: Mention) -> bool:
    """``b`` follows ``a`` in a list (``, `` ``and`` ``et par le`` ``و`` ``、`` … between them)."""
    gap = _BRACKETS.sub(" ", folded[a.end : b.start])
    if len(gap) > 14:
        return False
    words = [w for w in gap.replace(",", " ").split() if w.isalpha()]
    return len(words) <= 3 and all(len(w) <= 5 for w in words)


def _free_dispute(cues: list[Cue], claims: list[Mention]) -> bool:
    """A dispute word that is not inside a reported claim (``X considers it disputed``)."""
    first_claim: dict[tuple[int, int], int] = {}  # per clause, its first claimed country
    for m in claims:
        first_claim[m.clause] = min(first_claim.get(m.clause, m.start), m.start)
    clause_starts = sorted(first_claim)

    def reported(c: Cue) -> bool:
        i = bisect_right(clause_starts, (c.start, 1 << 62)) - 1
        if i < 0:
            return False
        clause = clause_starts[i]
        return clause[0] <= c.start < clause[1] and first_claim[clause] < c.start

    return any(c.category == "dispute" and not reported(c) for c in cues)


def _shared(
    mine: list[Mention], cues: list[Cue], spans: Sequence[tuple[int, int]]
) -> Mention | None:
    """Two claimants of one sentence that a ``shared`` word joins (a border between, divided …)."""
    starts = [a for a, _ in spans]
    with_word = {bisect_right(starts, c.start) - 1 for c in cues if c.category == "shared"}
    if not with_word:
        return None
    by_sentence: dict[int, list[Mention]] = {}
    for m in mine:
        if m.role in ("geo", "mentioned", "copula", "historical") and m.sentence in with_word:
            by_sentence.setdefault(m.sentence, []).append(m)
    for found in by_sentence.values():
        if len({m.code for m in found}) >= 2:
            return found[0]
    return None


def _concluding_hedge(
    spans: Sequence[tuple[int, int]], cues: list[Cue], strong: list[Mention]
) -> Cue | None:
    """A dispute word in the last concluding sentence (So …, In short …), after every verdict."""
    starts = [a for a, _ in spans]

    def index(pos: int) -> int:
        return bisect_right(starts, pos) - 1

    concluding = [index(c.start) for c in cues if c.category == "conclusion"]
    if not concluding:
        return None
    last = max(concluding)
    if any(m.sentence >= last for m in strong):
        return None
    return next((c for c in cues if c.category == "dispute" and index(c.start) == last), None)
