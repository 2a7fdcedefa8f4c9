"""NoMIRACL's three files (``corpus.jsonl``, ``topics/*.tsv``, ``qrels/*.tsv``) read and checked, and the subset checks.

NoMIRACL's loader (``NoMIRACLDataLoader``) reads these files into dicts: a second line for
the same key silently replaces the first. Here the readers refuse what makes the data say two
things at once, with file, line and field (the fix is in the file):

* ``corpus.jsonl``: a ``docid`` on two lines with another title or text; a NUL character in
  a ``docid``, title or text;
* ``topics/{split}.{subset}.tsv``: a query id on two lines with two texts; an empty query
  (or query id); a NUL character;
* ``qrels/{split}.{subset}.tsv``: a relevance other than ``0`` or ``1`` (NoMIRACL's judgments
  are binary; ``2`` or ``-1`` would be read as relevant or not by a guess); a (query, passage)
  pair judged twice with two values; a NUL character.

A line repeated with the same value says nothing new and is accepted. A UTF-8 byte-order mark
at the start of a file is dropped (as every other bordir reader does).

:func:`check_subset` then holds each query to its subset's premise: a query of the
``non_relevant`` subset with a passage judged relevant, or of the ``relevant`` subset with
none, is left out with a warning naming its id (the subset's rates would be computed on the
wrong premise); a subset none of whose queries fits its premise is refused (its files are
likely swapped).

Example:
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "q.tsv").write_text("q1\\tQ0\\td1\\t1\\nq1\\tQ0\\td1\\t0\\n", encoding="utf-8")
    >>> try:
    ...     read_qrels(d / "q.tsv")
    ... except DataError as err:
    ...     print(str(err).replace(str(d), "qrels"))
    qrels/q.tsv:2: field 'relevance': query 'q1', passage 'd1' is judged 1 on line 1 and 0 here; keep one judgment per (query, passage)
"""

from __future__ import annotations

import csv
import gzip
import io
import unicodedata
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

from .._io.json_read import json_object_lines, not_valid
from ..errors import DataError

__all__ = [
    "read_corpus",
    "read_topics",
    "read_qrels",
    "read_row",
    "check_subset",
    "some_ids",
    "text_lines",
    "blank",
]


class _Judged(Protocol):
    @property
    def query_id(self) -> str: ...
    @property
    def n_relevant(self) -> int: ...


Q = TypeVar("Q", bound=_Judged)

_SHOWN_IDS = 10


def some_ids(ids: Sequence[str]) -> str:
    """``ids`` for a message: the first ten, then how many more.

    Example:
        >>> some_ids(["a", "b"]), some_ids([str(i) for i in range(12)])
        ('a, b', '0, 1, 2, 3, 4, 5, 6, 7, 8, 9 and 2 more')
    """
    shown = ", ".join(ids[:_SHOWN_IDS])
    return shown if len(ids) <= _SHOWN_IDS else f"{shown} and {len(ids) - _SHOWN_IDS} more"


def blank(text: str) -> bool:
    """True when ``text`` shows nothing: only spaces and invisible format characters (U+200B …).

    Example:
        >>> blank(" \u200b\u2060 "), blank("Swali?")
        (True, False)
    """
    return all(c.isspace() or unicodedata.category(c) == "Cf" for c in text)


def _open_text(path: Path) -> io.TextIOBase:
    try:
        if path.suffix == ".gz":
            return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8-sig", newline="")
        return path.open(encoding="utf-8-sig", newline="")
    except OSError as exc:
        raise DataError(f"cannot read: {exc.strerror or exc}", path=path) from None


