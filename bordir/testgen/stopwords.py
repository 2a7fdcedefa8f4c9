"""Stop words per language, from a maintained list: the template generator asks no question about "und" or "the".

The lists are the Stopwords ISO collection (the ``stopwordsiso`` package, MIT,
``bordir[testgen]``), looked up by the language's ISO 639-1 code (``iw`` → ``he``,
``zhs``/``zht`` → ``zh``). A word is a stop word when its casefolded form is
in the list. In languages written without spaces (Chinese, Japanese) the
template generator's candidates are three-character strings: one is a stop word
when it holds a listed word of two characters or more or a listed kana or
punctuation character (a particle: ``の``, ``は``, ``、``), or begins or ends with a
listed single ideograph (``的一贯``, ``府的一``; inside a word, ``一`` or ``上`` is
not enough).

A language without a list is **said**, not treated as English:
:func:`stop_words` returns None and :func:`missing` names such languages (the
suite's meta and ``bordir testgen`` report them).

Example:
    >>> is_stop_word("Und", "de"), is_stop_word("Halbinsel", "de"), is_stop_word("について", "ja")
    (True, False, True)
    >>> stop_words("xx") is None
    True
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from functools import cache

from .._extras import require

__all__ = ["SOURCE", "stop_words", "is_stop_word", "missing"]

SOURCE = "stopwords-iso"
"""Where the lists come from (in the suite's meta)."""


@cache
def stop_words(lang: str) -> frozenset[str] | None:
    """The casefolded stop words of bordir language ``lang``, or None when the collection has none."""
    from .. import languages

    sw = require("stopwordsiso", "testgen", purpose="stop words of template questions")
    try:
        iso = languages.get(lang).iso639_1 or lang
    except KeyError:
        iso = lang
    if not sw.has_lang(iso):
        return None
    return frozenset(w.casefold() for w in sw.stopwords(iso))


@cache
def _cjk_parts(lang: str) -> tuple[tuple[str, ...], frozenset[str], frozenset[str]]:
    """(listed words of 2+ characters, listed single kana / punctuation, listed single ideographs)."""
    words = stop_words(lang) or frozenset()
    long = tuple(w for w in words if len(w) >= 2)
    ideographs = frozenset(
        w for w in words if len(w) == 1 and unicodedata.name(w, "").startswith("CJK UNIFIED")
    )
    single = frozenset(w for w in words if len(w) == 1) - ideographs
    return long, single, ideographs


def is_stop_word(word: str, lang: str, *, nospace: bool | None = None) -> bool:
    """True if ``word`` is a stop word of ``lang`` (see the module docs for scripts without spaces)."""
    words = stop_words(lang)
    if not words:
        return False
    w = word.casefold()
    if w in words:
        return True
    if nospace is None:
        from .. import languages

        nospace = languages.get(lang).tokenizer == "bigram"
    if not nospace:
        return False
    long, single, ideographs = _cjk_parts(lang)
    return (
        any(ch in single for ch in w)
        or w[0] in ideographs
        or w[-1] in ideographs
        or any(s in w for s in long)
    )


def missing(langs: Iterable[str]) -> list[str]:
    """The languages of ``langs`` without a stop-word list, sorted."""
    return sorted({lang for lang in langs if stop_words(lang) is None})
