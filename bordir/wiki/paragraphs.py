"""Split an article into paragraphs: by section, then by paragraph break; strip markup; drop short ones.

Two inputs, one output (:class:`Paragraph`: index, section title, text):

- **Plain-text extracts** (current pages, from TextExtracts through
  wikipedia-api): the library has already split the text into sections; each
  section's text has one paragraph per line, so it is split on newlines.
- **Wikitext** (revisions as of a date): split into sections at the headings,
  then on blank lines. Markup is stripped with ``mwparserfromhell`` (in the
  ``wiki`` extra) the way BordIRLines does: ``<ref>``, ``<table>``/``{| |}``,
  ``<gallery>`` and comments are removed, file/image and category links are
  removed (their namespace names in the editions bordir fetches are listed in
  :data:`MEDIA_NAMESPACES`), as are old-style interlanguage links
  (``[[ru:Крым]]``); templates are dropped, link and formatting markup keep
  their text, and magic words (``__NOTOC__``) are removed. There is no
  fallback: the corpus text must not depend on which optional package happens
  to be installed, so without mwparserfromhell parsing wikitext fails with the
  install command (``pip install 'bordir[wiki]'``).

Then, for both: whitespace is collapsed, paragraphs of ``min_chars`` (20)
characters or fewer are dropped, and each kept paragraph gets its ``index``, the
count *after* this filter (so ``{page_id}_p{index}`` is the BordIRLines id).
A paragraph identical to an earlier one of the same article is dropped after
indexing (its index is skipped); duplicates *across* the articles of one
(territory, language) pool are handled by the fetcher.

Example:
    >>> wt = "'''Crimea''' is a peninsula.<ref>Atlas</ref> It lies on the [[Black Sea|Black Sea coast]].\\n\\n== History ==\\nShort.\\n\\nGreek colonies were founded on the coast in antiquity."
    >>> list((p.index, p.section, p.text) for p in paragraphs_from_wikitext(wt))
    [(0, '', 'Crimea is a peninsula. It lies on the Black Sea coast.'), (1, 'History', 'Greek colonies were founded on the coast in antiquity.')]
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType
from typing import Any

__all__ = [
    "MIN_CHARS",
    "MEDIA_NAMESPACES",
    "Paragraph",
    "paragraphs_from_blocks",
    "paragraphs_from_wikitext",
    "wikitext_parser",
]

MIN_CHARS = 20
"""Paragraphs of this many characters or fewer are dropped (BordIRLines)."""

MEDIA_NAMESPACES = frozenset(
    s.casefold()
    for s in (
        # canonical
        "File",
        "Image",
        "Media",
        "Category",
        # localized names in the editions of the BorderLines languages (best effort)
        "Файл",
        "Изображение",
        "Категория",
        "Зображення",
        "Категорія",
        "Датотека",
        "Категорија",
        "Слика",
        "ملف",
        "صورة",
        "تصنيف",
        "پرونده",
        "رده",
        "تصویر",
        "پرونده",
        "زمرہ",
        "فائل",
        "تصویر",
        "קובץ",
        "תמונה",
        "קטגוריה",
        "文件",
        "檔案",
        "档案",
        "图像",
        "圖像",
        "分类",
        "分類",
        "ファイル",
        "画像",
        "カテゴリ",
        "파일",
        "분류",
        "그림",
        "ไฟล์",
        "ภาพ",
        "หมวดหมู่",
        "Fichier",
        "Catégorie",
        "Archivo",
        "Imagen",
        "Categoría",
        "Arquivo",
        "Imagem",
        "Categoria",
        "Datei",
        "Bild",
        "Kategorie",
        "Bestand",
        "Categorie",
        "Afbeelding",
        "Fil",
        "Kategori",
        "Dosya",
        "Resim",
        "Berkas",
        "Gambar",
        "Tập tin",
        "Hình",
        "Thể loại",
        "Αρχείο",
        "Εικόνα",
        "Κατηγορία",
        "Datoteka",
        "Kategorija",
        "Slika",
        "Skedar",
        "Kategoria",
        "Faili",
        "Jamii",
        "Picha",
        "Պատկեր",
        "Կատեգորիա",
        "ფაილი",
        "სურათი",
        "კატეგორია",
        "Fayl",
        "Kateqoriya",
        "Şəkil",
        "चित्र",
        "श्रेणी",
        "चित्र",
        "श्रेणी",
        "ছবি",
        "চিত্র",
        "বিষয়শ্রেণী",
        "फाइल",
        "Файл",
        "Категория",
    )
)
"""Namespace names (case-folded) whose links are media or categories, removed with their caption."""

_IMAGE_OPTION = re.compile(
    r"\|\s*(thumb|thumbnail|frame|frameless|mini|miniatur|upright|left|right|\d+px)\s*[|\]]", re.I
)
_MAGIC = re.compile(r"__[A-ZА-Я_]+__")
_SPACES = re.compile(r"[ \t\u00a0\u2009\u202f]+")
_BLANK = re.compile(r"\n[ \t]*\n")
_DROP_TAGS = {
    "ref",
    "table",
    "gallery",
    "references",
    "imagemap",
    "timeline",
    "graph",
    "mapframe",
    "templatestyles",
}


@dataclass(frozen=True, slots=True)
class Paragraph:
    """One kept paragraph of an article."""

    index: int
    """Position among the article's paragraphs longer than ``min_chars`` (0-based)."""
    section: str
    """Title of the innermost section it is in (``""`` for the lead)."""
    text: str


