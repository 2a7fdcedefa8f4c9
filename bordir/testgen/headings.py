"""Headings merged into the paragraph they title: no chunk is a heading alone.

A heading (``## Practical arrangements``, ``<h2>``, a short unpunctuated line
of a PDF) is not a passage: as a chunk of its own it gave template questions
such as "What does the text say about Practical and arrangements?". Every
reader marks its headings, and :func:`join_blocks` puts each heading on the
first line of the paragraph that follows it, separated by a line break
(``"Practical arrangements\\nThe meeting starts at nine."``); consecutive
headings (a section and its subsection) all go on lines of their own before
that paragraph. A heading that titles no paragraph (at the end of a document)
is dropped, unless the document has nothing else.

Inside a chunk, a line break therefore only ever follows a heading: the chunk's
sentences (:func:`bordir.testgen.chunks.sentences`) end at it, and the template
generator makes no question from a heading line (:func:`body_sentences`).

Where the format does not mark headings (PDF, plain text, a corpus's passages),
:func:`looks_like_heading` tells one: a paragraph of at most 12 words (40
characters in scripts without spaces) that does not end like a sentence (``.``
``!`` ``?`` ``:`` ``;`` ``,`` ``…`` and their CJK, Arabic and Devanagari forms),
followed by a longer paragraph.

Example:
    >>> join_blocks([("Practical arrangements", True), ("The meeting starts at nine.", False)])
    'Practical arrangements\\nThe meeting starts at nine.'
    >>> body_sentences("Travel\\nPractical arrangements\\nThe meeting starts. It ends at ten.")
    ['The meeting starts.', 'It ends at ten.']
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["join_blocks", "looks_like_heading", "mark_headings", "body_sentences"]

_END = tuple(".!?:;,…。！？：；，、؟۔।॥։")
_SPACED = re.compile(r"\s+")
_PARAGRAPH = re.compile(r"\n[^\S\n]*\n")


def _collapse(text: str) -> str:
    return " ".join(text.split())


def join_blocks(blocks: Sequence[tuple[str, bool]]) -> str:
    """``(text, is_heading)`` blocks as paragraphs separated by blank lines, headings merged (module docs).

    A block's text is split at blank lines and its whitespace collapsed; empty ones are dropped.
    """
    out: list[str] = []
    pending: list[str] = []
    for text, heading in blocks:
        parts = [p for p in map(_collapse, _PARAGRAPH.split(text)) if p]
        if heading:
            pending += parts
            continue
        for para in parts:
            if pending:
                para = "\n".join([*pending, para])
                pending = []
            out.append(para)
    if pending and not out:  # a document of headings only keeps them
        out = pending
    return "\n\n".join(out)


def looks_like_heading(text: str, following: str | None) -> bool:
    """True for a short paragraph that does not end like a sentence and titles a longer one.

    >>> looks_like_heading("2.1 Practical arrangements", "The meeting starts at nine and ends at ten.")
    True
    >>> looks_like_heading("The meeting starts at nine.", "It ends at ten, after the vote.")
    False
    >>> looks_like_heading("Practical arrangements", None)
    False
    """
    text = text.strip()
    if not text or following is None or not following.strip():
        return False
    if text.endswith(_END) or "\n" in text:
        return False
    words = text.split()
    spaced = len(words) > 1 or len(text) <= 12
    if (spaced and len(words) > 12) or (not spaced and len(text) > 40):
        return False
    return len(following.strip()) > len(text)


def mark_headings(paragraphs: Sequence[str]) -> list[tuple[str, bool]]:
    """``paragraphs`` with :func:`looks_like_heading` of each (for formats that do not mark headings)."""
    return [
        (p, looks_like_heading(p, paragraphs[i + 1] if i + 1 < len(paragraphs) else None))
        for i, p in enumerate(paragraphs)
    ]


def body_sentences(text: str) -> list[str]:
    """The sentences of a chunk that are not heading lines.

    Every line but the last ends in a heading: the part of it after its last sentence end
    (in a chunk cut by tokens, a line may hold the end of one paragraph, then the heading of the
    next). No heading line, no sentence of it.
    """
    from .chunks import sentences

    lines = [line for line in text.split("\n") if line.strip()]
    out: list[str] = []
    for i, line in enumerate(lines):
        sents = sentences(line)
        if i < len(lines) - 1 and sents and not sents[-1].endswith(_END):
            sents = sents[:-1]
        out += sents
    return out
