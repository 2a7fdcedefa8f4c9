"""Confusable skeletons (Unicode TR39): the key under which look-alike spellings of a word compare equal.

Unicode Technical Standard #39 defines the *skeleton* of a string: NFD, each
character replaced by the prototype of its confusable class (``confusables.txt``:
Cyrillic ``Е`` → Latin ``E``, ``∶`` RATIO → ``:``, ``Ј`` → ``J``, ``ｍ`` → ``rn`` …),
NFD again. Two strings that look alike have the same skeleton. The table is
the Unicode confusables data shipped by the ``confusable-homoglyphs`` package
(``bordir[testgen]``), read once.

:func:`fold` is the key bordir compares prompt labels and fences under: per
character, NFKC (fullwidth ``Ｊ`` → ``J``), casefold, NFD, invisible characters
(zero-width space, bidi marks, soft hyphen, variation selectors) and combining
marks removed, each character mapped to its TR39 prototype, casefolded again;
and every colon-like character (:func:`COLONS`) is ``:``. Letter case is folded after the
prototype (Cyrillic ``Н`` looks like ``H``, ``н`` does not look like ``h``), so a word is
matched with :func:`pattern`, which accepts the folds of each letter's cases. :func:`folded` gives
the folded text with, for each of its characters, the index of the original
character it came from, so that a match found in the folded text rewrites only
the original characters it covers.

Example:
    >>> fold("[\u0415ND DATA: answer]") == fold("[END DATA: answer]")
    True
    >>> fold("\u0408udge\u2236") == fold("Judge\ua789") == fold("ＪＵＤＧＥ：") == fold("judge:")
    True
    >>> fold("Jud\u200bge") == fold("judge"), fold("Judge") == fold("Fudge")
    (True, False)
"""

from __future__ import annotations

import json
import unicodedata
from functools import lru_cache

from .._extras import require

__all__ = ["COLONS", "fold", "folded", "pattern", "prototypes"]

_INVISIBLE = frozenset(
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180e\u180f"
    + "".join(map(chr, range(0x200B, 0x2010)))
    + "".join(map(chr, range(0x202A, 0x202F)))
    + "".join(map(chr, range(0x2060, 0x2070)))
    + "".join(map(chr, range(0xFE00, 0xFE10)))
    + "\ufeff"
)

_EXTRA_COLONS = (
    "\uff1a\ufe55\ufe13"  # fullwidth, small and vertical colons (NFKC gives ':')
    "\u2236\ua789\u02d0\u02f8\ua4fd"  # ratio, modifier letter colon, triangular / raised colon, Lisu
    "\u2982\u205a\u1361\u1365\u1366\u17d6\u0589\u05c3\u0703\u0704\u16ec\ufe30\u1803\u1809"
)
"""Colon-like characters that are ``:`` even if the confusables data does not say so
(Z notation type colon, two-dot punctuation, Ethiopic wordspace and colons, Khmer camnuc
pii kuuh, Armenian full stop, Hebrew sof pasuq, Syriac colons, runic punctuation,
Mongolian full stops …)."""


@lru_cache(maxsize=1)
def prototypes() -> dict[str, str]:
    """The TR39 prototype of every confusable character (from ``confusable-homoglyphs``' data).

    The package stores ``confusables.txt`` symmetrically (each source lists its prototype, each
    prototype its sources, in the order of the file); the prototypes are read back from that:
    a character with one look-alike whose own list is longer, or a sequence, is a source; of two
    characters that only list each other, the first one the file named is the source.

    >>> p = prototypes()
    >>> p["\u0415"], p["\u2236"], p["\u0408"]
    ('E', ':', 'J')
    """
    require("confusable_homoglyphs", "testgen", purpose="confusable skeletons (Unicode TR39)")
    from importlib.resources import files

    raw = json.loads(
        (files("confusable_homoglyphs") / "confusables.json").read_text(encoding="utf-8")
    )

    def clean(s: str) -> str:  # the data wraps right-to-left characters in LRM marks
        return s.replace("\u200e", "").replace("\u200f", "")

    table = {clean(k): [clean(e["c"]) for e in v] for k, v in raw.items()}
    order = {k: i for i, k in enumerate(table)}
    out: dict[str, str] = {}
    for ch, alikes in table.items():
        if len(ch) != 1 or len(alikes) != 1:
            continue  # a prototype (several sources) or a sequence
        target = alikes[0]
        back = table.get(target, [])
        if len(target) != 1 or len(back) > 1 or order.get(target, -1) > order[ch]:
            out[ch] = target
    return out


