"""The text of a user document (HTML, Markdown, PDF, plain text), paragraph by paragraph, in linear time.

* **HTML** (:func:`~bordir.testgen.htmlread.html_text`): one pass of a linear
  tokenizer; what a reader does not see is dropped (scripts, navigation, and
  every element hidden by markup or by the page's own CSS: where a page keeps
  text for machines, and where a prompt injection hides), block elements end
  paragraphs.
* **Markdown** (:func:`markdown_text`): the tokens of ``markdown-it-py``
  (CommonMark with tables), one walk: headings, paragraphs, list items, quotes
  and tables become text; code blocks and fences are dropped; inline HTML and
  HTML blocks are read as HTML, with the stylesheets of the document's HTML
  blocks (what they hide is dropped too). The
  inline content of a paragraph is parsed :data:`INLINE_PIECE` characters at a
  time, so a huge paragraph does not become tens of millions of tokens at once.
* **PDF** (:func:`pdf_pages`): the text of each page with ``pypdf`` in layout
  mode (the vertical gap between paragraphs is a blank line); pypdf's own
  warnings about a damaged file are not printed, the problem is one line
  naming the file.
* **Headings** (every reader): a heading goes on the first line of the paragraph
  it titles (:mod:`bordir.testgen.headings`), never a paragraph of its own.
* **Plain text** (:func:`plain_text`, every file type): a byte-order mark is
  removed (an encoding mark, not a character of the document); a NUL character
  is refused (no text file holds one), naming the file and the line.

Each reader takes time proportional to its input (``benchmarks/testgen_parsing.py``
measures it up to 50 MB): no regular expression that can scan to the end of the
text from each marker, no tree edited node by node.

Example:
    >>> markdown_text("# Title\\n\\nSome *emphasis* and `code`.\\n\\n```\\nfenced\\n```")
    'Title\\nSome emphasis and code.'
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from functools import lru_cache
from html import escape
from pathlib import Path
from typing import Any

from .._extras import require
from ..errors import DataError, refuse_nul
from .headings import join_blocks
from .htmlread import html_blocks, html_text, stylesheets
from .htmlstyle import Sheet
from .pdfvisible import drop_invisible_text

__all__ = ["markdown_text", "pdf_pages", "plain_text"]


@lru_cache(maxsize=1)
def _markdown() -> tuple[Any, Any]:
    """Two parsers: the blocks (inline content left unparsed), and the inline content."""
    mdit = require("markdown_it", "testgen", purpose="reading Markdown documents")
    blocks = mdit.MarkdownIt("commonmark").enable("table")
    blocks.core.ruler.disable("inline")
    return blocks, mdit.MarkdownIt("commonmark")


INLINE_PIECE = 65_536
"""Characters of a paragraph parsed for emphasis, links … at a time (bounds the memory of a huge
paragraph; an emphasis that spans two pieces keeps its markers)."""


def _pieces(text: str) -> Iterator[str]:
    """``text`` in pieces of about :data:`INLINE_PIECE` characters, cut at a line break or a space."""
    start = 0
    while len(text) - start > INLINE_PIECE:
        cut = text.rfind("\n", start, start + INLINE_PIECE)
        if cut <= start:
            cut = text.rfind(" ", start, start + INLINE_PIECE)
        if cut <= start:
            cut = start + INLINE_PIECE
        yield text[start:cut]
        start = cut
    yield text[start:]


def _inline_text(
    inline: Any, content: str, out: list[str], sheet: Sheet | None, env: dict[str, Any]
) -> None:
    for piece in _pieces(content):
        # the inline rules alone (what MarkdownIt.parseInline runs after normalising, which the
        # block parse did): no state built per paragraph, the document's link references known
        children: list[Any] = []
        inline.inline.parse(piece, inline, env, children)
        if any(c.type == "html_inline" for c in children):
            # inline HTML: what it hides (a hidden <span>, a style) is hidden here too
            out.append(html_text("".join(map(_as_html, children)), sheet=sheet))
            continue
        for child in children:
            if child.type in ("text", "text_special", "code_inline"):
                out.append(child.content)
            elif child.type in ("softbreak", "hardbreak"):
                out.append("\n")
            elif child.type == "image":
                out.append(child.content)  # its alt text


def _as_html(child: Any) -> str:
    """An inline token as HTML (text escaped), for a paragraph that holds inline HTML."""
    if child.type == "html_inline":
        return str(child.content)
    if child.type in ("text", "text_special", "code_inline", "image"):
        return escape(child.content, quote=False)
    return "\n" if child.type in ("softbreak", "hardbreak") else ""


# tokens that end a paragraph (opening or closing a block); the items of a list and the rows of
# a table stay together, as lines of one paragraph
_MD_BLOCKS = (
    "heading_",
    "paragraph_",
    "blockquote_",
    "bullet_list_",
    "ordered_list_",
    "table_",
    "hr",
)


def markdown_text(md: str) -> str:
    """Plain text of a Markdown document; a heading goes on the first line of the paragraph it titles (module docs).

    Example:
        >>> markdown_text("# Crimea\\nA **peninsula** in the [Black Sea](https://x).\\n\\n```\\ncode\\n```\\n\\n- one")
        'Crimea\\nA peninsula in the Black Sea.\\n\\none'
    """
    blocks: list[tuple[str, bool]] = []  # (text, is a heading)
    current: list[str] = []

    def end(heading: bool = False) -> None:
        if current:
            blocks.append(("".join(current), heading))
            current.clear()

    parser, inline = _markdown()
    env: dict[str, Any] = {}
    tokens = parser.parse(md, env)
    # the stylesheets of the HTML blocks apply to every HTML block and inline HTML of the document
    sheet = stylesheets(*(t.content for t in tokens if t.type == "html_block"))
    for tok in tokens:
        kind = tok.type
        if kind == "inline":
            _inline_text(inline, tok.content, current, sheet, env)
            current.append(" ")
        elif kind == "html_block":
            end()
            blocks += html_blocks(tok.content, sheet=sheet)
        elif kind in ("fence", "code_block"):
            end()
        elif kind == "heading_close":
            end(heading=True)
        elif kind.startswith(_MD_BLOCKS) and not (kind.startswith("paragraph_") and tok.hidden):
            end()
    end()
    return join_blocks(blocks)


def pdf_pages(path: Path) -> list[str]:
    """The text of each page of a PDF, paragraphs separated by a blank line.

    Raises:
        DataError: the file is not a readable PDF (pypdf's own warnings are not printed).
    """
    import logging

    pypdf = require("pypdf", "testgen", purpose="reading PDF documents")
    log = logging.getLogger("pypdf")
    level, log_propagate = log.level, log.propagate
    log.setLevel(logging.CRITICAL)  # pypdf logs what it repairs: bordir says it once, or not
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reader = pypdf.PdfReader(str(path))
            pages = []
            for page in reader.pages:
                drop_invisible_text(page, reader)  # what no reader sees is no chunk text
                # layout mode keeps vertical gaps as blank lines: paragraph breaks survive
                pages.append(page.extract_text(extraction_mode="layout") or "")
    except Exception as exc:  # pypdf raises many types for broken files
        raise DataError(
            f"not a readable PDF ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})",
            path=path,
        ) from None
    finally:
        log.setLevel(level)
        log.propagate = log_propagate
    # a blank line ends a paragraph; the lines of a paragraph are joined
    out = []
    for text in pages:
        paras: list[str] = []
        current: list[str] = []
        for line in text.splitlines():
            line = line.strip()
            if not line:
                if current:
                    paras.append(" ".join(current))
                    current = []
                continue
            current.append(line)
        if current:
            paras.append(" ".join(current))
        out.append("\n\n".join(paras))
    return out


def plain_text(text: str, *, path: str | Path | None = None) -> str:
    r"""A text file's text without its byte-order mark; a NUL character is refused.

    A BOM is an encoding mark, not a character of the document; a NUL is no text at all (a
    binary file, or a broken one).

    Raises:
        DataError: ``text`` holds a NUL character (the error names the file and the line).

    >>> plain_text("\ufeffOne two")
    'One two'
    >>> plain_text("One\n\x00two", path="notes.txt")
    Traceback (most recent call last):
    ...
    bordir.errors.DataError: notes.txt:2: a NUL character: not a text file (a binary or broken file); convert it to UTF-8 text
    """
    refuse_nul(
        text,
        path,
        "a NUL character: not a text file (a binary or broken file); convert it to UTF-8 text",
    )
    return text.replace("\ufeff", "")
