"""Plain aligned text tables for a terminal, measured in display columns (CJK-aware).

A CJK character or a fullwidth form takes two columns of a terminal, a combining mark none;
``len()`` counts one for each, so tables holding Chinese territory names or Japanese queries
came out ragged. :func:`display_width` counts columns by ``unicodedata.east_asian_width`` and
combining classes; :func:`text_table` pads by it, :func:`clip` cuts by it.

Example:
    >>> for line in text_table(["territory", "lang"], [["釣魚臺列嶼", "zht"], ["Senkaku", "en"]]):
    ...     print(line)
    territory   lang
    ----------  ----
    釣魚臺列嶼  zht
    Senkaku     en
    >>> display_width("釣魚臺"), display_width("e\\u0301")
    (6, 1)
    >>> clip("釣魚臺列嶼", 5)
    '釣魚…'
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["display_width", "pad", "clip", "text_table"]


def _char_width(ch: str) -> int:
    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def display_width(text: str) -> int:
    """Terminal columns ``text`` takes (2 for wide and fullwidth characters, 0 for combining marks)."""
    if text.isascii():
        return len(text)
    return sum(_char_width(ch) for ch in text)


def pad(text: str, width: int, *, right: bool = False) -> str:
    """``text`` padded with spaces to ``width`` display columns (on the left when ``right``)."""
    fill = " " * max(0, width - display_width(text))
    return fill + text if right else text + fill


def clip(text: str, width: int) -> str:
    """``text`` cut to at most ``width`` display columns, with ``…`` where it was cut."""
    if display_width(text) <= width:
        return text
    out, used = [], 0
    for ch in text:
        w = _char_width(ch)
        if used + w > width - 1:
            break
        out.append(ch)
        used += w
    return "".join(out) + "…"


def text_table(
    headers: Sequence[str],
    rows: Iterable[Sequence[Any]],
    *,
    right: Sequence[int] = (),
) -> list[str]:
    """The lines of an aligned table: header, a rule of dashes, one line per row (trailing blanks cut).

    ``None`` prints as an empty cell; ``right`` names the columns aligned to the right.
    """
    cells = [[str(h) for h in headers]] + [["" if v is None else str(v) for v in r] for r in rows]
    widths = [max(display_width(r[i]) for r in cells) for i in range(len(headers))]
    lines = []
    for j, r in enumerate(cells):
        lines.append(
            "  ".join(
                pad(v, w, right=i in right) for i, (v, w) in enumerate(zip(r, widths))
            ).rstrip()
        )
        if j == 0:
            lines.append("  ".join("-" * w for w in widths))
    return lines
