"""Stream an audit log in blocks of records: JSONL (pyarrow's JSON reader, per-line fallback) or Parquet (row batches).

Nothing holds more than one block (a few MB of the file) at a time. Each block
comes out as a :class:`Block`: a pyarrow table of the *valid* records in the
normalized layout :data:`NORMALIZED` (ids as strings, ``line`` = 1-based line
or row number) and the :class:`~.schema.BadRecord` of every skipped one.

JSONL, fast path: a block of whole lines is parsed by ``pyarrow.json`` with an
explicit schema (string ids; then integer record ids; then integer ids throughout), and a vectorised pre-check
picks the rows that may break a rule; only those are turned into Python
objects and judged by :func:`~.schema.validate_record`. A block that arrow
cannot parse with a fixed schema (a line that is not JSON, a field of another
type, ids that mix strings and integers, an integer cluster field) or that holds blank lines is read line by line instead
(``orjson`` when installed, else ``json``), so every bad line gets its own line
number and reason. Blank lines are not records and are not counted.

Example:
    >>> import io, tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "log.jsonl")
    >>> with open(p, "w") as f:
    ...     _ = f.write('{"id": 1, "query": "q", "documents": [{"id": "a", "lang": "en"}], "response": "<doc0>"}\\n')
    ...     _ = f.write('not json\\n')
    >>> blocks = list(iter_blocks(p, "jsonl"))
    >>> sum(b.table.num_rows for b in blocks), [x.reason for b in blocks for x in b.bad]
    (1, ['invalid_json'])
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .._columns import require_columns
from ..errors import ConfigError, DataError
from .schema import MONTH_RE, BadRecord, SchemaOptions, validate_record

__all__ = ["NORMALIZED", "FORMATS", "Block", "iter_blocks", "detect_format"]

FORMATS: tuple[str, ...] = ("jsonl", "parquet")
DOC = pa.struct([("id", pa.string()), ("text", pa.string()), ("lang", pa.string())])
NORMALIZED = pa.schema(
    [
        ("line", pa.int64()),
        ("id", pa.string()),
        ("query", pa.string()),
        ("query_lang", pa.string()),
        ("documents", pa.list_(DOC)),
        ("response", pa.string()),
        ("response_lang", pa.string()),
        ("citations", pa.list_(pa.string())),
        ("timestamp", pa.string()),
        ("model", pa.string()),
        ("cluster", pa.string()),
    ]
)
"""The layout of every block's table."""

_BLOCK_BYTES = 8 << 20
_PARQUET_ROWS = 65_536


@dataclass
class Block:
    """Valid records (normalized) and skipped ones of one stretch of the log."""

    table: pa.Table
    bad: list[BadRecord] = field(default_factory=list)
    fast: bool = True
    """True when the block went through the vectorised path."""
    citations: tuple[np.ndarray, np.ndarray] | None = None
    """:func:`match_citations` of ``table``, when already computed."""


def detect_format(path: str | os.PathLike[str], fmt: str | None = None) -> str:
    """``fmt`` if given, else from the file name (``.parquet`` / ``.pq`` → parquet, otherwise jsonl)."""
    if fmt is not None:
        if fmt not in FORMATS:
            raise ConfigError(f"unknown log format {fmt!r}; use one of {', '.join(FORMATS)}")
        return fmt
    return "parquet" if Path(path).suffix.lower() in (".parquet", ".pq") else "jsonl"


_ID_TYPES = ((pa.string(), pa.string()), (pa.int64(), pa.string()), (pa.int64(), pa.int64()))
"""(record id, document and citation ids) types the vectorised reader tries, in order."""


def _json_schema(rec_id: pa.DataType, doc_id: pa.DataType, cluster_by: str | None) -> pa.Schema:
    doc = pa.struct([("id", doc_id), ("text", pa.string()), ("lang", pa.string())])
    fields = [
        ("id", rec_id),
        ("query", pa.string()),
        ("query_lang", pa.string()),
        ("documents", pa.list_(doc)),
        ("response", pa.string()),
        ("response_lang", pa.string()),
        ("citations", pa.list_(doc_id)),
        ("timestamp", pa.string()),
        ("model", pa.string()),
    ]
    if cluster_by and cluster_by not in {f[0] for f in fields}:
        fields.append((cluster_by, pa.string()))
    return pa.schema(fields)


def _as_string(arr: pa.Array) -> pa.Array:
    t = arr.type
    if pa.types.is_string(t):
        return arr
    if (
        pa.types.is_null(t)
        or pa.types.is_large_string(t)
        or pa.types.is_integer(t)
        or pa.types.is_dictionary(t)
    ):
        return arr.cast(pa.string())
    raise TypeError(f"expected strings or integers, found {t}")


