"""Texts too short for language detection: the letters a text needs, per script, before its language is trusted.

langdetect reads character n-grams; on a few letters it guesses. Measured on the demo corpus
and MEMERAG's passages (../shared): texts cut after *n* letters, detected with
:func:`bordir.langid.check.detect`, compared with the passage's language, and grouped by the
script of the cut text (``python benchmarks/langid_short.py``; about 2,160 Latin-script samples
per length, 40 to 170 for the other scripts):

==========  ====  ====  ====  ====  ====  ====  ====  ====  ====
letters        2     4     8    10    15    20    25    30    40
==========  ====  ====  ====  ====  ====  ====  ====  ====  ====
Latin        24%   47%   63%   71%   83%   90%   93%   96%   98%
Cyrillic     46%   58%   68%   72%   85%   94%   96%  100%  100%
Devanagari   49%   51%   73%   83%   89%   95%   96%   96%   97%
Arabic       83%   90%   97%   99%  100%  100%  100%  100%  100%
Japanese    100%   88%   98%   96%   92%   98%  100%  100%  100%
Han          52%   75%   96%   96%  100%  100%  100%  100%  100%
Greek       100%  100%  100%  100%  100%  100%  100%  100%  100%
Hebrew      100%  100%  100%  100%  100%  100%  100%  100%  100%
==========  ====  ====  ====  ====  ====  ====  ====  ====  ====

:data:`MIN_LETTERS` is, per script, the shortest length from which at least 95 % were right at
every length measured (Latin 30, Cyrillic and Devanagari 25, Japanese 20, Arabic and Han 8 —
a short Han-only text is often Japanese —, Greek and Hebrew 4: one language each). A script
not measured needs :data:`DEFAULT_MIN_LETTERS` (30, the Latin figure). A text's script is that
of most of its letters (a text with kana is Japanese); letters are the word characters that
are not digits (``[^\\W\\d_]``). A reply such as ``B) Україна`` (8 letters), ``Ukraine.`` (7) or
``The answer is B.`` (12) is too short: its detected language says nothing about the reply.

Example:
    >>> too_short("The answer is B) Ukraine."), too_short("Крим належить Україні, бо так визнає ООН.")
    (True, False)
    >>> script_of("答案是中华民国"), too_short("答案是中华民国"), too_short("钓鱼岛是中国的固有领土")
    ('han', True, False)
    >>> script_of("答えはBです"), too_short("答えはBです")
    ('japanese', True)
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from itertools import islice

__all__ = [
    "MIN_LETTERS",
    "DEFAULT_MIN_LETTERS",
    "LETTER",
    "script_of",
    "too_short",
    "min_letters",
]

MIN_LETTERS: dict[str, int] = {
    "latin": 30,
    "cyrillic": 25,
    "devanagari": 25,
    "japanese": 20,
    "arabic": 8,
    "han": 8,
    "greek": 4,
    "hebrew": 4,
}
"""Per script, the letters from which detection was right at least 95 % of the time (module docs)."""
DEFAULT_MIN_LETTERS = 30
"""The letters a text of a script not measured needs (the Latin figure)."""
_ENOUGH = max([*MIN_LETTERS.values(), DEFAULT_MIN_LETTERS])


LETTER = re.compile(r"[^\W\d_]")
"""A letter: a word character that is not a digit or ``_`` (what ``str.isalpha`` accepts, nearly)."""
_AT_LEAST_ENOUGH = re.compile(rf"(?:[\W\d_]*[^\W\d_]){{{_ENOUGH}}}")
_SCRIPTS: dict[str, str] = {}


def _script(ch: str) -> str:
    got = _SCRIPTS.get(ch)
    if got is None:
        name = unicodedata.name(ch, "OTHER").split(" ", 1)[0]
        got = {"CJK": "han", "HIRAGANA": "kana", "KATAKANA": "kana"}.get(name, name.lower())
        if len(_SCRIPTS) < 65536:
            _SCRIPTS[ch] = got
    return got


def _scripts(text: str, limit: int) -> tuple[int, Counter[str]]:
    """(letters read, their scripts), reading at most ``limit`` letters."""
    found = [m.group() for m in islice(LETTER.finditer(text), limit)]
    return len(found), Counter(map(_script, found))


def _main(scripts: Counter[str]) -> str:
    return "japanese" if scripts["kana"] else max(scripts, key=lambda s: (scripts[s], s))


def script_of(text: str) -> str:
    """The script of most of ``text``'s letters (``japanese`` when it has kana; ``""`` without letters)."""
    _, scripts = _scripts(text or "", 10 * _ENOUGH)
    return _main(scripts) if scripts else ""


def min_letters(script: str) -> int:
    """The letters a text in ``script`` needs (:data:`MIN_LETTERS`, else :data:`DEFAULT_MIN_LETTERS`)."""
    return MIN_LETTERS.get(script, DEFAULT_MIN_LETTERS)


def too_short(text: str | None) -> bool:
    """Whether ``text`` has fewer letters than its script needs for a detected language to be trusted.

    Reads at most its first 30 letters (bounded time on any text).
    """
    text = text or ""
    if _AT_LEAST_ENOUGH.match(text):
        return False
    n, scripts = _scripts(text, _ENOUGH)
    return n == 0 or n < min_letters(_main(scripts))
