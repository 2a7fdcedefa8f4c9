"""The vectorised path of a black-box log: a block of flat records, typed by Arrow, turned into columns without a Python loop per URL.

A JSONL block is parsed by ``pyarrow.json`` with an explicit schema of the mapped fields (a
Parquet batch comes typed); :func:`arrow_block` checks that the block is one the slow path would
accept whole — the answer a string, the URLs a list of strings (or of objects with ``url``,
``title``, ``snippet``) with no null, a question or a language on every row, claimants that are
countries, months when asked for — and returns ``None`` otherwise, and the block goes through
:func:`~.records.normalize_record` record by record (every bad record then gets its own line and
reason). Both paths give the same columns (``tests/audit`` checks it on the same log).
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .countries import country_code
from .fields import FieldMap
from .records import norm_lang

__all__ = ["BlockCols", "arrow_block", "json_table", "record_key"]


@dataclass
class BlockCols:
    """One block of answers as columns, and its cited URLs flattened (``owner``: the answer's row)."""

    answers: dict[str, Any]
    n: int
    urls: pa.Array
    raw_repr: dict[int, str]
    owner: np.ndarray
    pos: np.ndarray
    titles: pa.Array | None
    snippets: pa.Array | None


def record_key(
    rid: Any,
    question: Any,
    qlang: Any,
    answer: Any,
    model: Any,
    month: Any,
    provider: Any,
    urls: str,
) -> int:
    """What makes two records the same (``urls``: the URLs joined by ``\\x1f``)."""
    return hash((rid, question, qlang, answer, model, month, provider, urls))


def _schema_for(fm: FieldMap, int_ids: bool, structs: bool) -> pa.Schema:
    s = pa.string()
    url_t = (
        pa.list_(pa.struct([("url", s), ("title", s), ("snippet", s)])) if structs else pa.list_(s)
    )
    types = {"id": pa.int64() if int_ids else s, "group": pa.int64() if int_ids else s, "question": s, "query_lang": s,
             "model": s, "response": s, "urls": url_t, "timestamp": s, "territory": s, "claimants": pa.list_(s),
             "claimant_langs": pa.list_(s), "provider": s}  # fmt: skip
    return pa.schema([(fm.source(k), t) for k, t in types.items() if fm.source(k)])


def json_table(data: bytes, fm: FieldMap) -> pa.Table | None:
    """``data`` (whole JSON lines, no blank one) parsed with an explicit schema, or None when none fits."""
    import pyarrow.json as pj

    for int_ids in (False, True):
        for structs in (False, True):
            try:
                opts = pj.ParseOptions(
                    explicit_schema=_schema_for(fm, int_ids, structs),
                    unexpected_field_behavior="ignore",
                )
                return pj.read_json(
                    io.BytesIO(data),
                    read_options=pj.ReadOptions(block_size=1 << 26),
                    parse_options=opts,
                )
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
                continue
    return None


def _str(t: pa.Table, fm: FieldMap, name: str) -> pa.Array | None:
    src = fm.source(name)
    if src is None or src not in t.column_names:
        return None
    col = t[src].combine_chunks()
    if pa.types.is_string(col.type) or pa.types.is_large_string(col.type):
        return col.cast(pa.string())
    if pa.types.is_integer(col.type):
        return col.cast(pa.string())
    if pa.types.is_null(col.type):
        return pa.nulls(len(col), pa.string())
    raise TypeError(name)


def _mapped(values: pa.Array, fn: Any) -> tuple[pa.Array, bool]:
    """``fn`` of each distinct value (None: a value ``fn`` refuses, then ``ok`` is False)."""
    enc = values.dictionary_encode()
    got = [fn(v) for v in enc.dictionary.to_pylist()]
    ok = all(g is not None for g in got)
    return pc.take(pa.array(got, pa.string()), enc.indices), ok


def arrow_block(
    t: pa.Table, lines: np.ndarray, fm: FieldMap, *, check_month: bool = False
) -> BlockCols | None:
    """The columns of a typed block (see the module docs), or None when the slow path must judge it."""
    if fm.source("raw") in t.column_names or fm.source("snippets") or "documents" in t.column_names:
        return None
    try:
        resp = _str(t, fm, "response")
        q, ql, rid = _str(t, fm, "question"), _str(t, fm, "query_lang"), _str(t, fm, "id")
        model, group, ts = _str(t, fm, "model"), _str(t, fm, "group"), _str(t, fm, "timestamp")
        terr, prov = _str(t, fm, "territory"), _str(t, fm, "provider")
    except TypeError:
        return None
    usrc = fm.source("urls")
    if resp is None or usrc is None or usrc not in t.column_names or resp.null_count:
        return None
    urls = t[usrc].combine_chunks()
    if not pa.types.is_list(urls.type) or urls.null_count:
        return None
    n = len(t)
    vt = urls.type.value_type
    flat = pc.list_flatten(urls)
    titles = snippets = None
    if pa.types.is_struct(vt):
        names = [f.name for f in vt]
        if "url" not in names:
            return None
        titles = flat.field("title") if "title" in names else None
        snippets = flat.field("snippet") if "snippet" in names else None
        flat = flat.field("url")
    if (
        not (pa.types.is_string(flat.type) or pa.types.is_large_string(flat.type))
        or flat.null_count
    ):
        return None
    flat = flat.cast(pa.string())
    if q is None and ql is None:
        return None
    if q is not None:
        q = pc.if_else(pc.equal(pc.utf8_trim_whitespace(q), ""), pa.scalar(None, pa.string()), q)
    if ql is not None:
        ql = pc.if_else(pc.equal(pc.utf8_trim_whitespace(ql), ""), pa.scalar(None, pa.string()), ql)
    both = (q.is_null() if q is not None else pa.array(np.ones(n, bool))).to_numpy(
        zero_copy_only=False
    ) & (ql.is_null() if ql is not None else pa.array(np.ones(n, bool))).to_numpy(
        zero_copy_only=False
    )
    if both.any():
        return None
    month = None
    if ts is not None:
        month = pc.extract_regex(ts, r"^(?P<m>\d{4}-(0[1-9]|1[0-2]))").field("m")
        month = pc.if_else(month.is_valid(), month, pa.scalar(None, pa.string()))
    if check_month and (month is None or month.null_count):
        return None
    if ql is not None:
        ql, _ = _mapped(ql, lambda v: None if v is None else norm_lang(v))
    claim_col: list[list[str]] = [[] for _ in range(n)]
    clang_col: list[list[str]] = [[] for _ in range(n)]
    csrc = fm.source("claimants")
    if csrc is not None and csrc in t.column_names:
        c = t[csrc].combine_chunks()
        if not pa.types.is_list(c.type):
            return None
        codes, ok = _mapped(
            pc.list_flatten(c).cast(pa.string()), lambda v: None if v is None else country_code(v)
        )
        if not ok:
            return None
        claim_col = _relist(c, codes)
        lsrc = fm.source("claimant_langs")
        if lsrc is not None and lsrc in t.column_names and pa.types.is_list(t[lsrc].type):
            cl = t[lsrc].combine_chunks()
            vals, _ = _mapped(
                pc.list_flatten(cl).cast(pa.string()), lambda v: None if v is None else norm_lang(v)
            )
            clang_col = [
                x if len(x) == len(y) else [] for x, y in zip(_relist(cl, vals), claim_col)
            ]
    lengths = (
        pc.fill_null(pc.list_value_length(urls), 0).to_numpy(zero_copy_only=False).astype(np.int64)
    )
    owner = np.repeat(np.arange(n, dtype=np.int64), lengths)
    starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
    pos = np.arange(len(owner), dtype=np.int64) - starts
    answers = {
        "line": lines.tolist(),
        "id": [x if x is not None else str(li) for x, li in zip(rid.to_pylist(), lines.tolist())] if rid is not None else [str(x) for x in lines.tolist()],
        "question": q.to_pylist() if q is not None else [None] * n,
        "query_lang": ql.to_pylist() if ql is not None else [None] * n,
        "model": pc.fill_null(pc.if_else(pc.equal(model, ""), pa.scalar(None, pa.string()), model), "unknown").to_pylist() if model is not None else ["unknown"] * n,
        "provider": pc.fill_null(prov, "").to_pylist() if prov is not None else [""] * n,
        "month": month.to_pylist() if month is not None else [None] * n,
        "group": pc.if_else(pc.equal(group, ""), pa.scalar(None, pa.string()), group).to_pylist() if group is not None else [None] * n,
        "territory": pc.if_else(pc.equal(terr, ""), pa.scalar(None, pa.string()), terr).to_pylist() if terr is not None else [None] * n,
        "claimants": claim_col,
        "claimant_langs": clang_col,
        "answer": resp.to_pylist(),
        "searches": [None] * n,
        "cost_usd": [None] * n,
        "_joined": pc.binary_join(urls if not pa.types.is_struct(vt) else pa.ListArray.from_arrays(urls.offsets, flat), "\x1f").to_pylist(),
    }  # fmt: skip
    return BlockCols(answers, n, flat, {}, owner, pos, titles, snippets)


def _relist(lists: pa.Array, values: pa.Array) -> list[list[str]]:
    offsets = lists.offsets.to_numpy()
    vals = values.to_pylist()
    start = offsets[0]
    return [vals[a - start : b - start] for a, b in zip(offsets[:-1], offsets[1:])]
