"""Reading a responses table from Parquet, its string key columns as pandas categoricals.

:func:`read_responses` reads a run directory's ``responses.parquet`` (or any Parquet file with
:data:`~bordir.metrics.responses.SCORING_COLUMNS`) with its few-valued string columns
(:data:`STRING_COLUMNS`) dictionary-encoded, as scoring codes them
(:mod:`bordir.metrics.codes`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from ..errors import DataError
from .responses import SCORING_COLUMNS, STRING_COLUMNS

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["read_responses"]


def read_responses(
    path: str | os.PathLike[str], *, columns: Sequence[str] | None = None
) -> pd.DataFrame:
    """A responses table from a Parquet file, its string key columns as pandas categoricals.

    The file is a run directory's ``responses.parquet``, or any with :data:`SCORING_COLUMNS`. The Parquet file stores those columns dictionary-encoded; they are read as such (a code per
    row and the few distinct strings), not as a million Python strings: on 1M rows the read is
    about 3x faster, and :func:`~bordir.metrics.score_responses` codes them without hashing. The
    values are the file's; ``pd.read_parquet`` reads the same table with string columns.

    Args:
        path: the Parquet file.
        columns: the columns to read (default: all; :data:`SCORING_COLUMNS` are what scoring needs).

    Raises:
        DataError: the file is missing or not Parquet, or lacks a column of :data:`SCORING_COLUMNS`.

    Example:
        >>> import pandas as pd, tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "responses.parquet"
        >>> pd.DataFrame({"query_id": ["Crimea_uk"], "territory": ["Crimea"], "query_lang": ["uk"],
        ...     "is_control": [False], "mode": ["no_ir"], "model": ["mock/x"], "run": [0],
        ...     "outcome": ["answered"], "choice": [1]}).to_parquet(p)
        >>> df = read_responses(p)
        >>> str(df["mode"].dtype), df["mode"].tolist()
        ('category', ['no_ir'])
    """
    from pathlib import Path

    import pyarrow.parquet as pq

    p = Path(path)
    if not p.is_file():
        raise DataError("file not found; expected a responses Parquet file", path=p)
    import pyarrow as pa

    try:
        schema = pq.read_schema(p)
    except Exception as exc:  # pyarrow raises several types for a broken file
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DataError(f"not a readable Parquet file: {first}", path=p) from None
    names = schema.names
    missing = [c for c in SCORING_COLUMNS if c not in names]
    if missing:
        raise DataError(
            f"no column {', '.join(missing)}; a responses table needs {', '.join(SCORING_COLUMNS)}",
            path=p,
        )
    wanted = list(names if columns is None else columns)
    absent = [c for c in wanted if c not in names]
    if absent:
        raise DataError(f"no column {', '.join(absent)}; the file has {', '.join(names)}", path=p)
    dictionary = [
        c
        for c in STRING_COLUMNS
        if c in wanted
        and (
            pa.types.is_string(schema.field(c).type)
            or pa.types.is_large_string(schema.field(c).type)
        )
    ]
    try:
        table = pq.read_table(p, columns=wanted, read_dictionary=dictionary)
    except Exception as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DataError(f"not a readable Parquet file: {first}", path=p) from None
    return cast("pd.DataFrame", table.to_pandas())
