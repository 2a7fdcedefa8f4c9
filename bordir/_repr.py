"""The ``repr`` of a settings dataclass that names only the fields set away from their defaults.

Example:
    >>> from dataclasses import dataclass
    >>> @dataclass
    ... class Opts:
    ...     a: int = 1
    ...     b: str = "x"
    >>> changed_fields_repr(Opts(b="y"))
    "Opts(b='y')"
    >>> changed_fields_repr(Opts())
    'Opts()'
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = ["changed_fields_repr"]


def changed_fields_repr(obj: DataclassInstance) -> str:
    """``Name(field=value, …)`` of dataclass ``obj``, naming the fields whose value differs from the default.

    A field without a plain default (none, or a ``default_factory``) is always named.
    """
    parts = [
        f"{f.name}={getattr(obj, f.name)!r}"
        for f in dataclasses.fields(obj)
        if getattr(obj, f.name) != f.default
    ]
    return f"{type(obj).__name__}({', '.join(parts)})"
