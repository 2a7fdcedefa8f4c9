"""Document sources for test generation: bordir corpora and user files (PDF, HTML, Markdown, text), as chunks.

* **A bordir corpus** (``demo``, a corpus directory, a passages ``.jsonl``/``.parquet``,
  anything :func:`bordir.corpus.load_corpus` reads): every passage is already a
  paragraph, so each passage is one chunk, except a passage that is a heading
  (:func:`~bordir.testgen.headings.looks_like_heading`), which goes on the first
  line of the next passage of its article (``heading_doc_ids`` in the chunk's meta);
  the document is the article the passage belongs to (its language and title),
  and the chunk id is ``<lang>:<doc_id>``.
* **User files**: ``.pdf`` (text of each page with ``pypdf`` in layout mode, so
  that the vertical gap between paragraphs is a blank line; chunks keep their page),
  ``.html``/``.htm`` (scripts, styles, navigation and hidden elements dropped,
  block elements become paragraphs), ``.md``/``.markdown`` (``markdown-it-py``'s
  tokens: emphasis, links, images, code fences and list markers
  stripped) and ``.txt``; in every type a heading goes on the first line of the paragraph it
  titles (:mod:`bordir.testgen.headings`: marked in HTML and Markdown, told by its shape in
  PDF and text), and a byte-order mark
  is removed and a NUL character refused); read in linear time
  (:mod:`bordir.testgen.documents`, :mod:`bordir.testgen.htmlread`). The document
  is the file's name, and the chunk id ``<name>#<index>``. A directory that is not a corpus directory
  stands for every such file in it.
* **LLM-written documents**: :mod:`bordir.testgen.writer`.

Example:
    >>> chunks = load_chunks(["demo"])
    >>> chunks[0].chunk_id, chunks[0].doc, chunks[0].source
    ('en:crimea_en_p0', 'en:Crimea', 'corpus:demo')
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from ..corpus import is_corpus_dir, load_corpus
from ..errors import ConfigError, DataError, undecodable
from .chunks import Chunk, SplitBy, make_chunks
from .documents import markdown_text, pdf_pages, plain_text
from .headings import join_blocks, looks_like_heading, mark_headings
from .htmlread import html_text

__all__ = [
    "FILE_SUFFIXES",
    "chunks_from_corpus",
    "chunks_from_file",
    "detect_file_lang",
    "split_lang",
    "load_chunks",
]

FILE_SUFFIXES = (".pdf", ".html", ".htm", ".md", ".markdown", ".txt")
"""File types read as user documents."""


def chunks_from_corpus(spec: str, *, langs: Sequence[str] | None = None) -> list[Chunk]:
    """One chunk per passage of a bordir corpus (optionally only some languages).

    Raises:
        ConfigError: ``langs`` names a language the corpus does not have.
    """
    corpus = load_corpus(spec)
    if langs:
        missing = sorted(set(langs) - set(corpus.langs))
        if missing:
            raise ConfigError(
                f"corpus {spec!r} has no passages in {', '.join(missing)}; "
                f"it has {', '.join(corpus.langs)}"
            )
    counters: dict[str, int] = {}
    out: list[Chunk] = []
    passages = [p for p in corpus if not langs or p.lang in langs]
    docs = [f"{p.lang}:{p.title or p.territory or p.doc_id}" for p in passages]
    pending: list[
        tuple[str, str]
    ] = []  # (doc_id, text) of the headings that title the next passage
    for i, (p, doc) in enumerate(zip(passages, docs)):
        following = passages[i + 1].text if i + 1 < len(passages) and docs[i + 1] == doc else None
        if looks_like_heading(p.text, following):
            pending.append((p.doc_id, " ".join(p.text.split())))
            continue
        index = counters.get(doc, 0)
        counters[doc] = index + 1
        meta = [("doc_id", p.doc_id)] + ([("territory", p.territory)] if p.territory else [])
        if pending:  # the heading passages are merged into this one (bordir.testgen.headings)
            meta.append(("heading_doc_ids", " ".join(d for d, _ in pending)))
        out.append(
            Chunk(
                chunk_id=f"{p.lang}:{p.doc_id}",
                doc=doc,
                lang=p.lang,
                text="\n".join([*(t for _, t in pending), p.text]),
                index=index,
                source=f"corpus:{spec}",
                title=p.title or p.territory,
                meta=tuple(sorted(meta)),
            )
        )
        pending = []
    return out


def detect_file_lang(text: str, path: str | Path) -> str:
    """The registry code of the language ``text`` (a user file's) is written in.

    Raises:
        DataError: no language can be told (too little text, or one bordir does not know):
            give it as ``FILE:lang`` or ``--lang``.
        MissingExtraError: no language detector is installed (``bordir[testgen]``).
    """
    from .. import languages
    from ..langid.check import detect

    code, prob = detect(text[:20_000], extra="testgen")
    lang = languages.registry().from_langdetect(code) if code else None
    if lang is None:
        raise DataError(
            f"cannot tell the document's language (detected {code or 'nothing'!r}); give it as "
            f"{Path(path).name}:LANG (e.g. {Path(path).name}:es) or with --lang",
            path=path,
        )
    return lang.code


def chunks_from_file(
    path: str | Path,
    *,
    lang: str | None = None,
    by: SplitBy = "paragraph",
    max_tokens: int | None = None,
) -> list[Chunk]:
    """The chunks of one user file (PDF, HTML, Markdown or text; see module docs).

    Args:
        path: the file.
        lang: its language (bordir language code); None: detected from its text
            (:func:`detect_file_lang`), never assumed.
        by: how to split, as :func:`~bordir.testgen.chunks.split_text`.
        max_tokens: the longest chunk, as :func:`~bordir.testgen.chunks.split_text`.

    Raises:
        DataError: the file is missing, of an unknown type, not readable, has no text, or its
            language cannot be told.
    """
    from .. import languages

    path = Path(path)
    if lang is not None:
        lang = languages.registry().get_checked(lang, where=str(path)).code
    if not path.is_file():
        raise DataError("no such file", path=path)
    suffix = path.suffix.lower()
    if suffix not in FILE_SUFFIXES:
        raise DataError(
            f"unknown document type {suffix or '(none)'!r}; expected one of {', '.join(FILE_SUFFIXES)}",
            path=path,
        )
    doc, source = path.stem, str(path)
    pages: list[tuple[int | None, str]] = []
    if suffix == ".pdf":
        pages = _pdf_paragraphs(pdf_pages(path))
    else:
        try:
            raw = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise undecodable(path) from None
        raw = plain_text(raw, path=path)  # no byte-order mark; a NUL is refused (file, line)
        if suffix in (".html", ".htm"):
            text = html_text(raw)
        elif suffix in (".md", ".markdown"):
            text = markdown_text(raw)
        else:  # plain text: a short unpunctuated paragraph before a longer one is a heading
            text = join_blocks(mark_headings([p for p in re.split(r"\n[^\S\n]*\n", raw)]))
        pages = [(None, text)]
    if lang is None and any(text.strip() for _, text in pages):
        lang = detect_file_lang("\n\n".join(text for _, text in pages), path)
    chunks: list[Chunk] = []
    for page_no, text in pages:
        chunks += make_chunks(
            text,
            doc=doc,
            lang=lang or "und",
            source=source,
            title=doc,
            page=page_no,
            start=len(chunks),
            by=by,
            max_tokens=max_tokens,
        )
    if not chunks:
        raise DataError("the document has no text to make tests from", path=path)
    return chunks


def _pdf_paragraphs(pages: list[str]) -> list[tuple[int | None, str]]:
    """Each page's text with its headings merged (:func:`~bordir.testgen.headings.looks_like_heading`).

    A heading at the foot of a page goes with the paragraph that opens the next one.
    """
    items = [(n, p) for n, text in enumerate(pages, start=1) for p in text.split("\n\n") if p]
    marks = mark_headings([p for _, p in items])
    out: dict[int, list[tuple[str, bool]]] = {n: [] for n in range(1, len(pages) + 1)}
    pending: list[tuple[str, bool]] = []
    for (n, _), (para, heading) in zip(items, marks):
        if heading:
            pending.append((para, True))
            continue
        out[n] += pending + [(para, False)]
        pending = []
    if pending:  # headings that title nothing: kept only by a document without other text
        out[items[-1][0]] += pending
    return [(n, join_blocks(blocks)) for n, blocks in out.items()]


def split_lang(spec: str | Path) -> tuple[str | Path, str | None]:
    """``FILE:lang`` → ``(FILE, lang)`` when ``lang`` is a language code (``guide.md:es``); else ``(spec, None)``.

    Example:
        >>> split_lang("guia.md:es"), split_lang("demo"), split_lang("notes.md")
        (('guia.md', 'es'), ('demo', None), ('notes.md', None))
    """
    from .. import languages

    text = str(spec)
    head, sep, code = text.rpartition(":")
    if not (sep and head and code and "/" not in code and "\\" not in code):
        return spec, None
    if code in languages.registry():
        return head, languages.registry()[code].code
    if (
        not Path(text).exists()
        and Path(head).suffix.lower() in FILE_SUFFIXES
        and Path(head).is_file()
    ):  # guia.md:xx: the file exists, the language code is unknown
        languages.registry().get_checked(code, where=f"{text} (FILE:LANG)")
    return spec, None


def load_chunks(
    specs: Iterable[str | Path],
    *,
    lang: str | None = None,
    by: SplitBy = "paragraph",
    max_tokens: int | None = None,
    langs: Sequence[str] | None = None,
) -> list[Chunk]:
    """Chunks of every source in ``specs`` (corpora and user files, see module docs), in order.

    Args:
        specs: ``demo``, corpus paths, user files or directories of user files; a user file (or a
            directory of them) may name its language as ``FILE:lang`` (``guia.md:es``).
        lang: the language of user files without one; None: each file's is detected from its text.
        by: how user files are split (:func:`~bordir.testgen.chunks.split_text`).
        max_tokens: the longest chunk of a user file.
        langs: corpora: keep only these languages.

    Raises:
        DataError: two sources give the same chunk id (two files with the same name).
    """
    out: list[Chunk] = []
    for raw_spec in specs:
        spec, own = split_lang(raw_spec)
        file_lang = own or lang
        path = Path(spec)
        if path.suffix.lower() in FILE_SUFFIXES and path.suffix.lower() not in (".jsonl",):
            out += chunks_from_file(path, lang=file_lang, by=by, max_tokens=max_tokens)
        elif path.is_dir() and not is_corpus_dir(path) and not (path / "passages.jsonl").exists():
            files = sorted(p for p in path.iterdir() if p.suffix.lower() in FILE_SUFFIXES)
            if not files:
                raise DataError(
                    f"no documents ({', '.join(FILE_SUFFIXES)}) in this directory", path=path
                )
            for f in files:
                out += chunks_from_file(f, lang=file_lang, by=by, max_tokens=max_tokens)
        else:
            out += chunks_from_corpus(str(spec), langs=langs)
    seen: dict[str, str] = {}
    for c in out:
        if c.chunk_id in seen:
            raise DataError(
                f"chunk id {c.chunk_id!r} comes from two sources ({seen[c.chunk_id]} and {c.source}); "
                "rename one of the files",
                path=c.source,
            )
        seen[c.chunk_id] = c.source
    return out
