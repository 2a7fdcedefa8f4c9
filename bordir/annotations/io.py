"""Label files: load (JSONL or CSV) with per-line validation, and the shipped gold labels.

Every line is checked against the schema (:mod:`bordir.annotations.schema`)
and, when given, against a dataset (the query must exist; a claimant viewpoint
must name one of the query territory's claimants) and a corpus (the document
must exist). Problems are :class:`~bordir.errors.DataError` naming the file and
line: a line that is not JSON, a missing or unknown field, a label outside the
schema, an unknown query or document, an inconsistent (relevance, viewpoint)
pair, or a duplicate ``(query_id, doc_lang, doc_id, annotator)``.

``errors="raise"`` (default) raises the first problem (saying how many more
there are); ``errors="collect"`` keeps the valid lines and lists every problem
in :attr:`LabelSet.errors`.

Example:
    >>> from bordir.loaders import load_demo, load_demo_corpus
    >>> gold = load_gold("demo")
    >>> len(gold) > 1000, gold.annotators
    (True, ('bordir-demo-gold',))
    >>> import tempfile, pathlib
    >>> bad = pathlib.Path(tempfile.mkdtemp()) / "bad.jsonl"
    >>> _ = bad.write_text('{"query_id": "Crimea_uk", "doc_lang": "uk", "doc_id": "crimea_uk_p0", '
    ...                    '"relevance": "very", "viewpoint": "Ukraine", "annotator": "a"}\\n')
    >>> load_labels(bad, dataset=load_demo(), corpus=load_demo_corpus())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bordir.errors.DataError: ...bad.jsonl:1: field 'relevance': 'very' is not a relevance label; expected one of relevant, partially_relevant, not_relevant
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from .._io.columns import require_columns
from .._io.json_read import loads, not_valid
from ..corpus import Corpus
from ..dataset import BorderLines
from ..errors import ConfigError, DataError
from .labelset import LabelSet
from .schema import (
    FIELDS,
    OUTCOMES,
    RELEVANCE,
    Label,
    annotations_dir,
    normalize_relevance,
    normalize_viewpoint,
    pair_problem,
)

__all__ = ["load_labels", "gold_path", "load_gold", "GOLD_SETS"]

GOLD_SETS: tuple[str, ...] = ("demo",)
"""Names of the gold label sets shipped in ``annotations/gold/``."""

_REQUIRED = ("query_id", "doc_lang", "doc_id", "annotator")


# --- reading ----------------------------------------------------------------------------


def _records(path: Path) -> Iterator[tuple[int, Any]]:
    """(line, record) pairs; a record is a dict, or a DataError for an unreadable line."""
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".json", ".ndjson"):
        with path.open(encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                try:
                    rec = loads(line)
                except json.JSONDecodeError as exc:
                    yield lineno, DataError(not_valid(exc), path=path, line=lineno)
                    continue
                if not isinstance(rec, dict):
                    yield (
                        lineno,
                        DataError("expected a JSON object per line", path=path, line=lineno),
                    )
                    continue
                yield lineno, rec
    elif suffix in (".csv", ".tsv"):
        with path.open(encoding="utf-8", newline="") as fh:
            reader = csv.DictReader(fh, delimiter="\t" if suffix == ".tsv" else ",")
            header = reader.fieldnames or []
            try:
                require_columns(
                    header,
                    _REQUIRED,
                    path=path,
                    line=1,
                    expected=f"the header is {', '.join(header)}",
                )
            except DataError as err:
                yield 1, err
                return
            for row in reader:
                if None in row:
                    yield (
                        reader.line_num,
                        DataError(
                            "more cells than header columns", path=path, line=reader.line_num
                        ),
                    )
                    continue
                yield reader.line_num, {k: (v if v != "" else None) for k, v in row.items()}
    else:
        raise DataError(f"unknown label file type {suffix!r}; use .jsonl or .csv", path=path)


def _check(
    rec: dict[str, Any],
    *,
    path: Path,
    line: int,
    dataset: BorderLines | None,
    corpus: Corpus | None,
) -> Label | DataError:
    def err(msg: str, field: str | None = None) -> DataError:
        return DataError(msg, path=path, line=line, field=field)

    unknown = sorted(set(rec) - set(FIELDS))
    if unknown:
        return err(f"unknown field(s) {', '.join(unknown)}; known: {', '.join(FIELDS)}", unknown[0])
    for f in _REQUIRED:
        if not isinstance(rec.get(f), str) or not rec[f].strip():
            return err("missing or empty (expected a string)", f)
    for f in ("outcome", "note", "raw"):
        if rec.get(f) is not None and not isinstance(rec[f], str):
            return err(f"expected a string, found {type(rec[f]).__name__}", f)
    qid, lang, doc_id = rec["query_id"].strip(), rec["doc_lang"].strip(), rec["doc_id"].strip()
    claimants = None
    if dataset is not None:
        q = dataset.find_query(qid)
        if q is None:
            known = [q.query_id for q in dataset.queries]
            return err(
                f"unknown query_id {qid!r}; dataset {dataset.name!r} has {len(known)} queries "
                f"({', '.join(known[:3])} …)",
                "query_id",
            )
        claimants = q.claimants
    if corpus is not None:
        try:
            corpus.get(lang, doc_id)
        except ConfigError:
            return err(
                f"unknown document {doc_id!r} in language {lang!r}: not in corpus "
                f"{corpus.name or corpus.source!r}",
                "doc_id",
            )
    outcome = (rec.get("outcome") or "labelled").strip()
    if outcome not in OUTCOMES:
        return err(
            f"{outcome!r} is not an outcome; expected one of {', '.join(OUTCOMES)}", "outcome"
        )
    relevance = viewpoint = None
    if outcome == "labelled":
        raw_rel, raw_vp = rec.get("relevance"), rec.get("viewpoint")
        if raw_rel is None:
            return err("missing (a labelled pair needs a relevance label)", "relevance")
        relevance = normalize_relevance(raw_rel)
        if relevance is None:
            return err(
                f"{raw_rel!r} is not a relevance label; expected one of {', '.join(RELEVANCE)}",
                "relevance",
            )
        if raw_vp is None:
            return err("missing (a labelled pair needs a viewpoint label)", "viewpoint")
        viewpoint = normalize_viewpoint(raw_vp, claimants)
        if viewpoint is None:
            allowed = [*(claimants or ()), "neutral", "not_applicable"]
            return err(
                f"{raw_vp!r} is not a viewpoint for {qid}; expected one of {', '.join(allowed)}",
                "viewpoint",
            )
        problem = pair_problem(relevance, viewpoint)
        if problem:
            return err(problem, "viewpoint")
    else:
        for f in ("relevance", "viewpoint"):
            if rec.get(f) not in (None, ""):
                return err(
                    f"has a label but outcome is {outcome!r}; leave it empty or set outcome 'labelled'",
                    f,
                )
    return Label(
        qid,
        lang,
        doc_id,
        relevance,
        viewpoint,
        rec["annotator"].strip(),
        outcome,
        (rec.get("note") or "").strip(),
        rec.get("raw") or "",
    )


def load_labels(
    path: str | Path,
    *,
    dataset: BorderLines | None = None,
    corpus: Corpus | None = None,
    errors: Literal["raise", "collect"] = "raise",
    name: str | None = None,
) -> LabelSet:
    """Read and validate a label file (``.jsonl`` or ``.csv`` with the schema's columns).

    Args:
        path: the file.
        dataset: check query ids and claimant names against it (recommended).
        corpus: check that every document exists.
        errors: ``raise`` the first problem, or ``collect`` them all into ``.errors``.
        name: display name (default: the file's stem).

    Raises:
        DataError: a problem, with the file, line and field (``errors="raise"``), or an unreadable file.
    """
    if errors not in ("raise", "collect"):
        raise ConfigError(f"errors must be 'raise' or 'collect', not {errors!r}")
    path = Path(path)
    if not path.is_file():
        raise DataError("file not found (expected a label .jsonl or .csv)", path=path)
    labels: list[Label] = []
    lines: list[int] = []
    problems: list[DataError] = []
    seen: dict[tuple[str, str, str, str], int] = {}
    for lineno, rec in _records(path):
        item = (
            rec
            if isinstance(rec, DataError)
            else _check(rec, path=path, line=lineno, dataset=dataset, corpus=corpus)
        )
        if isinstance(item, Label):
            key = (*item.pair, item.annotator)
            if key in seen:
                item = DataError(
                    f"duplicate pair ({item.query_id}, {item.doc_lang}, {item.doc_id}) for annotator "
                    f"{item.annotator!r}; first at line {seen[key]}",
                    path=path,
                    line=lineno,
                )
            else:
                seen[key] = lineno
        if isinstance(item, DataError):
            problems.append(item)
            continue
        labels.append(item)
        lines.append(lineno)
    if problems and errors == "raise":
        first = problems[0]
        more = len(problems) - 1
        msg = first.message + (
            f" (and {more} more problem{'s' if more > 1 else ''} in this file; "
            "load with errors='collect' to list them)"
            if more
            else ""
        )
        raise DataError(msg, path=first.path, line=first.line, field=first.field)
    return LabelSet(
        labels,
        name=path.stem if name is None else name,
        source=str(path),
        errors=problems,
        lines=lines,
        dataset=dataset,
    )


# --- gold labels ------------------------------------------------------------------------


def gold_path(name: str = "demo") -> Path:
    """Path of a shipped gold label file (``annotations/gold/<name>.jsonl``)."""
    if name not in GOLD_SETS:
        raise ConfigError(f"no gold labels named {name!r}; shipped: {', '.join(GOLD_SETS)}")
    return annotations_dir() / "gold" / f"{name}.jsonl"


@lru_cache(maxsize=4)
def load_gold(name: str = "demo") -> LabelSet:
    """The shipped gold labels ``name``, validated against their dataset and corpus."""
    from ..loaders import load_demo, load_demo_corpus

    path = gold_path(name)
    return load_labels(path, dataset=load_demo(), corpus=load_demo_corpus(), name=f"gold-{name}")
