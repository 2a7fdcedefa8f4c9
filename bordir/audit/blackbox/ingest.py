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
``title``, ``snippet`` — kept as codes (:class:`~.urltable.UrlTable`, :attr:`Ingested.url_table`)
and written out as strings when asked for.

Every block is columns from end to end: the records' fields as Arrow arrays (typed by Arrow, or
built from the records checked one by one), the URLs attributed as a column; the only Python
loop per answer is the one that counts a repeated record once (the hash of its fields). The next
block is read and typed in a thread (:func:`~bordir.audit._prefetch.prefetch`) while the current
one is attributed.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...errors import DataError, redact
from .._prefetch import prefetch
from ..schema import BadRecord
from .attribution import URL_REASON_NAMES, Attributor
from .fastblock import BlockCols, arrow_block
from .fields import FieldMap
from .reader import typed_blocks
from .records import Answer, normalize_record
from .urls import URL_REASONS
from .urltable import UrlTable

__all__ = ["Ingested", "ingest", "Skip"]

Skip = Callable[[dict[str, Any]], None]
"""Called with every skipped record or URL (``line``, ``reason``, ``field``, ``message``)."""


@dataclass
class Ingested:
    """The two tables of a black-box log and what was skipped (see the module docs)."""

    answers: pa.Table
    url_table: UrlTable
    fields: FieldMap
    skipped: Counter[str] = field(default_factory=Counter)
    url_skipped: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    records: int = 0
    detected_qlang: int = 0
    snippets_detected: int = 0
    hosts: int = 0

    @property
    def urls(self) -> pa.Table:
        """The attributed URLs as a table of strings (:data:`~.urltable.URL_SCHEMA`; built on each call)."""
        return self.url_table.table()


class _Acc:
    def __init__(self) -> None:
        self.ans_parts: list[pa.Table] = []
        self.url_parts: list[dict[str, Any]] = []
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
_KEY_COLS = ("id", "question", "query_lang", "answer", "model", "month", "provider", "_joined")
"""What makes two records the same (the URLs joined by ``\\x1f``)."""


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
        {k: pa.array(v, _ANSWER_TYPES.get(k, pa.string())) for k, v in cols.items()}, len(answers),
        pa.array([u if isinstance(u, str) else None for u in raw], pa.string()),
        {i: repr(u) for i, u in enumerate(raw) if not isinstance(u, str)},
        np.asarray(owner, dtype=np.int64), np.asarray(pos, dtype=np.int64),
        pa.array(titles, pa.string()), pa.array(snippets, pa.string()) if any(snippets) else None,
    )  # fmt: skip


def record_keys(cols: dict[str, pa.Array]) -> list[int]:
    """The hash of each record's identity (:data:`_KEY_COLS`), one per record.

    The fields are written one after the other, each as ``N`` (null) or ``<bytes>:<value>``: no two
    records with different fields give the same string.
    """
    parts = [
        pc.fill_null(
            pc.binary_join_element_wise(
                pc.binary_length(cols[k]).cast(pa.string()), ":", cols[k], ""
            ),
            "N",
        )
        for k in _KEY_COLS
    ]
    return list(map(hash, pc.binary_join_element_wise(*parts, "").to_pylist()))


