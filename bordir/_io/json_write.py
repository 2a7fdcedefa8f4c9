"""Strict JSON for results: numpy scalars as numbers, NaN/inf as null, atomic writes.

Example:
    >>> import numpy as np
    >>> jsonable({"a": float("nan"), "b": (np.float64(0.5), np.int64(2))})
    {'a': None, 'b': [0.5, 2]}
"""

from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["jsonable", "write_json"]


def jsonable(obj: Any) -> Any:
    """``obj`` with numpy scalars as Python numbers, tuples as lists and NaN/inf as ``None``."""
    if isinstance(obj, Mapping):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        x = float(obj)
        return None if math.isnan(x) or math.isinf(x) else x
    if obj is None:
        return None
    pandas = sys.modules.get(
        "pandas"
    )  # pd.NA exists only once pandas is imported: not imported here
    if pandas is not None and obj is pandas.NA:
        return None
    return obj


def write_json(obj: Any, path: str | os.PathLike[str]) -> Path:
    """Write strict JSON (``allow_nan=False``) atomically."""
    path = Path(path)
    from .atomic import atomic_write_text

    return atomic_write_text(
        path, json.dumps(jsonable(obj), ensure_ascii=False, indent=2, allow_nan=False) + "\n"
    )
