"""Reading the files of an output directory with one-line errors: JSON, JSON lines, Parquet.

Every reader names the file and says what to do when it cannot read it, so
``bordir view`` stops with one line (exit 2) and writes nothing.

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x.parquet"
    >>> _ = p.write_bytes(b"PAR1 truncated")
    >>> read_parquet(p, hint="re-run the command that wrote it")
    Traceback (most recent call last):
    ...
    bordir.errors.DataError: ...x.parquet: not a readable Parquet file (...); re-run the command that wrote it
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

from .._io import json_read
from ..errors import DataError, undecodable

__all__ = ["read_json", "read_jsonl", "read_parquet", "parquet_schema", "require_columns"]


def read_json(path: Path, *, hint: str) -> Any:
    """``path`` parsed as JSON; a missing, undecodable or malformed file is a :class:`DataError`."""
    return json_read.read_json(path, missing=hint, hint=hint)


def read_jsonl(path: Path, *, hint: str) -> list[dict[str, Any]]:
    """The JSON objects of a JSON-lines file, one per non-blank line (a torn line is an error)."""
    if not path.is_file():
        raise DataError(f"file not found; {hint}", path=path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise undecodable(path) from None
    except OSError as exc:
        raise DataError(f"cannot read: {exc.strerror or exc}", path=path) from None
    return [
        rec
        for _, rec in json_read.json_object_lines(
            enumerate(text.splitlines(), 1),
            path,
            invalid=lambda exc: f"{json_read.not_valid(exc)}; {hint}",
            not_object=lambda _: f"expected a JSON object per line; {hint}",
        )
    ]


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def parquet_schema(path: Path, *, hint: str) -> Any:
    """The Arrow schema of a Parquet file (reads the footer only)."""
    import pyarrow.parquet as pq

    if not path.is_file():
        raise DataError(f"file not found; {hint}", path=path)
    try:
        return pq.read_schema(path)
    except Exception as exc:  # pyarrow raises several types for a broken file
        raise DataError(
            f"not a readable Parquet file ({_first_line(exc)}); {hint}", path=path
        ) from None


def read_parquet(path: Path, *, hint: str, columns: Sequence[str] | None = None) -> Any:
    """A Parquet file as an Arrow table (``columns``: only those present); a broken file is a :class:`DataError`."""
    import pyarrow.parquet as pq

    schema = parquet_schema(path, hint=hint)
    cols = None if columns is None else [c for c in columns if c in schema.names]
    try:
        return pq.read_table(path, columns=cols)
    except Exception as exc:  # a footer that reads but pages that do not (truncated in the middle)
        raise DataError(
            f"not a readable Parquet file ({_first_line(exc)}); {hint}", path=path
        ) from None


def require_columns(found: Collection[str], need: Sequence[str], *, path: Path, table: str) -> None:
    """Refuse a table whose columns ``found`` lack some of ``need``: one line naming them and ``table``.

    ``table`` says what was expected, e.g. "the hits table `bordir run` writes".
    """
    missing = [c for c in need if c not in found]
    if missing:
        raise DataError(
            f"missing column(s) {', '.join(missing)}; expected {table}",
            path=path,
            field=missing[0],
        )
