"""The one required-columns check: which columns a table lacks, as a :class:`~bordir.errors.DataError`.

Every reader of a tabular file (CSV/TSV headers, Parquet schemas, DataFrames)
checks its header through :func:`require_columns`, so the error always reads
``FILE[:LINE][: field 'COL']: missing column(s) A, B; EXPECTED``: the file, the
missing columns and what a valid file has.

Example:
    >>> require_columns(["doc_id", "text"], ("doc_id", "lang", "text"), path="p.csv", line=1,
    ...                 expected="a passages file needs doc_id, lang, text")
    Traceback (most recent call last):
    ...
    bordir.errors.DataError: p.csv:1: field 'lang': missing column(s) lang; a passages file needs doc_id, lang, text
    >>> require_columns(["doc_id", "lang", "text"], ("doc_id", "lang"), path="p.csv")
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Any

from ..errors import DataError

__all__ = ["column_names", "missing_columns", "require_columns"]


def column_names(table: Any) -> list[str]:
    """The column names of a DataFrame, a pyarrow Table or schema, a Parquet file, or a header list."""
    if table is None:
        return []
    for attr in ("column_names", "names"):  # pyarrow Table / Schema
        names = getattr(table, attr, None)
        if names is not None and not callable(names):
            return [str(n) for n in names]
    schema = getattr(table, "schema_arrow", None)  # pyarrow.parquet.ParquetFile
    if schema is not None:
        return [str(n) for n in schema.names]
    columns = getattr(table, "columns", None)  # pandas DataFrame
    if columns is not None:
        return [str(c) for c in columns]
    return [str(c) for c in table]


def missing_columns(table: Any, required: Iterable[str]) -> list[str]:
    """The names in ``required`` (in their order) that ``table`` does not have."""
    have = set(column_names(table))
    return [c for c in required if c not in have]


def require_columns(
    table: Any,
    required: Sequence[str],
    *,
    path: str | os.PathLike[str] | None = None,
    line: int | None = None,
    expected: str = "",
    name_field: bool = True,
) -> None:
    """Raise a :class:`DataError` when ``table`` lacks a column of ``required``.

    Args:
        table: the columns present (see :func:`column_names`).
        required: the columns a valid table has.
        path: the file (or what the table is, e.g. ``"responses"``) named by the error.
        line: the header's line number, for text files.
        expected: what a valid table has, in words (after ``; `` in the message).
        name_field: name the first missing column as the error's ``field``.

    Raises:
        DataError: ``missing column(s) …; <expected>``, naming the file, line and first missing column.
    """
    missing = missing_columns(table, required)
    if missing:
        message = f"missing column(s) {', '.join(missing)}" + (f"; {expected}" if expected else "")
        raise DataError(message, path=path, line=line, field=missing[0] if name_field else None)