@lru_cache(maxsize=1)
def _colon_set() -> frozenset[str]:
    proto = prototypes()
    return frozenset(":" + _EXTRA_COLONS + "".join(c for c, p in proto.items() if p == ":"))


def COLONS() -> frozenset[str]:  # noqa: N802 - a constant computed on first use
    """Every character read as a colon: ``:``, those whose TR39 prototype is ``:``, and the extras.

    >>> {"\u2236", "\ua789", "\uff1a", "\u02d0", ":"} <= COLONS()
    True
    """
    return _colon_set()


_CACHE: dict[str, str] = {}


def _fold_char(ch: str) -> str:
    """The folded form of one character (see the module docs); ``""`` for an invisible one."""
    got = _CACHE.get(ch)
    if got is not None:
        return got
    colons = _colon_set()
    if ch in colons:
        out = ":"
    elif ch in _INVISIBLE:
        out = ""
    else:
        proto = prototypes()
        parts = []
        for c in unicodedata.normalize("NFD", unicodedata.normalize("NFKC", ch)):
            if c in _INVISIBLE or unicodedata.category(c) in ("Mn", "Me"):
                continue
            if c in colons:
                parts.append(":")
                continue
            for q in unicodedata.normalize("NFD", proto.get(c, c)):
                if unicodedata.category(q) not in ("Mn", "Me"):
                    parts.append(q)
        out = "".join(parts).casefold()
    if len(_CACHE) < 65_536:
        _CACHE[ch] = out
    return out


def pattern(word: str) -> str:
    """A regular expression matching the folded text of ``word`` in any letter case.

    Per character, the folds of its lower, upper and title case: Cyrillic ``В`` folds to
    ``b`` (it looks like Latin ``B``), ``в`` to ``ʙ``; the pattern of ``вопрос`` matches both
    ``ВОПРОС`` and ``вопрос``. Spaces, ``_`` and ``-`` between words are one separator.

    >>> import re
    >>> bool(re.fullmatch(pattern("вопрос"), fold("ВОПРОС"))), bool(re.fullmatch(pattern("judge"), fold("ЈUDGЕ")))
    (True, True)
    """
    import re

    out: list[str] = []
    for ch in word:
        if ch.isspace() or ch in "_-":
            if not out or out[-1] != r"[\s_\-]*":
                out.append(r"[\s_\-]*")
            continue
        alts = sorted({_fold_char(v) for v in (ch, ch.lower(), ch.upper(), ch.title())} - {""})
        if len(alts) == 1:
            out.append(re.escape(alts[0]))
        else:
            out.append("(?:" + "|".join(re.escape(a) for a in alts) + ")")
    return "".join(out)


def fold(text: str) -> str:
    """The comparison key of ``text``: its characters' TR39 skeletons, casefolded (module docs)."""
    return "".join(map(_fold_char, text))


def folded(text: str) -> tuple[str, list[int]]:
    """``fold(text)`` and, for each of its characters, the index in ``text`` it comes from.

    >>> folded("Ｊ\u200bx")
    ('jx', [0, 2])
    """
    parts = list(map(_fold_char, text))
    owner = [i for i, part in enumerate(parts) for _ in part]
    return "".join(parts), owner
