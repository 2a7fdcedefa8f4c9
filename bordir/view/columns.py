"""Columns as the page embeds them: dictionary-coded strings, integers and rounded floats.

A string column is sent once per distinct value (``{"d": values, "c": codes}``,
code -1 for a missing value), so a run's repeated prompts, replies and
signatures cost their size once; numbers go as plain lists.

Example:
    >>> coded(["a", "b", "a", None])
    {'d': ['a', 'b'], 'c': [0, 1, 0, -1]}
    >>> numbers([1.23456, None], digits=3)
    {'n': [1.235, None]}
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["coded", "numbers", "codes_of"]


def codes_of(values: Iterable[Any]) -> tuple[np.ndarray, list[str]]:
    """``(codes, vocabulary)`` of ``values`` in order of first appearance (None / NaN → -1)."""
    vals = values if isinstance(values, (pd.Series, np.ndarray)) else list(values)
    codes, uniques = pd.factorize(pd.Series(vals, dtype=object), use_na_sentinel=True)
    return np.asarray(codes, dtype=np.int64), [str(u) for u in uniques]


def coded(values: Iterable[Any]) -> dict[str, list[Any]]:
    """A dictionary-coded string column (see the module docs)."""
    codes, vocab = codes_of(values)
    return {"d": vocab, "c": codes.tolist()}


def numbers(
    values: Sequence[Any] | np.ndarray, *, digits: int | None = None
) -> dict[str, list[Any]]:
    """A numeric column (None for missing values and non-finite floats, which the page shows as ``–``; floats rounded to ``digits``).

    >>> numbers([float("inf"), float("-inf"), float("nan"), 2])
    {'n': [None, None, None, 2]}
    """
    out: list[Any] = []
    for v in values.tolist() if isinstance(values, np.ndarray) else values:
        if v is None or (isinstance(v, float) and not math.isfinite(v)):
            out.append(None)
        elif isinstance(v, (bool, np.bool_)):
            out.append(int(v))
        elif digits is not None and isinstance(v, float):
            out.append(round(v, digits))
        else:
            out.append(v)
    return {"n": out}
