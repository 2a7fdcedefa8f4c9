"""The label schema: relevance and viewpoint of a (query, document) pair.

The machine-readable schema is ``annotations/schema.json`` (shipped as
``bordir/_resources/annotations/schema.json``); this module reads it and
implements its rules, so code and file cannot drift apart.

* **relevance**: ``relevant``, ``partially_relevant`` or ``not_relevant`` —
  does the document bear on who the territory belongs to?
* **viewpoint**: the English name of one of the territory's claimants (the
  document supports that claimant's position), ``neutral`` (it bears on the
  question but supports no claimant, or gives both sides) or
  ``not_applicable`` (it does not bear on the question).
* ``viewpoint`` is ``not_applicable`` exactly when ``relevance`` is ``not_relevant``.

Values are matched case-insensitively after trimming, and the schema's aliases
map to canonical values (``"Partially relevant"`` → ``partially_relevant``,
``"n/a"`` → ``not_applicable``, ``"supports Russia"`` → ``Russia``).

Example:
    >>> normalize_relevance("Partially relevant")
    'partially_relevant'
    >>> normalize_viewpoint("supports united kingdom", ("Argentina", "United Kingdom"))
    'United Kingdom'
    >>> normalize_viewpoint("Spain", ("Argentina", "United Kingdom")) is None
    True
    >>> pair_problem("not_relevant", "Russia")
    "viewpoint 'Russia' with relevance 'not_relevant'; a document that does not bear on the question has viewpoint 'not_applicable'"
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, cast

from .._io.json_read import loads
from .._io.resources import resource_dir
from ..errors import DataError

__all__ = [
    "RELEVANCE",
    "RELEVANT_LEVELS",
    "NEUTRAL",
    "NOT_APPLICABLE",
    "OUTCOMES",
    "FIELDS",
    "Label",
    "annotations_dir",
    "schema",
    "normalize_relevance",
    "normalize_viewpoint",
    "pair_problem",
    "label_options",
]

RELEVANCE: tuple[str, ...] = ("relevant", "partially_relevant", "not_relevant")
"""Relevance labels, most relevant first."""
RELEVANT_LEVELS: tuple[str, ...] = ("relevant", "partially_relevant")
"""What counts as relevant for filters and precision (see :mod:`bordir.annotations.use`)."""
NEUTRAL = "neutral"
NOT_APPLICABLE = "not_applicable"
OUTCOMES: tuple[str, ...] = ("labelled", "unparsed", "failed")
"""``labelled``, or why an automatic annotator gave no label."""
FIELDS: tuple[str, ...] = (
    "query_id",
    "doc_lang",
    "doc_id",
    "relevance",
    "viewpoint",
    "annotator",
    "outcome",
    "note",
    "raw",
)


def annotations_dir() -> Path:
    """The shipped ``annotations/`` folder (guidelines, schema, gold labels, prompts)."""
    return resource_dir("annotations")


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    """The parsed ``annotations/schema.json``."""
    path = annotations_dir() / "schema.json"
    try:
        data = loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise DataError(
            f"cannot read the label schema: {exc}; reinstall bordir", path=path
        ) from None
    if tuple(data["relevance"]["values"]) != RELEVANCE:
        raise DataError(
            f"schema relevance values {data['relevance']['values']} differ from the code's {RELEVANCE}",
            path=path,
        )
    return cast("dict[str, Any]", data)


_SUPPORTS = re.compile(r"(?i)^\s*(?:supports?|supporting|pro)[\s:-]+(?:claimant\s+)?")


def _key(value: object) -> str:
    return re.sub(r"\s+", " ", str(value).strip().strip("\"'`*.").strip()).casefold()


def normalize_relevance(value: object) -> str | None:
    """The canonical relevance label for ``value``, or None if it is not one."""
    if value is None:
        return None
    key = _key(value)
    if key.replace(" ", "_") in RELEVANCE:
        return key.replace(" ", "_")
    return cast("str | None", schema()["relevance"]["aliases"].get(key))


def normalize_viewpoint(value: object, claimants: Sequence[str] | None) -> str | None:
    """The canonical viewpoint for ``value`` given the territory's ``claimants``, or None.

    With ``claimants=None`` (no dataset to check against) any non-empty text
    that is not ``neutral`` / ``not_applicable`` is accepted as a claimant name.
    """
    if value is None:
        return None
    key = _key(value)
    if not key:
        return None
    if key.replace(" ", "_") in (NEUTRAL, NOT_APPLICABLE):
        return key.replace(" ", "_")
    alias = schema()["viewpoint"]["aliases"].get(key)
    if alias is not None:
        return cast("str | None", alias)
    m = _SUPPORTS.match(str(value))
    raw_name = (str(value)[m.end() :] if m else str(value)).strip().strip("\"'`*.").strip()
    if claimants is None:
        return raw_name or None
    name = _key(raw_name)
    for c in claimants:
        if c.casefold() == name:
            return c
    return None


def pair_problem(relevance: str, viewpoint: str) -> str | None:
    """Why (relevance, viewpoint) violates the schema's constraint, or None if it does not."""
    if (relevance == "not_relevant") != (viewpoint == NOT_APPLICABLE):
        if relevance == "not_relevant":
            return (
                f"viewpoint {viewpoint!r} with relevance 'not_relevant'; a document that does not bear on "
                f"the question has viewpoint 'not_applicable'"
            )
        return (
            f"viewpoint 'not_applicable' with relevance {relevance!r}; a document that bears on the question "
            f"supports a claimant or is 'neutral'"
        )
    return None


def label_options(claimants: Sequence[str]) -> tuple[tuple[str, str], ...]:
    """Every valid (relevance, viewpoint) pair for a territory with these claimants.

    >>> len(label_options(("Russia", "Ukraine")))
    7
    """
    out = [(r, v) for r in RELEVANT_LEVELS for v in (*claimants, NEUTRAL)]
    out.append(("not_relevant", NOT_APPLICABLE))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Label:
    """One row of a label file.

    ``relevance`` and ``viewpoint`` are None unless ``outcome == "labelled"``.
    """

    query_id: str
    doc_lang: str
    doc_id: str
    relevance: str | None
    viewpoint: str | None
    annotator: str
    outcome: str = "labelled"
    note: str = ""
    raw: str = ""

    @property
    def pair(self) -> tuple[str, str, str]:
        """``(query_id, doc_lang, doc_id)``: the pair this label is about."""
        return (self.query_id, self.doc_lang, self.doc_id)

    def to_dict(self) -> dict[str, str | None]:
        """The JSONL record (empty optional fields left out)."""
        d: dict[str, str | None] = {
            "query_id": self.query_id,
            "doc_lang": self.doc_lang,
            "doc_id": self.doc_id,
            "relevance": self.relevance,
            "viewpoint": self.viewpoint,
            "annotator": self.annotator,
        }
        if self.outcome != "labelled":
            d["outcome"] = self.outcome
        if self.note:
            d["note"] = self.note
        if self.raw:
            d["raw"] = self.raw
        return d
