"""One black-box log record checked and normalized: :func:`normalize_record` → :class:`Answer` or a skip reason.

The fields are found through a :class:`~.fields.FieldMap`. The answer is the ``response``
field when it is text; when it is an object (or the record has a ``raw`` field and no
``urls``), it is a provider's raw response, read as it comes (:mod:`.providers`). The cited
URLs are a list of strings or of objects with ``url`` (or ``uri`` / ``link`` / ``href``) and
optional ``title`` / ``snippet``; in a CSV cell, a JSON list or URLs separated by spaces, ``;``
or ``|``. Each URL is checked later, one by one (:mod:`.attribution`): a bad URL is counted,
its record kept. A record that cannot be audited is skipped with one of :data:`REASONS`.

Example:
    >>> from .fields import FieldMap
    >>> fm = FieldMap.resolve({"question", "lang", "answer", "sources", "model"}, {})
    >>> a = normalize_record({"question": "Чей Крым?", "lang": "ru", "answer": "…", "model": "m",
    ...                       "sources": ["https://ria.ru/x", {"url": "https://en.wikipedia.org/wiki/Crimea", "title": "Crimea"}]}, 3, fm)
    >>> a.query_lang, [c.url for c in a.cites], a.id
    ('ru', ['https://ria.ru/x', 'https://en.wikipedia.org/wiki/Crimea'], '3')
    >>> normalize_record({"question": "q", "answer": "a", "sources": [1, 2]}, 4, fm).reason
    'index_without_urls'
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ...errors import UnknownLanguageError
from ...languages import registry
from ..schema import BadRecord
from .countries import country_code
from .fields import FieldMap
from .providers import Cited, parse_response

__all__ = [
    "Answer",
    "REASONS",
    "normalize_record",
    "norm_lang",
    "split_cell",
    "split_names",
    "split_urls",
]

REASONS: dict[str, str] = {
    "invalid_json": "the line is not valid JSON",
    "not_an_object": "the line is JSON but not an object",
    "white_box_record": "a white-box record (it has documents) in a black-box log: audit the two kinds apart",
    "missing_field": "a required field (the answer, the cited URLs, the question or its language) is missing or null",
    "wrong_type": "a field has the wrong type (urls not a list, the answer a number …)",
    "index_without_urls": "citations are given as indices ([1], 2) but the record has no URL list to look them up in",
    "citation_index_out_of_range": "a citation index points past the record's list of sources",
    "unknown_response_format": "the raw response is an object no provider reader recognises",
    "bad_timestamp": "with --group-by month: the timestamp does not start YYYY-MM",
    "bad_claimants": "a claimant is not a country (ISO code or name)",
    "duplicate_record": "the same record (id, question, language, answer, URLs, model, time) was read before; counted once",
}
"""Why a black-box record is skipped: reason → description (bad URLs are counted apart: :data:`~.urls.URL_REASONS`)."""

_MONTH = re.compile(r"^\d{4}-(0[1-9]|1[0-2])")
_URL_KEYS = ("url", "uri", "link", "href")


@dataclass
class Answer:
    """A normalized black-box record (see the module docs)."""

    line: int
    id: str
    question: str | None
    query_lang: str | None
    model: str
    provider: str
    answer: str
    cites: list[Cited]
    group: str | None = None
    month: str | None = None
    territory: str | None = None
    claimants: tuple[str, ...] = ()
    claimant_langs: tuple[str, ...] = ()
    searches: int | None = None
    cost_usd: float | None = None
    note: str = ""
    reason: str = field(default="", repr=False)


@lru_cache(maxsize=4096)
def norm_lang(code: str) -> str:
    """``code`` as the registry writes it (``he`` → ``iw``, ``zh-CN`` → ``zhs``); an unknown code lower-cased as given."""
    c = code.strip()
    try:
        return registry().resolve(c).code
    except (UnknownLanguageError, ValueError):
        return c.lower()


def split_cell(value: str) -> list[Any]:
    """A CSV cell holding a list: a JSON array, else items separated by white space, ``;`` or ``|``."""
    v = value.strip()
    if not v:
        return []
    if v.startswith("["):
        try:
            out = json.loads(v)
        except ValueError:
            return [v]
        return out if isinstance(out, list) else [out]
    return [x for x in re.split(r"[\s;|]+", v) if x]


_CODES = re.compile(r"^[A-Za-z]{2,3}(?:\s+[A-Za-z]{2,3})+$")


def split_names(value: str) -> list[Any]:
    """A CSV cell holding country names or codes, as a list.

    A JSON array, else items separated by ``;``, ``|``, ``,`` or line breaks; white space
    separates only codes (``RU UA``), never a name's words.

    Example:
        >>> split_names("United Kingdom; Argentina"), split_names("RU UA"), split_names("Western Sahara")
        (['United Kingdom', 'Argentina'], ['RU', 'UA'], ['Western Sahara'])
    """
    v = value.strip()
    if not v:
        return []
    if v.startswith("["):
        return split_cell(v)
    if re.search(r"[;|,\n]", v):
        return [x.strip() for x in re.split(r"[;|,\n]+", v) if x.strip()]
    return v.split() if _CODES.match(v) else [v]


_URL_SEP = re.compile(r"[\s;|]+|,(?=\s|https?://)")
_MARKER = re.compile(r"^(?:\[\d{1,3}\]|\(\d{1,3}\)|\d{1,3}[.)]|[-*•])$")


def split_urls(value: str) -> list[Any]:
    """A CSV cell holding cited URLs, as logs write them.

    A JSON array; a Python list as pandas writes one (``['https://a', 'https://b']``); else URLs
    separated by white space or line breaks, ``;``, ``|`` or a comma before a space or a scheme,
    with list markers (``[1]``, ``1.``, ``-``) dropped. A comma inside a URL stays.

    Example:
        >>> split_urls("['https://a.ru/x', 'https://b.ua/y']")
        ['https://a.ru/x', 'https://b.ua/y']
        >>> split_urls("[1] https://a.ru/x,y [2] https://b.ua/ , https://c.de/z,https://d.fr")
        ['https://a.ru/x,y', 'https://b.ua/', 'https://c.de/z', 'https://d.fr']
    """
    v = value.strip()
    if not v:
        return []
    if v.startswith("[") and v.endswith("]"):
        try:
            out = json.loads(v)
        except ValueError:
            out = _python_list(v)
        if out is not None:
            return out if isinstance(out, list) else [out]
    return [x for x in _URL_SEP.split(v) if x and not _MARKER.match(x)]


def _python_list(v: str) -> list[Any] | None:
    """A Python list literal of strings (``repr`` of a list), else None; never evaluates code."""
    import ast

    try:
        out = ast.literal_eval(v)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return out if isinstance(out, list) and all(isinstance(x, str) for x in out) else None


def _bad(line: int, reason: str, message: str) -> BadRecord:
    return BadRecord(line, reason, message)


def _cites(urls: Any, snippets: Any, src: str, line: int, csv: bool) -> list[Cited] | BadRecord:
    if csv and isinstance(urls, str):
        urls = split_urls(urls)
    if not isinstance(urls, list):
        return _bad(
            line,
            "wrong_type",
            f"field {src!r}: expected a list of URLs, found {type(urls).__name__}",
        )
    snips = snippets if isinstance(snippets, list) and len(snippets) == len(urls) else None
    out = []
    for i, u in enumerate(urls):
        if isinstance(u, dict):
            url = next((u[k] for k in _URL_KEYS if k in u), None)
            t, s = u.get("title"), u.get("snippet", u.get("cited_text"))
            out.append(
                Cited(url, t if isinstance(t, str) else None, s if isinstance(s, str) else None)
            )
        elif isinstance(u, int) and not isinstance(u, bool):
            return _bad(
                line,
                "index_without_urls",
                f"field {src!r}[{i}]: {u!r} is a citation index, and the record has no list of URLs to look it up in",
            )
        else:
            s = snips[i] if snips is not None and isinstance(snips[i], str) else None
            out.append(Cited(u, None, s))
    return out


def normalize_record(
    rec: Any, line: int, fm: FieldMap, *, check_month: bool = False, csv: bool = False
) -> Answer | BadRecord:
    """Check and normalize one record (see the module docs); ``csv``: its values are CSV cells."""
    if not isinstance(rec, dict):
        return _bad(line, "not_an_object", f"expected a JSON object, found {type(rec).__name__}")
    if "documents" in rec and fm.source("urls") not in rec and fm.source("raw") not in rec:
        return _bad(
            line,
            "white_box_record",
            "field 'documents': a white-box record; audit it with the white-box log",
        )

    def get(name: str) -> Any:
        src = fm.source(name)
        return rec.get(src) if src is not None else None

    resp, raw, urls = get("response"), get("raw"), get("urls")
    provider = str(get("provider") or "")
    searches: int | None = None
    cost: float | None = None
    note = ""
    model = get("model")
    if isinstance(resp, dict) or (urls is None and isinstance(raw, dict)):
        obj = resp if isinstance(resp, dict) else raw
        try:
            parsed = parse_response(obj)
        except ValueError as exc:
            where = fm.source("response") if isinstance(resp, dict) else fm.source("raw")
            return _bad(line, "unknown_response_format", f"field {where!r}: {exc}")
        if parsed.problem is not None:
            return _bad(line, parsed.problem[0], f"{parsed.provider} response: {parsed.problem[1]}")
        answer, cites = parsed.answer, parsed.citations
        provider = provider or parsed.provider
        model = model or parsed.model
        searches, cost, note = parsed.searches, parsed.cost_usd, parsed.note
    else:
        if resp is None:
            need = fm.source("response") or "response"
            return _bad(
                line,
                "missing_field",
                f"field {need!r}: the answer is missing (map it with --field response=NAME)",
            )
        if not isinstance(resp, str):
            return _bad(
                line,
                "wrong_type",
                f"field {fm.source('response')!r}: expected the answer text, found {type(resp).__name__}",
            )
        if urls is None:
            need = fm.source("urls") or "urls"
            return _bad(
                line,
                "missing_field",
                f"field {need!r}: the cited URLs are missing (an answer citing nothing has an empty list)",
            )
        got = _cites(urls, get("snippets"), fm.source("urls") or "urls", line, csv)
        if isinstance(got, BadRecord):
            return got
        answer, cites = resp, got
    question = get("question")
    question = question if isinstance(question, str) and question.strip() else None
    qlang = get("query_lang")
    qlang = norm_lang(qlang) if isinstance(qlang, str) and qlang.strip() else None
    if qlang is None and question is None:
        return _bad(
            line,
            "missing_field",
            "field 'query_lang': neither the question's language nor the question is given (map them with --field)",
        )
    rid = get("id")
    rid = str(rid) if rid is not None and not isinstance(rid, dict | list) else str(line)
    ts = get("timestamp")
    month = None
    if ts is not None:
        m = _MONTH.match(str(ts))
        month = m.group(0) if m else None
    if check_month and month is None:
        return _bad(
            line,
            "bad_timestamp",
            f"field {fm.source('timestamp') or 'timestamp'!r}: {ts!r} does not start YYYY-MM",
        )
    claimants: list[str] = []
    raw_claim = get("claimants")
    if csv and isinstance(raw_claim, str):
        raw_claim = split_names(raw_claim)
    for c in raw_claim or []:
        code = country_code(c) if isinstance(c, str) else None
        if code is None:
            return _bad(
                line,
                "bad_claimants",
                f"field {fm.source('claimants')!r}: {c!r} is not a country (ISO code or name)",
            )
        claimants.append(code)
    clangs = get("claimant_langs")
    if csv and isinstance(clangs, str):
        clangs = split_cell(clangs)
    clangs_t = (
        tuple(norm_lang(x) for x in clangs)
        if isinstance(clangs, list)
        and len(clangs) == len(claimants)
        and all(isinstance(x, str) for x in clangs)
        else ()
    )
    group = get("group")
    territory = get("territory")
    return Answer(
        line, rid, question, qlang, str(model) if model else "unknown", provider, answer, cites,
        group=str(group) if group is not None and group != "" else None, month=month,
        territory=str(territory) if territory else None, claimants=tuple(claimants),
        claimant_langs=clangs_t, searches=searches, cost_usd=cost, note=note,
    )  # fmt: skip