def _list_of(arr: pa.Array, convert) -> pa.Array:
    """Rebuild a list array with converted values (nulls and slicing preserved)."""
    if pa.types.is_null(arr.type):
        return arr
    if not (pa.types.is_list(arr.type) or pa.types.is_large_list(arr.type)):
        raise TypeError(f"expected a list, found {arr.type}")
    lengths = pc.fill_null(pc.list_value_length(arr), 0).to_numpy(zero_copy_only=False)
    offsets = np.zeros(len(arr) + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    values = convert(pc.list_flatten(arr))
    mask = arr.is_null().to_numpy(zero_copy_only=False) if arr.null_count else None
    return pa.ListArray.from_arrays(
        pa.array(offsets), values, mask=pa.array(mask) if mask is not None else None
    )


def _docs(values: pa.Array) -> pa.Array:
    if pa.types.is_null(values.type):
        return pa.nulls(len(values), DOC)
    if not pa.types.is_struct(values.type):
        raise TypeError(f"expected objects, found {values.type}")
    names = [values.type.field(i).name for i in range(values.type.num_fields)]
    if "id" not in names:
        raise TypeError("the documents have no 'id'")
    n = len(values)
    children = [
        _as_string(pc.struct_field(values, "id")),
        _as_string(pc.struct_field(values, "text"))
        if "text" in names
        else pa.nulls(n, pa.string()),
        _as_string(pc.struct_field(values, "lang"))
        if "lang" in names
        else pa.nulls(n, pa.string()),
    ]
    mask = values.is_null() if values.null_count else None
    return pa.StructArray.from_arrays(children, fields=list(DOC), mask=mask)


def normalize(table: pa.Table, first_line: int, cluster_by: str | None) -> pa.Table:
    """A table of raw columns in :data:`NORMALIZED` layout; ``line`` numbers the rows from ``first_line``.

    Raises:
        TypeError: a column has a type that cannot hold the field.
    """
    n = table.num_rows
    cols: dict[str, pa.Array] = {
        "line": pa.array(np.arange(first_line, first_line + n, dtype=np.int64))
    }

    def col(name: str) -> pa.Array | None:
        if name not in table.column_names:
            return None
        return table[name].combine_chunks()

    for name in ("id", "query", "query_lang", "response", "response_lang", "timestamp", "model"):
        c = col(name)
        try:
            cols[name] = pa.nulls(n, pa.string()) if c is None else _as_string(c)
        except TypeError as exc:
            raise TypeError(f"column {name!r}: {exc}") from None
    d = col("documents")
    try:
        cols["documents"] = (
            pa.nulls(n, NORMALIZED.field("documents").type) if d is None else _list_of(d, _docs)
        )
    except TypeError as exc:
        raise TypeError(
            f"column 'documents': {exc}; expected a list of {{id, text, lang}}"
        ) from None
    ci = col("citations")
    try:
        cols["citations"] = (
            pa.nulls(n, NORMALIZED.field("citations").type)
            if ci is None
            else _list_of(ci, _as_string)
        )
    except TypeError as exc:
        raise TypeError(f"column 'citations': {exc}") from None
    cl = col(cluster_by) if cluster_by else None
    try:
        cols["cluster"] = pa.nulls(n, pa.string()) if cl is None else _as_string(cl)
    except TypeError as exc:
        raise TypeError(f"column {cluster_by!r}: {exc}") from None
    for name in ("query_lang", "response_lang"):  # "" means missing
        c = cols[name]
        cols[name] = pc.if_else(pc.equal(c, ""), pa.scalar(None, pa.string()), c)
    return pa.Table.from_arrays([cols[f.name].cast(f.type) for f in NORMALIZED], schema=NORMALIZED)


def _suspect(
    t: pa.Table, options: SchemaOptions
) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray] | None]:
    """Rows that may break a rule (a superset of what :func:`validate_record` rejects, for typed rows)."""

    def bad(arr: pa.Array | pa.ChunkedArray) -> np.ndarray:
        return np.asarray(pc.fill_null(arr, True).to_numpy(zero_copy_only=False), dtype=bool)

    n = t.num_rows
    s = np.zeros(n, dtype=bool)
    rid = t["id"]
    s |= bad(pc.equal(rid, ""))
    for name in ("query", "documents", "response"):
        s |= t[name].is_null().to_numpy(zero_copy_only=False)
    docs = t["documents"].combine_chunks()
    if len(docs) and pc.sum(pc.fill_null(pc.list_value_length(docs), 0)).as_py():
        flat = pc.list_flatten(docs)
        parent = pc.list_parent_indices(docs).to_numpy()
        did = pc.struct_field(flat, "id")
        lang = pc.struct_field(flat, "lang")
        text = pc.struct_field(flat, "text")
        d_bad = flat.is_null().to_numpy(zero_copy_only=False) | bad(pc.equal(did, ""))
        no_lang = bad(pc.equal(lang, ""))  # null → True
        d_bad |= no_lang & text.is_null().to_numpy(zero_copy_only=False)
        if d_bad.any():
            s[np.unique(parent[d_bad])] = True
    cites = t["citations"].combine_chunks()
    matched = None
    if cites.null_count < len(cites):
        matched = match_citations(docs, cites)
        cparent, found = matched
        if (found < 0).any():
            s[np.unique(cparent[found < 0])] = True
    if options.check_month:
        ts = t["timestamp"]
        ok = pc.match_substring_regex(ts, MONTH_RE.pattern)
        s |= ~np.asarray(pc.fill_null(ok, True).to_numpy(zero_copy_only=False), dtype=bool)
    if options.cluster_by:
        s |= bad(pc.equal(t["cluster"], ""))
    return s, matched


