"""Parse a ``Responses_d`` cell (a Python dict literal) fast, exactly as ``ast.literal_eval`` does.

BorderLines response tables store ``Responses_d`` as ``repr`` of a dict of
strings: ``{'es': 'Spain', 'ar': 'Morocco'}``. :func:`literal_dict` recognises
that exact shape with one regular expression (single-quoted strings without
backslashes or control characters, in single or (when they hold an
apostrophe, as ``repr`` writes them) double quotes, ``None`` values, ``": "`` and
``", "`` separators), where the literal's value is the text between the quotes.
Anything else (double quotes, escapes, other spacing, other types, bad syntax) goes
to :func:`ast.literal_eval`, so what is accepted, and the error raised otherwise,
is unchanged.

Example:
    >>> literal_dict("{'es': 'Spain', 'en': None}")
    {'es': 'Spain', 'en': None}
    >>> literal_dict('{"es": "Spain"}')  # not the repr shape: ast.literal_eval
    {'es': 'Spain'}
    >>> literal_dict("['x']")
    ['x']
"""

from __future__ import annotations

import ast
import re
from typing import Any

__all__ = ["literal_dict", "repr_dict"]

_SQ = r"'[^'\\\x00-\x1f\x7f]*'"
_DQ = r'"[^"\\\x00-\x1f\x7f]*"'
_STR = rf"(?:{_SQ}|{_DQ})"
_ITEM = rf"{_STR}: (?:{_STR}|None)"
_SHAPE = re.compile(rf"\{{(?:{_ITEM}(?:, {_ITEM})*)?\}}")
_CAP = r"""(?:'([^'\\\x00-\x1f\x7f]*)'|"([^"\\\x00-\x1f\x7f]*)")"""
_PAIR = re.compile(rf"{_CAP}: (?:{_CAP}|(None))")


def _single_quoted(text: str) -> dict[str, str | None] | None:
    """``{'k': 'v', …}`` with printable, quote- and backslash-free strings, by splitting; else ``None``."""
    if text == "{}":
        return {}
    if not (text.startswith("{'") and text.endswith("'}")) or len(text) < 4:
        return None
    if '"' in text or "\\" in text or not text.isprintable():
        return None
    out: dict[str, str | None] = {}
    for part in text[2:-2].split("', '"):
        kv = part.split("': '")
        if len(kv) != 2 or "'" in kv[0] or "'" in kv[1]:
            return None
        out[kv[0]] = kv[1]
    return out


def repr_dict(text: str) -> dict[str, str | None] | None:
    """The dict if ``text`` has the ``repr`` shape of a dict of strings (or ``None``), else ``None``.

    >>> repr_dict("{'es': 'Spain'}"), repr_dict("{'es': 1}")
    ({'es': 'Spain'}, None)
    """
    quick = _single_quoted(text)
    if quick is not None:
        return quick
    if _SHAPE.fullmatch(text) is None:
        return None
    return {k1 or k2: (None if none else v1 or v2) for k1, k2, v1, v2, none in _PAIR.findall(text)}


def literal_dict(text: str) -> Any:
    """``ast.literal_eval(text)``, without the parser for the common ``repr`` shape of a dict of strings.

    Raises:
        ValueError, SyntaxError, TypeError, MemoryError, RecursionError: as
        :func:`ast.literal_eval` raises them (it parses every other input).
    """
    d = repr_dict(text)
    return ast.literal_eval(text) if d is None else d
