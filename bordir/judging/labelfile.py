"""Your own labels as judge-calibration items: a JSONL or CSV file of (language, question, context, text, human label[, annotator]).

One row per (item, annotator). Fields (JSONL keys or CSV columns):

* ``lang`` (or ``language``): a bordir language code;
* ``question``: the question;
* ``context``: the passages: a string, or (JSONL) a list of strings or of ``{"text": …}``
  objects; in CSV a JSON list written in the cell is read as a list. Never empty;
* ``answer`` or ``sentence``: the text the judge rates;
* ``label``: the human label, one of the task's labels (``Supported`` / ``Not Supported`` for
  ``faithfulness``; case, ``_`` and ``-`` are ignored) or one of its abstentions;
* ``annotator`` (optional): who labelled it. Rows with the same item and different annotators
  are one item with several labels (the reference is their plurality; a tie leaves the item
  out of the agreement, counted) and give the inter-annotator ceiling;
* ``question_id`` (optional): the question's id, the bootstrap's cluster (default: the
  language and the question text); ``item_id`` (optional; default: language, question, text);
* any other field (``territory``, ``claimants`` for the ``relevance`` task) is kept for the task.

Relevance labels of ``bordir annotate``'s double annotation become such a file with one row
per (pair, annotator): the query's text as ``question``, the document as ``context``, the
relevance as ``label`` (``relevant`` / ``not_relevant``; ``partially_relevant`` counts as
relevant), the territory and its claimants.

Every problem is one :class:`~bordir.errors.DataError` naming the file, the line and the field.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import ConfigError, DataError, undecodable
from ..stats import plurality
from .items import ItemSet, JudgeItem, content_hash
from .tasks import normalize_label

__all__ = ["load_label_file", "FIELDS"]

FIELDS = ("lang", "question", "context", "answer", "sentence", "label", "annotator")
"""The fields read (``question_id``, ``item_id`` and task fields are optional)."""


def _rows(path: Path, data: bytes) -> Iterator[tuple[int, dict[str, Any]]]:
    if path.suffix.lower() in (".jsonl", ".json", ".ndjson"):
        from .._io.json_read import iter_json_objects

        yield from iter_json_objects(path)
        return
    if path.suffix.lower() not in (".csv", ".tsv"):
        raise DataError("expected a .jsonl or .csv file of labelled items", path=path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise undecodable(path) from None
    reader = csv.DictReader(io.StringIO(text), delimiter="\t" if path.suffix == ".tsv" else ",")
    start = 2
    for row in reader:
        yield start, {k: v for k, v in row.items() if k is not None}
        start = reader.line_num + 1


def _field(rec: dict[str, Any], names: Sequence[str], path: Path, line: int) -> str:
    for n in names:
        v = rec.get(n)
        if v is not None and not (isinstance(v, str) and not v.strip()):
            if not isinstance(v, str):
                raise DataError(
                    f"expected a string, found {type(v).__name__}", path=path, line=line, field=n
                )
            return v
    found = "an empty value" if any(n in rec for n in names) else "no such field"
    raise DataError(
        f"expected a non-empty string, found {found}", path=path, line=line, field=names[0]
    )


def _context(rec: dict[str, Any], path: Path, line: int) -> tuple[str, ...]:
    v = rec.get("context")
    if isinstance(v, str) and v.strip().startswith("["):
        try:
            v = json.loads(v)
        except json.JSONDecodeError:
            pass  # a passage that begins with "[": kept as text
    if isinstance(v, str):
        v = [v]
    out = []
    for x in v if isinstance(v, list) else []:
        t = x.get("text") if isinstance(x, dict) else x
        if not isinstance(t, str):
            raise DataError(
                'expected passages as strings or {"text": …} objects',
                path=path,
                line=line,
                field="context",
            )
        if t.strip():
            out.append(t)
    if not out:
        raise DataError(
            "the item has no context: expected the passages the answer rests on (a string, or a "
            "list of strings)",
            path=path,
            line=line,
            field="context",
        )
    return tuple(out)


def load_label_file(
    path: str | os.PathLike[str],
    *,
    labels: Sequence[str],
    needs: Sequence[str] = (),
    aliases: Mapping[str, str] | None = None,
) -> ItemSet:
    """The labelled items of a JSONL or CSV file (see the module docs).

    Args:
        path: the file (``.jsonl`` or ``.csv``).
        labels: the labels a row may give (the task's two labels and its abstentions).
        needs: fields every row must have for the task (``territory``, ``claimants``).
        aliases: labels read as one of ``labels`` (``{"partially_relevant": "relevant"}``).

    Raises:
        DataError: the file is missing, empty or malformed; a label outside ``labels``; an item
            without context; one annotator labelling an item twice (file, line and field named).
    """
    from ..languages import get as language

    p = Path(path)
    if not p.is_file():
        raise DataError("file not found; expected a .jsonl or .csv file of labelled items", path=p)
    data = p.read_bytes()
    merged: dict[str, dict[str, Any]] = {}
    for line, rec in _rows(p, data):
        lang = _field(rec, ("lang", "language"), p, line)
        try:
            lang = language(lang.strip()).code
        except ConfigError:
            raise DataError(
                f"unknown language code {lang!r} (bordir list languages shows the codes)",
                path=p,
                line=line,
                field="lang",
            ) from None
        question = _field(rec, ("question",), p, line)
        text = _field(rec, ("answer", "sentence"), p, line)
        context = _context(rec, p, line)
        raw = _field(rec, ("label",), p, line)
        label = normalize_label(raw, labels)
        if label is None:
            alias = normalize_label(raw, list(aliases or {}))
            label = None if alias is None else (aliases or {})[alias]
        if label is None:
            shown = [*labels, *(aliases or {})]
            raise DataError(
                f"label {raw!r} is not one of {', '.join(repr(l) for l in shown)}",
                path=p,
                line=line,
                field="label",
            )
        for n in needs:
            _field(rec, (n,), p, line)
        annotator = str(rec.get("annotator") or "").strip()
        qid = str(rec.get("question_id") or "").strip() or f"{lang}/q:{question.strip()}"
        item_id = (
            str(rec.get("item_id") or "").strip() or f"{lang}/{question.strip()}/{text.strip()}"
        )
        known = {"lang", "language", "question", "context", "answer", "sentence", "label"}
        extra = tuple(
            (k, v)
            for k, v in rec.items()
            if k not in known | {"annotator", "question_id", "item_id"} and v not in (None, "")
        )
        first = merged.get(item_id)
        if first is None:
            merged[item_id] = dict(
                lang=lang,
                question=question,
                context=context,
                text=text,
                cluster=qid,
                extra=extra,
                line=line,
                anns=[(annotator, label, line)],
            )
            continue
        if (first["lang"], first["question"], first["context"], first["text"]) != (
            lang,
            question,
            context,
            text,
        ):
            raise DataError(
                f"item {item_id!r} was given at line {first['line']} with another language, "
                "question, context or text; give each item one id",
                path=p,
                line=line,
                field="item_id",
            )
        who = [a for a, _, _ in first["anns"]]
        if annotator in who:
            prev = first["anns"][who.index(annotator)][2]
            what = f"annotator {annotator!r}" if annotator else "a row without 'annotator'"
            raise DataError(
                f"the item of line {prev} is labelled again by {what}; several labels of one item "
                "need an 'annotator' field naming who gave each",
                path=p,
                line=line,
                field="annotator",
            )
        first["anns"].append((annotator, label, line))
    if not merged:
        raise DataError("holds no labelled items (expected one row per item and annotator)", path=p)
    items = []
    for item_id, m in merged.items():
        anns = tuple((a or "gold", l) for a, l, _ in m["anns"])
        label = anns[0][1] if len(anns) == 1 else plurality([l for _, l in anns])[0]
        items.append(
            JudgeItem(
                item_id=item_id,
                lang=m["lang"],
                question=m["question"],
                context=m["context"],
                text=m["text"],
                label=label,
                annotations=anns,
                cluster=m["cluster"],
                source=f"{p}:{m['line']}",
                extra=m["extra"],
            )
        )
    return ItemSet(items, name=f"labels:{p.name}", ident=content_hash([data]), path=str(p))
