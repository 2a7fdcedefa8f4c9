"""A response table read as its distinct rows: each row's ``Territory`` and the index of its other cells.

A BorderLines table of many runs or models repeats a few thousand distinct rows
(everything but ``Territory``): the same claimants, controller and answers. The
scorer splits the file's bytes into lines, keys each line by what follows its first field
(``Territory``), decodes only the ``Territory`` cells and the distinct keys, parses
the distinct keys with :mod:`csv` (in strict mode, each key as one record) and their
cells with :func:`~bordir.metrics.legacy.columns.columns_at_once`, and scores the
distinct rows once (:func:`~bordir.metrics.legacy.territories.distinct_stats`).

Only the plain shape is read this way: ``Territory`` the first column (and only
once), ``\\n``, ``\\r\\n`` or ``\\r`` line ends, no empty line, every key one complete CSV
record of the header's width, every cell sound. Anything else (a quoted newline,
a bad row …) gives ``None`` and the caller reads the file row by row, with the
exact error of a bad row; the cells are those :mod:`csv` reads either way.

Example:
    >>> d = read_distinct_rows(
    ...     b"Territory,Claimants,Claimant_Codes,Controller,Controller_Code,Responses_d,Response_en\\n"
    ...     b"X#0,A;B,a;b,A,a,\\"{'a': 'A', 'b': 'B'}\\",A\\n"
    ...     b"X#1,A;B,a;b,A,a,\\"{'a': 'A', 'b': 'B'}\\",A\\n")
    >>> d.territory, d.row.tolist(), d.columns["Responses_d"]
    (['X#0', 'X#1'], [0, 0], [{'a': 'A', 'b': 'B'}])
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import islice, repeat
from operator import itemgetter
from typing import Any

import numpy as np

from .columns import LEGACY_COLUMNS, REQUIRED_COLUMNS, columns_at_once, gc_paused

__all__ = ["DistinctRows", "read_distinct_rows"]


@dataclass(frozen=True)
class DistinctRows:
    """A response table as distinct rows.

    Attributes:
        territory: each row's ``Territory``, in file order.
        row: each row's index into the distinct rows.
        columns: the distinct rows' cells by column (``LEGACY_COLUMNS``, parsed as the
            scorer's reader parses them; ``Territory`` is a placeholder there).
    """

    territory: list[str]
    row: np.ndarray
    columns: dict[str, list[Any]]

    def expand(self) -> dict[str, list[Any]]:
        """The table by column, one entry per row (equal cells share one parsed object)."""
        idx = self.row.tolist()
        out = {c: [v[i] for i in idx] for c, v in self.columns.items() if c != "Territory"}
        return {"Territory": list(self.territory), **out}


def _records(keys: list[str], width: int | None) -> list[list[str]] | None:
    """Each key parsed as exactly one CSV record (of ``width`` fields, if given), else None."""
    try:  # strict: a key ending inside quotes is an error, not a record cut short
        records = list(csv.reader(keys, strict=True))
    except csv.Error:
        return None
    if len(records) != len(keys) or (width is not None and any(len(r) != width for r in records)):
        return None  # a key joined with the next one (a quoted newline), or the wrong width
    return records


_OTHER_BREAKS = (
    b"\x0b",
    b"\x0c",
    b"\x1c",
    b"\x1d",
    b"\x1e",
    b"\xc2\x85",
    b"\xe2\x80\xa8",
    b"\xe2\x80\xa9",
)
"""What :meth:`str.splitlines` splits on besides ``\\n`` and ``\\r`` (csv does not), in UTF-8."""


def _text(pieces: Iterable[bytes]) -> str | None:
    """The pieces (no ``\\n`` or ``\\r`` in any) joined by ``\\n`` and decoded; None if one holds another break.

    Raises:
        UnicodeDecodeError: a piece is not UTF-8.
    """
    joined = b"\n".join(pieces)
    if any(b in joined for b in _OTHER_BREAKS):
        return None
    return joined.decode("utf-8")


def read_distinct_rows(data: bytes) -> DistinctRows | None:
    """The table in ``data`` (a file's bytes) as distinct rows; None if it is not plain.

    None means: read the file row by row (its header or a row needs the general reader).

    The bytes are split at ``\\n``, ``\\r\\n`` and ``\\r`` (as csv splits) and at each line's
    first comma before anything is decoded: every piece lies between ASCII bytes, so the pieces
    are valid UTF-8 exactly when ``data`` is, and equal rests decode to equal text; only the
    ``Territory`` cells and the distinct rests are decoded (and searched for other line breaks).

    Raises:
        UnicodeDecodeError: ``data`` is not UTF-8.
    """
    if b"\x00" in data:
        return None  # csv's own rule for NUL
    with gc_paused():
        lines = data.splitlines()  # bytes: at \n, \r\n and \r only, as csv
        if len(lines) < 2:
            return None
        head = _text(lines[:1])
        if head is None:
            return None
        header = _records([head.removeprefix("\ufeff")], None)  # a BOM (utf-8-sig)
        if header is None or not header[0] or header[0][0] != "Territory":
            return None
        names = header[0]
        if names.count("Territory") != 1 or not set(REQUIRED_COLUMNS) <= set(names):
            return None
        parts = list(map(bytes.partition, islice(lines, 1, None), repeat(b",")))
        del lines
        cells = list(map(itemgetter(0), parts))
        rests = list(map(itemgetter(2), parts))  # a line without a comma: b"" (no record)
        del parts
        text = _text(cells)
        if text is None or '"' in text:  # a line break csv does not break at, or a quote:
            return None  # a quoted Territory (or one with a quote) is read row by row
        territory = text.split("\n")
        del cells
        if not all(map(str.strip, territory)):
            return None  # an empty line or a blank Territory: row by row
        distinct = dict.fromkeys(rests)
        ids = dict(zip(distinct, range(len(distinct))))
        row = np.fromiter(map(ids.__getitem__, rests), np.int64, len(rests))
        del rests
        keys = _text(distinct)
        if keys is None:
            return None
        records = _records(keys.split("\n"), len(names) - 1)
        if records is None:
            return None
        pos = {name: i for i, name in enumerate(names)}
        take = [pos.get(c) for c in LEGACY_COLUMNS]
        columns = columns_at_once([["-", *r] for r in records], len(names), take, shared=True)
    if columns is None:
        return None
    return DistinctRows(territory, row, columns)
