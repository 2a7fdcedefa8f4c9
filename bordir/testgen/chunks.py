"""Chunks: the units a test suite is generated from, each with its provenance.

A :class:`Chunk` is a piece of one document in one language: its id (unique in
a suite), the document it comes from, the chunk's index in that document, the
source (a file path or a corpus spec) and, for PDFs, the page. RAG-Tester cuts
each document into chunks **by paragraph or by a maximum token count**;
:func:`split_text` does both: paragraphs are separated by blank lines (a line
break inside one follows a heading that titles it, :mod:`bordir.testgen.headings`;
the heading goes with every piece of its paragraph), and with
``max_tokens`` a paragraph longer than that is cut between sentences (a
sentence longer than ``max_tokens`` stays whole). Tokens are counted with the
language's analyzer (:mod:`bordir.retrieval.analysis`), so languages written
without spaces count bigrams, not whole lines.

Chunk tables are written and read as JSONL (:func:`write_chunks`,
:func:`read_chunks`); a bad line raises :class:`~bordir.errors.DataError`
naming the file, line and field.

Example:
    >>> split_text("First paragraph. It has two sentences.\\n\\nSecond one.", "en")
    ['First paragraph. It has two sentences.', 'Second one.']
    >>> split_text("One two three. Four five six. Seven.", "en", by="tokens", max_tokens=3)
    ['One two three.', 'Four five six.', 'Seven.']
    >>> sentences("Крым — полуостров. Он спорный! Да?")
    ['Крым — полуостров.', 'Он спорный!', 'Да?']
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

from .._io.json_read import iter_json_objects
from ..errors import ConfigError, DataError

__all__ = [
    "Chunk",
    "split_text",
    "sentences",
    "count_tokens",
    "make_chunks",
    "write_chunks",
    "read_chunks",
]

SplitBy = Literal["paragraph", "tokens"]

# sentence ends: Latin/Cyrillic/Greek/Armenian . ! ? ; CJK 。！？; Arabic/Urdu ؟ ۔; Devanagari । ॥; Armenian ։
_SENTENCE_END = re.compile(r"(?<=[.!?。！？؟۔।॥։])[\"'»”)\]]*\s+|(?<=[。！？])|\s*\n\s*")
_PARAGRAPH = re.compile(r"\n\s*\n")


@dataclass(frozen=True, slots=True)
class Chunk:
    """One chunk of one document, with provenance.

    Attributes:
        chunk_id: unique in a suite (``<doc>#<index>`` for files, the corpus ``lang:doc_id`` for corpora).
        doc: the document the chunk belongs to (negative questions of the cross-document
            method come from another ``doc``).
        lang: language code of the text (bordir's registry).
        text: the chunk's text.
        index: 0-based position of the chunk in its document.
        source: where the document came from (a file path, ``corpus:<spec>``, ``llm:<model>``).
        page: 1-based page of a PDF (None otherwise).
        title: the document's title, when known.
        meta: further provenance as sorted (key, value) pairs.
    """

    chunk_id: str
    doc: str
    lang: str
    text: str
    index: int = 0
    source: str = ""
    page: int | None = None
    title: str = ""
    meta: tuple[tuple[str, str], ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        """The chunk as a JSON object (the fields, ``meta`` as an object).

        >>> Chunk("a#0", "a", "en", "Text.").to_dict()["meta"]
        {}
        """
        d = {f.name: getattr(self, f.name) for f in _FIELDS}  # asdict() deep-copies: slow
        d["meta"] = dict(self.meta)
        return d


_FIELDS = fields(Chunk)


def sentences(text: str) -> list[str]:
    """Split ``text`` into sentences at sentence-final punctuation of the registry's scripts, and at line breaks.

    A line break inside a chunk follows a heading (:mod:`bordir.testgen.headings`).
    """
    parts = [s.strip() for s in _SENTENCE_END.split(text.strip())]
    return [s for s in parts if s]


def count_tokens(text: str, lang: str) -> int:
    """Tokens of ``text`` by the language's analyzer (words; bigrams for scripts without spaces)."""
    from ..retrieval.analysis import analyze

    return len(analyze(text, lang))


def split_text(
    text: str, lang: str, *, by: SplitBy = "paragraph", max_tokens: int | None = None
) -> list[str]:
    """Cut a document into chunk texts, by paragraph or by at most ``max_tokens`` tokens.

    Args:
        text: the document's text (paragraphs separated by blank lines).
        lang: its language (for token counting).
        by: ``paragraph`` (one chunk per paragraph; with ``max_tokens`` long paragraphs are
            cut further) or ``tokens`` (sentences packed into chunks of at most ``max_tokens``
            tokens, paragraph breaks ignored).
        max_tokens: the token limit (required for ``by="tokens"``).

    Raises:
        ConfigError: an unknown ``by`` or a missing / non-positive ``max_tokens``.
    """
    if by not in ("paragraph", "tokens"):
        raise ConfigError(f"chunking: by must be 'paragraph' or 'tokens', found {by!r}")
    if max_tokens is not None and max_tokens < 1:
        raise ConfigError(f"chunking: max_tokens must be >= 1, found {max_tokens}")
    if by == "tokens" and max_tokens is None:
        raise ConfigError("chunking by tokens needs max_tokens (e.g. --max-tokens 200)")
    # whitespace collapsed, but the line break after a heading kept (bordir.testgen.headings)
    paragraphs = [
        "\n".join(line for line in (" ".join(x.split()) for x in p.split("\n")) if line)
        for p in _PARAGRAPH.split(text)
    ]
    paragraphs = [p for p in paragraphs if p]
    if by == "tokens":
        paragraphs = [" ".join(paragraphs)] if paragraphs else []
    if max_tokens is None:
        return paragraphs
    out: list[str] = []
    for para in paragraphs:
        current: list[str] = []
        size = 0
        if by == "paragraph" and "\n" in para:  # a heading titles every piece of its paragraph
            head, _, para = para.rpartition("\n")
            pieces = split_text(para, lang, by="paragraph", max_tokens=max_tokens)
            out += [f"{head}\n{piece}" for piece in pieces]
            continue
        for sent in sentences(para):
            n = count_tokens(sent, lang)
            if current and size + n > max_tokens:
                out.append(" ".join(current))
                current, size = [], 0
            current.append(sent)
            size += n
        if current:
            out.append(" ".join(current))
    return out


def make_chunks(
    text: str,
    *,
    doc: str,
    lang: str,
    source: str = "",
    title: str = "",
    page: int | None = None,
    start: int = 0,
    by: SplitBy = "paragraph",
    max_tokens: int | None = None,
    meta: Iterable[tuple[str, str]] = (),
) -> list[Chunk]:
    """The chunks of one document (or one page of it, numbered from ``start``).

    Examples:
        >>> [c.chunk_id for c in make_chunks("A.\\n\\nB.", doc="notes", lang="en", source="notes.txt")]
        ['notes#0', 'notes#1']
    """
    meta = tuple(sorted(meta))
    return [
        Chunk(
            chunk_id=f"{doc}#{start + i}",
            doc=doc,
            lang=lang,
            text=t,
            index=start + i,
            source=source,
            page=page,
            title=title,
            meta=meta,
        )
        for i, t in enumerate(split_text(text, lang, by=by, max_tokens=max_tokens))
    ]


def write_chunks(chunks: Sequence[Chunk], path: str | Path) -> Path:
    """Write chunks as JSONL (atomically)."""
    from .._io.atomic import atomic_write_text

    lines = [json.dumps(c.to_dict(), ensure_ascii=False, sort_keys=True) for c in chunks]
    return atomic_write_text(Path(path), "\n".join(lines) + ("\n" if lines else ""))


def read_chunks(path: str | Path) -> list[Chunk]:
    """Read a chunks JSONL file; every line is checked.

    Raises:
        DataError: a line is not a JSON object, lacks ``chunk_id``/``doc``/``lang``/``text``,
            repeats a ``chunk_id``, or names an unknown language.
    """
    from .. import languages

    path = Path(path)
    if not path.is_file():
        raise DataError(
            "chunks file not found (testgen writes it next to the tests as <tests>.chunks.jsonl)",
            path=path,
        )
    out: list[Chunk] = []
    seen: set[str] = set()
    for lineno, rec in iter_json_objects(path):
        for f in ("chunk_id", "doc", "lang", "text"):
            if not isinstance(rec.get(f), str) or not rec[f].strip():
                raise DataError(
                    "missing or empty (expected a string)", path=path, line=lineno, field=f
                )
        if rec["chunk_id"] in seen:
            raise DataError(
                f"duplicate chunk id {rec['chunk_id']!r}", path=path, line=lineno, field="chunk_id"
            )
        seen.add(rec["chunk_id"])
        languages.get(rec["lang"])
        page = rec.get("page")
        if page is not None and (not isinstance(page, int) or page < 1):
            raise DataError(
                f"expected a page number >= 1 or null, found {page!r}",
                path=path,
                line=lineno,
                field="page",
            )
        out.append(
            Chunk(
                chunk_id=rec["chunk_id"],
                doc=rec["doc"],
                lang=rec["lang"],
                text=rec["text"],
                index=int(rec.get("index", 0)),
                source=str(rec.get("source", "")),
                page=page,
                title=str(rec.get("title", "")),
                meta=tuple(sorted((str(k), str(v)) for k, v in (rec.get("meta") or {}).items())),
            )
        )
    return out
