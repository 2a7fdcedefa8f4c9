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
from .fastblock import BlockCols, arrow_block, record_key
from .fields import FieldMap
from .reader import typed_blocks
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
        self.ans_parts: list[pa.Table] = []
        self.url_parts: list[pa.Table] = []
        self.n = 0


_ANSWER_COLS = (
    "line", "id", "question", "query_lang", "qlang_detected", "model", "provider", "month", "group",
    "territory", "claimants", "claimant_langs", "answer", "n_cited", "n_urls", "n_dup", "n_bad_urls",
    "searches", "cost_usd",
)  # fmt: skip
_ANSWER_TYPES = {
    "line": pa.int64(), "qlang_detected": pa.bool_(), "claimants": pa.list_(pa.string()),
    "claimant_langs": pa.list_(pa.string()), "n_cited": pa.int64(), "n_urls": pa.int64(), "n_dup": pa.int64(),
    "n_bad_urls": pa.int64(), "searches": pa.int64(), "cost_usd": pa.float64(),
}  # fmt: skip


def _slow_cols(answers: list[Answer]) -> BlockCols:
    """The columns of records checked one by one (the same layout as :func:`~.fastblock.arrow_block`'s)."""
    raw: list[Any] = []
    owner: list[int] = []
    pos: list[int] = []
    titles: list[str | None] = []
    snippets: list[str | None] = []
    for k, a in enumerate(answers):
        for j, c in enumerate(a.cites):
            raw.append(c.url)
            owner.append(k)
            pos.append(j)
            titles.append(c.title)
            snippets.append(c.snippet)
    cols = {
        "line": [a.line for a in answers], "id": [a.id for a in answers], "question": [a.question for a in answers],
        "query_lang": [a.query_lang for a in answers], "model": [a.model for a in answers],
        "provider": [a.provider for a in answers], "month": [a.month for a in answers], "group": [a.group for a in answers],
        "territory": [a.territory for a in answers], "claimants": [list(a.claimants) for a in answers],
        "claimant_langs": [list(a.claimant_langs) for a in answers], "answer": [a.answer for a in answers],
        "searches": [a.searches for a in answers], "cost_usd": [a.cost_usd for a in answers],
        "_joined": ["\x1f".join(c.url if isinstance(c.url, str) else repr(c.url) for c in a.cites) for a in answers],
    }  # fmt: skip
    return BlockCols(
        cols, len(answers), pa.array([u if isinstance(u, str) else None for u in raw], pa.string()),
        {i: repr(u) for i, u in enumerate(raw) if not isinstance(u, str)},
        np.asarray(owner, dtype=np.int64), np.asarray(pos, dtype=np.int64),
        pa.array(titles, pa.string()), pa.array(snippets, pa.string()) if any(snippets) else None,
    )  # fmt: skip


def _dedup(cols: BlockCols, seen: set[int], skip: Callable[..., None]) -> BlockCols:
    """``cols`` without the records read before (each counted as ``duplicate_record``)."""
    c = cols.answers
    keep = np.ones(cols.n, dtype=bool)
    for i, key in enumerate(
        map(
            record_key,
            c["id"],
            c["question"],
            c["query_lang"],
            c["answer"],
            c["model"],
            c["month"],
            c["provider"],
            c["_joined"],
        )
    ):
        if key in seen:
            keep[i] = False
            skip(
                c["line"][i],
                "duplicate_record",
                f"record {c['id'][i]!r} repeats an earlier record; it is counted once",
            )
        else:
            seen.add(key)
    if keep.all():
        return cols
    rows = np.flatnonzero(keep)
    new_index = np.full(cols.n, -1, dtype=np.int64)
    new_index[rows] = np.arange(len(rows))
    u = keep[cols.owner] if len(cols.owner) else np.zeros(0, dtype=bool)
    uidx = np.flatnonzero(u)
    take = pa.array(uidx)
    return BlockCols(
        {k: [v[i] for i in rows] for k, v in c.items()}, len(rows), cols.urls.take(take),
        {int(np.searchsorted(uidx, i)): r for i, r in cols.raw_repr.items() if u[i]},
        new_index[cols.owner[uidx]], cols.pos[uidx],
        cols.titles.take(take) if cols.titles is not None else None,
        cols.snippets.take(take) if cols.snippets is not None else None,
    )  # fmt: skip


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
    fast: bool = True,
) -> Ingested:
    """Read, check, attribute and tabulate a black-box log (see the module docs); ``fast=False``: record by record."""
    acc = _Acc()
    out = Ingested(pa.table({}), pa.table({}), fields)
    seen: set[int] = set()
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

    def slow(block: list[Any]) -> None:
        answers: list[Answer] = []
        for item in block:
            out.records += 1
            if isinstance(item, BadRecord):
                skip(item.line, item.reason, item.message)
                continue
            line, rec = item
            a = normalize_record(rec, line, fields, check_month=check_month, csv=fmt == "csv")
            if isinstance(a, BadRecord):
                skip(a.line, a.reason, a.message)
                continue
            answers.append(a)
        if answers:
            _add_cols(
                _dedup(_slow_cols(answers), seen, skip),
                acc,
                attributor,
                detector,
                skip,
                out,
                resolved,
            )

    for kind, payload in typed_blocks(path, fmt, fields, fast=fast):
        if kind == "rows":
            slow(payload)
            continue
        table, lines, rows = payload
        cols = arrow_block(table, lines, fields, check_month=check_month)
        if cols is None:
            slow(rows())
            continue
        out.records += cols.n
        _add_cols(_dedup(cols, seen, skip), acc, attributor, detector, skip, out, resolved)
    if acc.n == 0:
        raise _nothing(path, out)
    out.answers = pa.concat_tables(acc.ans_parts)
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


