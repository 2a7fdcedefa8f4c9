"""Small output helpers shared by the subcommands (tables and JSON)."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Sequence
from typing import Any

import click


def _fallback(obj: Any) -> Any:
    """What ``json`` cannot encode: arrays and pandas values as lists / numbers, anything else as text."""
    from .._io.json_write import jsonable

    if hasattr(obj, "tolist"):  # numpy arrays and scalars, pandas series
        return jsonable(obj.tolist())
    if isinstance(obj, (set, frozenset)):
        return jsonable(sorted(obj, key=str))
    return str(obj)


def echo_json(obj: Any) -> None:
    """Print ``obj`` as strict JSON (through :func:`bordir._io.json_write.jsonable`: NaN and ±inf are ``null``).

    Example:
        >>> echo_json({"a": float("nan"), "b": [float("inf"), 1]})
        {
          "a": null,
          "b": [
            null,
            1
          ]
        }
    """
    from .._io.json_write import jsonable

    click.echo(
        json.dumps(jsonable(obj), ensure_ascii=False, indent=2, allow_nan=False, default=_fallback)
    )


def echo_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """Print a plain aligned text table (width in terminal columns: :func:`bordir._io.texttable.text_table`)."""
    from .._io.texttable import text_table

    for line in text_table(headers, rows):
        click.echo(line)


WIDTH = 100
"""The widest line a terminal summary prints (``bordir run``, ``demo``, ``report``, ``testbed``, ``audit``)."""


def split_line(text: str, *, width: int = WIDTH, sep: str = "|", indent: str = "  ") -> list[str]:
    """``text`` cut after ``sep`` into lines of at most ``width`` characters (a signature stays whole).

    Example:
        >>> split_line("signature: a|bb|ccc", width=14)
        ['signature: a|', '  bb|ccc']
    """
    if len(text) <= width:
        return [text]
    parts = text.split(sep)
    lines, cur = [], ""
    for i, part in enumerate(parts):
        piece = part + (sep if i < len(parts) - 1 else "")
        if cur and len(cur) + len(piece) > width:
            lines.append(cur)
            cur = indent + piece
        else:
            cur += piece
    lines.append(cur)
    out: list[str] = []
    for line in lines:  # a single piece longer than the width: wrap it at spaces
        if len(line) > width:
            out += textwrap.wrap(line, width=width, subsequent_indent=indent)
        else:
            out.append(line.rstrip())
    return out


def echo_lines(text: str, *, width: int = WIDTH, sep: str = "|") -> None:
    """Print ``text`` as :func:`split_line` cuts it."""
    for line in split_line(text, width=width, sep=sep):
        click.echo(line)
