"""What a parse returns: the five outcomes, the two policies and :class:`ParsedAnswer`.

An answer has one of five **outcomes**: ``answered`` (``choice`` is an option
index), ``refused``, ``multiple`` (two or more different options named, none
clearly chosen), ``echo`` (the reply is mostly a copy of its prompt or of a
document: :mod:`~bordir.generation.parse.echo`) or ``unparsed``; ``choice`` is -1
unless answered.

Example:
    >>> ParsedAnswer("unparsed", -1).answered
    False
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ...errors import ConfigError
from ...policies import PARSE_POLICIES
from ...records import Query

__all__ = ["Outcome", "Policy", "OUTCOMES", "POLICIES", "ParsedAnswer", "check_policy"]

Outcome = Literal["answered", "refused", "multiple", "echo", "unparsed"]
Policy = Literal["strict", "reference"]
OUTCOMES: tuple[str, ...] = ("answered", "refused", "multiple", "echo", "unparsed")
POLICIES: tuple[str, ...] = PARSE_POLICIES.names()


@dataclass(frozen=True, slots=True)
class ParsedAnswer:
    """The parsed answer to one query.

    Attributes:
        outcome: ``answered``, ``refused``, ``multiple``, ``echo`` or ``unparsed``.
        choice: the chosen option index (0 = A), or -1 unless answered.
        matched: the evidence: the letter label, the (folded) name, the refusal
            phrase or what an echo copied that decided the outcome; ``""`` when nothing matched.
        reference_pick: ``policy="reference"`` only: the option the BordIRLines
            response table scores (``choice``, or 0 = option A when unparsed); None otherwise.
    """

    outcome: Outcome
    choice: int
    matched: str = ""
    reference_pick: int | None = None

    @property
    def answered(self) -> bool:
        return self.outcome == "answered"

    def claimant(self, query: Query) -> str | None:
        """The English claimant name of the choice, or None unless answered."""
        return query.claimants[self.choice] if self.choice >= 0 else None


def check_policy(policy: str) -> None:
    """Raise :class:`~bordir.errors.ConfigError` unless ``policy`` is one of :data:`POLICIES`."""
    if policy not in POLICIES:
        raise ConfigError(f"unknown parse policy {policy!r}; valid: {', '.join(POLICIES)}")