def _add_cols(
    cols: BlockCols,
    acc: _Acc,
    attributor: Attributor,
    detector: Any,
    skip: Callable[..., None],
    out: Ingested,
    resolved: dict[str, str] | None,
) -> None:
    n = cols.n
    if n == 0:
        return
    c = cols.answers
    missing = [i for i, q in enumerate(c["query_lang"]) if q is None]
    if missing:
        got = detector.detect_many([c["question"][i] for i in missing])
        for i, code in zip(missing, got):
            c["query_lang"][i] = code
        out.detected_qlang += len(missing)
    urls = cols.urls
    if resolved:
        urls = pa.array(
            [resolved.get(u, u) if u is not None else None for u in urls.to_pylist()], pa.string()
        )
    att = attributor.attribute(urls, cols.snippets)
    own = cols.owner
    bad = att.reason != ""
    for bi in np.flatnonzero(bad).tolist():
        shown = cols.raw_repr.get(bi) or urls[bi].as_py() or ""
        skip(
            int(c["line"][own[bi]]),
            str(att.reason[bi]),
            f"{URL_REASONS[att.reason[bi]]}: {shown[:120]!r}",
            f"urls[{cols.pos[bi]}]",
            url=True,
        )
    ok = np.flatnonzero(~bad)
    canon = att.canonical.take(
        pa.array(ok)
    ).dictionary_encode()  # a URL repeated in one answer counts once
    ckey = own[ok] * (len(canon.dictionary) + 1) + canon.indices.to_numpy(zero_copy_only=False)
    _, first = np.unique(ckey, return_index=True)
    keep = np.zeros(len(ok), dtype=bool)
    keep[first] = True
    rows = ok[keep]

    def count(sel: np.ndarray) -> np.ndarray:
        return np.bincount(sel, minlength=n) if len(sel) else np.zeros(n, dtype=np.int64)

    hid = pa.array(att.host_id[rows])
    hcols = attributor.host_columns()
    idx = pa.array(rows, pa.int64())
    acc.url_parts.append(
        pa.table(
            {
                "answer": pa.array(own[rows] + acc.n, pa.int32()),
                "pos": pa.array(cols.pos[rows], pa.int32()),
                "url": att.shown.take(idx),
                **{k: hcols[k].take(hid) for k in ("host", "domain", "country", "country_rule", "kind", "publisher", "lists")},
                "lang": pa.array(att.lang[rows].tolist(), pa.string()),
                "lang_rule": pa.array(att.lang_rule[rows].tolist(), pa.string()),
                "title": cols.titles.take(idx) if cols.titles is not None else pa.nulls(len(rows), pa.string()),
                "snippet": cols.snippets.take(idx) if cols.snippets is not None else pa.nulls(len(rows), pa.string()),
            }
        )
    )  # fmt: skip
    table = {k: c[k] for k in _ANSWER_COLS if k in c}
    detected = np.zeros(n, dtype=bool)
    detected[missing] = True
    table.update(
        qlang_detected=detected,
        n_cited=count(own),
        n_urls=count(own[rows]),
        n_dup=count(own[ok[~keep]]),
        n_bad_urls=count(own[bad]),
    )
    acc.ans_parts.append(
        pa.table({k: pa.array(table[k], _ANSWER_TYPES.get(k, pa.string())) for k in _ANSWER_COLS})
    )
    acc.n += n
