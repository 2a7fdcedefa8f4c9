"""The one TOML parser call of bordir: every failure to read a TOML text is a :class:`tomllib.TOMLDecodeError`.

``tomllib`` itself raises :class:`RecursionError` for arrays or tables nested deeper than Python's
recursion limit and a plain :class:`ValueError` for an integer of more than 4,300 digits (Python's
limit on converting a string to an integer); here both are a ``TOMLDecodeError`` whose message
says what is wrong, so the readers of experiment configs, suites and price files report them as
they report a syntax error: one line with the file, never an internal error.

Example:
    >>> loads("k = 2")
    {'k': 2}
    >>> for text in ("k = " + "1" * 5000, "k = " + "[" * 100_000):
    ...     try:
    ...         loads(text)
    ...     except tomllib.TOMLDecodeError as exc:
    ...         print(exc)
    a number with more than 4300 digits
    nested too deeply
"""

from __future__ import annotations

import sys
import tomllib
from typing import Any

__all__ = ["loads"]


def loads(text: str) -> dict[str, Any]:
    """``tomllib.loads(text)``, with every failure to parse it a :class:`tomllib.TOMLDecodeError`."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        raise
    except RecursionError:  # tomllib recurses once per level of nesting
        raise tomllib.TOMLDecodeError("nested too deeply") from None
    except ValueError as exc:  # int(): more digits than sys.get_int_max_str_digits()
        if "digits" not in str(exc):
            raise
        limit = sys.get_int_max_str_digits()
        raise tomllib.TOMLDecodeError(f"a number with more than {limit} digits") from None
