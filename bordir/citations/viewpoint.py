"""Does the chosen option agree with the viewpoint of the documents the answer cites?

**Input contract** (the annotations helper produces it): a table with columns

===========  =====================================================================
column       meaning
===========  =====================================================================
query_id     the query the document was retrieved for (``Crimea_uk``)
doc_lang     the document's language (BorderLines code)
doc_id       the document's corpus id
viewpoint    the English name of the claimant the document supports (as in the
             dataset's ``Claimants``), or empty / ``neutral`` /
             ``not_applicable`` / ``none`` / ``unknown`` when it supports none
===========  =====================================================================

Labels are per (query, document) because a stance is relative to the
question asked. A :class:`bordir.annotations.LabelSet` (one annotator) is
accepted as well: its ``to_frame()`` has these columns. A pair labelled twice with different viewpoints is an error.

**Viewpoint agreement** of a cell = Σ over answered responses of the cited
documents (each counted once per answer) whose viewpoint is the chosen
claimant / Σ of the cited documents that have a claimant viewpoint.

Example:
    >>> labels = pd.DataFrame({"query_id": ["Crimea_uk"] * 3, "doc_lang": ["uk", "ru", "en"],
    ...     "doc_id": ["a", "b", "c"], "viewpoint": ["Ukraine", "Russia", "neutral"]})
    >>> lookup = viewpoint_lookup(labels)
    >>> viewpoint_counts(lookup, "Crimea_uk", "Ukraine", [("a", "uk"), ("b", "ru"), ("c", "en"), ("a", "uk")])
    (1, 2)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd

from .._io.columns import require_columns
from ..errors import DataError

__all__ = ["LABEL_COLUMNS", "NO_VIEWPOINT", "viewpoint_lookup", "viewpoint_counts"]

LABEL_COLUMNS: tuple[str, ...] = ("query_id", "doc_lang", "doc_id", "viewpoint")
NO_VIEWPOINT = frozenset(
    {"", "none", "neutral", "unknown", "n/a", "na", "not_applicable", "not applicable"}
)
"""Viewpoint values that name no claimant (compared case-insensitively)."""


def _norm(v: object) -> str:
    return "" if v is None or (isinstance(v, float) and v != v) else str(v).strip().casefold()


def viewpoint_lookup(labels: pd.DataFrame | Any) -> dict[tuple[str, str, str], str]:
    """``(query_id, doc_lang, doc_id) → viewpoint`` (case-folded) for labels that name a claimant.

    Raises:
        DataError: a column is missing, or a pair has two different viewpoints.
    """
    if not isinstance(labels, pd.DataFrame) and hasattr(labels, "to_frame"):
        labels = (labels.single() if hasattr(labels, "single") else labels).to_frame()
    require_columns(
        labels,
        LABEL_COLUMNS,
        path="viewpoint labels",
        expected=f"expected columns: {', '.join(LABEL_COLUMNS)}",
        name_field=False,
    )
    out: dict[tuple[str, str, str], str] = {}
    seen: dict[tuple[str, str, str], str] = {}
    for i, (q, l, d, v) in enumerate(zip(*(labels[c] for c in LABEL_COLUMNS))):
        key = (str(q), str(l), str(d))
        vp = _norm(v)
        if key in seen and seen[key] != vp:
            raise DataError(
                f"row {i}: {key} is labelled both {seen[key]!r} and {vp!r}; keep one label per pair",
                path="viewpoint labels",
                field="viewpoint",
            )
        seen[key] = vp
        if vp not in NO_VIEWPOINT:
            out[key] = vp
    return out


def viewpoint_counts(
    lookup: dict[tuple[str, str, str], str],
    query_id: str,
    chosen: str | None,
    cited: Iterable[tuple[str, str]],
) -> tuple[int, int]:
    """``(agreeing, labelled)`` cited documents of one answer; ``(0, 0)`` when nothing was chosen."""
    if not chosen:
        return 0, 0
    c = _norm(chosen)
    agree = labelled = 0
    for doc_id, lang in dict.fromkeys(cited):
        vp = lookup.get((query_id, lang, doc_id))
        if vp is not None:
            labelled += 1
            agree += vp == c
    return agree, labelled
