"""The oracle's rule: five criteria rated True / Partially / False, their scores, and pass or fail.

RAG-Tester's judge rates an answer on **faithfulness** (supported by the
retrieved documents), **relevance** (answers the question asked),
**completeness** (covers the expected answer), **clarity** and **keyword
match** (the expected keywords are in the answer). Ratings map to scores
``True = 1``, ``Partially = 0.5``, ``False = 0``; a test **fails** when the
mean of the five scores is below 0.5 **or** faithfulness is False, and passes
otherwise.

A judge answer is parsed into a :class:`Judgment` with an explicit outcome:
``judged`` (all five ratings read), ``unparsed`` (no JSON object, a criterion
missing, a value that is not a rating, a criterion given twice with different
values, or several full ratings that disagree: never a pass), ``failed`` (the call
failed after its retries) or ``no_answer`` (the system under test gave no answer
to judge). Ratings are read from a JSON object whose keys are the criteria; the
values ``True``/``Partially``/``False`` are also accepted as booleans, as
``yes``/``partial``/``no`` and in the judge prompt languages (``Verdadero``,
``Частично``, ``Falsch``, ``Partiellement`` …).

Example:
    >>> verdict({"faithfulness": "True", "relevance": "True", "completeness": "Partially",
    ...          "clarity": "True", "keyword_match": "False"})
    ('pass', 0.7)
    >>> verdict({"faithfulness": "False", "relevance": "True", "completeness": "True",
    ...          "clarity": "True", "keyword_match": "True"})
    ('fail', 0.8)
    >>> j = parse_judgment('{"faithfulness": "True", "relevance": "Partially", "completeness": "False", '
    ...                    '"clarity": "True", "keyword_match": "Partially", "rationale": "ok"}')
    >>> j.outcome, j.mean, j.verdict
    ('judged', 0.6, 'pass')
    >>> parse_judgment("The answer looks fine to me.").outcome
    'unparsed'
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from .structured import DUPLICATE, json_object, json_objects

__all__ = [
    "CRITERIA",
    "RATINGS",
    "SCORES",
    "OUTCOMES",
    "Judgment",
    "score",
    "verdict",
    "normalize_rating",
    "parse_judgment",
]

CRITERIA = ("faithfulness", "relevance", "completeness", "clarity", "keyword_match")
RATINGS = ("True", "Partially", "False")
SCORES: Mapping[str, float] = {"True": 1.0, "Partially": 0.5, "False": 0.0}
OUTCOMES = ("judged", "unparsed", "failed", "no_answer", "echo")
FAIL_BELOW = 0.5

_ALIASES = {
    "True": (
        "true",
        "yes",
        "fully",
        "full",
        "verdadero",
        "sí",
        "si",
        "vrai",
        "oui",
        "wahr",
        "ja",
        "истина",
        "да",
        "правда",
        "верно",
        "так",
        "істина",
    ),
    "Partially": (
        "partially",
        "partial",
        "partly",
        "some",
        "parcialmente",
        "parcial",
        "partiellement",
        "partiel",
        "teilweise",
        "частично",
        "частково",
    ),
    "False": (
        "false",
        "no",
        "none",
        "not",
        "falso",
        "faux",
        "non",
        "falsch",
        "nein",
        "ложь",
        "нет",
        "неверно",
        "хибно",
        "ні",
    ),
}
_LOOKUP = {a: canon for canon, aliases in _ALIASES.items() for a in aliases}


def normalize_rating(value: Any) -> str | None:
    """``True`` / ``Partially`` / ``False`` for a judge's value, or None if it is not a rating.

    >>> normalize_rating(True), normalize_rating("partially."), normalize_rating("Частично"), normalize_rating(3)
    ('True', 'Partially', 'Partially', None)
    """
    if isinstance(value, bool):
        return "True" if value else "False"
    if not isinstance(value, str):
        return None
    key = unicodedata.normalize("NFKC", value).strip().strip(".!*`\"' ").casefold()
    return _LOOKUP.get(key)


def score(rating: str) -> float:
    """The score of a rating: 1, 0.5 or 0."""
    return SCORES[rating]


def verdict(ratings: Mapping[str, str]) -> tuple[str, float]:
    """(``pass`` or ``fail``, mean score) of five ratings (RAG-Tester's rule, see module docs).

    Raises:
        KeyError: a criterion is missing.
    """
    mean = sum(SCORES[ratings[c]] for c in CRITERIA) / len(CRITERIA)
    failed = mean < FAIL_BELOW or ratings["faithfulness"] == "False"
    return ("fail" if failed else "pass"), round(mean, 6)


@dataclass(frozen=True)
class Judgment:
    """One judge's rating of one answer (see module docs).

    Attributes:
        outcome: ``judged``, ``unparsed``, ``failed``, ``no_answer`` or ``echo`` (the answer
            copies its prompt: :mod:`bordir.testgen.echoes`; not judged).
        ratings: criterion → rating (all five when judged).
        rationale: the judge's explanation, when given.
        note: why the answer did not parse, or the call error.
        raw: the judge's text.
    """

    outcome: str
    ratings: dict[str, str] = field(default_factory=dict)
    rationale: str = ""
    note: str = ""
    raw: str = ""

    @property
    def mean(self) -> float | None:
        return verdict(self.ratings)[1] if self.outcome == "judged" else None

    @property
    def verdict(self) -> str | None:
        """``pass`` / ``fail`` when judged, else None (an unparsed answer is never a pass)."""
        return verdict(self.ratings)[0] if self.outcome == "judged" else None

    def with_rating(self, criterion: str, rating: str) -> Judgment:
        """A copy with one rating replaced (e.g. the computed keyword match)."""
        if self.outcome != "judged":
            return self
        return replace(self, ratings={**self.ratings, criterion: rating})


def parse_judgment(text: str) -> Judgment:
    """Read the five ratings (and a rationale) from a judge's answer (see module docs)."""
    if not text or not text.strip():
        return Judgment("unparsed", note="empty answer", raw=text or "")
    obj = json_object(text, CRITERIA)
    if obj is None:
        return Judgment("unparsed", note="no JSON object with the criteria", raw=text)
    ratings: dict[str, str] = {}
    for c in CRITERIA:
        if c not in obj:
            return Judgment("unparsed", note=f"criterion {c!r} missing", raw=text)
        r = normalize_rating(obj[c])
        if r is None:
            return Judgment(
                "unparsed", note=f"{c}: {obj[c]!r} is not True, Partially or False", raw=text
            )
        ratings[c] = r
    # ambiguity is not a rating: a criterion given twice, or several full ratings that disagree
    others = json_objects(text, CRITERIA)
    dup = sorted({k for o in others for k in o.get(DUPLICATE, ()) if k in CRITERIA})
    if dup:
        return Judgment(
            "unparsed", note=f"criterion {dup[0]!r} given twice with different ratings", raw=text
        )
    full = [
        {c: normalize_rating(o[c]) for c in CRITERIA}
        for o in others
        if all(c in o for c in CRITERIA)
    ]
    if any(f != ratings for f in full):
        return Judgment("unparsed", note="several ratings that disagree", raw=text)
    rationale = obj.get("rationale") or obj.get("reason") or obj.get("explanation") or ""
    return Judgment("judged", ratings, rationale=str(rationale), raw=text)
