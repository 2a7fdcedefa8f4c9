"""Document sources for test generation: bordir corpora and user files (PDF, HTML, Markdown, text), as chunks.

* **A bordir corpus** (``demo``, a corpus directory, a passages ``.jsonl``/``.parquet``,
  anything :func:`bordir.corpus.load_corpus` reads): every passage is already a
  paragraph, so each passage is one chunk; the document is the article the
  passage belongs to (its language and title), and the chunk id is
  ``<lang>:<doc_id>``.
* **User files**: ``.pdf`` (text of each page with ``pypdf`` in layout mode, so
  that the vertical gap between paragraphs is a blank line; chunks keep their page), ``.html``/``.htm`` (``beautifulsoup4``: scripts, styles and navigation
  dropped, block elements become paragraphs), ``.md``/``.markdown`` (headings,
  emphasis, links, images, code fences and list markers stripped; headings are
  paragraphs of their own) and ``.txt``; the document is the file's name, and
  the chunk id ``<name>#<index>``. A directory that is not a corpus directory
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

from .._extras import require
from ..corpus import is_corpus_dir, load_corpus
from ..errors import ConfigError, DataError, undecodable
from .chunks import Chunk, SplitBy, make_chunks

__all__ = [
    "FILE_SUFFIXES",
    "chunks_from_corpus",
    "chunks_from_file",
    "load_chunks",
    "html_text",
    "markdown_text",
]

FILE_SUFFIXES = (".pdf", ".html", ".htm", ".md", ".markdown", ".txt")
"""File types read as user documents."""

_BLOCKS = (
    "p",
    "div",
    "li",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "td",
    "th",
    "pre",
    "blockquote",
    "section",
    "article",
    "br",
    "tr",
    "dt",
    "dd",
    "figcaption",
    "caption",
)


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
    for p in corpus:
        if langs and p.lang not in langs:
            continue
        doc = f"{p.lang}:{p.title or p.territory or p.doc_id}"
        index = counters.get(doc, 0)
        counters[doc] = index + 1
        meta = [("doc_id", p.doc_id)] + ([("territory", p.territory)] if p.territory else [])
        out.append(
            Chunk(
                chunk_id=f"{p.lang}:{p.doc_id}",
                doc=doc,
                lang=p.lang,
                text=p.text,
                index=index,
                source=f"corpus:{spec}",
                title=p.title or p.territory,
                meta=tuple(sorted(meta)),
            )
        )
    return out


def html_text(html: str) -> str:
    """The visible text of an HTML page, one paragraph per block element.

    Example:
        >>> html_text("<html><script>x()</script><h1>Title</h1><p>One <b>two</b>.</p><p>Three.</p></html>")
        'Title\\n\\nOne two.\\n\\nThree.'
    """
    bs4 = require("bs4", "testgen", purpose="reading HTML documents")
    soup = bs4.BeautifulSoup(html, "html.parser")
    for tag in soup(["script", "style", "noscript", "template", "nav", "header", "footer", "head"]):
        tag.decompose()
    for tag in soup.find_all(_BLOCKS):
        tag.insert_before("\n\n")
        tag.insert_after("\n\n")
    text = soup.get_text()
    paras = [" ".join(p.split()) for p in re.split(r"\n\s*\n", text)]
    return "\n\n".join(p for p in paras if p)


_MD_FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.M | re.S)
_MD_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_MD_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_MD_HEADING = re.compile(r"^[ ]{0,3}#{1,6}[ \t]*(.*?)[ \t]*#*[ \t]*$", re.M)
_MD_LIST = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)])[ \t]+", re.M)
_MD_QUOTE = re.compile(r"^[ \t]*>[ \t]?", re.M)
_MD_EMPH = re.compile(r"(\*\*|__|\*|_|`)(?=\S)(.+?)(?<=\S)\1")
_MD_RULE = re.compile(r"^[ \t]*([-*_])([ \t]*\1){2,}[ \t]*$", re.M)
_MD_TABLE_SEP = re.compile(r"^[ \t]*\|?[ \t]*:?-{3,}.*$", re.M)


def markdown_text(md: str) -> str:
    """Plain text of a Markdown document; headings become paragraphs of their own.

    Example:
        >>> markdown_text("# Crimea\\nA **peninsula** in the [Black Sea](https://x).\\n\\n```\\ncode\\n```\\n\\n- one")
        'Crimea\\n\\nA peninsula in the Black Sea.\\n\\none'
    """
    text = _MD_FENCE.sub("", md)
    text = _MD_RULE.sub("", text)
    text = _MD_TABLE_SEP.sub("", text)
    text = _MD_HEADING.sub(lambda m: f"\n\n{m.group(1)}\n\n", text)
    text = _MD_IMAGE.sub(r"\1", text)
    text = _MD_LINK.sub(r"\1", text)
    text = _MD_LIST.sub("", text)
    text = _MD_QUOTE.sub("", text)
    for _ in range(2):  # nested emphasis
        text = _MD_EMPH.sub(r"\2", text)
    text = text.replace("|", " ")
    paras = [" ".join(p.split()) for p in re.split(r"\n\s*\n", text)]
    return "\n\n".join(p for p in paras if p)


def _pdf_pages(path: Path) -> list[str]:
    pypdf = require("pypdf", "testgen", purpose="reading PDF documents")
    try:
        reader = pypdf.PdfReader(str(path))
        # layout mode keeps vertical gaps as blank lines: paragraph breaks survive
        pages = [page.extract_text(extraction_mode="layout") or "" for page in reader.pages]
    except Exception as exc:  # pypdf raises many types for broken files
        raise DataError(f"not a readable PDF ({type(exc).__name__}: {exc})", path=path) from None
    # a blank line ends a paragraph; the lines of a paragraph are joined
    out = []
    for text in pages:
        lines = [l.strip() for l in text.splitlines()]
        paras: list[str] = []
        current: list[str] = []
        for line in lines:
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


def chunks_from_file(
    path: str | Path, *, lang: str = "en", by: SplitBy = "paragraph", max_tokens: int | None = None
) -> list[Chunk]:
    """The chunks of one user file (PDF, HTML, Markdown or text; see module docs).

    Args:
        path: the file.
        lang: its language (bordir language code).
        by: how to split, as :func:`~bordir.testgen.chunks.split_text`.
        max_tokens: the longest chunk, as :func:`~bordir.testgen.chunks.split_text`.

    Raises:
        DataError: the file is missing, of an unknown type, not readable, or has no text.
    """
    from .. import languages

    path = Path(path)
    languages.get(lang)
    if not path.is_file():
        raise DataError("no such file", path=path)
    suffix = path.suffix.lower()
    if suffix not in FILE_SUFFIXES:
        raise DataError(
            f"unknown document type {suffix or '(none)'!r}; expected one of {', '.join(FILE_SUFFIXES)}",
            path=path,
        )
    doc, source = path.stem, str(path)
    chunks: list[Chunk] = []
    if suffix == ".pdf":
        for page_no, text in enumerate(_pdf_pages(path), start=1):
            chunks += make_chunks(
                text,
                doc=doc,
                lang=lang,
                source=source,
                title=doc,
                page=page_no,
                start=len(chunks),
                by=by,
                max_tokens=max_tokens,
            )
    else:
        try:
            raw = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise undecodable(path) from None
        if suffix in (".html", ".htm"):
            text = html_text(raw)
        elif suffix in (".md", ".markdown"):
            text = markdown_text(raw)
        else:
            text = raw
        chunks = make_chunks(
            text, doc=doc, lang=lang, source=source, title=doc, by=by, max_tokens=max_tokens
        )
    if not chunks:
        raise DataError("the document has no text to make tests from", path=path)
    return chunks


def load_chunks(
    specs: Iterable[str | Path],
    *,
    lang: str = "en",
    by: SplitBy = "paragraph",
    max_tokens: int | None = None,
    langs: Sequence[str] | None = None,
) -> list[Chunk]:
    """Chunks of every source in ``specs`` (corpora and user files, see module docs), in order.

    Args:
        specs: ``demo``, corpus paths, user files or directories of user files.
        lang: the language of user files.
        by: how user files are split (:func:`~bordir.testgen.chunks.split_text`).
        max_tokens: the longest chunk of a user file.
        langs: corpora: keep only these languages.

    Raises:
        DataError: two sources give the same chunk id (two files with the same name).
    """
    out: list[Chunk] = []
    for spec in specs:
        path = Path(spec)
        if path.suffix.lower() in FILE_SUFFIXES and path.suffix.lower() not in (".jsonl",):
            out += chunks_from_file(path, lang=lang, by=by, max_tokens=max_tokens)
        elif path.is_dir() and not is_corpus_dir(path) and not (path / "passages.jsonl").exists():
            files = sorted(p for p in path.iterdir() if p.suffix.lower() in FILE_SUFFIXES)
            if not files:
                raise DataError(
                    f"no documents ({', '.join(FILE_SUFFIXES)}) in this directory", path=path
                )
            for f in files:
                out += chunks_from_file(f, lang=lang, by=by, max_tokens=max_tokens)
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
