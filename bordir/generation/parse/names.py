"""Option names in a reply: native (``query.options``) and English (``query.claimants``) names, folded.

Names are matched on :func:`~bordir.generation._textnorm.fold`-ed text (case,
diacritics, harakat, niqqud, Traditional/Simplified Chinese), with a few
inflection variants (Arabic ``ل`` + ``ال`` → ``لل``; a Cyrillic/Greek stem
without its final vowel: ``Россия`` → ``России``). A longer name hides a
shorter one inside it ("South Sudan" is not also "Sudan"): variants are tried
longest first, and a match that overlaps an earlier one is dropped.

The work is linear in the length of the reply: each variant is searched once
with ``str.find``, and whether a match overlaps an earlier (longer) one is read
from an occupancy map of the reply's characters, so a reply that mentions the
options thousands of times costs no more per mention than a short one.

Example:
    >>> from bordir.loaders import load_demo
    >>> q = load_demo().query("Abyei_en")
    >>> [(o, n) for _, _, o, n in name_hits("sudan, south sudan", q)]
    [(1, 'sudan'), (0, 'south sudan')]
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from ...records import Query
from .._textnorm import fold

__all__ = ["name_hits", "name_variants"]

_SUFFIXING = frozenset(
    {"tr", "az", "hu", "fi", "et", "uz", "tk", "kk", "ky", "mn", "ka", "hy", "ja", "ko", "sw"}
)
_VOWELS_CYRL_GREK = set("аеёиіїоуыэюяєαεηιουω")


def _no_space_script(ch: str) -> bool:
    """True for scripts where names attach to neighbouring letters (Arabic, Hebrew, CJK, Thai …)."""
    o = ord(ch)
    return (
        0x0590 <= o <= 0x08FF  # Hebrew, Arabic, Syriac, Thaana, Arabic ext.
        or 0x0E00 <= o <= 0x109F  # Thai, Lao, Tibetan, Myanmar
        or 0x1780 <= o <= 0x17FF  # Khmer
        or o >= 0x2E80  # CJK, kana, Hangul, presentation forms
    )


def _is_latin(ch: str) -> bool:
    return unicodedata.name(ch, "").startswith("LATIN")


def _is_cyrl_grek(ch: str) -> bool:
    return unicodedata.name(ch, "").startswith(("CYRILLIC", "GREEK"))


@dataclass(frozen=True, slots=True)
class Variant:
    """One searchable form of an option name: its folded text, option index and boundary rules."""

    text: str
    option: int
    left: bool
    right: bool


@lru_cache(maxsize=1024)
def name_variants(query: Query) -> tuple[Variant, ...]:
    """Every searchable form of the query's option names, longest first."""
    out: dict[tuple[str, int], Variant] = {}
    suffixing = query.lang in _SUFFIXING
    for i, names in enumerate(zip(query.options, query.claimants)):
        for name in names:
            key = fold(name).strip()
            if not key:
                continue
            forms = {key}
            if key.startswith("ال") and len(key) > 3:  # Arabic: ل + ال → لل (للمغرب)
                forms.add("لل" + key[2:])
            if (
                " " not in key
                and len(key) >= 5
                and _is_cyrl_grek(key[0])
                and key[-1] in _VOWELS_CYRL_GREK
            ):
                forms.add(key[:-1])  # inflection stem: Россия → России, Ελλάδα → Ελλάδας
            for f in forms:
                left = not _no_space_script(f[0])
                right = _is_latin(f[-1]) and not suffixing
                out[(f, i)] = Variant(f, i, left, right)
    return tuple(sorted(out.values(), key=lambda v: (-len(v.text), v.option, v.text)))


def name_hits(folded: str, query: Query) -> list[tuple[int, int, int, str]]:
    """Non-overlapping (start, end, option, name) matches in folded text, in text order; longer names win."""
    spans: list[tuple[int, int, int, str]] = []
    taken = bytearray(len(folded))  # 1 where an accepted (longer or earlier) match already lies
    for v in name_variants(query):
        n = len(v.text)
        start = folded.find(v.text)
        while start != -1:
            end = start + n
            ok = not (v.left and start > 0 and folded[start - 1].isalpha())
            ok = ok and not (v.right and end < len(folded) and folded[end].isalpha())
            if ok and not any(taken[start:end]):
                spans.append((start, end, v.option, v.text))
                taken[start:end] = b"\x01" * n
            start = folded.find(v.text, start + 1)
    return sorted(spans)
