"""Option letters: ``A)`` … ``H)``, their fullwidth and lowercase forms, and the letters of other scripts.

A reply may name an option by its Latin letter (``B)``, ``(B)``, ``[B]``,
``B.``, ``B:``, a bare ``B``) or by a letter of the query's script followed by
``)``: Arabic ``أ) ب) ج)``, Hebrew ``א) ב)``, Greek ``Α) Β) Γ)``, Armenian
``Ա) Բ)``, Devanagari ``क) ख)``, Japanese ``ア) イ)``, Chinese/Japanese
``甲) 乙)``, Cyrillic ``Б)``. Cyrillic ``А) В) С)`` count as A, B, C in any
query, because they are look-alikes of the Latin letters (only before ``)``).

Example:
    >>> table, lead, _ = script_letter_res("Arab")
    >>> table[lead.match("ب) إسبانيا").group("s")]
    1
    >>> [LETTERS.index(m.group(1) or m.group(2)) for m in ANY_LATIN.finditer("A) x or (B) y")]
    [0, 1]
"""

from __future__ import annotations

import re
from functools import lru_cache

from ...errors import UnknownLanguageError
from ...languages import registry
from ...records import Query

__all__ = [
    "LETTERS",
    "LETTERS_MC",
    "ANY_LATIN",
    "LINE_START_LATIN",
    "query_script",
    "script_letter_res",
    "script_letters",
    "letter_hits",
]

LETTERS = "ABCDEFGH"
LETTERS_MC = tuple(c + ")" for c in LETTERS)
"""The BordIRLines option labels, ``A)`` … ``H)``."""

_HOMOGLYPHS = {"А": 0, "В": 1, "С": 2}  # Cyrillic look-alikes of A, B, C (only before ")")
_CJK_STEMS = {c: i for i, c in enumerate("甲乙丙丁戊己庚辛")}
_SCRIPT_LETTERS: dict[str, dict[str, int]] = {
    "Cyrl": {"А": 0, "Б": 1, "В": 1, "С": 2},
    "Grek": {c: i for i, c in enumerate("ΑΒΓΔΕΖΗΘ")},
    "Arab": {"الف": 0, "أ": 0, "ا": 0, "ب": 1, "ج": 2, "د": 3, "ه": 4, "و": 5, "ز": 6, "ح": 7},
    "Hebr": {c: i for i, c in enumerate("אבגדהוזח")},
    "Armn": {
        **{c: i for i, c in enumerate("ԱԲԳԴԵԶԷԸ")},
        **{c: i for i, c in enumerate("աբգդեզէը")},
    },
    "Deva": {c: i for i, c in enumerate("कखगघ")},
    "Jpan": {**{c: i for i, c in enumerate("アイウエオカキク")}, **_CJK_STEMS},
    "Hans": _CJK_STEMS,
    "Hant": _CJK_STEMS,
}

ANY_LATIN = re.compile(r"(?:(?<![\w'])\(([A-H])\)|(?<![\w'(])([A-H])\))")
"""A Latin option letter followed by ``)`` anywhere: ``(B)`` or ``B)`` (not ``xB)``)."""

LINE_START_LATIN = re.compile(r"(?m)^[ \t]*[(\[]?([A-H])[)\]]")
"""A Latin option letter at the start of a line (an echo of the option list)."""


def query_script(query: Query) -> str:
    """The ISO 15924 script of the query's language (``""`` when the language is not in the registry)."""
    try:
        return registry()[query.lang].script
    except UnknownLanguageError:
        return ""


@lru_cache(maxsize=256)
def script_letter_res(script: str) -> tuple[dict[str, int], re.Pattern[str], re.Pattern[str]]:
    """(letter → index, leading-letter regex, anywhere regex) for a script; always includes the homoglyphs.

    The leading regex matches a letter (group ``s``) followed by ``)`` or ``]``
    (group ``close``), by the end of the text (group ``end``) or by punctuation
    or a line break (group ``punct``); callers decide when a bare letter is a
    clear choice.
    """
    table = {**_HOMOGLYPHS, **_SCRIPT_LETTERS.get(script, {})}
    alts = "|".join(re.escape(k) for k in sorted(table, key=len, reverse=True))
    lead = re.compile(
        rf"^[(\[]?\s*(?P<s>{alts})(?:\s*(?P<close>[)\]])|(?P<end>[ \t]*[.!。]?[ \t]*$)|(?P<punct>[ \t]*(?:[.,;:。،؛\n]|-\s)))"
    )
    anywhere = re.compile(rf"(?<!\w)[(\[]?(?P<s>{alts})\s*[)\]]")
    return table, lead, anywhere


def script_letters(script: str) -> dict[str, int]:
    """The option letters of a script itself (without the Cyrillic look-alikes of other scripts)."""
    return _SCRIPT_LETTERS.get(script, {})


def letter_hits(s: str, query: Query) -> list[tuple[int, str]]:
    """Every option letter followed by ``)`` in ``s`` (Latin, then the query's script): (option, evidence)."""
    n = len(query.options)
    hits: list[tuple[int, str]] = []
    for m in ANY_LATIN.finditer(s):
        idx = LETTERS.index(m.group(1) or m.group(2))
        if idx < n:
            hits.append((idx, m.group(0)))
    table, _, anywhere = script_letter_res(query_script(query))
    for m in anywhere.finditer(s):
        idx = table[m.group("s")]
        if idx < n:
            hits.append((idx, m.group(0)))
    return hits
