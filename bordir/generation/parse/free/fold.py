"""A fast matching key for free answers: ``casefold`` and one ``str.translate`` pass.

:func:`bordir.generation._textnorm.fold` (NFKC, NFD, regexes, NFC …) costs about 60 µs for 240
characters; resolving a million answers needs a tenth of that. :func:`quick_fold` gets the same key
for the text answers are written in with two C-level passes: ``str.casefold`` and a translation table
built once from Unicode's own decompositions:

* Latin, Greek and Cyrillic letters lose their diacritics (``España`` → ``espana``, ``Türkiye`` →
  ``turkiye``, ``ё`` → ``е``, ``й`` → ``и``), and ``ı ə ł ø đ`` become ``i e l o d``;
* combining marks written apart, Arabic harakat and tatweel, Hebrew niqqud and invisible format
  characters are removed; Arabic alef / yeh / kaf / heh variants are folded (Urdu and Persian
  letters meet Arabic ones);
* compatibility forms (fullwidth Latin, Arabic presentation forms) become their plain letters;
  typographic quotes and dashes become ASCII; Traditional Chinese characters of the built-in table
  become Simplified; other spaces become a space.

Removed characters shorten the text; :func:`original_offset` maps a position back.

Example:
    >>> quick_fold("ＥＳＰＡÑＡ, «Україна» — ТЕРРИТОРИЯ РОССИИ; إِسْرَائِيل; 中華民國")
    'espana, "украіна" - территория россии; اسرائيل; 中华民国'
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from ..._textnorm import fold

__all__ = ["quick_fold", "original_offset"]

_RANGES = (
    (0x00A0, 0x0250),  # Latin-1, Latin Extended-A/B
    (0x0250, 0x0300),  # IPA (ə)
    (0x0300, 0x0370),  # combining marks
    (0x0370, 0x0530),  # Greek, Cyrillic, Cyrillic supplement
    (0x0590, 0x0600),  # Hebrew
    (0x0600, 0x0700),  # Arabic
    (0x0750, 0x0780),
    (0x08A0, 0x0900),
    (0x1E00, 0x2000),  # Latin extended additional (Vietnamese), Greek extended
    (0x2000, 0x2070),  # spaces, quotes, dashes, invisible
    (0x3000, 0x3020),  # CJK punctuation and brackets
    (0x4E00, 0xA000),  # CJK unified (Traditional → Simplified where the table knows it)
    (0xFB00, 0xFF00),  # Hebrew / Arabic presentation forms, variation selectors, BOM
    (0xFF00, 0xFFF0),  # fullwidth forms
)
_KEEP = frozenset("\n")


@cache
def _table() -> dict[int, str | None]:
    table: dict[int, str | None] = {}
    for lo, hi in _RANGES:
        for cp in range(lo, hi):
            ch = chr(cp)
            if unicodedata.category(ch) == "Cn":
                continue
            if ch.isspace() and ch not in _KEEP:
                out = " "
            else:
                out = fold(ch)
            if out != ch:
                table[cp] = out or None
    for cp in range(0x0300, 0x0370):  # a mark written apart goes (after casefold, too)
        table[cp] = None
    return table


@cache
def _dense() -> list[str | None]:
    """:func:`_table` as a list over the Basic Multilingual Plane (a character to itself where it keeps).

    ``str.translate`` then finds every character of the plane without a failed lookup (twice as
    fast as the dict); a character beyond the plane fails the lookup and keeps, as in the dict.
    """
    out: list[str | None] = [chr(cp) for cp in range(0x10000)]
    for cp, to in _table().items():
        if cp < 0x10000:
            out[cp] = to
    return out


def quick_fold(text: str) -> str:
    """The matching key of ``text``: :func:`~bordir.generation._textnorm.fold`'s, in two passes."""
    if text.isascii():
        return text.lower()
    return text.casefold().translate(_dense())


@cache
def _odd() -> re.Pattern[str]:
    """Characters whose fold is not one character (removed marks, ``ß`` → ``ss`` …)."""
    odd = {chr(cp) for cp, out in _table().items() if out is None or len(out) != 1}
    for cp in range(0x80, 0x30000):
        ch = chr(cp)
        if len(ch.casefold()) != 1:
            odd.add(ch)
    return re.compile("[" + "".join(re.escape(c) for c in sorted(odd)) + "]")


def original_offset(text: str, folded_pos: int) -> int:
    """The position in ``text`` whose :func:`quick_fold` prefix has ``folded_pos`` characters.

    >>> t = "اَلْمَغْرِب"  # harakat are removed by the fold
    >>> f = quick_fold(t)
    >>> original_offset(t, len(f)) == len(t)
    True
    """
    if text.isascii():
        return min(folded_pos, len(text))
    orig = fold_pos = 0
    for m in _odd().finditer(text):
        step = m.start() - orig
        if fold_pos + step >= folded_pos:
            break
        fold_pos += step
        orig = m.start()
        width = len(quick_fold(m.group()))
        if fold_pos + width > folded_pos:
            return orig
        fold_pos += width
        orig += 1
    return min(orig + (folded_pos - fold_pos), len(text))
