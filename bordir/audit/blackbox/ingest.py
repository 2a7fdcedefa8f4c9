"""From a black-box log to two tables: one row per answer, one per cited URL with its attribution.

:func:`ingest` reads the log in blocks (:mod:`.reader`), normalizes each record
(:mod:`.records`; skipped ones are counted under their reason), counts a repeated record once,
detects the question's language where the log does not give it, attributes every cited URL
(:class:`~.attribution.Attributor`) and counts a URL repeated in one answer once (its
canonical form: :mod:`.urls`). Bad URLs are counted under their reason with the line and field
(``urls[3]``); their answer is kept.

The answers table (:attr:`Ingested.answers`) has ``line``, ``id``, ``question``, ``query_lang``,
``qlang_detected``, ``model``, ``provider``, ``month``, ``group``, ``territory``, ``claimants``,
``claimant_langs``, ``answer``, ``n_cited`` (URLs as given), ``n_urls`` (distinct attributed
URLs), ``n_dup`` (repeats counted once), ``n_bad_urls``, ``searches``, ``cost_usd``; the URLs
table (:attr:`Ingested.urls`) one row per distinct attributed URL of an answer: ``answer``
(row of the answers table), ``pos``, ``url`` (credentials masked), ``host``, ``domain``,
``country``, ``country_rule``, ``kind``, ``publisher``, ``lang``, ``lang_rule``, ``lists``,
``title``, ``snippet``.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from ...errors import DataError, redact
from ..schema import BadRecord
from .attribution import Attributor
from .fields import FieldMap
from .reader import SAMPLE, iter_rows
from .records import Answer, normalize_record
from .urls import URL_REASONS

__all__ = ["Ingested", "ingest", "Skip"]

Skip = Callable[[dict[str, Any]], None]
"""Called with every skipped record or URL (``line``, ``reason``, ``field``, ``message``)."""


@dataclass
class Ingested:
    """The two tables of a black-box log and what was skipped (see the module docs)."""

    answers: pa.Table
    urls: pa.Table
    fields: FieldMap
    skipped: Counter[str] = field(default_factory=Counter)
    url_skipped: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    records: int = 0
    detected_qlang: int = 0
    snippets_detected: int = 0
    hosts: int = 0


class _Acc:
    def __init__(self) -> None:
        self.ans: dict[str, list[Any]] = {k: [] for k in _ANSWER_COLS}
        self.url_parts: list[pa.Table] = []
        self.n = 0


_ANSWER_COLS = (
    "line", "id", "question", "query_lang", "qlang_detected", "model", "provider", "month", "group",
    "territory", "claimants", "claimant_langs", "answer", "n_cited", "n_urls", "n_dup", "n_bad_urls",
    "searches", "cost_usd",
)  # fmt: skip


def _key(a: Answer) -> int:
    urls = tuple(c.url if isinstance(c.url, str) else repr(c.url) for c in a.cites)
    return hash((a.id, a.question, a.query_lang, a.answer, a.model, a.month, a.provider, urls))


def ingest(
    path: str | os.PathLike[str],
    fmt: str,
    fields: FieldMap,
    attributor: Attributor,
    *,
    check_month: bool = False,
    on_skip: Skip | None = None,
    max_examples: int = 5,
    resolved: dict[str, str] | None = None,
) -> Ingested:
    """Read, check, attribute and tabulate a black-box log (see the module docs)."""
    acc = _Acc()
    out = Ingested(pa.table({}), pa.table({}), fields)
    seen: set[int] = set()
    csv = fmt == "csv"
    from ..detect import LanguageDetector

    detector = LanguageDetector()

    def skip(line: int, reason: str, message: str, where: str = "", url: bool = False) -> None:
        message = redact(message)
        (out.url_skipped if url else out.skipped)[reason] += 1
        entry = {"line": line, "reason": reason, "field": where, "message": message}
        ex = out.examples.setdefault(reason, [])
        if len(ex) < max_examples:
            ex.append(entry)
        if on_skip is not None:
            on_skip(entry)

    for block in iter_rows(path, fmt, block=max(SAMPLE, 20_000)):
        answers: list[Answer] = []
        for item in block:
            out.records += 1
            if isinstance(item, BadRecord):
                skip(item.line, item.reason, item.message)
                continue
            line, rec = item
            a = normalize_record(rec, line, fields, check_month=check_month, csv=csv)
            if isinstance(a, BadRecord):
                skip(a.line, a.reason, a.message)
                continue
            k = _key(a)
            if k in seen:
                skip(
                    a.line,
                    "duplicate_record",
                    f"record {a.id!r} repeats an earlier record; it is counted once",
                )
                continue
            seen.add(k)
            answers.append(a)
        if answers:
            _add_block(answers, acc, attributor, detector, skip, out, resolved)
    if acc.n == 0:
        raise _nothing(path, out)
    out.answers = pa.table({k: acc.ans[k] for k in _ANSWER_COLS})
    out.urls = pa.concat_tables(acc.url_parts) if acc.url_parts else _empty_urls()
    out.snippets_detected = attributor.snippets_detected
    out.hosts = len(attributor.hosts)
    return out


def _nothing(path: str | os.PathLike[str], out: Ingested) -> DataError:
    if not out.records:
        return DataError(
            "no record: the log is empty (expected JSON lines, Parquet or CSV rows)", path=path
        )
    top = out.skipped.most_common()
    why = ", ".join(f"{r} {n}" for r, n in top)
    first = min(
        (e for ex in out.examples.values() for e in ex), key=lambda e: e["line"], default=None
    )
    at = f"; first at line {first['line']}: {first['message']}" if first else ""
    return DataError(f"no valid record: all {out.records} records skipped ({why}){at}", path=path)


def _empty_urls() -> pa.Table:
    return pa.table({k: pa.array([], t) for k, t in _URL_SCHEMA})


_URL_SCHEMA = (
    ("answer", pa.int32()), ("pos", pa.int32()), ("url", pa.string()), ("host", pa.string()),
    ("domain", pa.string()), ("country", pa.string()), ("country_rule", pa.string()),
    ("kind", pa.string()), ("publisher", pa.string()), ("lang", pa.string()), ("lang_rule", pa.string()),
    ("lists", pa.list_(pa.string())), ("title", pa.string()), ("snippet", pa.string()),
)  # fmt: skip


def _add_block(
    answers: list[Answer],
    acc: _Acc,
    attributor: Attributor,
    detector: Any,
    skip: Callable[..., None],
    out: Ingested,
    resolved: dict[str, str] | None,
) -> None:
    missing = [i for i, a in enumerate(answers) if a.query_lang is None]
    if missing:
        got = detector.detect_many([answers[i].question for i in missing])
        for i, code in zip(missing, got):
            answers[i].query_lang = code
        out.detected_qlang += len(missing)
    raw_urls: list[Any] = []
    owner: list[int] = []
    pos: list[int] = []
    titles: list[str | None] = []
    snippets: list[str | None] = []
    for k, a in enumerate(answers):
        for j, c in enumerate(a.cites):
            u = c.url
            if resolved and isinstance(u, str) and u in resolved:
                u = resolved[u]
            raw_urls.append(u)
            owner.append(k)
            pos.append(j)
            titles.append(c.title)
            snippets.append(c.snippet)
    strs = pa.array([u if isinstance(u, str) else None for u in raw_urls], pa.string())
    snip = pa.array(snippets, pa.string()) if any(s for s in snippets) else None
    att = attributor.attribute(strs, snip)
    own = np.asarray(owner, dtype=np.int64)
    bad = att.reason != ""
    for bi in np.flatnonzero(bad).tolist():
        a = answers[owner[bi]]
        shown = raw_urls[bi] if isinstance(raw_urls[bi], str) else repr(raw_urls[bi])
        skip(
            a.line,
            str(att.reason[bi]),
            f"{URL_REASONS[att.reason[bi]]}: {shown[:120]!r}",
            f"urls[{pos[bi]}]",
            url=True,
        )
    ok = np.flatnonzero(~bad)
    # a URL repeated in one answer counts once (its canonical form)
    canon = att.canonical.take(pa.array(ok)).dictionary_encode()
    ckey = own[ok] * (len(canon.dictionary) + 1) + canon.indices.to_numpy(zero_copy_only=False)
    _, first = np.unique(ckey, return_index=True)
    keep = np.zeros(len(ok), dtype=bool)
    keep[first] = True
    rows = ok[keep]
    n = len(answers)
    n_cited = np.bincount(own, minlength=n) if len(own) else np.zeros(n, dtype=np.int64)
    n_bad = np.bincount(own[bad], minlength=n) if bad.any() else np.zeros(n, dtype=np.int64)
    n_urls = np.bincount(own[rows], minlength=n) if len(rows) else np.zeros(n, dtype=np.int64)
    n_dup = (
        np.bincount(own[ok[~keep]], minlength=n) if (~keep).any() else np.zeros(n, dtype=np.int64)
    )
    hosts = attributor.hosts
    hid = att.host_id[rows]
    info = [hosts[h] for h in hid]
    base = acc.n
    idx = pa.array(rows)
    acc.url_parts.append(
        pa.table(
            {
                "answer": pa.array(own[rows] + base, pa.int32()),
                "pos": pa.array(
                    np.asarray(pos, dtype=np.int32)[rows] if len(pos) else [], pa.int32()
                ),
                "url": att.shown.take(idx) if len(rows) else pa.array([], pa.string()),
                "host": pa.array([h.host for h in info], pa.string()),
                "domain": pa.array([h.domain for h in info], pa.string()),
                "country": pa.array([h.country for h in info], pa.string()),
                "country_rule": pa.array([h.rule for h in info], pa.string()),
                "kind": pa.array([h.kind for h in info], pa.string()),
                "publisher": pa.array(
                    [h.publisher.name if h.publisher else None for h in info], pa.string()
                ),
                "lang": pa.array(att.lang[rows].tolist(), pa.string()),
                "lang_rule": pa.array(att.lang_rule[rows].tolist(), pa.string()),
                "lists": pa.array([list(h.lists) for h in info], pa.list_(pa.string())),
                "title": pa.array([titles[i] for i in rows], pa.string()),
                "snippet": pa.array([snippets[i] for i in rows], pa.string()),
            }
        )
    )
    cols = acc.ans
    detected = set(missing)
    for k, a in enumerate(answers):
        cols["line"].append(a.line)
        cols["id"].append(a.id)
        cols["question"].append(a.question)
        cols["query_lang"].append(a.query_lang)
        cols["qlang_detected"].append(k in detected)
        cols["model"].append(a.model)
        cols["provider"].append(a.provider)
        cols["month"].append(a.month)
        cols["group"].append(a.group)
        cols["territory"].append(a.territory)
        cols["claimants"].append(list(a.claimants))
        cols["claimant_langs"].append(list(a.claimant_langs))
        cols["answer"].append(a.answer)
        cols["n_cited"].append(int(n_cited[k]))
        cols["n_urls"].append(int(n_urls[k]))
        cols["n_dup"].append(int(n_dup[k]))
        cols["n_bad_urls"].append(int(n_bad[k]))
        cols["searches"].append(a.searches)
        cols["cost_usd"].append(a.cost_usd)
    acc.n += n
