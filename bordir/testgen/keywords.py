"""Keywords of expected answers: choosing them, and the deterministic keyword match.

Every RAG-Tester test has a set of keywords that a correct answer should
contain; the judge rates **keyword match** True (all present), Partially
(some) or False (none). bordir also computes the match itself:

* a keyword is **present** in an answer when every analyzer token of the
  keyword (:mod:`bordir.retrieval.analysis`: normalised, stemmed where the
  language has a stemmer, bigrams for Chinese and Japanese) is among the
  answer's tokens, so inflected forms match (``islands`` / ``island``);
* all present → ``True``, some → ``Partially``, none → ``False``;
* a test without keywords (negative tests, whose expected answer is "not enough
  information") matches ``True`` if the answer is a refusal
  (:func:`bordir.testgen.phrases.is_refusal`) and ``False`` otherwise.

The template generator chooses keywords as the rarest words of the expected
answer (highest idf over the chunks of the same language, words of at least
three letters that are not stop words of the language, :mod:`bordir.testgen.stopwords`;
for scripts without spaces, three-letter strings scored by their rarer bigram).

Example:
    >>> keyword_match("The Kuril islands were occupied in 1945.", ("Kuril Islands", "1945", "Soviet"), "en")
    'Partially'
    >>> keyword_match("Не знаю.", (), "ru")
    'True'
    >>> present("Острова были заняты", "острова", "ru")
    True
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from .phrases import is_refusal
from .stopwords import is_stop_word

__all__ = ["Idf", "present", "keyword_match", "keyword_counts", "pick_keywords"]


def _tokens(text: str, lang: str) -> list[str]:
    from ..retrieval.analysis import analyze

    return analyze(text, lang)


def present(answer: str, keyword: str, lang: str) -> bool:
    """True if every analyzer token of ``keyword`` is among ``answer``'s tokens."""
    kw = set(_tokens(keyword, lang))
    return bool(kw) and kw <= set(_tokens(answer, lang))


def keyword_counts(answer: str, keywords: Sequence[str], lang: str) -> tuple[int, int]:
    """(keywords present, keywords) for ``answer``."""
    return sum(present(answer, k, lang) for k in keywords), len(keywords)


def keyword_match(answer: str, keywords: Sequence[str], lang: str) -> str:
    """``True`` / ``Partially`` / ``False`` (see module docs)."""
    if not keywords:
        return "True" if is_refusal(answer, lang) else "False"
    hit, n = keyword_counts(answer, keywords, lang)
    return "True" if hit == n else ("Partially" if hit else "False")


class Idf:
    """Inverse document frequency of analyzer tokens over chunks, per language: ``log((N+1)/(df+1)) + 1``."""

    def __init__(self, chunks: Iterable[Any], *, tokens: Iterable[set[str]] | None = None) -> None:
        """``tokens``: the analyzer tokens of each chunk, when the caller has them already."""
        self.df: dict[str, Counter[str]] = {}
        self.n: Counter[str] = Counter()
        chunks = list(chunks)
        toks = tokens if tokens is not None else (set(_tokens(c.text, c.lang)) for c in chunks)
        for c, t in zip(chunks, toks):
            self.n[c.lang] += 1
            self.df.setdefault(c.lang, Counter()).update(t)

    def __call__(self, token: str, lang: str) -> float:
        df = self.df.get(lang, Counter()).get(token, 0)
        return math.log((self.n[lang] + 1) / (df + 1)) + 1.0

    def occurs(self, text: str, lang: str) -> bool:
        """True if every token of ``text`` occurs in some chunk of ``lang`` (not necessarily the same one)."""
        toks = _tokens(text, lang)
        df = self.df.get(lang, Counter())
        return bool(toks) and all(df.get(t, 0) > 0 for t in toks)


_ASCII_SPLIT = re.compile(r"[0-9A-Za-z]+|[^0-9A-Za-z]+")


def _letters(word: str) -> int:
    return sum(1 for ch in word if unicodedata.category(ch)[0] == "L")


def _surface(text: str) -> list[str]:
    """Words of ``text`` as written, combining marks (Arabic tanween, Devanagari vowel signs) inside the word."""
    from ..retrieval import analysis

    return [w for w in analysis.patterns()[0].findall(text) if "_" not in w]


def _candidates(text: str, lang: str) -> list[str]:
    """Words that may be keywords: no stop word of the language (:mod:`bordir.testgen.stopwords`)."""
    from .. import languages

    nospace = languages.get(lang).tokenizer == "bigram"
    return [
        w
        for w in _raw_candidates(text, lang, nospace)
        if not is_stop_word(w, lang, nospace=nospace)
    ]


def _raw_candidates(text: str, lang: str, nospace: bool) -> list[str]:
    if not nospace:
        return [w for w in _surface(text) if _letters(w) >= 3 or (w.isdigit() and len(w) == 4)]
    out = []
    for run in _surface(text):
        for part in _ASCII_SPLIT.findall(
            run
        ):  # digits and Latin words inside a run are words of their own
            if part.isascii():
                if (part.isdigit() and len(part) == 4) or (not part.isdigit() and len(part) >= 3):
                    out.append(part)
            else:
                out.extend(part[i : i + 3] for i in range(max(len(part) - 2, 1)))
    return out


def pick_keywords(
    text: str, lang: str, idf: Idf, *, k: int = 3, exclude: Iterable[str] = ()
) -> tuple[str, ...]:
    """The ``k`` rarest distinct words of ``text`` (ties: first occurrence), in text order.

    Words whose tokens are in ``exclude`` (e.g. the document title) are skipped.
    """
    skip = {t for e in exclude for t in _tokens(e, lang)}
    scored: list[tuple[float, int, str]] = []
    seen: set[tuple[str, ...]] = set()
    for pos, w in enumerate(_candidates(text, lang)):
        toks = tuple(_tokens(w, lang))
        if not toks or toks in seen or set(toks) <= skip:
            continue
        seen.add(toks)
        score = min(idf(t, lang) for t in toks)
        scored.append((-score, pos, w))
    if not scored and skip:  # only title words: use them
        return pick_keywords(text, lang, idf, k=k)
    best = sorted(scored)[:k]
    return tuple(w for _, _, w in sorted(best, key=lambda x: x[1]))
