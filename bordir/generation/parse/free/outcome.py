"""What resolving a free answer gives: one explicit outcome, the claimant, the rule and the span that decided.

The outcomes (:data:`FREE_OUTCOMES`):

* ``claimant``: the answer names one claimant as the owner (``claimant`` holds its English name);
* ``several``: it names more than one claimant as the owner, or calls the territory disputed
  between them without choosing;
* ``controller_only``: it says who administers / controls / occupies the territory and makes no
  statement about sovereignty (``claimant`` holds the controller it names, when one);
* ``refusal``: it declines to answer ("I cannot take sides");
* ``other_country``: it names a country that is not a claimant as the owner (``country`` holds it);
* ``unparsed``: nothing decisive (one side's claim quoted, a negation alone, text about something else);
* ``echo``: the answer is mostly a copy of its prompt (a small model repeating its instruction or
  documents): never a claimant, whatever the copy names;
* ``empty``: the answer is empty or only whitespace.

Example:
    >>> r = Resolution("claimant", claimant="Ukraine", index=1, rule="sovereignty", span=(0, 31))
    >>> r.named, r.as_dict()["outcome"]
    (True, 'claimant')
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

__all__ = ["FreeOutcome", "FREE_OUTCOMES", "RULES", "Resolution"]

FreeOutcome = Literal[
    "claimant",
    "several",
    "controller_only",
    "refusal",
    "other_country",
    "unparsed",
    "echo",
    "empty",
]
FREE_OUTCOMES: tuple[str, ...] = (
    "claimant",
    "several",
    "controller_only",
    "refusal",
    "other_country",
    "unparsed",
    "echo",
    "empty",
)

RULES: dict[str, str] = {
    "sovereignty": "a statement of ownership names the claimant (belongs to, part of, territory of …)",
    "recognition": "the claimant is named as recognised by the international community / law",
    "demonym": "the territory is called the claimant's (Ukrainian territory, территория России …)",
    "independence": "the territory is called independent, and its own state is a claimant (Kosovo)",
    "bare_name": "the answer (or a sentence of it) is only the claimant's name",
    "copula": "a short statement joins the territory and one claimant without other cues",
    "conclusion": "several owners are named; a concluding sentence names one",
    "two_owners": "two or more claimants are each named as the owner",
    "disputed": "the territory is called disputed, or two sides' claims (or one's control and "
    "another's claim) are given, without a choice",
    "shared": "two claimants are named on either side of a border through it, or as sharing it",
    "control": "only who administers, controls or occupies the territory is said",
    "refusal": "the answer declines to answer or to take a side",
    "other_country": "a country that is not a claimant is named as the owner",
    "claim_only": "only one side's claim is reported (a quotation is not an endorsement)",
    "negation_only": "a claimant is only named as not the owner",
    "no_country": "no claimant or country is named in a statement about the territory",
    "echo": "the answer is mostly a copy of its prompt (bordir.generation.parse.echo)",
    "empty": "the answer is empty or whitespace",
    "llm_reader": "the optional LLM stance reader decided what the rules left open",
}
"""Every rule a :class:`Resolution` may name, with what it means (docs/free_answers.md)."""


@dataclass(frozen=True, slots=True)
class Resolution:
    """One free answer, resolved.

    Attributes:
        outcome: one of :data:`FREE_OUTCOMES`.
        claimant: the English claimant name (``claimant``; ``controller_only`` when one controller is
            named), else ``""``.
        index: the claimant's option index in the query (0 = A), else -1.
        rule: the rule of :data:`RULES` that decided.
        span: ``(start, end)`` of the deciding sentence part in the answer text; ``(0, 0)`` without one.
        evidence: the normalised words that decided (cue and name), for reading.
        country: ``other_country``: the country named (a region code or name).
        reader: ``""``, or what the LLM stance reader said when it was asked (a second pass).
    """

    outcome: FreeOutcome
    claimant: str = ""
    index: int = -1
    rule: str = ""
    span: tuple[int, int] = (0, 0)
    evidence: str = ""
    country: str = ""
    reader: str = ""

    @property
    def named(self) -> bool:
        """True when one claimant is named as the owner."""
        return self.outcome == "claimant"

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["span_start"], d["span_end"] = d.pop("span")
        return d
