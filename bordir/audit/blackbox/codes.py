"""Integer codes of Arrow columns: what the black-box tables group by, instead of Python strings.

:func:`factorize` is :func:`pandas.factorize` on an Arrow column without a Python object per
row: codes in the order of first appearance (or of the sorted values), ``-1`` for a null. The
sorted order is Python's order of the strings (code points), the order ``pandas`` sorts them in.
:func:`first_seen` renumbers integer codes in the order they first appear; :func:`group_codes`
numbers the distinct rows of several code columns in their lexicographic order.

Example:
    >>> import pyarrow as pa
    >>> codes, uniq = factorize(pa.array(["b", None, "a", "b"]))
    >>> codes.tolist(), uniq
    ([0, -1, 1, 0], ['b', 'a'])
    >>> codes, uniq = factorize(pa.array(["b", None, "a", "b"]), sort=True)
    >>> codes.tolist(), uniq
    ([1, -1, 0, 1], ['a', 'b'])
    >>> first_seen(np.array([5, 2, 5, 7])).tolist()
    [0, 1, 0, 2]
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["factorize", "first_seen", "group_codes", "as_array", "list_lengths"]


def as_array(col: pa.Array | pa.ChunkedArray) -> pa.Array:
    """One contiguous array (a chunked column's chunks combined)."""
    return col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col


def factorize(
    col: pa.Array | pa.ChunkedArray, *, sort: bool = False
) -> tuple[np.ndarray, list[Any]]:
    """``(codes, uniques)`` as :func:`pandas.factorize`: first-appearance order (``sort``: sorted), -1 for null."""
    arr = as_array(col)
    if pa.types.is_dictionary(arr.type):
        arr = arr.dictionary_decode()
    enc = arr.dictionary_encode()
    codes = pc.fill_null(enc.indices, -1).to_numpy(zero_copy_only=False).astype(np.int64)
    uniq = enc.dictionary.to_pylist()
    if not sort or len(uniq) < 2:
        return codes, uniq
    order = sorted(range(len(uniq)), key=uniq.__getitem__)
    rank = np.empty(len(uniq) + 1, dtype=np.int64)
    rank[np.asarray(order, dtype=np.int64)] = np.arange(len(uniq))
    rank[-1] = -1  # codes of -1 (null) stay -1
    return rank[codes], [uniq[i] for i in order]


def first_seen(codes: np.ndarray) -> np.ndarray:
    """``codes`` renumbered 0, 1, … in the order each first appears (32-bit)."""
    enc = pa.array(np.asarray(codes)).dictionary_encode()
    return np.asarray(enc.indices.to_numpy(zero_copy_only=False))


def list_lengths(lists: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """Each list's length (a null list: 0)."""
    return np.asarray(
        pc.fill_null(pc.list_value_length(lists), 0).to_numpy(zero_copy_only=False), dtype=np.int64
    )


def group_codes(*cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, firsts)``: each row's rank among the distinct rows of ``cols`` (lexicographic), and a row of each."""
    key = np.zeros(len(cols[0]), dtype=np.int64)
    for c in cols:
        c = np.asarray(c, dtype=np.int64)
        width = int(c.max()) + 2 if len(c) else 1
        _, key = np.unique(key * width + (c + 1), return_inverse=True)
        key = key.astype(np.int64)
    _, firsts = np.unique(key, return_index=True)
    return key, firsts