def text_lines(path: Path) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` of a UTF-8 file (``.gz`` too; a leading byte-order mark dropped)."""
    fh = _open_text(path)
    with fh:
        try:
            yield from enumerate(fh, start=1)
        except (UnicodeDecodeError, gzip.BadGzipFile, EOFError, OSError) as exc:
            raise DataError(f"cannot read: {exc}", path=path) from None


def _no_nul(value: str, path: Path, line: int, field: str) -> str:
    if "\x00" in value:
        raise DataError(
            "contains a NUL character; the file is broken (remove it, or get the file again)",
            path=path,
            line=line,
            field=field,
        )
    return value


def _no_nul_column(line: str, names: Sequence[str], path: Path, lineno: int) -> None:
    """Refuse a NUL in a tab-separated ``line``, naming its column (``names``, the last one for the rest)."""
    if "\x00" in line:
        for i, col in enumerate(line.split("\t")):
            _no_nul(col, path, lineno, names[min(i, len(names) - 1)])


class _Once:
    """Values by key, and the line each was first read on: a key read again must bring the same value."""

    def __init__(
        self, path: Path, field: str, conflict: Callable[[Any, Any, Any, int], str]
    ) -> None:
        """``conflict(key, earlier value, value, earlier line)``: the message of a key read again."""
        self.path, self.field, self.conflict = path, field, conflict
        self.values: dict[Any, Any] = {}
        self.lines: dict[Any, int] = {}

    def add(self, key: Any, value: Any, line: int) -> None:
        """Keep ``value`` for ``key`` (read on ``line``)."""
        if key in self.values and self.values[key] != value:
            raise DataError(
                self.conflict(key, self.values[key], value, self.lines[key]),
                path=self.path,
                line=line,
                field=self.field,
            )
        self.lines.setdefault(key, line)
        self.values[key] = value


def read_corpus(path: Path) -> dict[str, tuple[str, str]]:
    """NoMIRACL's ``load_corpus``: docid → (title, text), both stripped with newlines as spaces.

    Raises:
        DataError: a line is not a JSON object with string ``docid``, ``title``, ``text``; a
            value holds a NUL; a docid is on two lines with another title or text.
    """
    seen = _Once(
        path,
        "docid",
        lambda docid, old, new, n: (
            f"docid {docid!r} is also on line {n} with another "
            f"{'title' if old[0] != new[0] else 'text'}; keep one passage per docid "
            "(NoMIRACL's loader would keep the last one without a word)"
        ),
    )
    for lineno, rec in json_object_lines(
        text_lines(path),
        path,
        invalid=not_valid,
        not_object=lambda _: "expected one JSON object per line",
    ):
        for key in ("docid", "title", "text"):
            if not isinstance(rec.get(key), str):
                raise DataError(
                    "missing or not a string; corpus lines have docid, title, text",
                    path=path,
                    line=lineno,
                    field=key,
                )
            _no_nul(rec[key], path, lineno, key)
        docid = rec["docid"]
        passage = (
            rec["title"].strip().replace("\n", " "),
            rec["text"].strip().replace("\n", " "),
        )
        seen.add(docid, passage, lineno)
    return dict(seen.values)


def _tsv_lines(path: Path, names: Sequence[str]) -> Iterator[tuple[int, str]]:
    """The non-blank lines of a tab-separated file (columns ``names``), none with a NUL."""
    for lineno, line in text_lines(path):
        if line.strip():
            _no_nul_column(line, names, path, lineno)
            yield lineno, line


def _row(line: str) -> list[str]:
    return next(csv.reader([line.rstrip("\r\n")], delimiter="\t", quoting=csv.QUOTE_NONE))


def read_topics(path: Path) -> dict[str, str]:
    """NoMIRACL's ``load_queries``: ``query_id<TAB>query`` per line (no quoting).

    Raises:
        DataError: a line has no query or a third column; the query (or its id) is empty (or
            invisible); a NUL; a query id on
            two lines with two texts.
    """
    seen = _Once(
        path,
        "query_id",
        lambda qid, old, new, n: (
            f"query id {qid!r} is also on line {n} with another text ({old!r}); keep one text "
            "per query id"
        ),
    )
    for lineno, line in _tsv_lines(path, ("query_id", "query")):
        row = _row(line)
        if len(row) != 2:  # a third column would be cut off the query (NoMIRACL's loader stops)
            found = f", found {len(row)} columns" if len(row) > 2 else ""
            raise DataError(
                f"expected query_id<TAB>query{found}", path=path, line=lineno, field="query"
            )
        qid, text = row[0], row[1]
        if blank(qid):
            raise DataError(
                "the query id is empty; expected query_id<TAB>query",
                path=path,
                line=lineno,
                field="query_id",
            )
        if blank(text):
            raise DataError(
                f"query {qid!r} is empty; a query needs its text",
                path=path,
                line=lineno,
                field="query",
            )
        seen.add(qid, text, lineno)
    return dict(seen.values)


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    """NoMIRACL's ``load_qrels``: ``query_id<TAB>Q0<TAB>docid<TAB>relevance`` → query → docid → relevance.

    Raises:
        DataError: not 4 columns; an empty docid; a relevance other than 0 or 1; a NUL; a (query,
            passage) pair judged twice with two values.
    """
    seen = _Once(
        path,
        "relevance",
        lambda pair, old, new, n: (
            f"query {pair[0]!r}, passage {pair[1]!r} is judged {old} on line {n} and {new} "
            "here; keep one judgment per (query, passage)"
        ),
    )
    for lineno, line in _tsv_lines(path, ("query_id", "Q0", "docid", "relevance")):
        row = _row(line)
        if len(row) != 4:
            raise DataError(
                f"expected 4 tab-separated columns (query_id, Q0, docid, relevance), found {len(row)}",
                path=path,
                line=lineno,
                field="docid" if len(row) < 3 else "relevance",
            )
        qid, docid = row[0], row[2]
        if blank(docid):
            raise DataError(
                "the docid is empty; expected query_id<TAB>Q0<TAB>docid<TAB>relevance",
                path=path,
                line=lineno,
                field="docid",
            )
        try:
            rel = int(row[3])
        except ValueError:
            rel = None
        if rel not in (0, 1):
            raise DataError(
                f"expected a relevance of 0 or 1 (NoMIRACL's judgments are binary), found {row[3]!r}",
                path=path,
                line=lineno,
                field="relevance",
            )
        seen.add((qid, docid), rel, lineno)
    out: dict[str, dict[str, int]] = {}
    for (qid, docid), rel in seen.values.items():
        out.setdefault(qid, {})[docid] = rel
    return out


def check_subset(subset: str, queries: list[Q], source: str) -> tuple[list[Q], list[str]]:
    """The queries of ``subset`` that fit its premise, and a warning naming those that do not.

    ``non_relevant``: no passage judged relevant; ``relevant``: at least one. ``source`` (the
    judgments' file, or the rows) is named in the warning and the error.

    Raises:
        DataError: the subset has queries and none fits its premise.
    """
    if subset == "non_relevant":
        bad = [q.query_id for q in queries if q.n_relevant > 0]
        why = "a passage judged relevant (1), which the non-relevant subset cannot have"
    else:
        bad = [q.query_id for q in queries if q.n_relevant == 0]
        why = "no passage judged relevant, which the relevant subset needs"
    if not bad:
        return queries, []
    if len(bad) == len(queries):
        raise DataError(
            f"every query of the {subset} subset ({len(bad)}) has {why}; are the two subsets' "
            "files swapped?",
            path=source,
        )
    left_out = set(bad)
    kept = [q for q in queries if q.query_id not in left_out]
    return kept, [
        f"{subset}: {len(bad)} query(ies) have {why}; left out: {some_ids(bad)} ({source})"
    ]


def _passages_of(value: Any, path: Path, line: int, name: str) -> list[Mapping[str, str]]:
    if not isinstance(value, (list, tuple)):
        raise DataError("expected a list of passages", path=path, line=line, field=name)
    out: list[Mapping[str, str]] = []
    for p in value:
        if not isinstance(p, Mapping) or not all(
            isinstance(p.get(k), str) for k in ("docid", "title", "text")
        ):
            raise DataError(
                "expected passages with docid, title and text", path=path, line=line, field=name
            )
        for k in ("docid", "title", "text"):
            _no_nul(p[k], path, line, f"{name}.{k}")
        out.append(p)
    return out


def read_row(
    row: Mapping[str, Any],
    path: Path,
    line: int,
    corpus: dict[str, tuple[str, str]],
    texts: dict[str, tuple[str, int]],
) -> tuple[str, str, dict[str, int]]:
    """One row of the hub's parquet files: ``(query_id, query, docid → relevance)``; its passages go to ``corpus``.

    ``texts`` (query id → (text, row)) holds the queries read so far, so a query id on two rows
    with two texts is refused. The positives come first, as NoMIRACL's own hub loader builds them.

    Raises:
        DataError: a field is missing or of another type; the query is empty; a value holds a
            NUL; a query id is on two rows with two texts; a passage is both positive and
            negative; a docid has another title or text than on an earlier row.
    """
    for key in ("query_id", "query"):
        if not isinstance(row.get(key), str):
            raise DataError(
                "missing or not a string; rows have query_id, query, "
                "positive_passages, negative_passages",
                path=path,
                line=line,
                field=key,
            )
        _no_nul(row[key], path, line, key)
    qid, query = row["query_id"], row["query"]
    if blank(qid) or blank(query):
        raise DataError(
            f"query {qid!r} is empty; a query needs its text"
            if not blank(qid)
            else "the query id is empty",
            path=path,
            line=line,
            field="query" if not blank(qid) else "query_id",
        )
    if qid in texts and texts[qid][0] != query:
        raise DataError(
            f"query id {qid!r} is also on row {texts[qid][1]} with another text "
            f"({texts[qid][0]!r}); keep one text per query id",
            path=path,
            line=line,
            field="query_id",
        )
    texts.setdefault(qid, (query, line))
    judged: dict[str, int] = {}
    for name, rel in (("positive_passages", 1), ("negative_passages", 0)):
        for p in _passages_of(row.get(name), path, line, name):
            docid, passage = p["docid"], (p["title"], p["text"])
            if judged.get(docid, rel) != rel:
                raise DataError(
                    f"passage {docid!r} is both a positive and a negative passage of query "
                    f"{qid!r}; keep one judgment per (query, passage)",
                    path=path,
                    line=line,
                    field=name,
                )
            if corpus.setdefault(docid, passage) != passage:
                what = "title" if corpus[docid][0] != passage[0] else "text"
                raise DataError(
                    f"passage {docid!r} has another {what} on an earlier row; keep one passage "
                    "per docid",
                    path=path,
                    line=line,
                    field=name,
                )
            judged[docid] = rel
    return qid, query, judged