def _dedup(cols: BlockCols, seen: set[int], skip: Callable[..., None]) -> BlockCols:
    """``cols`` without the records read before (each counted as ``duplicate_record``)."""
    c = cols.answers
    keys = record_keys(c)
    if seen.isdisjoint(keys) and len(set(keys)) == len(keys):
        seen.update(keys)
        return cols
    keep = np.ones(cols.n, dtype=bool)
    ids = c["id"].to_pylist()
    lines = c["line"].to_pylist()
    for i, key in enumerate(keys):
        if key in seen:
            keep[i] = False
            skip(
                lines[i],
                "duplicate_record",
                f"record {ids[i]!r} repeats an earlier record; it is counted once",
            )
        else:
            seen.add(key)
    rows = np.flatnonzero(keep)
    new_index = np.full(cols.n, -1, dtype=np.int64)
    new_index[rows] = np.arange(len(rows))
    u = keep[cols.owner] if len(cols.owner) else np.zeros(0, dtype=bool)
    uidx = np.flatnonzero(u)
    take, arows = pa.array(uidx), pa.array(rows)
    return BlockCols(
        {k: v.take(arows) for k, v in c.items()}, len(rows), cols.urls.take(take),
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
    out = Ingested(pa.table({}), UrlTable.build([], {}, [], []), fields)
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

    def blocks() -> Iterator[tuple[str, Any]]:
        """The log's blocks, a typed one already as columns (run ahead in a thread: Arrow releases the GIL)."""
        for kind, payload in typed_blocks(path, fmt, fields, fast=fast):
            if kind == "table":
                table, lines, rows = payload
                yield kind, (arrow_block(table, lines, fields, check_month=check_month), rows)
            else:
                yield kind, payload

    for kind, payload in prefetch(blocks()):
        if kind == "rows":
            slow(payload)
            continue
        cols, rows = payload
        if cols is None:
            slow(rows())
            continue
        out.records += cols.n
        _add_cols(_dedup(cols, seen, skip), acc, attributor, detector, skip, out, resolved)
    if acc.n == 0:
        raise _nothing(path, out)
    out.answers = pa.concat_tables(acc.ans_parts)
    out.url_table = UrlTable.build(
        acc.url_parts, attributor.host_columns(), attributor.langs, attributor.rules
    )
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
    c = dict(cols.answers)
    qlang = c["query_lang"]
    missing = np.flatnonzero(qlang.is_null().to_numpy(zero_copy_only=False))
    if len(missing):
        questions = c["question"].take(pa.array(missing)).to_pylist()
        got = np.array(qlang.to_pylist(), dtype=object)
        got[missing] = detector.detect_many(questions)
        c["query_lang"] = pa.array(got.tolist(), pa.string())
        out.detected_qlang += len(missing)
    urls = cols.urls
    if resolved:
        keys = pa.array(list(resolved), pa.string())
        hit = pc.index_in(urls, value_set=keys)
        urls = pc.if_else(
            hit.is_valid(), pa.array(list(resolved.values()), pa.string()).take(hit), urls
        )
    att = attributor.attribute(urls, cols.snippets)
    own = cols.owner
    bad = att.reason_code != 0
    for bi in np.flatnonzero(bad).tolist():
        shown = cols.raw_repr.get(bi) or urls[bi].as_py() or ""
        why = URL_REASON_NAMES[att.reason_code[bi]]
        skip(
            int(c["line"][int(own[bi])].as_py()),
            why,
            f"{URL_REASONS[why]}: {shown[:120]!r}",
            f"urls[{cols.pos[bi]}]",
            url=True,
        )
    ok = np.flatnonzero(~bad)
    # a URL repeated in one answer counts once; only URLs of a site cited twice in an answer can be
    # the same URL, so only theirs are put in canonical form
    keep = np.ones(len(ok), dtype=bool)
    width = int(att.site[ok].max()) + 1 if len(ok) else 1
    key = own[ok] * width + att.site[ok]
    _, inv, times = np.unique(key, return_inverse=True, return_counts=True)
    twice = np.flatnonzero(times[inv] > 1)
    if len(twice):
        canon = att.canonical_of(ok[twice]).dictionary_encode()
        ckey = own[ok[twice]] * (len(canon.dictionary) + 1) + np.asarray(canon.indices)
        _, first = np.unique(ckey, return_index=True)
        keep[twice] = False
        keep[twice[first]] = True
    rows = ok[keep]

    def count(sel: np.ndarray) -> np.ndarray:
        return np.bincount(sel, minlength=n) if len(sel) else np.zeros(n, dtype=np.int64)

    idx = pa.array(rows, pa.int64())
    acc.url_parts.append(
        {
            "answer": own[rows] + acc.n, "pos": cols.pos[rows], "host_id": att.host_id[rows],
            "lang": att.lang_code[rows], "rule": att.rule_code[rows], "url": att.shown.take(idx),
            "title": cols.titles.take(idx) if cols.titles is not None else None,
            "snippet": cols.snippets.take(idx) if cols.snippets is not None else None,
        }
    )  # fmt: skip
    detected = np.zeros(n, dtype=bool)
    detected[missing] = True
    c.update(
        qlang_detected=pa.array(detected),
        n_cited=pa.array(count(own), pa.int64()),
        n_urls=pa.array(count(own[rows]), pa.int64()),
        n_dup=pa.array(count(own[ok[~keep]]), pa.int64()),
        n_bad_urls=pa.array(count(own[bad]), pa.int64()),
    )
    acc.ans_parts.append(
        pa.table({k: c[k].cast(_ANSWER_TYPES.get(k, pa.string())) for k in _ANSWER_COLS})
    )
    acc.n += n