def _clean(text: str) -> str:
    lines = [_SPACES.sub(" ", ln).strip() for ln in text.split("\n")]
    return "\n".join(ln for ln in lines if ln).strip()


def _finish(pieces: Iterable[tuple[str, str]], min_chars: int) -> list[Paragraph]:
    out: list[Paragraph] = []
    seen: set[str] = set()
    index = 0
    for section, raw in pieces:
        text = _clean(raw)
        if len(text) <= min_chars:
            continue
        i, index = index, index + 1
        if text in seen:
            continue
        seen.add(text)
        out.append(Paragraph(i, section, text))
    return out


def paragraphs_from_blocks(
    blocks: Sequence[tuple[str, str]], *, min_chars: int = MIN_CHARS
) -> list[Paragraph]:
    """Paragraphs of a plain-text extract given as ``(section title, text)`` blocks (one paragraph per line).

    Example:
        >>> ps = paragraphs_from_blocks([("", "Crimea is a peninsula in Europe.\\nCrimea"),
        ...                              ("History", "Greek colonies stood on its coast.")])
        >>> list((p.index, p.section) for p in ps)
        [(0, ''), (1, 'History')]
    """
    pieces = ((title.strip(), line) for title, text in blocks for line in text.split("\n"))
    return _finish(pieces, min_chars)


def wikitext_parser() -> str:
    """``mwparserfromhell <version>``, the parser the wikitext paragraphs come from (recorded in manifests).

    Raises:
        MissingExtraError: mwparserfromhell is not installed (``pip install 'bordir[wiki]'``).
    """
    mwp = _mwparserfromhell()
    return f"mwparserfromhell {mwp.__version__}"


def paragraphs_from_wikitext(
    wikitext: str, *, min_chars: int = MIN_CHARS, parser: str = "mwparserfromhell"
) -> list[Paragraph]:
    """Paragraphs of an article's wikitext, parsed with mwparserfromhell (the ``wiki`` extra).

    Args:
        wikitext: the article's wikitext.
        min_chars: paragraphs of this many characters or fewer (after cleaning) are dropped.
        parser: ``mwparserfromhell`` (``auto`` is accepted as the same); the former
            ``regex`` fallback was removed so the text never depends on what is installed.

    Raises:
        ConfigError: an unknown ``parser``.
        MissingExtraError: mwparserfromhell is not installed (``pip install 'bordir[wiki]'``).
    """
    if parser not in ("auto", "mwparserfromhell"):
        from ..errors import ConfigError

        raise ConfigError(
            f"unknown wikitext parser {parser!r}; use mwparserfromhell (the regex fallback was "
            "removed: corpus text must not depend on which optional package is installed)"
        )
    sections = _sections_mw(wikitext)
    pieces = ((title, para) for title, body in sections for para in _BLANK.split(body))
    return _finish(pieces, min_chars)


# -- mwparserfromhell -----------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _interwiki_prefixes() -> frozenset[str]:
    from ..languages import registry

    return frozenset(
        {l.wiki for l in registry().values() if l.wiki} | {"de", "it", "pl", "sv", "nl", "simple"}
    )


def _is_media_link(title: str, whole: str) -> bool:
    """A link to remove: media or category (with caption), or an old-style interlanguage link (``[[ru:Крым]]``)."""
    stripped = title.strip()
    if stripped.startswith(":"):  # [[:Category:X|x]] is a visible link to the category page
        return False
    prefix, sep, _ = stripped.partition(":")
    if not sep:
        return False
    p = prefix.strip().casefold()
    return p in MEDIA_NAMESPACES or bool(_IMAGE_OPTION.search(whole)) or p in _interwiki_prefixes()


def _mwparserfromhell() -> ModuleType:
    from .._extras import require

    return require("mwparserfromhell", "wiki", purpose="parsing wikitext")


def _sections_mw(wikitext: str) -> list[tuple[str, str]]:
    mwp = _mwparserfromhell()
    code = mwp.parse(wikitext)
    for node in code.filter_comments(recursive=True):
        _remove(code, node)
    for node in code.filter_tags(recursive=True):
        if str(node.tag).strip().lower() in _DROP_TAGS:
            _remove(code, node)
    for node in code.filter_wikilinks(recursive=True):
        if _is_media_link(str(node.title), str(node)):
            _remove(code, node)
    out: list[tuple[str, str]] = []
    for section in code.get_sections(flat=True, include_lead=True, include_headings=True):
        nodes = list(section.nodes)
        title = ""
        if nodes and isinstance(nodes[0], mwp.nodes.Heading):
            title = _clean(nodes[0].title.strip_code())
            nodes = nodes[1:]
        body = mwp.wikicode.Wikicode(nodes).strip_code(normalize=True, collapse=True)
        out.append((title, _MAGIC.sub("", body)))
    return out


def _remove(code: Any, node: Any) -> None:
    try:
        code.remove(node)
    except ValueError:  # already removed with an enclosing node
        pass
