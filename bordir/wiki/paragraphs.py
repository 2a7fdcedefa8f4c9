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
  their text, and magic words (``__NOTOC__``) are removed. Without
  mwparserfromhell a regular-expression fallback (:func:`strip_wikitext_regex`)
  does the same for ordinary markup; it is less exact on unusual nesting.

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

__all__ = [
    "MIN_CHARS",
    "MEDIA_NAMESPACES",
    "Paragraph",
    "paragraphs_from_blocks",
    "paragraphs_from_wikitext",
    "strip_wikitext_regex",
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
    """``mwparserfromhell <version>`` if it is installed, else ``regex`` (the fallback)."""
    try:
        import mwparserfromhell
    except ImportError:
        return "regex"
    return f"mwparserfromhell {mwparserfromhell.__version__}"


def paragraphs_from_wikitext(
    wikitext: str, *, min_chars: int = MIN_CHARS, parser: str = "auto"
) -> list[Paragraph]:
    """Paragraphs of an article's wikitext.

    Args:
        parser: ``auto`` (mwparserfromhell if installed, else regex), ``mwparserfromhell`` or ``regex``.
    """
    if parser not in ("auto", "mwparserfromhell", "regex"):
        from ..errors import ConfigError

        raise ConfigError(
            f"unknown wikitext parser {parser!r}; use auto, mwparserfromhell or regex"
        )
    use_mw = parser == "mwparserfromhell" or (parser == "auto" and wikitext_parser() != "regex")
    sections = _sections_mw(wikitext) if use_mw else _sections_regex(wikitext)
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


def _sections_mw(wikitext: str) -> list[tuple[str, str]]:
    from .._extras import require

    mwp = require("mwparserfromhell", "wiki", purpose="parsing wikitext")
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


def _remove(code, node) -> None:
    try:
        code.remove(node)
    except ValueError:  # already removed with an enclosing node
        pass


# -- regex fallback -------------------------------------------------------------------------------

_HEADING = re.compile(r"^(={1,6})[ \t]*(.+?)[ \t]*\1[ \t]*$", re.M)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_REF = re.compile(r"<ref\b[^>/]*/>|<ref\b[^>]*>.*?</ref\s*>", re.S | re.I)
_BLOCK_TAG = re.compile(
    r"<(table|gallery|references|imagemap|timeline|graph|mapframe)\b[^>]*>.*?</\1\s*>", re.S | re.I
)
_SELF_TAG = re.compile(r"<(references|templatestyles)\b[^>]*/>", re.I)
_ANY_TAG = re.compile(r"</?[a-zA-Z][^>]*>")
_TEMPLATE = re.compile(r"\{\{[^{}]*\}\}")
_TABLE = re.compile(r"^\{\|.*?^\|\}", re.S | re.M)
_LINK = re.compile(r"\[\[([^\[\]|]*)(?:\|([^\[\]]*))?\]\]")
_EXT_LINK = re.compile(r"\[(?:https?:)?//[^\s\]]+(?:\s+([^\]]*))?\]")
_FORMAT = re.compile(r"'{2,5}")
_LIST = re.compile(r"^[*#:;]+[ \t]*", re.M)


def strip_wikitext_regex(text: str) -> str:
    """Remove wikitext markup with regular expressions (the fallback when mwparserfromhell is missing).

    >>> strip_wikitext_regex("[[File:Map.png|thumb|A [[map]]]]'''Crimea'''{{efn|x}} is [[Black Sea|by the sea]].<ref>r</ref>")
    'Crimea is by the sea.'
    """
    text = _COMMENT.sub("", text)
    text = _REF.sub("", text)
    text = _BLOCK_TAG.sub("", text)
    text = _SELF_TAG.sub("", text)
    while True:
        new = _TEMPLATE.sub("", text)
        new = _TABLE.sub("", new)
        if new == text:
            break
        text = new

    def link(m: re.Match[str]) -> str:
        if _is_media_link(m.group(1), m.group(0)):
            return ""
        return m.group(2) if m.group(2) is not None else m.group(1)

    while True:
        new = _LINK.sub(link, text)
        if new == text:
            break
        text = new
    text = _EXT_LINK.sub(lambda m: m.group(1) or "", text)
    text = _ANY_TAG.sub("", text)
    text = _FORMAT.sub("", text)
    text = _LIST.sub("", text)
    text = _MAGIC.sub("", text)
    return text


def _sections_regex(wikitext: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos, title = 0, ""
    for m in _HEADING.finditer(wikitext):
        out.append((title, strip_wikitext_regex(wikitext[pos : m.start()])))
        title = _clean(strip_wikitext_regex(m.group(2)))
        pos = m.end()
    out.append((title, strip_wikitext_regex(wikitext[pos:])))
    return out
