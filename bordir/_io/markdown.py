"""Text bordir did not write, made inert in the Markdown files it writes (tables, ``audit.md``).

A Markdown file is a page once a renderer opens it: CommonMark passes raw HTML through
(``<img src=x onerror=…>``, ``<script>``, a ``<!--`` that hides the rest of the table), turns
``[text](javascript:…)`` into a link and ``![x](https://…)`` into an image fetched from
anywhere, and a ``|`` or a line break in a table cell moves every cell after it. A model name, a
territory, a language code or a log's file name may hold any of these. :func:`md_text` escapes
a value for a table cell or a line of text; :func:`md_code` shows it as a code span, whatever
backticks it holds. The text a reader sees is the value itself.

Example:
    >>> print(md_text('x<img src=x onerror=alert(1)> [a](javascript:b) | c\\nd [0.5, 1.5]'))
    x&lt;img src=x onerror=alert(1)&gt; [a\\](javascript:b) \\| c d [0.5, 1.5]
    >>> print(md_code("a`b"), md_code("`x"), md_code("plain"))
    ``a`b`` `` `x `` `plain`
"""

from __future__ import annotations

import re

__all__ = ["md_code", "md_text"]

_SPECIAL = str.maketrans(
    {
        "\\": "\\\\",
        "&": "&amp;",
        "<": "&lt;",
        ">": "&gt;",
        "|": "\\|",
        "\r": " ",
        "\n": " ",
    }
)
_INLINE_LINK = re.compile(
    r"\](?=\()"
)  # [text](url) and ![alt](url): the only links a value can make
_BACKTICKS = re.compile(r"`+")


def md_text(value: object) -> str:
    """``value`` as inert Markdown text: no HTML, link, image, cell break or line break.

    Intervals (``[0.5, 1.5]``), emphasis and code spans stay as they are: they are not markup
    that runs or fetches anything, and a value cannot define a reference link (a definition
    starts a line; a table row starts with ``|``).
    """
    return _INLINE_LINK.sub("\\\\]", str(value).translate(_SPECIAL))


def md_code(value: object) -> str:
    """``value`` as a Markdown code span: fenced by more backticks than it holds in a row, on one line.

    Inside a code span nothing is markup (no HTML, no link) and nothing is unescaped, so the
    value goes in as it is, its line breaks as spaces (a blank line would end the span).
    """
    text = " ".join(str(value).splitlines())
    runs = _BACKTICKS.findall(text)
    fence = "`" * (max(map(len, runs), default=0) + 1)
    pad = " " if text.startswith(("`", " ")) or text.endswith(("`", " ")) else ""
    return f"{fence}{pad}{text}{pad}{fence}"
