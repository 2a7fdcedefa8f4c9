"""Label files: load (JSONL or CSV) with per-line validation, write, and the shipped gold labels.

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
import hashlib
import io
import json
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from .._atomic import atomic_write_text
from ..corpus import Corpus
from ..dataset import BorderLines
from ..errors import ConfigError, DataError
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

__all__ = [
    "LabelSet",
    "load_labels",
    "write_labels",
    "gold_path",
    "load_gold",
    "query_info",
    "GOLD_SETS",
    "manifest_problems",
    "write_manifest",
    "MANIFEST",
]

MANIFEST = "MANIFEST.json"
GOLD_SETS: tuple[str, ...] = ("demo",)
"""Names of the gold label sets shipped in ``annotations/gold/``."""

_REQUIRED = ("query_id", "doc_lang", "doc_id", "annotator")
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


class LabelSet(Sequence[Label]):
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
        self._labels = tuple(labels)
        self.meta = dict(meta or {})
        self.name = name
        self.source = source
        self.errors = tuple(errors)
        self.lines = tuple(lines)
        self.dataset = dataset

    def __getitem__(self, i):  # type: ignore[override]
        return self._labels[i]

    def __len__(self) -> int:
        return len(self._labels)

    def __iter__(self) -> Iterator[Label]:
        return iter(self._labels)

    def __repr__(self) -> str:
        return (
            f"LabelSet(name={self.name!r}, labels={len(self)}, annotators={list(self.annotators)})"
        )

    @property
    def annotators(self) -> tuple[str, ...]:
        """The annotators, in order of first appearance."""
        return tuple(dict.fromkeys(l.annotator for l in self._labels))

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
        return self._derive((l for l in self._labels if l.annotator == annotator), name=annotator)

    def split_annotators(self) -> list[LabelSet]:
        """One label set per annotator."""
        return [self.for_annotator(a) for a in self.annotators]

    def labelled(self) -> LabelSet:
        """Only the labels with ``outcome == "labelled"``."""
        return self._derive(l for l in self._labels if l.outcome == "labelled")

    def outcome_counts(self) -> dict[str, int]:
        """Labels per outcome (every outcome listed)."""
        counts = dict.fromkeys(OUTCOMES, 0)
        for l in self._labels:
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
        return {l.pair: getattr(l, dimension) for l in self._labels if l.outcome == "labelled"}

    def to_frame(self) -> pd.DataFrame:
        """One row per label: the schema's fields plus ``territory`` and ``query_lang``."""
        rows = []
        for l in self._labels:
            territory, lang = query_info(l.query_id, self.dataset)
            rows.append(
                {f: getattr(l, f) for f in FIELDS} | {"territory": territory, "query_lang": lang}
            )
        return pd.DataFrame(rows, columns=[*FIELDS, "territory", "query_lang"])

    def content_hash(self) -> str:
        """``sha256-…`` of the labels (order-independent): the label set's identity in signatures."""
        h = hashlib.sha256()
        for rec in sorted(
            json.dumps(l.to_dict(), ensure_ascii=False, sort_keys=True) for l in self._labels
        ):
            h.update(rec.encode("utf-8") + b"\n")
        return "sha256-" + h.hexdigest()[:16]

    def write(self, path: str | Path) -> Path:
        """Write as JSONL (``.jsonl``) or CSV (``.csv``); see :func:`write_labels`."""
        return write_labels(self, path)


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
                    rec = json.loads(line)
                except json.JSONDecodeError as exc:
                    yield lineno, DataError(f"invalid JSON: {exc.msg}", path=path, line=lineno)
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
            missing = [f for f in _REQUIRED if f not in header]
            if missing:
                yield (
                    1,
                    DataError(
                        f"missing column(s) {', '.join(missing)}; the header is {', '.join(header)}",
                        path=path,
                        line=1,
                        field=missing[0],
                    ),
                )
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


# --- manifest ---------------------------------------------------------------------------


def _file_hashes(folder: Path) -> dict[str, str]:
    out = {}
    for p in sorted(folder.rglob("*")):
        if p.is_file() and p.name != MANIFEST and "__pycache__" not in p.parts:
            out[p.relative_to(folder).as_posix()] = (
                "sha256:" + hashlib.sha256(p.read_bytes()).hexdigest()
            )
    return out


def write_manifest(folder: str | Path | None = None) -> Path:
    """Write ``MANIFEST.json`` (the sha256 of every other file) into the annotations folder."""
    folder = Path(folder) if folder is not None else annotations_dir()
    path = folder / MANIFEST
    data = {
        "description": "sha256 of every file in annotations/ (except this one)",
        "files": _file_hashes(folder),
    }
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def manifest_problems(folder: str | Path | None = None) -> list[str]:
    """Differences between the annotations folder and its ``MANIFEST.json`` (empty when they agree).

    >>> manifest_problems()
    []
    """
    folder = Path(folder) if folder is not None else annotations_dir()
    path = folder / MANIFEST
    if not path.is_file():
        return [f"{path} is missing"]
    listed = json.loads(path.read_text(encoding="utf-8")).get("files", {})
    actual = _file_hashes(folder)
    problems = [f"{name}: listed but missing" for name in sorted(set(listed) - set(actual))]
    problems += [f"{name}: not listed in {MANIFEST}" for name in sorted(set(actual) - set(listed))]
    problems += [
        f"{name}: checksum {actual[name]} differs from the manifest's {listed[name]}"
        for name in sorted(set(listed) & set(actual))
        if listed[name] != actual[name]
    ]
    return problems
