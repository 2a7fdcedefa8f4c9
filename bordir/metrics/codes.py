"""A responses table's key columns as integer codes, computed once per table (:class:`ResponseCodes`).

Validation (:func:`bordir.metrics.responses.checked_responses`) and scoring
(:mod:`bordir.metrics.cs.tables`) share them, so each key column of a million rows is hashed once:
a categorical column of strings is coded from its categories, small run numbers from a presence
array.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "KEY_COLUMNS",
    "ResponseCodes",
    "response_codes",
    "is_str_categorical",
    "categorical_codes",
]

KEY_COLUMNS: tuple[str, ...] = ("model", "mode", "run", "territory", "query_lang", "outcome")
"""The columns :class:`ResponseCodes` codes: a response's key, and its outcome."""


@dataclass(frozen=True)
class ResponseCodes:
    """Integer codes of a responses table's :data:`KEY_COLUMNS`, computed once per table.

    ``codes[c][i]`` is row ``i``'s position in ``uniques[c]``, the distinct values
    of column ``c`` in sorted order (Python's string / int order). Validation and
    scoring share them, so each key column is hashed once.

    Example:
        >>> import pandas as pd
        >>> df = pd.DataFrame({"model": ["m", "m"], "mode": ["qlang", "no_ir"], "run": [1, 0],
        ...     "territory": ["T", "T"], "query_lang": ["fr", "en"], "outcome": ["answered"] * 2})
        >>> rc = response_codes(df)
        >>> rc.codes["mode"].tolist(), rc.uniques["mode"].tolist()
        ([1, 0], ['no_ir', 'qlang'])
    """

    codes: dict[str, np.ndarray]
    uniques: dict[str, np.ndarray]

    def flags(self, column: str, values: Sequence[Any]) -> np.ndarray:
        """Per row, whether column ``column`` holds one of ``values``."""
        u = self.uniques[column]
        hit = np.array([v in values for v in u.tolist()], dtype=bool)
        return cast("np.ndarray", hit[self.codes[column]]) if len(u) else np.zeros(0, dtype=bool)

    def duplicated(self, columns: Sequence[str]) -> np.ndarray | None:
        """Rows whose ``columns`` repeat an earlier row's, or None when no row does.

        One int64 key per row; when the key space is small, a presence array says
        whether any key repeats (no hashing), and the repeats are located only then.
        """
        import pandas as pd

        codes = [self.codes[c] for c in columns]
        sizes = [max(len(self.uniques[c]), 1) for c in columns]
        if float(np.prod(np.array(sizes, dtype=float))) >= 2.0**62:
            frame = pd.DataFrame({str(i): k for i, k in enumerate(codes)})
            dup = cast("np.ndarray", frame.duplicated(keep="first").to_numpy())
            return dup if dup.any() else None
        flat = np.ravel_multi_index(codes, sizes)
        space = int(np.prod(sizes))
        if space <= max(1 << 25, 8 * len(flat)):
            seen = np.zeros(space, dtype=bool)
            seen[flat] = True
            if int(np.count_nonzero(seen)) == len(flat):
                return None
        dup = cast("np.ndarray", pd.Series(flat).duplicated(keep="first").to_numpy())
        return dup if dup.any() else None


def is_str_categorical(col: pd.Series) -> bool:
    """Whether ``col`` is a pandas categorical of strings with no missing value.

    Such a column is kept as it is, not converted to strings: :func:`response_codes` reads its codes.
    """
    import pandas as pd

    if not isinstance(col.dtype, pd.CategoricalDtype):
        return False
    cats = col.cat.categories
    return bool(
        (cats.dtype == object or pd.api.types.is_string_dtype(cats.dtype))
        and all(isinstance(v, str) for v in cats.tolist())
        and not (col.cat.codes.to_numpy() < 0).any()
    )


def categorical_codes(col: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """``pd.factorize(col, sort=True)`` of a categorical of strings, from its codes.

    The categories no row holds are left out, the rest sorted (Python's string order) and the codes
    renumbered.
    """
    cats = np.asarray(col.cat.categories, dtype=object)
    k = col.cat.codes.to_numpy()
    used = np.flatnonzero(np.bincount(k, minlength=len(cats)))
    values = cats[used]
    order = np.argsort(values, kind="stable")
    # int32 codes (half the memory of int64 on a million rows; fewer than 2**31 distinct values)
    remap = np.full(len(cats), -1, dtype=np.int32)
    remap[used[order]] = np.arange(len(used), dtype=np.int32)
    return np.take(remap, k), values[order]  # take: twice as fast as remap[k] on int8 codes


def _small_int_codes(col: pd.Series) -> tuple[np.ndarray, np.ndarray] | None:
    """``pd.factorize(col, sort=True)`` of an integer column of small non-negative values; else None.

    The distinct values are the nonzero places of a presence array (no hashing of a million
    values); each value's code is its rank among them.
    """
    import pandas as pd

    if not pd.api.types.is_integer_dtype(col.dtype) or pd.api.types.is_extension_array_dtype(
        col.dtype
    ):
        return None
    v = col.to_numpy()
    if len(v) == 0:
        return None
    lo, hi = int(v.min()), int(v.max())
    if lo < 0 or hi >= 1 << 22:
        return None
    present = np.zeros(hi + 1, dtype=bool)
    present[v] = True
    rank = np.cumsum(present, dtype=np.int64) - 1
    return np.take(rank, v), np.flatnonzero(present).astype(np.int64)


def response_codes(
    df: pd.DataFrame, *, categorical: Collection[str] | None = None
) -> ResponseCodes:
    """The :class:`ResponseCodes` of ``df``'s :data:`KEY_COLUMNS` (strings, ``run`` as int).

    A categorical column of strings (as :func:`~bordir.metrics.read.read_responses` reads them) is coded from its
    categories, without converting a million cells to strings; ``categorical`` names those columns
    when the caller has checked them already (:func:`is_str_categorical`). Small non-negative
    run numbers are coded without hashing (a presence array).
    """
    import pandas as pd

    codes, uniques = {}, {}
    for c in KEY_COLUMNS:
        if c != "run" and (
            c in categorical if categorical is not None else is_str_categorical(df[c])
        ):
            codes[c], uniques[c] = categorical_codes(df[c])
            continue
        if c == "run":
            dense = _small_int_codes(df[c])
            if dense is not None:
                codes[c], uniques[c] = dense
                continue
        col = df[c].astype(np.int64) if c == "run" else df[c].astype(str)
        k, u = pd.factorize(col, sort=True)
        codes[c] = np.asarray(k, dtype=np.int64)
        uniques[c] = np.asarray(u, dtype=np.int64 if c == "run" else object)
    return ResponseCodes(codes, uniques)