def match_citations(docs: pa.Array, cites: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """For every citation id, the flat index of the first document of its record with that id (−1: none).

    Returns ``(citation parent record, flat document index)``.
    """
    flat_ids = pc.struct_field(pc.list_flatten(docs), "id")
    cflat = pc.list_flatten(cites)
    cparent = pc.list_parent_indices(cites).to_numpy().astype(np.int64)
    if len(cflat) == 0:
        return cparent, np.zeros(0, dtype=np.int64)
    enc = pa.concat_arrays(
        [flat_ids.cast(pa.string()), cflat.cast(pa.string())]
    ).dictionary_encode()
    codes = pc.fill_null(enc.indices, -1).to_numpy(zero_copy_only=False).astype(np.int64)
    nd = len(flat_ids)
    dcode, ccode = codes[:nd], codes[nd:]
    n_docs = (
        pc.fill_null(pc.list_value_length(docs), 0).to_numpy(zero_copy_only=False).astype(np.int64)
    )
    if nd == 0:
        return cparent, np.full(len(ccode), -1, dtype=np.int64)
    max_docs = int(n_docs.max())
    if (
        max_docs <= 64
    ):  # few documents per record: compare each citation with its record's documents
        start = np.zeros(len(n_docs), dtype=np.int64)
        np.cumsum(n_docs[:-1], out=start[1:])
        cstart, clen = start[cparent], n_docs[cparent]
        found = np.full(len(ccode), -1, dtype=np.int64)
        for j in range(max_docs):
            cand = cstart + j
            hit = (found < 0) & (j < clen) & (ccode >= 0)
            hit[hit] = dcode[cand[hit]] == ccode[hit]
            found[hit] = cand[hit]
        return cparent, found
    dparent = pc.list_parent_indices(docs).to_numpy().astype(np.int64)
    width = np.int64(len(enc.dictionary) + 1)
    dkey = dparent * width + dcode
    ckey = cparent * width + ccode
    order = np.argsort(dkey, kind="stable")
    sk = dkey[order]
    pos = np.minimum(np.searchsorted(sk, ckey, side="left"), len(sk) - 1)
    ok = (sk[pos] == ckey) & (ccode >= 0)
    return cparent, np.where(ok, order[pos], -1).astype(np.int64)


def _loads():
    try:
        import orjson

        return orjson.loads, (orjson.JSONDecodeError, ValueError)
    except ImportError:  # pragma: no cover - orjson is in the audit extra
        return json.loads, (ValueError,)


def _slow_block(data: bytes, first_line: int, options: SchemaOptions) -> Block:
    loads, errors = _loads()
    rows, bad = [], []
    for k, raw in enumerate(data.split(b"\n")):
        line = first_line + k
        if not raw.strip():
            continue
        try:
            obj = loads(raw)
        except errors as exc:
            msg = str(exc).splitlines()[0] if str(exc) else "invalid JSON"
            bad.append(BadRecord(line, "invalid_json", f"not valid JSON: {msg[:120]}"))
            continue
        r = validate_record(obj, line, options)
        if isinstance(r, BadRecord):
            bad.append(r)
        else:
            rows.append(r)
    table = pa.Table.from_pylist(rows, schema=NORMALIZED) if rows else NORMALIZED.empty_table()
    return Block(table, bad, fast=False)


def judge(table: pa.Table, options: SchemaOptions) -> Block:
    """Validate a normalized table: suspect rows go through :func:`validate_record`; bad ones are dropped."""
    if table.num_rows == 0:
        return Block(table)
    mask, matched = _suspect(table, options)
    sus = np.flatnonzero(mask)
    if len(sus) == 0:
        return Block(table, citations=matched)
    keep = np.ones(table.num_rows, dtype=bool)
    bad = []
    cluster_by = options.cluster_by
    for i, rec in zip(sus, table.take(pa.array(sus)).to_pylist()):
        line = rec.pop("line")
        if cluster_by:
            rec[cluster_by] = rec.pop("cluster")
        r = validate_record(rec, line, options)
        if isinstance(r, BadRecord):
            bad.append(r)
            keep[i] = False
    return Block(table.filter(pa.array(keep)), bad)


def _fast_block(data: bytes, first_line: int, n_lines: int, options: SchemaOptions) -> Block | None:
    import pyarrow.json as pj

    body = data[:-1] if data.endswith(b"\n") else data
    if (
        b"\n\n" in body or body[:1] == b"\n"
    ):  # blank lines (whitespace-only ones change arrow's row count)
        return None
    ropts = pj.ReadOptions(
        block_size=max(1 << 20, min(len(data) // 2 + 1, 4 << 20)), use_threads=True
    )
    for rec_id, doc_id in _ID_TYPES:
        popts = pj.ParseOptions(
            explicit_schema=_json_schema(rec_id, doc_id, options.cluster_by),
            unexpected_field_behavior="ignore",
        )
        try:
            raw = pj.read_json(io.BytesIO(data), read_options=ropts, parse_options=popts)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            continue
        if raw.num_rows != n_lines:
            return None
        try:
            table = normalize(raw, first_line, options.cluster_by)
        except TypeError:
            return None
        return judge(table, options)
    return None


def _jsonl_blocks(
    path: Path, options: SchemaOptions, block_bytes: int, fast: bool
) -> Iterator[Block]:
    line = 1
    with path.open("rb") as fh:
        while True:
            data = fh.read(block_bytes)
            if not data:
                break
            if not data.endswith(b"\n"):
                data += fh.readline()
            n_lines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
            block = _fast_block(data, line, n_lines, options) if fast else None
            yield block if block is not None else _slow_block(data, line, options)
            line += n_lines


def _parquet_blocks(path: Path, options: SchemaOptions, rows: int) -> Iterator[Block]:
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(path)
    except Exception as exc:  # pyarrow raises several types for a broken file
        raise DataError(
            f"not a readable Parquet file: {str(exc).splitlines()[0] if str(exc) else exc}",
            path=path,
        ) from None
    names = set(pf.schema_arrow.names)
    require_columns(
        names,
        ("id", "query", "documents", "response"),
        path=path,
        expected="see the audit log schema (docs/audit.md)",
        name_field=False,
    )
    wanted = [
        c
        for c in (
            "id",
            "query",
            "query_lang",
            "documents",
            "response",
            "response_lang",
            "citations",
            "timestamp",
            "model",
            options.cluster_by,
        )
        if c and c in names
    ]
    line = 1
    for batch in pf.iter_batches(batch_size=rows, columns=list(dict.fromkeys(wanted))):
        raw = pa.Table.from_batches([batch])
        try:
            table = normalize(raw, line, options.cluster_by)
        except TypeError as exc:
            raise DataError(f"{exc}; see the audit log schema (docs/audit.md)", path=path) from None
        yield judge(table, options)
        line += raw.num_rows


def iter_blocks(
    path: str | os.PathLike[str],
    fmt: str | None = None,
    options: SchemaOptions = SchemaOptions(),
    *,
    block_bytes: int = _BLOCK_BYTES,
    parquet_rows: int = _PARQUET_ROWS,
    fast: bool = True,
) -> Iterator[Block]:
    """Blocks of valid normalized records and skipped ones, in file order.

    Args:
        path: the log file.
        fmt: ``jsonl`` or ``parquet`` (default: from the file name).
        options: validation options.
        block_bytes: JSONL bytes per block (whole lines).
        parquet_rows: Parquet rows per block.
        fast: False reads JSONL line by line (the reference the fast path is tested against).

    Raises:
        DataError: the file is missing, or (Parquet) a column has an unusable type.
    """
    p = Path(path)
    if not p.is_file():
        raise DataError(
            "file not found; expected a JSONL or Parquet log (see docs/audit.md)", path=p
        )
    fmt = detect_format(p, fmt)
    if fmt == "parquet":
        yield from _parquet_blocks(p, options, parquet_rows)
    else:
        yield from _jsonl_blocks(p, options, block_bytes, fast)
