"""The audit log schema: one record per answer of a deployed assistant, validated one record at a time.

A record is a JSON object (one per line in JSONL, one row in Parquet):

===============  ========  =================================================================
field            required  meaning
===============  ========  =================================================================
id               yes       the answer's id (string or integer)
query            yes       the user's query text (string)
query_lang       no        its language code; missing, null or ``""``: detected (langdetect)
documents        yes       list of ``{id, text?, lang?}``: the documents placed in the prompt,
                           in prompt order; ``id`` string or integer; ``lang`` missing: detected
                           from ``text`` (then ``text`` is required)
response         yes       the assistant's answer text (string, may be empty)
response_lang    no        the response's language code; missing: detected for the
                           language-match check (unless it is turned off)
citations        no        list of cited document ids (each one of ``documents``' ids, repeats
                           allowed); missing or null: parsed from ``response`` with the citation
                           parser (``<doc3>``, ``[1][3]``, ``Document 2`` …), numbers being
                           positions in ``documents`` (0-based unless told otherwise)
timestamp        no        ISO 8601 string starting ``YYYY-MM`` (``--group-by month`` uses its
                           first seven characters, as written; missing: month ``unknown``)
model            no        the model that answered (``--group-by model``; missing: ``unknown``)
===============  ========  =================================================================

Other fields are ignored, except the one named by ``--cluster-by`` (string or
integer, then required). Language codes are kept as given; detected ones are
BorderLines codes where the registry knows the language (``he`` → ``iw``),
else langdetect's code, ``und`` when nothing could be detected.

A record that breaks these rules is **skipped** with its line number and one of
the :data:`REASONS`; the audit goes on (``--strict`` stops at the first).

Example:
    >>> ok = validate_record({"id": 7, "query": "Ni nani?", "documents": [{"id": "a", "lang": "en"}],
    ...                       "response": "<doc0>", "citations": ["a"]}, 3)
    >>> ok["id"], ok["documents"], ok["citations"]
    ('7', [{'id': 'a', 'text': None, 'lang': 'en'}], ['a'])
    >>> validate_record({"id": "x", "query": "q", "documents": "a,b", "response": ""}, 12)
    BadRecord(line=12, reason='documents_not_list', message="field 'documents': expected a list of objects, found str")
    >>> validate_record({"id": "x", "query": "q", "documents": [{"id": "a", "lang": "en"}], "response": "",
    ...                  "citations": ["b"]}, 13).message
    "field 'citations': citation 'b' is not among the record's document ids (a)"
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

__all__ = [
    "REASONS",
    "FIELDS",
    "BadRecord",
    "SchemaOptions",
    "validate_record",
    "MONTH_RE",
    "month_of",
]

REASONS: dict[str, str] = {
    "invalid_json": "the line is not valid JSON",
    "not_an_object": "the line is JSON but not an object",
    "missing_field": "a required field is missing or null",
    "wrong_type": "a field has the wrong type",
    "documents_not_list": "documents is not a list",
    "bad_document": "a document is not an object with an id and a lang or a text",
    "unknown_citation": "a citation is not one of the record's document ids",
    "bad_timestamp": "timestamp is not an ISO 8601 string starting YYYY-MM",
    "missing_cluster": "the --cluster-by field is missing",
    "duplicate_record": "the same record (id, query, response, timestamp, model) was read before; counted once",
}
"""Why a record is skipped: reason code → description."""

FIELDS: tuple[str, ...] = (
    "id",
    "query",
    "query_lang",
    "documents",
    "response",
    "response_lang",
    "citations",
    "timestamp",
    "model",
)
MONTH_RE = re.compile(r"^\d{4}-(?:0[1-9]|1[0-2])(?:$|-)")
"""What ``--group-by month`` needs at the start of a timestamp."""


def month_of(timestamp: str | None) -> str:
    """``YYYY-MM`` of a timestamp as written, ``unknown`` when missing.

    >>> month_of("2024-05-31T23:30:00-05:00"), month_of(None)
    ('2024-05', 'unknown')
    """
    return timestamp[:7] if timestamp else "unknown"


@dataclass(frozen=True, slots=True)
class BadRecord:
    """A skipped record: its 1-based line (JSONL) or row (Parquet), the reason code and a message."""

    line: int
    reason: str
    message: str

    def as_dict(self) -> dict[str, Any]:
        return {"line": self.line, "reason": self.reason, "message": self.message}


@dataclass(frozen=True, slots=True)
class SchemaOptions:
    """What validation depends on.

    Attributes:
        cluster_by: a top-level field that names each record's cluster (then required).
        check_month: timestamps must start with ``YYYY-MM`` (``--group-by month``).
    """

    cluster_by: str | None = None
    check_month: bool = False


def _tname(v: Any) -> str:
    return "null" if v is None else type(v).__name__


def _is_id(v: Any) -> bool:
    return (isinstance(v, str) and v != "") or (isinstance(v, int) and not isinstance(v, bool))


def _opt_str(rec: dict[str, Any], name: str, line: int) -> tuple[str | None, BadRecord | None]:
    v = rec.get(name)
    if v is None:
        return None, None
    if not isinstance(v, str):
        return None, BadRecord(
            line, "wrong_type", f"field {name!r}: expected a string or null, found {_tname(v)}"
        )
    return v, None


def validate_record(
    rec: Any, line: int, options: SchemaOptions = SchemaOptions()
) -> dict[str, Any] | BadRecord:
    """Check one parsed record; return it normalized (ids as strings, ``""`` languages as None) or a :class:`BadRecord`."""
    if not isinstance(rec, dict):
        return BadRecord(line, "not_an_object", f"expected a JSON object, found {_tname(rec)}")
    for name in ("id", "query", "documents", "response"):
        if rec.get(name) is None:
            return BadRecord(line, "missing_field", f"field {name!r} is missing or null")
    rid = rec["id"]
    if not _is_id(rid):
        return BadRecord(
            line,
            "wrong_type",
            f"field 'id': expected a non-empty string or an integer, found {_tname(rid)}",
        )
    for name in ("query", "response"):
        if not isinstance(rec[name], str):
            return BadRecord(
                line, "wrong_type", f"field {name!r}: expected a string, found {_tname(rec[name])}"
            )
    docs = rec["documents"]
    if not isinstance(docs, list):
        return BadRecord(
            line,
            "documents_not_list",
            f"field 'documents': expected a list of objects, found {_tname(docs)}",
        )
    out_docs = []
    for j, d in enumerate(docs):
        if not isinstance(d, dict):
            return BadRecord(
                line, "bad_document", f"documents[{j}]: expected an object, found {_tname(d)}"
            )
        did = d.get("id")
        if not _is_id(did):
            return BadRecord(
                line,
                "bad_document",
                f"documents[{j}]: field 'id': expected a non-empty string or an "
                f"integer, found {_tname(did)}",
            )
        text, lang = d.get("text"), d.get("lang")
        if text is not None and not isinstance(text, str):
            return BadRecord(
                line,
                "bad_document",
                f"documents[{j}]: field 'text': expected a string, found {_tname(text)}",
            )
        if lang is not None and not isinstance(lang, str):
            return BadRecord(
                line,
                "bad_document",
                f"documents[{j}]: field 'lang': expected a string, found {_tname(lang)}",
            )
        lang = lang or None
        if lang is None and text is None:
            return BadRecord(
                line,
                "bad_document",
                f"documents[{j}]: has neither 'lang' nor 'text' (a text is "
                "needed to detect the language)",
            )
        out_docs.append({"id": str(did), "text": text, "lang": lang})
    values: dict[str, Any] = {}
    for name in ("query_lang", "response_lang", "timestamp", "model"):
        v, bad = _opt_str(rec, name, line)
        if bad is not None:
            return bad
        values[name] = v or None if name.endswith("_lang") else v
    if (
        options.check_month
        and values["timestamp"] is not None
        and not MONTH_RE.match(values["timestamp"])
    ):
        return BadRecord(
            line,
            "bad_timestamp",
            f"field 'timestamp': expected an ISO 8601 string starting YYYY-MM, "
            f"found {values['timestamp'][:40]!r}",
        )
    cites = rec.get("citations")
    out_cites = None
    if cites is not None:
        if not isinstance(cites, list):
            return BadRecord(
                line,
                "wrong_type",
                f"field 'citations': expected a list of document ids or null, "
                f"found {_tname(cites)}",
            )
        ids = {str(d["id"]) for d in out_docs}  # already strings (for the type checker)
        out_cites = []
        for c in cites:
            if not _is_id(c):
                return BadRecord(
                    line,
                    "wrong_type",
                    f"field 'citations': expected document ids (strings or "
                    f"integers), found {_tname(c)}",
                )
            if str(c) not in ids:
                known = ", ".join(sorted(ids)[:8]) + (" …" if len(ids) > 8 else "")
                return BadRecord(
                    line,
                    "unknown_citation",
                    f"field 'citations': citation {str(c)!r} is not among "
                    f"the record's document ids ({known or 'none'})",
                )
            out_cites.append(str(c))
    cluster = None
    if options.cluster_by:
        cv = rec.get(options.cluster_by)
        if not _is_id(cv):
            return BadRecord(
                line,
                "missing_cluster",
                f"field {options.cluster_by!r} (--cluster-by): expected a "
                f"non-empty string or an integer, found {_tname(cv)}",
            )
        cluster = str(cv)
    return {
        "line": line,
        "id": str(rid),
        "query": rec["query"],
        "query_lang": values["query_lang"],
        "documents": out_docs,
        "response": rec["response"],
        "response_lang": values["response_lang"],
        "citations": out_cites,
        "timestamp": values["timestamp"],
        "model": values["model"],
        "cluster": cluster,
    }
