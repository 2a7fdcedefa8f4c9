"""Which field of a black-box log record holds what: the user's ``--field NAME=FIELD`` mapping, else the common names.

A black-box record carries the question, its language, the model, the answer and the cited
URLs (no documents). The fields are found by name: a mapping given by the user
(``--field response=answer_text --field urls=sources``) wins; every other field is looked up
among its common names (:data:`COMMON_NAMES`), in the log's own spelling. A mapping that names
a field no record of the log has, a name that is not one of :data:`FIELDS`, or two common names
of one field both present (``answer`` and ``response``) stop the audit with one line saying
which ``--field`` to give.

Example:
    >>> m = FieldMap.resolve({"q": 1, "lang": 1, "answer_text": 1, "sources": 1}, {"question": "q"})
    >>> m.source("question"), m.source("response"), m.source("urls"), m.source("query_lang"), m.source("group")
    ('q', 'answer_text', 'sources', 'lang', None)
    >>> FieldMap.resolve({"answer": 1, "response": 1, "urls": 1}, {})
    Traceback (most recent call last):
    ...
    bordir.errors.ConfigError: fields 'response' and 'answer' both look like the answer text; say which with --field response=NAME
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ...errors import ConfigError

__all__ = ["FIELDS", "COMMON_NAMES", "FieldMap", "parse_field_specs", "REQUIRED_ONE_OF"]

FIELDS: dict[str, str] = {
    "id": "the answer's id (default: its line number)",
    "question": "the question asked",
    "query_lang": "the question's language (missing: detected from the question)",
    "model": "the assistant or model (missing: 'unknown')",
    "response": "the answer text, or the provider's raw response object (read as it comes)",
    "urls": "the cited URLs: a list of strings, or of objects with url / title / snippet",
    "snippets": "snippets aligned with urls (optional)",
    "raw": "the provider's raw response, when the answer and URLs are not given as fields",
    "group": "the question group: the same question in every language (for paired comparisons)",
    "timestamp": "ISO 8601 time, starting YYYY-MM (for --group-by month)",
    "territory": "the disputed territory a question is about",
    "claimants": "the territory's claimant countries (ISO codes or names)",
    "claimant_langs": "the claimants' languages, aligned with claimants (optional)",
    "provider": "the API the answer came from (optional)",
}
"""The fields of a black-box record: name → meaning."""

COMMON_NAMES: dict[str, tuple[str, ...]] = {
    "id": ("id", "answer_id", "record_id", "uuid", "response_id"),
    "question": ("question", "query", "prompt", "question_text", "input"),
    "query_lang": ("query_lang", "question_lang", "query_language", "qlang", "lang", "language"),
    "model": ("model", "assistant", "chatbot", "engine", "system"),
    "response": ("response", "answer", "answer_text", "output", "completion", "text", "content"),
    "urls": ("urls", "sources", "cited_urls", "citations", "references", "links", "source_urls"),
    "snippets": ("snippets", "source_snippets"),
    "raw": ("raw", "raw_response", "api_response", "provider_response"),
    "group": ("group", "question_group", "question_id", "qid", "group_id"),
    "timestamp": ("timestamp", "time", "date", "created_at", "created"),
    "territory": ("territory",),
    "claimants": ("claimants",),
    "claimant_langs": ("claimant_langs",),
    "provider": ("provider", "api"),
}
"""The names each field is recognised by without a mapping (the first present wins; two present: an error)."""

REQUIRED_ONE_OF: tuple[tuple[str, ...], ...] = (("response", "raw"),)


def parse_field_specs(specs: Iterable[str]) -> dict[str, str]:
    """``["response=answer_text", …]`` → ``{"response": "answer_text", …}`` (a :class:`ConfigError` when malformed)."""
    out: dict[str, str] = {}
    for spec in specs:
        name, sep, source = spec.partition("=")
        name, source = name.strip(), source.strip()
        if not sep or not name or not source:
            raise ConfigError(f"--field {spec!r}: expected NAME=FIELD (e.g. response=answer_text)")
        if name not in FIELDS:
            raise ConfigError(
                f"--field {spec!r}: unknown field {name!r}; known: {', '.join(FIELDS)}"
            )
        if name in out:
            raise ConfigError(f"--field {name} is given twice ({out[name]!r} and {source!r})")
        out[name] = source
    return out


@dataclass(frozen=True)
class FieldMap:
    """Canonical field → the log's field name (None: the log has no such field)."""

    sources: Mapping[str, str | None]
    given: Mapping[str, str]

    def source(self, name: str) -> str | None:
        return self.sources.get(name)

    @classmethod
    def resolve(cls, seen: Iterable[str], mapping: Mapping[str, str]) -> FieldMap:
        """The map for a log whose records have the keys ``seen`` (the first records' keys, pooled).

        Raises:
            ConfigError: a mapped field no record has, or two common names of one field both present.
        """
        keys = set(seen)
        out: dict[str, str | None] = {}
        for name, source in mapping.items():
            if source not in keys:
                near = sorted(keys)[:12]
                raise ConfigError(
                    f"--field {name}={source}: no record of the log has a field {source!r}; "
                    f"its fields: {', '.join(near)}"
                )
            out[name] = source
        taken = set(out.values())
        for name, names in COMMON_NAMES.items():
            if name in out:
                continue
            present = [n for n in names if n in keys and n not in taken]
            if len(present) > 1 and name in ("response", "urls", "question", "query_lang", "model"):
                what = FIELDS[name].split(" (")[0].split(",")[0]
                raise ConfigError(
                    f"fields {present[0]!r} and {present[1]!r} both look like {what}; "
                    f"say which with --field {name}=NAME"
                )
            out[name] = present[0] if present else None
            if present:
                taken.add(present[0])
        return cls(out, dict(mapping))

    def as_dict(self) -> dict[str, str]:
        return {k: v for k, v in self.sources.items() if v is not None}
