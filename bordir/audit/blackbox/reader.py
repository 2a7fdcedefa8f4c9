"""Reading a log in blocks of records (JSONL, Parquet, CSV), and telling a white-box log from a black-box one.

:func:`iter_rows` yields blocks of ``(line, record)``: JSONL line by line (``orjson`` when
installed; a line that is not JSON comes out as a :class:`~bordir.audit.schema.BadRecord`),
Parquet in row batches (``line`` = row number), CSV through :mod:`csv` (``line`` = the line the
row starts on; every value a string). Blank lines are not records.

:func:`log_kind` looks at the first :data:`SAMPLE` records: ``whitebox`` when they carry the
prompt's ``documents``, ``blackbox`` when they carry an answer and cited URLs (or a provider's
raw response) and no documents. A log whose first records mix the two kinds stops with one line
naming a record of each kind.

Example:
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "log.jsonl")
    >>> with open(p, "w") as fh:
    ...     _ = fh.write('{"question": "q", "answer": "a", "urls": []}\\n\\n{broken\\n')
    >>> [getattr(r, "reason", None) or type(r[1]).__name__ for block in iter_rows(p, "jsonl") for r in block]
    ['dict', 'invalid_json']
    >>> log_kind(p, "jsonl")
    ('blackbox', ['answer', 'question', 'urls'])
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ...errors import ConfigError, DataError
from ..schema import BadRecord
from .fields import COMMON_NAMES

__all__ = ["FORMATS", "SAMPLE", "detect_format", "iter_rows", "log_kind", "typed_blocks"]

FORMATS: tuple[str, ...] = ("jsonl", "parquet", "csv")
SAMPLE = 1000
"""Records looked at to tell the kind of a log and to find its fields."""
_BLOCK = 20_000

Row = tuple[int, Any]


def detect_format(path: str | os.PathLike[str], fmt: str | None = None) -> str:
    """``fmt``, else from the name: ``.parquet``/``.pq`` → parquet, ``.csv``/``.tsv`` → csv, else jsonl."""
    if fmt is not None:
        if fmt not in FORMATS:
            raise ConfigError(f"unknown log format {fmt!r}; use one of {', '.join(FORMATS)}")
        return fmt
    suffix = Path(path).suffix.lower()
    if suffix in (".parquet", ".pq"):
        return "parquet"
    return "csv" if suffix in (".csv", ".tsv") else "jsonl"


def _loads() -> tuple[Callable[[bytes], Any], tuple[type[Exception], ...]]:
    try:
        import orjson

        return orjson.loads, (orjson.JSONDecodeError, ValueError)
    except ImportError:  # pragma: no cover - orjson is in the audit extra
        return json.loads, (ValueError,)


def _jsonl(path: Path, block: int) -> Iterator[list[Row | BadRecord]]:
    loads, errors = _loads()
    out: list[Row | BadRecord] = []
    with path.open("rb") as fh:
        for line, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                out.append((line, loads(raw)))
            except errors as exc:
                msg = str(exc).splitlines()[0] if str(exc) else "invalid JSON"
                out.append(BadRecord(line, "invalid_json", f"not valid JSON: {msg[:120]}"))
            if len(out) >= block:
                yield out
                out = []
    if out:
        yield out


def _parquet(path: Path, block: int) -> Iterator[list[Row | BadRecord]]:
    import pyarrow.parquet as pq

    try:
        f = pq.ParquetFile(path)
    except Exception as exc:  # noqa: BLE001 - pyarrow raises several kinds for a bad file
        raise DataError(f"not a readable Parquet file ({exc})", path=path) from None
    line = 0
    for batch in f.iter_batches(batch_size=block):
        rows: list[Row | BadRecord] = []
        for r in batch.to_pylist():
            line += 1
            rows.append((line, r))
        yield rows


def _csv(path: Path, block: int) -> Iterator[list[Row | BadRecord]]:
    delim = "\t" if path.suffix.lower() == ".tsv" else ","
    with path.open(encoding="utf-8-sig", newline="") as fh:
        reader = csv.DictReader(fh, delimiter=delim)
        if not reader.fieldnames:
            return
        out: list[Row | BadRecord] = []
        start = reader.line_num + 1
        for r in reader:
            out.append(
                (start, {k: v for k, v in r.items() if k is not None and v not in (None, "")})
            )
            start = reader.line_num + 1
            if len(out) >= block:
                yield out
                out = []
        if out:
            yield out


def iter_rows(
    path: str | os.PathLike[str], fmt: str, *, block: int = _BLOCK
) -> Iterator[list[Row | BadRecord]]:
    """Blocks of ``(line, record)`` (or :class:`BadRecord` for a line that is not JSON)."""
    p = Path(path)
    if not p.is_file():
        raise DataError("not found (no such log file)", path=p)
    try:
        if fmt == "parquet":
            yield from _parquet(p, block)
        elif fmt == "csv":
            yield from _csv(p, block)
        else:
            yield from _jsonl(p, block)
    except UnicodeDecodeError as exc:
        raise DataError(
            f"not UTF-8 text ({exc.reason}); convert it (iconv -t UTF-8)", path=p
        ) from None


def _parse_lines(data: bytes, first: int) -> list[Row | BadRecord]:
    loads, errors = _loads()
    out: list[Row | BadRecord] = []
    for k, raw in enumerate(data.split(b"\n")):
        if not raw.strip():
            continue
        try:
            out.append((first + k, loads(raw)))
        except errors as exc:
            msg = str(exc).splitlines()[0] if str(exc) else "invalid JSON"
            out.append(BadRecord(first + k, "invalid_json", f"not valid JSON: {msg[:120]}"))
    return out


def typed_blocks(
    path: str | os.PathLike[str],
    fmt: str,
    fm: Any,
    *,
    fast: bool = True,
    block_bytes: int = 8 << 20,
) -> Iterator[tuple[str, Any]]:
    """Blocks for :func:`~.ingest.ingest`: ``("table", (table, lines, rows))`` typed by Arrow, or ``("rows", rows)``.

    ``rows()`` gives the records of a typed block whole (every field), for the slow path.

    A JSONL block is typed when every line of it parses with the explicit schema of the mapped
    fields and none is blank; otherwise its lines come one by one.
    """
    import numpy as np

    p = Path(path)
    if fmt == "csv" or not fast:
        for block in iter_rows(p, fmt):
            yield "rows", block
        return
    if not p.is_file():
        raise DataError("not found (no such log file)", path=p)
    if fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            f = pq.ParquetFile(p)
        except Exception as exc:  # noqa: BLE001 - pyarrow raises several kinds for a bad file
            raise DataError(f"not a readable Parquet file ({exc})", path=p) from None
        line = 0
        for batch in f.iter_batches(batch_size=65_536):
            lines = np.arange(line + 1, line + 1 + batch.num_rows)
            line += batch.num_rows
            t = pa.Table.from_batches([batch])
            yield (
                "table",
                (t, lines, lambda t=t, lines=lines: list(zip(lines.tolist(), t.to_pylist()))),
            )
        return
    from .fastblock import json_table

    first = 1
    last: list[Any] = []  # the typing of the previous block
    with p.open("rb") as fh:
        rest = b""
        while True:
            chunk = fh.read(block_bytes)
            data = rest + chunk
            if not chunk:
                if data.strip():
                    yield from _jsonl_block(data, first, fm, json_table, last)
                return
            cut = data.rfind(b"\n")
            if cut < 0:
                rest = data
                continue
            whole, rest = data[: cut + 1], data[cut + 1 :]
            yield from _jsonl_block(whole, first, fm, json_table, last)
            first += whole.count(b"\n")


def _jsonl_block(
    data: bytes, first: int, fm: Any, json_table: Any, last: list[Any]
) -> Iterator[tuple[str, Any]]:
    import numpy as np

    body = data[:-1] if data.endswith(b"\n") else data
    n_lines = body.count(b"\n") + 1
    if b"\n\n" not in data and not data.startswith(b"\n") and body.strip():
        try:
            body.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DataError(f"not UTF-8 text ({exc.reason}); convert it (iconv -t UTF-8)") from None
        t = json_table(body + b"\n", fm, last)
        if t is not None and t.num_rows == n_lines:
            yield "table", (t, np.arange(first, first + n_lines), lambda: _parse_lines(body, first))
            return
    yield "rows", _parse_lines(body, first)


_BLACKBOX_HINTS = {n for f in ("urls", "raw") for n in COMMON_NAMES[f]}


def log_kind(
    path: str | os.PathLike[str], fmt: str, mapping: dict[str, str] | None = None
) -> tuple[str, list[str]]:
    """``(kind, fields)``: ``whitebox`` or ``blackbox`` from the first records, and the fields they use.

    Raises:
        DataError: the first records mix white-box and black-box records, or none is an object.
    """
    hints = _BLACKBOX_HINTS | set((mapping or {}).values())
    white = black = None
    keys: set[str] = set()
    seen = 0
    for blk in iter_rows(path, fmt, block=SAMPLE):
        for item in blk:
            if isinstance(item, BadRecord) or not isinstance(item[1], dict):
                continue
            line, rec = item
            keys.update(rec)
            seen += 1
            is_white = "documents" in rec
            is_black = not is_white and (
                bool(hints & set(rec)) or any(isinstance(v, dict) for v in rec.values())
            )
            if is_white and white is None:
                white = line
            if is_black and black is None:
                black = line
            if seen >= SAMPLE:
                break
        break
    if white is not None and black is not None:
        raise DataError(
            f"the log mixes white-box records (line {white} has 'documents') and black-box records "
            f"(line {black} has cited URLs and no documents); split it and audit each kind on its own",
            path=path,
        )
    if mapping and white is None:
        return "blackbox", sorted(keys)
    return ("whitebox" if white is not None or black is None else "blackbox"), sorted(keys)
