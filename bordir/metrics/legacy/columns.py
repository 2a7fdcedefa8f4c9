"""The columns of a BorderLines response table, and all of a sound table's cells parsed at once.

:func:`columns_at_once` parses each distinct cell once; a table it cannot take whole (a short
row, an empty required cell, a ``Responses_d`` that is not a dict) is read row by row by
:mod:`~bordir.metrics.legacy.response_table` for the exact error.

Example:
    >>> split_cell("Ukraine;Russia"), split_cell("")
    (['Ukraine', 'Russia'], [])
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from operator import itemgetter
from typing import Any

from .dict_literal import literal_dict, repr_dict

__all__ = ["LEGACY_COLUMNS", "REQUIRED_COLUMNS", "split_cell", "columns_at_once", "gc_paused"]


LEGACY_COLUMNS: tuple[str, ...] = (
    "Territory",
    "Claimants",
    "Claimant_Codes",
    "Controller",
    "Controller_Code",
    "Responses_d",
    "Response_en",
    "Response_Controller",
)
REQUIRED_COLUMNS: tuple[str, ...] = LEGACY_COLUMNS[:-1]
"""The columns a table must have (``Response_Controller`` is optional: it is never used)."""


@contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic garbage collection while a table's rows are built or read (they hold no cycles).

    Appending 100,000 rows of lists and dicts would otherwise trigger a full
    collection scan again and again, about a fifth of the reading time.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def split_cell(value: str) -> list[str]:
    """A ``;``-separated cell as its pieces (an empty cell: none)."""
    return value.split(";") if value != "" else []


def columns_at_once(
    rows: list[list[str]], n: int, take: list[int | None], *, shared: bool
) -> dict[str, list[Any]] | None:
    """The columns of a table whose rows are all sound, parsed once per distinct cell; else None.

    None (the caller reads row by row, for the exact error) if a row is empty or has another
    number of fields, a required cell is empty, or a ``Responses_d`` is not the dict it must be.
    """
    if not rows or set(map(len, rows)) != {n}:
        return None
    cells: list[Any] = [
        [None] * len(rows) if i is None else list(map(itemgetter(i), rows)) for i in take
    ]
    territory, claimants, codes, controller, controller_code, texts, response_en, rc = cells
    for col in (territory, claimants, controller):
        if any(not v.strip() for v in set(col)):
            return None
    names: dict[str, str] = {}
    m = names.setdefault
    dicts: dict[str, dict[str, str | None]] = {}
    for text in set(texts):
        d = repr_dict(text)
        if d is None:
            try:
                d = literal_dict(text)
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                return None
            if not isinstance(d, dict) or not all(
                isinstance(k, str) and (v is None or isinstance(v, str)) for k, v in d.items()
            ):
                return None
        dicts[text] = {m(k, k): v if v is None else m(v, v) for k, v in d.items()}
    splits = {c: [m(x, x) for x in split_cell(c)] for c in {*claimants, *codes}}
    if shared:  # the cells as read (equal strings need not be one object to be scored)
        return {
            "Territory": territory,
            "Claimants": list(map(splits.__getitem__, claimants)),
            "Claimant_Codes": list(map(splits.__getitem__, codes)),
            "Controller": controller,
            "Controller_Code": controller_code,
            "Responses_d": list(map(dicts.__getitem__, texts)),
            "Response_en": response_en,
            "Response_Controller": rc,
        }
    # a fresh dict and fresh lists per row, and one string object per distinct name, as row by row
    responses = [dict(dicts[t]) for t in texts]
    claimant_lists = [list(splits[c]) for c in claimants]
    code_lists = [list(splits[c]) for c in codes]
    return {
        "Territory": list(territory),
        "Claimants": claimant_lists,
        "Claimant_Codes": code_lists,
        "Controller": [m(c, c) for c in controller],
        "Controller_Code": [m(c, c) for c in controller_code],
        "Responses_d": responses,
        "Response_en": [m(r, r) for r in response_en],
        "Response_Controller": [r if r is None else m(r, r) for r in rc],
    }
