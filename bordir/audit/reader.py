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
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from .._io.columns import require_columns
from .._io.json_read import NESTED_TOO_DEEPLY, loads
from ..errors import ConfigError, DataError
from .normalize import (
    ID_TYPES,
    NORMALIZED,
    json_schema,
    normalize,
    suspect_rows,
)
from .schema import FIELDS, BadRecord, SchemaOptions, validate_record

__all__ = ["NORMALIZED", "FORMATS", "Block", "iter_blocks", "detect_format"]

FORMATS: tuple[str, ...] = ("jsonl", "parquet")

_BLOCK_BYTES = 8 << 20
_ORJSON_TOO_DEEP = ("depth limit exceeded", "recursion limit")
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


def _loads() -> tuple[Callable[[bytes], Any], tuple[type[Exception], ...]]:
    try:
        import orjson

        return orjson.loads, (orjson.JSONDecodeError, ValueError)
    except ImportError:  # pragma: no cover - orjson is in the audit extra
        return loads, (ValueError,)


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
            if msg.startswith(
                _ORJSON_TOO_DEEP
            ):  # the one wording of every reader (bordir._io.json_read)
                msg = NESTED_TOO_DEEPLY
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
    mask, matched = suspect_rows(table, options)
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
    for rec_id, doc_id in ID_TYPES:
        popts = pj.ParseOptions(
            explicit_schema=json_schema(rec_id, doc_id, options.cluster_by),
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
    wanted = [c for c in (*FIELDS, options.cluster_by) if c and c in names]
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
