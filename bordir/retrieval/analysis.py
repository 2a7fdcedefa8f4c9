"""Per-language text analysis for BM25, chosen from the languages registry.

Every text is first normalised: Unicode NFKC; invisible format characters
(soft hyphen, zero-width (non-)joiner, bidi marks, BOM, variation selectors)
deleted; ``casefold``. For Turkish and Azerbaijani, ``I``/``İ`` become
``ı``/``i`` before casefolding and the suffix after an apostrophe is dropped
(``Boğazı'ndaki`` → ``boğazı``). What happens next depends on the language's
``tokenizer`` column in ``languages/languages.tsv``:

``whitespace``
    Unicode word splitting: maximal runs of letters, digits and (BMP) combining
    marks (so Devanagari vowel signs or Hebrew points stay inside their word);
    punctuation, symbols and ``_`` separate words and are dropped. Some
    words are kept whole: numbers with ``.``/``,`` separators (``1,200``,
    ``18.5``); Hebrew acronyms, whose geresh/gershayim between letters is
    deleted (``צה"ל`` and ``צה״ל`` → ``צהל``); Ukrainian words with an
    apostrophe, which is deleted (``сім'я`` and ``сімʼя`` → ``сімя``).
``snowball``
    The same words, each stemmed with the Snowball stemmer named in the
    ``stemmer`` column (PyStemmer, one stemmer per language and thread).
``bigram``
    For scripts written without spaces between words (Han, kana, Thai, Lao,
    Khmer, Myanmar, Tibetan): overlapping bigrams of the letters of each run of
    such characters, a letter being a base character with its combining marks; a
    run of one letter yields that letter. Runs of other characters inside the same
    text (Latin words, numbers, Cyrillic …) are kept as whole words.

Languages outside BorderLines come from the generated table
(``languages/wikipedia.tsv``), whose ``tokenizer`` was chosen by script: a
Snowball stemmer where PyStemmer has one (German, Dutch, Catalan, Basque,
Lithuanian, Polish …), ``whitespace`` words for other spaced scripts, and
``bigram`` for unspaced scripts. A stemmer that the installed PyStemmer lacks
falls back to ``whitespace`` words. Aliases resolve (``he`` → ``iw``, ``de-AT`` → ``de``).

There are no stopword lists: every word is indexed, and BM25's idf weighs
frequent words down.

Example:
    >>> analyze("Крымский полуостров", "ru")
    ['крымск', 'полуостр']
    >>> analyze("The Kuril Islands' disputed status", "en")
    ['the', 'kuril', 'island', 'disput', 'status']
    >>> analyze("钓鱼岛及其附属岛屿", "zhs")
    ['钓鱼', '鱼岛', '岛及', '及其', '其附', '附属', '属岛', '岛屿']
    >>> analyze("尖閣諸島は2012年に国有化", "ja")
    ['尖閣', '閣諸', '諸島', '島は', '2012', '年に', 'に国', '国有', '有化']
    >>> analyze('רמת הגולן, צה"ל, 1,200 מ׳', "iw")
    ['רמת', 'הגולן', 'צהל', '1,200', 'מ']
    >>> analyze("Прип’ять і сім'я", "uk")
    ['припять', 'і', 'сімя']
    >>> analyze("مرتفعات الجولان", "ur")
    ['مرتفعات', 'الجولان']
    >>> analyze("हिन्दी भाषा", "hi")  # vowel signs stay in the word, then hindi stemming
    ['हिन्द', 'भाष']
    >>> analyze("Die Inseln wurden besetzt", "de")
    ['die', 'insel', 'wurd', 'besetzt']
    >>> analyze("Les illes Balears són un arxipèlag", "ca")
    ['les', 'il', 'balear', 'son', 'un', 'arxipelag']
    >>> tokenize = analyzer("tr")
    >>> tokenize("İSTANBUL ve IRAK, Kardak Kayalıkları'nda")
    ['istanbul', 've', 'ırak', 'kardak', 'kayalık']
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Callable
from functools import cache, lru_cache

from .. import languages
from .._extras import require
from ..languages import Language

__all__ = ["analyzer", "analyze", "normalize", "patterns", "words"]

Analyzer = Callable[[str], list[str]]

# invisible format characters that may sit inside a word: deleted before splitting
# (and variation selectors, e.g. the ideographic variants of Japanese names)
_VS = range(0xFE00, 0xFE10)
_DELETE = re.compile(
    "[\u00ad\u200c-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufe00-\ufe0f\ufeff\U000e0100-\U000e01ef]"
)
_TURKIC = ("tr", "az")
# language-specific deletions before word splitting, so that a word is not cut in two
_APOSTROPHE_SUFFIX = re.compile(r"(?<=\w)['’ʼ]\w+")
_WORD_FIXES: dict[str, re.Pattern[str]] = {
    # geresh/gershayim (ASCII or Hebrew) between Hebrew letters: acronyms (צה"ל) and loan sounds (ג')
    "iw": re.compile(r"(?<=[\u05d0-\u05ea])[\"'\u05f3\u05f4](?=[\u05d0-\u05ea])"),
    # the Ukrainian apostrophe, written ' ’ or ʼ, inside a word (сім'я, Прип'ять)
    "uk": re.compile(r"(?<=[\u0400-\u04ff])['’ʼ](?=[\u0400-\u04ff])"),
    # case suffixes Turkish and Azerbaijani write after an apostrophe (Ankara'da)
    "tr": _APOSTROPHE_SUFFIX,
    "az": _APOSTROPHE_SUFFIX,
}
# Unicode blocks of scripts written without spaces between words (analysed as bigrams)
_NOSPACE_BLOCKS = (
    (0x0E00, 0x0E7F),  # Thai
    (0x0E80, 0x0EFF),  # Lao
    (0x0F00, 0x0FFF),  # Tibetan
    (0x1000, 0x109F),  # Myanmar
    (0x1780, 0x17FF),  # Khmer
    (0x19E0, 0x19FF),  # Khmer symbols
    (0x3005, 0x3007),  # 々 〆 〇
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x3100, 0x312F),  # Bopomofo
    (0x31F0, 0x31FF),  # Katakana phonetic extensions
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xA9E0, 0xA9FF),  # Myanmar extended-B
    (0xAA60, 0xAA7F),  # Myanmar extended-A
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0x20000, 0x3134F),  # CJK extensions B-G
)


def _char_class(ranges) -> str:
    return "".join(
        re.escape(chr(lo)) if lo == hi else f"{re.escape(chr(lo))}-{re.escape(chr(hi))}"
        for lo, hi in ranges
    )


def _ranges(codepoints) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for c in codepoints:
        if out and out[-1][1] == c - 1:
            out[-1] = (out[-1][0], c)
        else:
            out.append((c, c))
    return out


@lru_cache(maxsize=1)
def patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """(word, no-space-script run, letter-with-marks) patterns, built once (~10 ms)."""
    # combining marks (Mn/Mc/Me) of the BMP, where every script of the registry lives; a class that
    # also held the supplementary planes would make `re` test ranges one by one (3x slower)
    marks = [
        c for c in range(0x10000) if unicodedata.category(chr(c)).startswith("M") and c not in _VS
    ]
    m = _char_class(_ranges(marks))
    word = re.compile(
        rf"\d+(?:[.,]\d+)+|[\w{m}]+"
    )  # "_" is a word character for re: see normalize()
    nospace = _char_class(_NOSPACE_BLOCKS)
    run = re.compile(rf"[{nospace}]+")
    letter = re.compile(rf"[^{m}][{m}]*|[{m}]+")
    return word, run, letter


def normalize(text: str, lang: str | Language = "") -> str:
    """NFKC, invisible format characters deleted, ``_`` made a space, casefolded (Turkic dotted/dotless i kept apart).

    Example:
        >>> normalize("ＫＵＲＩＬ Straße")
        'kuril strasse'
        >>> normalize("DİYARBAKIR", "tr")
        'diyarbakır'
    """
    text = _DELETE.sub("", unicodedata.normalize("NFKC", text)).replace("_", " ")
    if str(lang) in _TURKIC:
        text = text.replace("I", "ı").replace("İ", "i")
    return text.casefold()


class _Stemmers(threading.local):
    """PyStemmer objects are not thread-safe: one per (thread, algorithm)."""

    def __init__(self) -> None:
        self.by_algorithm: dict[str, object] = {}

    def get(self, algorithm: str):
        stemmer = self.by_algorithm.get(algorithm)
        if stemmer is None:
            Stemmer = require("Stemmer", "bm25", purpose="Snowball stemming in BM25")
            stemmer = self.by_algorithm[algorithm] = Stemmer.Stemmer(algorithm)
        return stemmer


_STEMMERS = _Stemmers()


def words(text: str, lang: str) -> list[str]:
    """The words of ``text`` as the analyzer sees them before stemming (normalised, per-language fixes)."""
    text = normalize(text, lang)
    fix = _WORD_FIXES.get(lang)
    if fix is not None:
        text = fix.sub("", text)
    return patterns()[0].findall(text)


def _bigrams(text: str, lang: str) -> list[str]:
    word, run, letter = patterns()
    out: list[str] = []
    for w in word.findall(normalize(text, lang)):
        pos = 0
        for r in run.finditer(w):
            if r.start() > pos:
                out.append(w[pos : r.start()])
            letters = letter.findall(r.group())
            if len(letters) == 1:
                out.append(letters[0])
            else:
                out.extend(a + b for a, b in zip(letters, letters[1:]))
            pos = r.end()
        if pos < len(w):
            out.append(w[pos:])
    return out


@cache
def analyzer(lang_code: str) -> Analyzer:
    """The analysis function of language ``lang_code`` (a BorderLines code: ``ru``, ``iw``, ``zhs`` …).

    Raises:
        UnknownLanguageError: ``lang_code`` is not in the languages registry.
        MissingExtraError: the language is stemmed but PyStemmer is not installed.

    Example:
        >>> analyzer("el")("Τα Ίμια είναι βραχονησίδες")
        ['τα', 'ιμ', 'εινα', 'βραχονησιδ']
    """
    lang = languages.get(lang_code)
    code = lang.code
    if lang.tokenizer == "bigram":
        return lambda text: _bigrams(text, code)
    if lang.tokenizer == "snowball" and lang.stemmer and _has_algorithm(lang.stemmer):
        algorithm = lang.stemmer
        _STEMMERS.get(algorithm)  # fail now, not at the first text, if PyStemmer is missing

        def stem(text: str) -> list[str]:
            return [s for s in _STEMMERS.get(algorithm).stemWords(words(text, code)) if s]

        return stem
    return lambda text: words(text, code)


def _has_algorithm(algorithm: str) -> bool:
    """True if PyStemmer has ``algorithm``; raises MissingExtraError if PyStemmer is not installed."""
    Stemmer = require("Stemmer", "bm25", purpose="Snowball stemming in BM25")
    return algorithm in Stemmer.algorithms()


def analyze(text: str, lang: str | Language) -> list[str]:
    """The BM25 tokens of ``text`` in language ``lang`` (a code or a :class:`~bordir.languages.Language`).

    Never returns empty strings; the same text and language always give the same tokens.

    Example:
        >>> analyze("Gibraltar Boğazı'ndaki Ceuta", "tr")
        ['gibraltar', 'boğaz', 'ceu']
    """
    return analyzer(str(lang))(text)
