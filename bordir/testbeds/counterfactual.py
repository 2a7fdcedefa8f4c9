"""Claimant names in paragraphs: finding them, and the counterfactual edit that swaps two of them.

A claimant is named in a paragraph of language L by its option name in L (the
native name the BorderLines query of L shows, ``Россия``, ``إسرائيل``, ``日本``).
:func:`find_mentions` finds it:

* scripts written without spaces (the registry's ``bigram`` tokenizer: ja,
  zhs, zht, th, km, lo, my …): the name as a substring;
* other scripts: case-insensitively, a whole word that starts with the name
  minus its last letter (names of five letters or more; shorter names in
  full) and has at most four more letters, so that inflected forms count (``России``/``Россией`` for ``Россия``, ``України`` for
  ``Україна``, ``Israeli`` for ``Israel``); in Arabic and Hebrew one or two
  proclitic letters may precede it (``والسودان``, ``בישראל``);
* a longer claimant name hides a shorter one inside it (``South Sudan`` is not
  also ``Sudan``).

**The counterfactual edit** (:func:`swap_names`) exchanges the controller and
another claimant: every mention of one is replaced by the *option name* of the
other (a proclitic is kept), in one pass. The result names the other claimant
as the one that controls, administers or holds the territory, in the
paragraph's own language. Inflected forms and short derivations are replaced
by the citation form, so in inflected languages the edited sentence can be
ungrammatical (``России`` → ``Украина``, ``украинской`` → ``Россия``); longer
derivations (``Российская``) are not mentions and stay. A paragraph is used
only when replacing the controller's mentions leaves none
(:func:`counterfactual_edit`). The original
text is kept next to the edit (``Doc.original``).

Examples:
    >>> names = ("Russia", "Ukraine")
    >>> swap_names("Russia has controlled it since 2014; Ukraine rejects the Russian annexation.", names, 0, 1, "en")
    'Ukraine has controlled it since 2014; Russia rejects the Ukraine annexation.'
    >>> [m.index for m in find_mentions("Krim wird von Russland verwaltet", ("Russland", "Ukraine"), "de")]
    [0]
    >>> [m.index for m in find_mentions("Abyei lies between Sudan and South Sudan.", ("South Sudan", "Sudan"), "en")]
    [1, 0]
    >>> counterfactual_edit("Россия контролирует Крым с 2014 года.", ("Россия", "Украина"), 0, 1, "ru")
    'Украина контролирует Крым с 2014 года.'
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

__all__ = [
    "Mention",
    "find_mentions",
    "mentions",
    "swap_names",
    "counterfactual_edit",
    "no_space_script",
]

# word characters, including combining marks of Indic, Hebrew, Arabic, Thai … scripts (\w misses many of them)
_LETTER = (
    r"[\w\u0300-\u036F\u0483-\u0489\u0591-\u05C7\u0610-\u061A\u064B-\u065F\u0670\u06D6-\u06ED"
    r"\u0900-\u0DFF\u0E00-\u0EFF\u0F00-\u0FFF\u1000-\u109F\u1200-\u139F\u1780-\u17FF\u0530-\u058F"
    r"\u10A0-\u10FF\u02BB\u02BC\u2019']"
)
_PROCLITICS = {"ar": "[وفبلك]", "iw": "[ובלהמשכ]", "ur": "[و]", "fa": "[و]"}


@dataclass(frozen=True, slots=True)
class Mention:
    """A claimant name found in a text: ``text[start:end]``, of name ``index``, after a ``prefix`` of that length."""

    start: int
    end: int
    index: int
    prefix: int = 0


@lru_cache(maxsize=64)
def no_space_script(lang: str) -> bool:
    """True for languages written without spaces between words (the registry's ``bigram`` tokenizer)."""
    from ..languages import registry

    try:
        return registry().get_checked(lang).tokenizer == "bigram"
    except Exception:  # unknown code (RGB's "zh"): decide by the name
        return lang.startswith("zh") or lang in ("ja", "th", "km", "lo", "my")


@lru_cache(maxsize=512)
def _pattern(name: str, lang: str) -> re.Pattern[str]:
    name = unicodedata.normalize("NFC", name)
    if no_space_script(lang):
        return re.compile(re.escape(name), re.IGNORECASE)
    pro = _PROCLITICS.get(lang)
    prefix = f"((?:{pro}){{0,2}})" if pro else "()"
    if len(name) >= 5:
        core = re.escape(name[:-1]) + f"{_LETTER}{{0,4}}"
    else:
        core = re.escape(name) + f"{_LETTER}{{0,2}}"
    return re.compile(f"(?<!{_LETTER}){prefix}({core})(?!{_LETTER})", re.IGNORECASE)


def find_mentions(text: str, names: Sequence[str], lang: str) -> list[Mention]:
    """Mentions of each of ``names`` in ``text`` (NFC), in text order; longer names win overlaps."""
    text = unicodedata.normalize("NFC", text)
    found: list[Mention] = []
    order = sorted(range(len(names)), key=lambda i: -len(names[i]))
    taken: list[tuple[int, int]] = []
    for i in order:
        if not names[i]:
            continue
        for m in _pattern(names[i], lang).finditer(text):
            if m.lastindex and m.lastindex >= 2:
                start, end, pre = m.start(1), m.end(2), m.end(1) - m.start(1)
            else:
                start, end, pre = m.start(), m.end(), 0
            if any(s < end and start < e for s, e in taken):
                continue
            taken.append((start, end))
            found.append(Mention(start, end, i, pre))
    return sorted(found, key=lambda m: m.start)


def mentions(text: str, names: Sequence[str], index: int, lang: str) -> bool:
    """True if ``text`` names claimant ``index`` of ``names``."""
    return any(m.index == index for m in find_mentions(text, names, lang))


def swap_names(text: str, names: Sequence[str], a: int, b: int, lang: str) -> str:
    """``text`` with every mention of claimant ``a`` replaced by name ``b`` and vice versa (see the module docs)."""
    text = unicodedata.normalize("NFC", text)
    out, pos = [], 0
    for m in find_mentions(text, names, lang):
        if m.index not in (a, b):
            continue
        other = names[b] if m.index == a else names[a]
        out.append(text[pos : m.start + m.prefix])
        out.append(other)
        pos = m.end
    out.append(text[pos:])
    return "".join(out)


def counterfactual_edit(
    text: str, names: Sequence[str], controller: int, fake: int, lang: str
) -> str | None:
    """The edited paragraph naming ``fake`` where it named ``controller``, or None when it cannot be made.

    None when the paragraph does not name the controller, or would still name
    it once its mentions are replaced (a derivation the matcher does not treat
    as a mention, or a name form inside a longer word).
    """
    if not mentions(text, names, controller, lang):
        return None
    one_way = _replace(text, names, controller, fake, lang)
    if mentions(one_way, names, controller, lang):
        return None
    return swap_names(text, names, controller, fake, lang)


def _replace(text: str, names: Sequence[str], a: int, b: int, lang: str) -> str:
    """``text`` with the mentions of ``a`` (only) replaced by name ``b``."""
    text = unicodedata.normalize("NFC", text)
    out, pos = [], 0
    for m in find_mentions(text, names, lang):
        if m.index == a:
            out += [text[pos : m.start + m.prefix], names[b]]
            pos = m.end
    out.append(text[pos:])
    return "".join(out)
