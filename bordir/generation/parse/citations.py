"""The citation parser: document numbers cited in a text, and removal of echoed prompt documents.

It stands alone (it needs no query and no answer parsing), so the audit of
logged responses (:mod:`bordir.audit`) and the citation-format parser
(:mod:`~bordir.generation.parse.structured`) use the same rules.

Example:
    >>> extract_citations("because <doc1,3> and [2]")
    (1, 3, 2)
    >>> split_ids((0, 4, 1), n_docs=3)
    ((0, 1), 1)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from .._textnorm import light, unmark
from ..types import Document

__all__ = ["CITE", "REFERENCE_CITE", "extract_citations", "strip_prompt_echo", "split_ids"]

CITE = re.compile(
    r"""
      <\s*docs?\s*(?P<tag>\d+(?:\s*,\s*\d+)*)\s*/?>                    # <doc3> <doc1,3> <doc 3>
    | <\s*co\s*:\s*(?P<co>\d+(?:\s*,\s*\d+)*)\s*>                      # Command-R <co: 1,2>
    | (?P<br>(?:\[\s*\d{1,3}(?:\s*,\s*\d{1,3})*\s*\])+)                # [1][3]  [1, 3]
    | (?<![</])\b(?:documents?|docs?)\.?[ \t]*\#?[ \t]*(?P<word>\d+(?:[ \t]*(?:,|and|&)[ \t]*\#?\d+)*)\b   # Document 2
    """,
    re.I | re.X,
)
"""Every citation syntax the strict policy accepts."""

REFERENCE_CITE = re.compile(r"<doc(\d+(?:,\d+)*)>")
"""The only citation syntax of the BordIRLines reference (``<doc3>``, ``<doc1,3>``)."""


def extract_citations(text: str) -> tuple[int, ...]:
    """Document numbers cited in ``text``, in order, with repeats (range not checked).

    Accepted: ``<doc3>``, ``<doc1,3>``, ``<doc 3>``, ``<co: 1,2>``, ``[1][3]``,
    ``[1, 3]`` (numbers of at most 3 digits, so ``[2014]`` is not a citation),
    ``Document 2``, ``Doc 2``, ``Documents 1 and 3``. Closing tags and
    ``Document: 2`` headers (the prompt's layout) are not citations.

    Examples:
        >>> extract_citations("because <doc1,3> and [2][0]; see Document 4 and doc 1 </doc1>")
        (1, 3, 2, 0, 4, 1)
    """
    out: list[int] = []
    for m in CITE.finditer(unmark(text)):
        group = next(
            g for g in (m.group("tag"), m.group("co"), m.group("br"), m.group("word")) if g
        )
        out.extend(int(x) for x in re.findall(r"\d+", group))
    return tuple(out)


def strip_prompt_echo(text: str, documents: Sequence[Document], *, min_chars: int = 12) -> str:
    """Remove verbatim copies of the prompt's documents from a model response.

    A document may itself contain citation-like strings (``<doc9>``); when the
    model copies it into its answer those must not count as citations. Every
    verbatim (and NFKC-equivalent) occurrence of a document text of at least
    ``min_chars`` characters is replaced by a newline, longest texts first.
    Shorter texts are kept, since they could be a legitimate part of an answer.
    Partial quotes are not removed.

    >>> d = Document(0, "x", "en", "Crimea is a peninsula <doc9> in the Black Sea.")
    >>> strip_prompt_echo("As stated: Crimea is a peninsula <doc9> in the Black Sea. <doc0>", [d])
    'As stated: \\n <doc0>'
    """
    texts = sorted(
        {d.text.strip() for d in documents if len(d.text.strip()) >= min_chars},
        key=len,
        reverse=True,
    )
    for t in texts:
        if t in text:
            text = text.replace(t, "\n")
    if texts:
        cleaned = light(text)
        changed = False
        for t in texts:
            lt = light(t)
            if lt in cleaned:
                cleaned = cleaned.replace(lt, "\n")
                changed = True
        if changed:
            text = cleaned
    return text


def split_ids(ids: Iterable[int], n_docs: int) -> tuple[tuple[int, ...], int]:
    """(the ids in ``0..n_docs-1``, in order; how many were out of range)."""
    kept, dropped = [], 0
    for i in ids:
        if 0 <= i < n_docs:
            kept.append(i)
        else:
            dropped += 1
    return tuple(kept), dropped
