"""Labels in memory: :class:`LabelSet` (one file's labels, in file order, with their problems), :func:`query_info` and :func:`write_labels` (a label file, JSONL or CSV)."""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from .._io.atomic import atomic_write_text
from .._sequence import TupleSequence
from ..dataset import BorderLines
from ..errors import ConfigError, DataError
from .schema import (
    FIELDS,
    OUTCOMES,
    Label,
)

__all__ = ["LabelSet", "query_info", "write_labels", "Pair"]


Pair = tuple[str, str, str]


def query_info(query_id: str, dataset: BorderLines | None = None) -> tuple[str, str]:
    """``(territory, query_lang)`` of a query: from ``dataset`` when it knows the query, else from the id.

    BorderLines ids are ``{Territory_with_underscores}_{lang}``.

    >>> query_info("Jammu_and_Kashmir_hi")
    ('Jammu and Kashmir', 'hi')
    """
    if dataset is not None:
        q = dataset.find_query(query_id)
        if q is not None:
            return q.territory, q.lang
    territory, sep, lang = query_id.rpartition("_")
    if not sep:
        return query_id, ""
    return territory.replace("_", " "), lang


class LabelSet(TupleSequence[Label]):
    """Labels from one file (or built in memory), in file order.

    Attributes:
        name: a display name (default: the file's stem).
        source: where the labels came from.
        errors: with ``errors="collect"``: every problem found (the bad lines are not in the set).
        lines: the 1-based line of each label in its file (empty when built in memory).
        meta: facts about how the set was made (e.g. :func:`~bordir.annotations.majority_vote`'s left-out pairs).
    """

    def __init__(
        self,
        labels: Iterable[Label],
        *,
        name: str = "",
        source: str = "",
        errors: Sequence[DataError] = (),
        lines: Sequence[int] = (),
        dataset: BorderLines | None = None,
        meta: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(labels)
        self.meta = dict(meta or {})
        self.name = name
        self.source = source
        self.errors = tuple(errors)
        self.lines = tuple(lines)
        self.dataset = dataset

    def __repr__(self) -> str:
        return (
            f"LabelSet(name={self.name!r}, labels={len(self)}, annotators={list(self.annotators)})"
        )

    @property
    def annotators(self) -> tuple[str, ...]:
        """The annotators, in order of first appearance."""
        return tuple(dict.fromkeys(l.annotator for l in self._items))

    def _derive(self, labels: Iterable[Label], name: str | None = None) -> LabelSet:
        return LabelSet(
            labels,
            name=self.name if name is None else name,
            source=self.source,
            dataset=self.dataset,
        )

    def for_annotator(self, annotator: str) -> LabelSet:
        """The labels of one annotator."""
        if annotator not in self.annotators:
            raise ConfigError(
                f"no annotator {annotator!r} in {self.name or 'the labels'}; "
                f"present: {', '.join(self.annotators) or 'none'}"
            )
        return self._derive((l for l in self._items if l.annotator == annotator), name=annotator)

    def split_annotators(self) -> list[LabelSet]:
        """One label set per annotator."""
        return [self.for_annotator(a) for a in self.annotators]

    def labelled(self) -> LabelSet:
        """Only the labels with ``outcome == "labelled"``."""
        return self._derive(l for l in self._items if l.outcome == "labelled")

    def outcome_counts(self) -> dict[str, int]:
        """Labels per outcome (every outcome listed)."""
        counts = dict.fromkeys(OUTCOMES, 0)
        for l in self._items:
            counts[l.outcome] += 1
        return counts

    def single(self) -> LabelSet:
        """This set, checked to have exactly one annotator (what filters and metrics need)."""
        if len(self.annotators) > 1:
            raise ConfigError(
                f"{self.name or 'the labels'} hold {len(self.annotators)} annotators ({', '.join(self.annotators)}); "
                "use .for_annotator(name) or bordir.annotations.majority_vote(...) to get one label per pair"
            )
        return self

    def lookup(self, dimension: Literal["relevance", "viewpoint"] = "relevance") -> dict[Pair, str]:
        """``{(query_id, doc_lang, doc_id): label}`` of the labelled pairs (one annotator)."""
        if dimension not in ("relevance", "viewpoint"):
            raise ConfigError(
                f"unknown label dimension {dimension!r}; use 'relevance' or 'viewpoint'"
            )
        self.single()
        return {l.pair: getattr(l, dimension) for l in self._items if l.outcome == "labelled"}

    def to_frame(self) -> pd.DataFrame:
        """One row per label: the schema's fields plus ``territory`` and ``query_lang``."""
        rows = []
        for l in self._items:
            territory, lang = query_info(l.query_id, self.dataset)
            rows.append(
                {f: getattr(l, f) for f in FIELDS} | {"territory": territory, "query_lang": lang}
            )
        return pd.DataFrame(rows, columns=[*FIELDS, "territory", "query_lang"])

    def content_hash(self) -> str:
        """``sha256-…`` of the labels (order-independent): the label set's identity in signatures."""
        h = hashlib.sha256()
        for rec in sorted(
            json.dumps(l.to_dict(), ensure_ascii=False, sort_keys=True) for l in self._items
        ):
            h.update(rec.encode("utf-8") + b"\n")
        return "sha256-" + h.hexdigest()[:16]

    def write(self, path: str | Path) -> Path:
        """Write as JSONL (``.jsonl``) or CSV (``.csv``); see :func:`write_labels`."""
        return write_labels(self, path)


def write_labels(labels: Iterable[Label], path: str | Path) -> Path:
    """Write labels as JSONL (``.jsonl``, one object per line) or CSV (``.csv``, every schema column)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        text = "".join(json.dumps(l.to_dict(), ensure_ascii=False) + "\n" for l in labels)
    elif suffix == ".csv":
        buf = io.StringIO(newline="")
        w = csv.DictWriter(buf, fieldnames=list(FIELDS))
        w.writeheader()
        for l in labels:
            w.writerow({f: ("" if getattr(l, f) is None else getattr(l, f)) for f in FIELDS})
        text = buf.getvalue()
    else:
        raise ConfigError(f"unknown label file type {suffix!r} for {path}; use .jsonl or .csv")
    return atomic_write_text(path, text, newline="")
