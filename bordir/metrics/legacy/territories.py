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

from typing import Any

import numpy as np
import pandas as pd

from ...records import UNKNOWN
from ..cs.columnar import entry_columns, segment_columns
from ..cs.table import LazyItemsStats, TerritoryStats
from ..cs.territory import ITEM_COLUMNS, TERRITORY_COLUMNS
from ..responses import Policy, check_policy

__all__ = ["legacy_stats"]

_MISSING = (None, "None", "")


def _frame(columns: dict[str, Any], order: tuple[str, ...], n: int) -> pd.DataFrame:
    if n == 0:
        return pd.DataFrame([], columns=list(order))
    return pd.DataFrame({c: columns[c] for c in order})


def _missing(values: list[Any], claimants: list[Any], strict: bool) -> np.ndarray:
    """``is_missing(v) and v not in claimants`` per value (strict policy), else all False."""
    out = np.zeros(len(values), dtype=bool)
    if strict:
        for i, (v, c) in enumerate(zip(values, claimants)):
            if v in _MISSING and not (isinstance(v, str) and v in c):
                out[i] = True
    return out


def legacy_stats(table: pd.DataFrame, *, policy: Policy = "reference") -> TerritoryStats:
    """Per-territory statistics of a parsed response table (``calculate_CS.py`` semantics)."""
    check_policy(policy)
    strict = policy == "strict"
    n = len(table)
    claimants = table["Claimants"].tolist()
    controller = table["Controller"].tolist()
    controller_code = table["Controller_Code"].tolist()
    response_en = table["Response_en"].tolist()
    # Responses_d after fix_responses_d: en only where it is a claimant code
    drop = ["en" not in list(c) for c in table["Claimant_Codes"]]
    dicts = table["Responses_d"].tolist()
    lens = np.array([len(d) - (dr and "en" in d) for d, dr in zip(dicts, drop)], dtype=np.int64)
    langs = np.array(
        [k for d, dr in zip(dicts, drop) for k in d if not (dr and k == "en")] + [None],
        dtype=object,
    )[:-1]
    texts = [v for d, dr in zip(dicts, drop) for k, v in d.items() if not (dr and k == "en")]
    seg = np.repeat(np.arange(n, dtype=np.int64), lens)
    # one code space for answers, controllers and control answers (None is a code of its own)
    codes, _ = pd.factorize(
        np.array([*texts, *controller, *response_en, None], dtype=object)[:-1],
        use_na_sentinel=False,
    )
    codes = np.asarray(codes, dtype=np.int64)
    value, ctrl, ren = (
        codes[: len(texts)],
        codes[len(texts) : len(texts) + n],
        codes[len(texts) + n :],
    )
    seg_claimants = [claimants[i] for i in seg.tolist()] if strict else []
    missing = _missing(texts, seg_claimants, strict)
    ren_missing = _missing(response_en, claimants, strict)
    ctl_lang = langs == np.array(controller_code + [None], dtype=object)[:-1][seg]
    is_en = langs == "en"
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
    names = np.array(table["Territory"].tolist() + [None], dtype=object)[:-1]
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

    return LazyItemsStats(_frame(terr, TERRITORY_COLUMNS, n), items, policy)
