"""Per-language text analysis for BM25, chosen from the languages registry.

Every text is first normalised: Unicode NFKC; invisible format characters
(soft hyphen, zero-width (non-)joiner, bidi marks, BOM, variation selectors)
deleted; ``casefold``. What happens next is chosen per language by three
columns of ``languages/languages.tsv`` (and of the generated
``languages/wikipedia.tsv``): ``tokenizer``, ``stemmer`` and ``analysis``.

The ``tokenizer`` column:

``whitespace``
    Unicode word splitting: maximal runs of letters, digits and (BMP) combining
    marks (so Devanagari vowel signs or Hebrew points stay inside their word);
    punctuation, symbols and ``_`` separate words and are dropped. Numbers with
    ``.``/``,`` separators (``1,200``, ``18.5``) are kept whole.
``snowball``
    The same words, each stemmed with the Snowball stemmer named in the
    ``stemmer`` column (PyStemmer, one stemmer per language and thread).
``bigram``
    For scripts written without spaces between words (Han, kana, Thai, Lao,
    Khmer, Myanmar, Tibetan): overlapping bigrams of the letters of each run of
    such characters, a letter being a base character with its combining marks; a
    run of one letter yields that letter. Runs of other characters inside the same
    text (Latin words, numbers, Cyrillic …) are kept as whole words.

The ``analysis`` column lists extra steps (comma-separated; :data:`STEPS`),
which always run in this order, whatever the order of the list:

1. before casefolding: ``turkic-i`` (``I``/``İ`` become ``ı``/``i``: tr, az);
2. before word splitting, so that a word is not cut in two:
   ``apostrophe-suffix`` drops the case suffix Turkish and Azerbaijani write
   after an apostrophe (``Boğazı'ndaki`` → ``boğazı``; the apostrophe written
   ``'``, ``’``, ``‘``, ``ʼ`` or a backtick); ``hebrew-geresh`` deletes a
   geresh/gershayim between Hebrew letters (``צה"ל`` and ``צה״ל`` → ``צהל``);
   ``inword-apostrophe`` deletes the Ukrainian apostrophe inside a word
   (``сім'я`` and ``сімʼя`` → ``сімя``);
3. on each word, before stemming: ``arabic-normalize``, the normalisation of
   Lucene's ``ArabicNormalizer`` (Larkey, Ballesteros & Connell 2007):
   diacritics (harakat, tanween, shadda, sukun, dagger alef …, U+064B–U+065F
   and U+0670) and tatweel deleted; ``أ إ آ ٱ`` → ``ا``; alef maksura ``ى`` →
   ``ي``; taa marbuta ``ة`` → ``ه``; Arabic-Indic digits → ``0``–``9``.
   ``fold-circumflex`` (Turkish) drops the optional circumflex of ``â î û``:
   TDK spelling writes ``millî``, ``resmî``, ``hâlâ``, much text ``milli``,
   ``resmi``, ``hala``;
4. the stem: the Snowball stemmer of a ``snowball`` language, or
   ``arabic-light-stem``, the light stemmer of Lucene's ``ArabicStemmer``
   ("light10", Larkey et al. 2007): one prefix of ``ال وال بال كال فال لل و``,
   then the suffixes ``ها ان ات ون ين يه ية ه ة ي`` in that order, each only if
   two letters remain (``و`` only if three remain);
5. added beside the stem: ``char4grams`` adds the character 4-grams of the
   stem of every alphabetic word of at least 4 letters, as terms of their own
   (``#`` + the 4-gram), so that a compound matches its parts (German:
   ``Universitätsgründung`` shares ``#univ`` … ``#itat`` with ``Universität``
   and ``#grun``, ``#rund`` with ``gegründet``; McNamee & Mayfield 2004). The
   grams come from the stem, so inflected forms give the same grams, and the
   German stemmer has already folded the umlauts.

Languages outside BorderLines come from the generated table
(``languages/wikipedia.tsv``), whose ``tokenizer`` was chosen by script: a
Snowball stemmer where PyStemmer has one (German, Dutch, Catalan, Basque,
Lithuanian, Polish …), ``whitespace`` words for other spaced scripts, and
``bigram`` for unspaced scripts. A stemmer that the installed PyStemmer lacks
falls back to ``whitespace``. Aliases resolve (``he`` → ``iw``, ``de-AT`` → ``de``).

There are no stopword lists: every word is indexed, and BM25's idf weighs
frequent words down. Each analyzer keeps the tokens of the words it has seen
(a word is analysed once), and :meth:`Analysis.encode` turns many texts into
``bm25s`` token ids in one pass (the vocabulary built as it goes).

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
    >>> analyze("هِيَ مدينةٌ فلسطينيّة", "ar")  # diacritics, taa marbuta, then light stemming
    ['هي', 'مدين', 'فلسطين']
    >>> analyze("हिन्दी भाषा", "hi")  # vowel signs stay in the word, then hindi stemming
    ['हिन्द', 'भाष']
    >>> analyze("Die Inselgruppe", "de")  # the stems, then the 4-grams of the stems
    ['die', 'inselgrupp', '#inse', '#nsel', '#selg', '#elgr', '#lgru', '#grup', '#rupp']
    >>> analyze("Les illes Balears són un arxipèlag", "ca")
    ['les', 'il', 'balear', 'son', 'un', 'arxipelag']
    >>> tokenize = analyzer("tr")
    >>> tokenize("İSTANBUL ve IRAK, Kardak Kayalıkları’nda, millî ve askerî")
    ['istanbul', 've', 'ırak', 'kardak', 'kayalık', 'milli', 've', 'asker']
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Callable, Iterable
from functools import cache, lru_cache
from itertools import chain
from typing import Any

from .. import languages
from .._extras import require
from ..languages import ANALYSIS_STEPS, Language

__all__ = [
    "ANALYSIS_VERSION",
    "Analysis",
    "STEPS",
    "analyzer",
    "analyze",
    "arabic_light_stem",
    "arabic_normalize",
    "describe",
    "normalize",
    "patterns",
    "words",
]

ANALYSIS_VERSION = 2
"""Bumped whenever an analysis changes a token: part of the BM25 signature and of saved indexes."""

STEPS = ANALYSIS_STEPS
"""The step names the ``analysis`` column may list (see the module docs for what each does)."""

Analyzer = Callable[[str], list[str]]

# invisible format characters that may sit inside a word: deleted before splitting
# (and variation selectors, e.g. the ideographic variants of Japanese names)
_VS = range(0xFE00, 0xFE10)
_DELETE = re.compile(
    "[\u00ad\u200c-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufe00-\ufe0f\ufeff\U000e0100-\U000e01ef]"
)
# text steps: deletions before word splitting, so that a word is not cut in two
_TEXT_STEPS: dict[str, re.Pattern[str]] = {
    # case suffixes Turkish and Azerbaijani write after an apostrophe (Ankara'da)
    "apostrophe-suffix": re.compile(r"(?<=\w)['’‘ʼ`]\w+"),
    # geresh/gershayim (ASCII or Hebrew) between Hebrew letters: acronyms (צה"ל) and loan sounds (ג')
    "hebrew-geresh": re.compile(r"(?<=[\u05d0-\u05ea])[\"'\u05f3\u05f4](?=[\u05d0-\u05ea])"),
    # the Ukrainian apostrophe, written ' ’ or ʼ, inside a word (сім'я, Прип'ять)
    "inword-apostrophe": re.compile(r"(?<=[\u0400-\u04ff])['’ʼ](?=[\u0400-\u04ff])"),
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
_CACHE_WORDS = 1 << 18
"""Distinct words whose tokens an analyzer keeps (then it stops adding; a word is at most 32 characters)."""
_CACHE_LEN = 32


def _char_class(ranges: Iterable[tuple[int, int]]) -> str:
    return "".join(
        re.escape(chr(lo)) if lo == hi else f"{re.escape(chr(lo))}-{re.escape(chr(hi))}"
        for lo, hi in ranges
    )


def _ranges(codepoints: Iterable[int]) -> list[tuple[int, int]]:
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


def _steps(lang: str | Language) -> frozenset[str]:
    if isinstance(lang, Language):
        return frozenset(lang.analysis)
    return frozenset(languages.get(lang).analysis) if lang else frozenset()


def normalize(text: str, lang: str | Language = "") -> str:
    """NFKC, invisible format characters deleted, ``_`` made a space, casefolded (``turkic-i`` languages: dotted/dotless i kept apart).

    Example:
        >>> normalize("ＫＵＲＩＬ Straße")
        'kuril strasse'
        >>> normalize("DİYARBAKIR", "tr")
        'diyarbakır'
    """
    text = _DELETE.sub("", unicodedata.normalize("NFKC", text)).replace("_", " ")
    if "turkic-i" in _steps(lang):
        text = text.replace("I", "ı").replace("İ", "i")
    return text.casefold()


class _Stemmers(threading.local):
    """PyStemmer objects are not thread-safe: one per (thread, algorithm)."""

    def __init__(self) -> None:
        self.by_algorithm: dict[str, object] = {}

    def get(self, algorithm: str) -> Any:
        stemmer = self.by_algorithm.get(algorithm)
        if stemmer is None:
            Stemmer = require("Stemmer", "bm25", purpose="Snowball stemming in BM25")
            stemmer = self.by_algorithm[algorithm] = Stemmer.Stemmer(algorithm)
        return stemmer


_STEMMERS = _Stemmers()


def _text_fixes(lang: Language) -> tuple[re.Pattern[str], ...]:
    return tuple(p for name, p in _TEXT_STEPS.items() if name in lang.analysis)


def words(text: str, lang: str | Language) -> list[str]:
    """The words of ``text`` as the analyzer sees them before any per-word step (normalised, text steps applied)."""
    language = lang if isinstance(lang, Language) else languages.get(lang)
    text = normalize(text, language)
    for fix in _text_fixes(language):
        text = fix.sub("", text)
    return patterns()[0].findall(text)


# --- Arabic (Lucene's ArabicNormalizer and ArabicStemmer, after Larkey et al. 2007) -------------

_AR_TABLE = {
    **{c: None for c in range(0x064B, 0x0660)},  # harakat, tanween, shadda, sukun, other marks
    0x0670: None,  # superscript (dagger) alef
    0x0640: None,  # tatweel
    0x0622: "ا",  # alef madda
    0x0623: "ا",  # alef hamza above
    0x0625: "ا",  # alef hamza below
    0x0671: "ا",  # alef wasla
    0x0649: "ي",  # alef maksura
    0x0629: "ه",  # taa marbuta
    **{0x0660 + d: str(d) for d in range(10)},  # Arabic-Indic digits
    **{0x06F0 + d: str(d) for d in range(10)},  # extended (Persian) Arabic-Indic digits
}
_CIRCUMFLEX = str.maketrans("âîû", "aiu")
_AR_PREFIXES = ("ال", "وال", "بال", "كال", "فال", "لل", "و")
_AR_SUFFIXES = ("ها", "ان", "ات", "ون", "ين", "يه", "ية", "ه", "ة", "ي")


def arabic_normalize(word: str) -> str:
    """Arabic orthographic normalisation (Lucene's ``ArabicNormalizer``, plus dagger alef, alef wasla, digits).

    Example:
        >>> arabic_normalize("إِسْلامِيَّة"), arabic_normalize("مستشفى"), arabic_normalize("٢٠١٤")
        ('اسلاميه', 'مستشفي', '2014')
    """
    return word.translate(_AR_TABLE)


def arabic_light_stem(word: str) -> str:
    """Lucene's ``ArabicStemmer`` (light10): one prefix, then each suffix in turn, two letters kept (three after ``و``).

    Expects a word normalised by :func:`arabic_normalize`.

    Example:
        >>> forms = ("والمدينة", "مدينة", "بالمدن", "مدن")
        >>> stems = [arabic_light_stem(arabic_normalize(w)) for w in forms]
        >>> stems
        ['مدين', 'مدين', 'مدن', 'مدن']
    """
    n = len(word)
    for p in _AR_PREFIXES:
        if word.startswith(p) and n >= (4 if len(p) == 1 else len(p) + 2):
            word = word[len(p) :]
            break
    for s in _AR_SUFFIXES:
        if len(word) >= len(s) + 2 and word.endswith(s):
            word = word[: -len(s)]
    return word


# --- the per-word pipeline ----------------------------------------------------------------------


def _bigram_fn(lang: str) -> Callable[[str], tuple[str, ...]]:
    _, run, letter = patterns()

    def bigrams(w: str) -> tuple[str, ...]:
        out: list[str] = []
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
        return tuple(out)

    return bigrams


def _word_fn(lang: Language) -> Callable[[str], tuple[str, ...]] | None:
    """Word → its tokens, for the language's steps 3-6 (``None``: each word is its own token)."""
    if lang.tokenizer == "bigram":
        return _bigram_fn(lang.code)
    steps = lang.analysis
    fns: list[Callable[[str], str]] = []
    if "arabic-normalize" in steps:
        fns.append(arabic_normalize)
    if "fold-circumflex" in steps:
        fns.append(lambda w: w.translate(_CIRCUMFLEX))
    if "arabic-light-stem" in steps:
        fns.append(arabic_light_stem)
    elif lang.tokenizer == "snowball" and lang.stemmer and _has_algorithm(lang.stemmer):
        algorithm = lang.stemmer
        _STEMMERS.get(algorithm)  # fail now, not at the first text, if PyStemmer is missing
        fns.append(lambda w: _STEMMERS.get(algorithm).stemWord(w))
    grams = "char4grams" in steps
    if not fns and not grams:
        return None

    def tokens(w: str) -> tuple[str, ...]:
        for fn in fns:
            w = fn(w)
        if not w:
            return ()
        if grams and len(w) >= 4 and w.isalpha():
            return (w, *("#" + w[i : i + 4] for i in range(len(w) - 3)))
        return (w,)

    return tokens


class _Tokens(dict[str, Any]):
    """word → its tokens, filled on first look-up (at most :data:`_CACHE_WORDS` words of up to 32 characters)."""

    __slots__ = ("fn",)

    def __init__(self, fn: Callable[[str], tuple[str, ...]]) -> None:
        super().__init__()
        self.fn = fn

    def __missing__(self, w: str) -> tuple[str, ...]:
        t = self.fn(w)
        if len(w) <= _CACHE_LEN and len(self) < _CACHE_WORDS:
            self[w] = t
        return t


class _Ids(dict[str, Any]):
    """word → its token ids (an int where every word has one token), the vocabulary built on the way."""

    __slots__ = ("fn", "vocab", "single", "empty")

    def __init__(self, fn: Callable[[str], tuple[str, ...]] | None, single: bool) -> None:
        super().__init__()
        self.fn = fn
        self.vocab: dict[str, int] = {}
        self.single = single
        self.empty = False
        """True once a word had no token (single mode marks it -1, removed afterwards)."""

    def __missing__(self, w: str) -> int | tuple[int, ...]:
        vocab = self.vocab
        toks = (w,) if self.fn is None else self.fn(w)
        ids: int | tuple[int, ...]
        if self.single:
            if toks:
                ids = vocab.setdefault(toks[0], len(vocab))
            else:
                ids, self.empty = -1, True
        else:
            ids = tuple(vocab.setdefault(t, len(vocab)) for t in toks)
        if len(w) <= _CACHE_LEN:
            self[w] = ids
        return ids


class Analysis:
    """The analysis of one language: call it on a text for its tokens; :meth:`encode` many texts to ids.

    Built by :func:`analyzer` (one per language code); keeps the tokens of up to
    2**18 distinct words (so a word is analysed once).
    """

    def __init__(self, lang: Language) -> None:
        self.language = lang
        self.code = lang.code
        self._fixes = _text_fixes(lang)
        self._turkic = "turkic-i" in lang.analysis
        self._word = _word_fn(lang)
        # one token per word: no bigrams, no n-grams (a stemmer maps a word to one stem)
        self._single = lang.tokenizer != "bigram" and "char4grams" not in lang.analysis
        self._cache = None if self._word is None else _Tokens(self._word)

    def words(self, text: str) -> list[str]:
        """The words of ``text`` before the per-word steps (see :func:`words`)."""
        text = _DELETE.sub("", unicodedata.normalize("NFKC", text)).replace("_", " ")
        if self._turkic:
            text = text.replace("I", "ı").replace("İ", "i")
        text = text.casefold()
        for fix in self._fixes:
            text = fix.sub("", text)
        return patterns()[0].findall(text)

    def __call__(self, text: str) -> list[str]:
        """The tokens of ``text`` (never an empty string)."""
        ws = self.words(text)
        if self._cache is None:
            return ws
        return list(chain.from_iterable(map(self._cache.__getitem__, ws)))

    def encode(self, texts: Iterable[str]) -> tuple[list[list[int]], dict[str, int]]:
        """Token ids of each text and the vocabulary (token → id, dense from 0), for ``bm25s.BM25.index``.

        The same tokens as calling the analysis on each text; each distinct word is analysed once.
        """
        memo = _Ids(self._word, self._single)
        get = memo.__getitem__
        words = self.words
        if self._single:
            docs = [list(map(get, words(text))) for text in texts]
            if memo.empty:
                docs = [[i for i in doc if i >= 0] for doc in docs]
        else:
            docs = [list(chain.from_iterable(map(get, words(text)))) for text in texts]
        return docs, memo.vocab

    def __repr__(self) -> str:
        return f"Analysis({self.code!r}: {describe(self.language)})"


def describe(lang: str | Language) -> str:
    """The analysis of a language in words, e.g. ``snowball:turkish+turkic-i,apostrophe-suffix,fold-circumflex``."""
    language = lang if isinstance(lang, Language) else languages.get(lang)
    base: str = language.tokenizer
    if language.tokenizer == "snowball":
        base += f":{language.stemmer}"
    return base + ("+" + ",".join(language.analysis) if language.analysis else "")


@cache
def analyzer(lang_code: str) -> Analysis:
    """The analysis of language ``lang_code`` (a BorderLines code: ``ru``, ``iw``, ``zhs`` …), built once.

    Raises:
        UnknownLanguageError: ``lang_code`` is not in the languages registry.
        MissingExtraError: the language is stemmed but PyStemmer is not installed.

    Example:
        >>> analyzer("el")("Τα Ίμια είναι βραχονησίδες")
        ['τα', 'ιμ', 'εινα', 'βραχονησιδ']
    """
    return Analysis(languages.get(lang_code))


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
