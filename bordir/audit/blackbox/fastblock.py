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

from .codes import list_lengths
from .countries import country_code
from .fields import FieldMap
from .records import norm_lang

__all__ = ["BlockCols", "arrow_block", "json_table"]


@dataclass
class BlockCols:
    """One block of answers as Arrow columns, and its cited URLs flattened (``owner``: the answer's row)."""

    answers: dict[str, pa.Array]
    n: int
    urls: pa.Array
    raw_repr: dict[int, str]
    owner: np.ndarray
    pos: np.ndarray
    titles: pa.Array | None
    snippets: pa.Array | None


def _schema_for(fm: FieldMap, int_id: bool, int_group: bool, structs: bool) -> pa.Schema:
    s = pa.string()
    url_t = (
        pa.list_(pa.struct([("url", s), ("title", s), ("snippet", s)])) if structs else pa.list_(s)
    )
    types = {"id": pa.int64() if int_id else s, "group": pa.int64() if int_group else s, "question": s, "query_lang": s,
             "model": s, "response": s, "urls": url_t, "timestamp": s, "territory": s, "claimants": pa.list_(s),
             "claimant_langs": pa.list_(s), "provider": s}  # fmt: skip
    return pa.schema([(fm.source(k), t) for k, t in types.items() if fm.source(k)])


_SHAPES = tuple((i, g, st) for st in (False, True) for i in (False, True) for g in (False, True))
"""The typings tried: ids and groups as strings or integers, URLs as strings or objects."""


def json_table(
    data: bytes, fm: FieldMap, last: list[tuple[bool, bool, bool]] | None = None
) -> pa.Table | None:
    """``data`` (whole JSON lines, no blank one) parsed with an explicit schema, or None when none fits.

    ``last`` (a list kept across blocks) holds the typing that fitted the previous block: it is
    tried first. A value of another type fails a parse, so two typings both fit only a block
    where the field is null throughout, and give the same columns.
    """
    import pyarrow.json as pj

    first = tuple(last[:1]) if last else ()
    for shape in first + tuple(x for x in _SHAPES if x not in first):
        try:
            opts = pj.ParseOptions(
                explicit_schema=_schema_for(fm, *shape), unexpected_field_behavior="ignore"
            )
            t = pj.read_json(
                io.BytesIO(data),
                read_options=pj.ReadOptions(block_size=1 << 26),
                parse_options=opts,
            )
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
            continue
        if last is not None:
            last[:] = [shape]
        return t
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
    empty = pa.array([[]] * n, pa.list_(pa.string()))
    claim_col, clang_col = empty, empty
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
        c_len = list_lengths(c)
        claim_col = _relist(c_len, codes)
        lsrc = fm.source("claimant_langs")
        if lsrc is not None and lsrc in t.column_names and pa.types.is_list(t[lsrc].type):
            cl = t[lsrc].combine_chunks()
            vals, _ = _mapped(
                pc.list_flatten(cl).cast(pa.string()), lambda v: None if v is None else norm_lang(v)
            )
            cl_len = list_lengths(cl)
            same = (
                cl_len == c_len
            )  # a list of claimant languages that is not one per claimant is none
            clang_col = _relist(
                np.where(same, cl_len, 0), vals.filter(pa.array(np.repeat(same, cl_len)))
            )
    lengths = list_lengths(urls)
    owner = np.repeat(np.arange(n, dtype=np.int64), lengths)
    starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
    pos = np.arange(len(owner), dtype=np.int64) - starts
    lines_str = pa.array(lines, pa.int64()).cast(pa.string())

    def blank_null(col: pa.Array) -> pa.Array:
        return pc.if_else(pc.equal(col, ""), pa.scalar(None, pa.string()), col)

    def nulls() -> pa.Array:
        return pa.nulls(n, pa.string())

    answers = {
        "line": pa.array(lines, pa.int64()),
        "id": pc.if_else(rid.is_valid(), rid, lines_str) if rid is not None else lines_str,
        "question": q if q is not None else nulls(),
        "query_lang": ql if ql is not None else nulls(),
        "model": pc.fill_null(blank_null(model), "unknown") if model is not None else pa.array(["unknown"] * n, pa.string()),
        "provider": pc.fill_null(prov, "") if prov is not None else pa.array([""] * n, pa.string()),
        "month": month if month is not None else nulls(),
        "group": blank_null(group) if group is not None else nulls(),
        "territory": blank_null(terr) if terr is not None else nulls(),
        "claimants": claim_col,
        "claimant_langs": clang_col,
        "answer": resp,
        "searches": pa.nulls(n, pa.int64()),
        "cost_usd": pa.nulls(n, pa.float64()),
        "_joined": pc.binary_join(urls if not pa.types.is_struct(vt) else pa.ListArray.from_arrays(urls.offsets, flat), "\x1f"),
    }  # fmt: skip
    return BlockCols(answers, n, flat, {}, owner, pos, titles, snippets)


def _relist(lengths: np.ndarray, values: pa.Array) -> pa.Array:
    """Lists of ``lengths`` items cut from ``values`` in order."""
    offsets = np.zeros(len(lengths) + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    return pa.ListArray.from_arrays(pa.array(offsets), values.cast(pa.string()))
