"""Per-territory statistics of a parsed BorderLines response table, vectorised.

One Python pass flattens the table's ``Responses_d`` dicts into entry arrays
(after :func:`~bordir.metrics.cs.territory.fix_responses_d`: ``en`` only when it
is a claimant code) with integer codes for the answer strings (``None`` is a
code of its own, as it compares equal only to itself); the statistics are then
the numpy group-bys of :mod:`bordir.metrics.cs.columnar`. The values are those of
:func:`~bordir.metrics.cs.territory.territory_stats` row by row (a differential
test holds them equal).

Example:
    >>> import pandas as pd
    >>> t = pd.DataFrame({"Territory": ["X"], "Claimants": [["A", "B"]], "Claimant_Codes": [["a", "b"]],
    ...     "Controller": ["A"], "Controller_Code": ["a"], "Responses_d": [{"a": "A", "b": "B", "en": "A"}],
    ...     "Response_en": ["A"]})
    >>> s = legacy_stats(t)
    >>> s.table[["n_claimant", "kb_num", "control_num", "nc_n", "cst_pairs"]].to_dict("records")
    [{'n_claimant': 2, 'kb_num': 1.0, 'control_num': 1.0, 'nc_n': 1, 'cst_pairs': 1}]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ...records import UNKNOWN
from ..cs.columnar import entry_columns, segment_columns
from ..cs.table import ColumnStats, TerritoryStats
from ..cs.territory import ITEM_COLUMNS, TERRITORY_COLUMNS
from ..responses import Policy, check_policy

if TYPE_CHECKING:
    import pandas as pd

    from .distinct_rows import DistinctRows

__all__ = ["legacy_stats", "distinct_stats"]

_MISSING = (None, "None", "")


def _frame(columns: dict[str, Any], order: tuple[str, ...], n: int) -> pd.DataFrame:
    import pandas as pd

    if n == 0:
        return pd.DataFrame([], columns=list(order))
    return pd.DataFrame({c: columns[c] for c in order})


def _column(table: pd.DataFrame | Mapping[str, list[Any]], name: str) -> list[Any]:
    values = table[name]
    return values if isinstance(values, list) else values.tolist()


def _factorize(values: list[Any]) -> np.ndarray:
    """One integer per distinct value (``None`` a value of its own), in order of appearance."""
    codes: dict[Any, int] = {}
    return np.fromiter(
        (codes.setdefault(v, len(codes)) for v in values), dtype=np.int64, count=len(values)
    )


def _missing(values: list[Any], claimants: list[Any], strict: bool) -> np.ndarray:
    """``is_missing(v) and v not in claimants`` per value (strict policy), else all False."""
    out = np.zeros(len(values), dtype=bool)
    if strict:
        for i, (v, c) in enumerate(zip(values, claimants)):
            if v in _MISSING and not (isinstance(v, str) and v in c):
                out[i] = True
    return out


def _no_en(codes: list[Any]) -> list[bool]:
    """``"en" not in c`` per row, once per distinct list object (the scorer's reader shares them)."""
    ids = list(map(id, codes))
    flag = {i: "en" not in list(c) for i, c in dict(zip(ids, codes)).items()}
    return list(map(flag.__getitem__, ids))


def _objects(values: list[Any]) -> np.ndarray:
    """``values`` as a 1-d object array (even when they are tuples)."""
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _entries_row_by_row(
    dicts: Any, drop: Any, controller: Any, controller_code: Any, response_en: Any
) -> tuple[Any, ...]:
    """The answer entries of every row (``en`` dropped where it is no claimant code), one by one."""
    n = len(dicts)
    lens = np.array([len(d) - (dr and "en" in d) for d, dr in zip(dicts, drop)], dtype=np.int64)
    langs = _objects([k for d, dr in zip(dicts, drop) for k in d if not (dr and k == "en")])
    texts = [v for d, dr in zip(dicts, drop) for k, v in d.items() if not (dr and k == "en")]
    seg = np.repeat(np.arange(n, dtype=np.int64), lens)
    # one code space for answers, controllers and control answers (None is a code of its own)
    codes = _factorize([*texts, *controller, *response_en])
    value = codes[: len(texts)]
    ctrl = codes[len(texts) : len(texts) + n]
    ren = codes[len(texts) + n :]
    ctl_lang = langs == _objects(controller_code)[seg]
    is_en = langs == "en"
    return seg, langs, texts, value, ctrl, ren, ctl_lang, is_en


def _entries_by_group(
    dicts: Any, drop: Any, controller: Any, controller_code: Any, response_en: Any
) -> tuple[Any, ...]:
    """:func:`_entries_row_by_row`, with each distinct (Responses_d object, drop) flattened once.

    The entries of the rows are gathered from their group's with numpy; the codes are equal where
    the values are equal, as in the row-by-row version (only equality of codes is ever used).
    """
    n = len(dicts)
    # one integer key per (object, drop): no tuple per row (100,000 tuples wake the cyclic GC)
    keys = np.fromiter(map(id, dicts), np.uint64, n) * np.uint64(2) + np.asarray(drop, np.uint64)
    _, first, row_group = np.unique(keys, return_index=True, return_inverse=True)
    row_group = row_group.reshape(-1).astype(np.int64)
    groups = [
        [(k, v) for k, v in dicts[i].items() if not (drop[i] and k == "en")] for i in first.tolist()
    ]
    g_len = np.array([len(g) for g in groups], dtype=np.int64)
    g_start = np.cumsum(g_len) - g_len
    lens = g_len[row_group]
    seg = np.repeat(np.arange(n, dtype=np.int64), lens)
    row_start = np.cumsum(lens) - lens
    flat = g_start[row_group][seg] + (np.arange(len(seg), dtype=np.int64) - row_start[seg])
    g_langs = [k for g in groups for k, _ in g]
    g_texts = [v for g in groups for _, v in g]
    codes: dict[Any, int] = {}
    for v in (*g_texts, *dict.fromkeys(controller), *dict.fromkeys(response_en)):
        codes.setdefault(v, len(codes))
    g_value = np.fromiter(map(codes.__getitem__, g_texts), np.int64, len(g_texts))
    ctrl = np.fromiter(map(codes.__getitem__, controller), np.int64, n)
    ren = np.fromiter(map(codes.__getitem__, response_en), np.int64, n)
    lang_codes: dict[Any, int] = {}
    for k in g_langs:
        lang_codes.setdefault(k, len(lang_codes))
    g_lang = np.fromiter(map(lang_codes.__getitem__, g_langs), np.int64, len(g_langs))
    entry_lang = g_lang[flat]
    ctl_of = {c: lang_codes.get(c, -1) for c in dict.fromkeys(controller_code)}
    ctl_code = np.fromiter(map(ctl_of.__getitem__, controller_code), np.int64, n)
    ctl_lang = entry_lang == ctl_code[seg]
    is_en = entry_lang == lang_codes.get("en", -2)
    langs = _objects(g_langs)[flat]
    texts = _objects(g_texts)[flat].tolist()
    return seg, langs, texts, g_value[flat], ctrl, ren, ctl_lang, is_en


def legacy_stats(
    table: pd.DataFrame | Mapping[str, list[Any]], *, policy: Policy = "reference"
) -> TerritoryStats:
    """Per-territory statistics of a parsed response table (``calculate_CS.py`` semantics).

    ``table`` is the DataFrame :func:`~bordir.metrics.legacy.response_table.read_response_table`
    returns, or its columns as lists (what the scorer reads, without pandas).
    """
    check_policy(policy)
    strict = policy == "strict"
    controller = _column(table, "Controller")
    n = len(controller)
    claimants = _column(table, "Claimants")
    controller_code = _column(table, "Controller_Code")
    response_en = _column(table, "Response_en")
    # Responses_d after fix_responses_d: en only where it is a claimant code
    drop = _no_en(_column(table, "Claimant_Codes"))
    dicts = _column(table, "Responses_d")
    if strict:
        seg, langs, texts, value, ctrl, ren, ctl_lang, is_en = _entries_row_by_row(
            dicts, drop, controller, controller_code, response_en
        )
    else:  # rows sharing a Responses_d (the scorer's reader shares equal ones): flattened once
        seg, langs, texts, value, ctrl, ren, ctl_lang, is_en = _entries_by_group(
            dicts, drop, controller, controller_code, response_en
        )
    seg_claimants = [claimants[i] for i in seg.tolist()] if strict else []
    missing = _missing(texts, seg_claimants, strict)
    ren_missing = _missing(response_en, claimants, strict)
    known = np.array([c != UNKNOWN for c in controller], dtype=bool)
    cols = segment_columns(
        n_segments=n,
        seg=seg,
        value=value,
        missing=missing,
        controller_lang=ctl_lang,
        is_en=is_en,
        known=known,
        controller=ctrl,
        response_en=ren,
        response_en_missing=ren_missing,
    )
    names = np.array(_column(table, "Territory") + [None], dtype=object)[:-1]
    terr = {
        "territory": names,
        "controller": np.array(controller + [None], dtype=object)[:-1],
        "controller_code": np.array(controller_code + [None], dtype=object)[:-1],
        "controller_known": known,
        "n_queries": cols["n_claimant"] + (np.bincount(seg[is_en], minlength=n) == 0),
        **cols,
    }

    def items() -> pd.DataFrame:
        cols = {
            "territory": names[seg],
            "query_lang": langs,
            **entry_columns(
                seg=seg,
                value=value,
                missing=missing,
                controller_lang=ctl_lang,
                known=known,
                controller=ctrl,
                text=np.array(texts + [None], dtype=object)[:-1],
            ),
        }
        return _frame(cols, ITEM_COLUMNS, len(seg))

    return ColumnStats(terr, TERRITORY_COLUMNS, n, items, policy)


def distinct_stats(rows: DistinctRows, *, policy: Policy = "reference") -> TerritoryStats:
    """:func:`legacy_stats` of a table read as distinct rows: each distinct row scored once.

    A territory's statistics depend on its row's cells only, so the columns are the
    distinct rows' gathered row by row (the same values, summed in the same order); the
    per-answer items are those of the expanded table, built when asked for.
    """
    base = legacy_stats(rows.columns, policy=policy)
    n = len(rows.territory)
    cols = {c: base.column(c)[rows.row] for c in TERRITORY_COLUMNS}
    cols["territory"] = np.array(rows.territory + [None], dtype=object)[:-1]

    def items() -> pd.DataFrame:
        return legacy_stats(rows.expand(), policy=policy).items

    return ColumnStats(cols, TERRITORY_COLUMNS, n, items, policy)
