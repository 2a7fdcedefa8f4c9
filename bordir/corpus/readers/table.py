"""Reader of passages ``.parquet``, ``.csv`` and ``.tsv`` files (columns in :mod:`._rows`).

Line numbers in errors are file lines for CSV/TSV (the header is line 1) and
1-based row numbers for Parquet.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path
from typing import Any

from ..._io.columns import require_columns
from ...errors import DataError, undecodable
from ..base import Corpus
from ._rows import REQUIRED, RowChecker

__all__ = ["read_passages_table"]


def read_passages_table(path: str | Path, *, name: str = "") -> Corpus:
    """Read passages from a ``.parquet``, ``.csv`` or ``.tsv`` file.

    Example:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "p.csv"
        >>> _ = p.write_text("doc_id,lang,text,revision_id\\nx1,eu,Euskal Herria,42\\n", encoding="utf-8")
        >>> c = read_passages_table(p)
        >>> c[0].lang, dict(c[0].meta)
        ('eu', {'revision_id': '42'})
    """
    path = Path(path)
    checker = RowChecker(path)
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        rows = _parquet_rows(path)
    elif suffix in (".csv", ".tsv"):
        rows = _csv_rows(path, "\t" if suffix == ".tsv" else ",")
    else:
        raise DataError("expected a .parquet, .csv or .tsv file of passages", path=path)
    passages = [checker.passage(rec, line) for line, rec in rows]
    if not passages:
        raise DataError("no passages (only a header); expected one row per passage", path=path)
    return Corpus(passages, name=name or path.stem, source=str(path))


def _parquet_rows(path: Path) -> list[tuple[int, dict[str, Any]]]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except (pa.ArrowInvalid, OSError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DataError(f"not a readable Parquet file: {first}", path=path) from None
    require_columns(
        table, REQUIRED, path=path, expected=f"a passages file needs {', '.join(REQUIRED)}"
    )
    return [(i, rec) for i, rec in enumerate(table.to_pylist(), start=1)]


def _csv_rows(path: Path, delimiter: str) -> list[tuple[int, dict[str, Any]]]:
    # passages may be long: lift csv's 131,072-character field limit while reading this file only
    # (the limit is process-wide; other readers, e.g. the BorderLines loader, rely on it)
    previous = csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    try:
        return _csv_rows_unlimited(path, delimiter)
    finally:
        csv.field_size_limit(previous)


def _csv_rows_unlimited(path: Path, delimiter: str) -> list[tuple[int, dict[str, Any]]]:
    out = []
    try:
        with path.open(encoding="utf-8-sig", newline="") as fh:
            reader = csv.DictReader(fh, delimiter=delimiter)
            if reader.fieldnames is None:
                raise DataError(
                    "empty file; expected a header line with doc_id, lang, text", path=path, line=1
                )
            require_columns(
                reader.fieldnames,
                REQUIRED,
                path=path,
                line=1,
                expected=f"a passages file needs {', '.join(REQUIRED)} "
                "(optional: territory, title, section, provenance)",
            )
            start = reader.line_num + 1
            for rec in reader:
                if None in rec:
                    raise DataError(
                        f"more fields than the {len(reader.fieldnames)} header columns",
                        path=path,
                        line=start,
                    )
                out.append((start, rec))
                start = reader.line_num + 1
    except UnicodeDecodeError:
        raise undecodable(path) from None
    except csv.Error as exc:
        raise DataError(f"malformed CSV: {exc}", path=path) from None
    except OSError as exc:
        raise DataError(f"cannot read: {exc.strerror or exc}", path=path) from None
    return out
