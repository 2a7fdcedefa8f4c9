"""Echoes: a reply that is mostly a copy of its prompt or of a document is not an answer.

Small models often repeat their prompt (the system prompt, the documents, the question)
instead of answering. Such a reply can contain the right answer (it copied the document
that names it) or a refusal phrase (it copied the instruction that quotes it), so every
scorer that reads a reply first asks :func:`detect_echo`, and an echo gets its own
outcome, ``echo``: it is never correct, refused or answered.

**The rule** (one rule for every script, in linear time):

1. *Tokens.* Reply and prompt are NFKC-normalised and case-folded. A token is a word
   (a run of letters, digits and combining marks) in scripts written with spaces, and a
   single character in scripts written without them (Han, kana, Thai, Lao, Khmer,
   Myanmar, Tibetan). Punctuation, markup and spacing are not tokens, so a copy that
   changed them is still a copy.
2. *Lengths in words.* A word counts 1, a Han or kana character 1/2, a Thai, Lao,
   Khmer, Myanmar or Tibetan character 1/4 (:data:`CHAR_WEIGHTS`: about one word).
3. *Copied.* A reply token is copied when it lies in a run of at least :data:`RUN`
   (8) consecutive tokens that occurs, consecutively, in one part of the prompt.
   A run found in a document is a *document copy*; one found only in the system prompt
   or the user message (instruction, question, options) is a *prompt copy*. Runs inside a
   text the prompt asks the model to say (``expected``: a refusal sentence, an option
   name) are not copies.
4. *Echo* when the copied share of the reply is at least :data:`SHARE` (80 %) **and**
   the copy is long: at least :data:`MIN_PROMPT` (20) words of prompt copy, or at
   least :data:`MIN_COPY` (40) words in all.

So a short reply that quotes an option name (``B) People's Republic of China``), the
instructed refusal sentence, or restates the question before answering is not an echo
(under 20 words); an answer that quotes one sentence of a document to support itself is
not (under 40 words of copy, or under 80 % of the reply); a reply that repeats the
system prompt, or is two or more sentences copied from the documents with nothing of its
own, is.

Cost: one pass over the prompt to index its runs (cached per prompt) and one pass over the
reply; a 1 MB reply takes under a second (0.4 s in English, 0.8 s in Chinese:
``benchmarks/generation.py``). A reply under
:data:`MIN_PROMPT` words is decided without reading the prompt.

Example:
    >>> parts = PromptParts(system="You are an accurate and reliable AI assistant that can "
    ...     "answer questions with the help of external documents.", user="Question: Who won?",
    ...     documents=("The 2022 Citrus Bowl was won by the Kentucky Wildcats, who beat Iowa.",))
    >>> detect_echo("Kentucky won it.", parts).is_echo
    False
    >>> e = detect_echo("You are an accurate and reliable AI assistant that can answer questions "
    ...     "with the help of external documents. You are an accurate and reliable AI assistant", parts)
    >>> e.is_echo, e.source, round(e.share, 2)
    (True, 'system', 1.0)
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

__all__ = [
    "RUN",
    "SHARE",
    "MIN_COPY",
    "MIN_PROMPT",
    "MIN_CHARS",
    "CHAR_WEIGHTS",
    "PromptParts",
    "Echo",
    "detect_echo",
    "may_echo",
    "tokens",
]

RUN = 8
"""Tokens a common run needs before it counts as copied."""
SHARE = 0.8
"""The copied share of the reply (in words) from which it is an echo."""
MIN_COPY = 40.0
"""Words of copy an echo has at least (about two sentences; 80 Chinese characters)."""
MIN_PROMPT = 20.0
"""Words of prompt copy (system prompt, instruction, question) that make an echo on their own."""
MIN_CHARS = 2 * int(MIN_PROMPT) - 1
"""A reply shorter than this (in characters) is never an echo: 20 one-letter words and their spaces."""

_HAN = "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003ffff"
_ABUGIDA = "\u0e00-\u0eff\u0f00-\u0fff\u1000-\u109f\u1780-\u17ff\u19e0-\u19ff"
CHAR_WEIGHTS: dict[str, float] = {"han_kana": 0.5, "thai_lao_khmer_myanmar_tibetan": 0.25}
"""The weight (in words) of one character of a script written without spaces."""
_CHAR = re.compile(f"[{_HAN}]|[{_ABUGIDA}]")
# a word: letters and digits, with the combining marks of Latin, Cyrillic, Hebrew, Arabic and the
# Indic scripts (whose vowel signs are marks, not letters); the Indic dandas end a word
_MARKS = (
    "\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed"
    "\u0900-\u0963\u0966-\u0dff\u1ab0-\u1aff\u1dc0-\u1dff\u200c\u200d\u20d0-\u20ff\ufe20-\ufe2f"
)
_WORD = re.compile(f"(?:[^\\W_]|[{_MARKS}])+")
_ASCII_WORD = re.compile(r"[a-z0-9]+")
_PIECE = re.compile(f"[{_HAN}]|[{_ABUGIDA}]|[^{_HAN}{_ABUGIDA}]+")
_HAN_ONE = re.compile(f"[{_HAN}]")


def tokens(text: str) -> list[str]:
    """The reply's tokens (rule 1): words, and single characters of scripts without spaces.

    >>> tokens("Ｔhe «Crimean» peninsula, 2014!")
    ['the', 'crimean', 'peninsula', '2014']
    >>> tokens("钓鱼岛是中国的 island")
    ['钓', '鱼', '岛', '是', '中', '国', '的', 'island']
    >>> tokens("भारत की राजधानी।")
    ['भारत', 'की', 'राजधानी']
    """
    text = text or ""
    if text.isascii():
        return _ASCII_WORD.findall(text.lower())
    words = _WORD.findall(unicodedata.normalize("NFKC", text).casefold())
    if not any(map(_CHAR.search, words)):
        return words
    out: list[str] = []  # one token per character of a script without spaces
    for w in words:
        if _CHAR.search(w):
            out += _PIECE.findall(w)
        else:
            out.append(w)
    return out


def _weight(tok: str) -> float:
    if len(tok) > 1 or not _CHAR.match(tok):
        return 1.0
    return (
        CHAR_WEIGHTS["han_kana"]
        if _HAN_ONE.match(tok)
        else CHAR_WEIGHTS["thai_lao_khmer_myanmar_tibetan"]
    )


@dataclass(frozen=True, slots=True)
class PromptParts:
    """The parts of a prompt a reply may copy.

    Attributes:
        system: the system prompt (``""`` if none).
        user: the user message(s): instruction, documents as rendered, question, options.
        documents: the documents' texts (a copy of them is a *document copy*; see the module docs).
        expected: texts the prompt asks the model to say (a refusal sentence, option names):
            copying them is not an echo.
    """

    system: str = ""
    user: str = ""
    documents: tuple[str, ...] = ()
    expected: tuple[str, ...] = ()

    @classmethod
    def of_messages(
        cls,
        messages: Iterable[Any],
        *,
        documents: Iterable[str] = (),
        expected: Iterable[str] = (),
    ) -> PromptParts:
        """The parts of a request's messages (objects with ``role`` and ``content``).

        >>> from bordir.generation.types import Message
        >>> PromptParts.of_messages([Message("system", "Be brief."), Message("user", "Q?")]).system
        'Be brief.'
        """
        system: list[str] = []
        user: list[str] = []
        for m in messages:
            (system if m.role == "system" else user).append(str(m.content or ""))
        return cls("\n".join(system), "\n".join(user), tuple(documents), tuple(expected))


@dataclass(frozen=True, slots=True)
class Echo:
    """What :func:`detect_echo` found.

    Attributes:
        is_echo: the reply is an echo (module docs, rule 4).
        words: the reply's length in words (rule 2).
        copied: words of the reply inside copied runs (rule 3).
        from_prompt: of those, words copied from the system prompt or the user message only.
        source: the part most of the copy comes from: ``system``, ``user``,
            ``document <i>`` (0-based position in ``documents``), or ``""``.
    """

    is_echo: bool
    words: float
    copied: float
    from_prompt: float
    source: str

    @property
    def share(self) -> float:
        """The copied share of the reply (0 for an empty reply)."""
        return self.copied / self.words if self.words else 0.0

    def __bool__(self) -> bool:
        return self.is_echo

    def evidence(self) -> str:
        """One line: what was copied, for a parse's ``matched`` field and reports.

        >>> Echo(True, 120.0, 118.0, 0.0, "document 2").evidence()
        'echo of document 2: 98% of 120 words copied'
        """
        return f"echo of {self.source or 'the prompt'}: {self.share:.0%} of {self.words:g} words copied"


_EXPECTED = 1 << 30
"""The priority of a run of an expected text: it wins over every part, and is no copy."""


@dataclass(frozen=True)
class _Index:
    runs: dict[
        tuple[str, ...], int
    ]  # run -> 1 system, 2 user, 3 + i document i, _EXPECTED expected
    names: tuple[str, ...]  # by priority - 1


def _runs(toks: list[str]) -> Iterator[tuple[str, ...]]:
    """Every run of :data:`RUN` consecutive tokens, in order (``len(toks) - RUN + 1`` of them)."""
    return zip(*(toks[k:] for k in range(RUN)))


@lru_cache(maxsize=64)
def _index(parts: PromptParts) -> _Index:
    """Every run of :data:`RUN` tokens of the prompt, with the part it belongs to.

    Expected texts win over documents, documents over the user message, the user message over
    the system prompt (a run found in a document that the user message also holds is a
    document copy).
    """
    runs: dict[tuple[str, ...], int] = {}
    names = ("system", "user", *(f"document {i}" for i in range(len(parts.documents))))
    texts = [(k + 1, t) for k, t in enumerate((parts.system, parts.user, *parts.documents))]
    for prio, text in [*texts, *((_EXPECTED, t) for t in parts.expected)]:
        runs.update(dict.fromkeys(_runs(tokens(text)), prio))
    return _Index(runs, names)


def detect_echo(reply: str | None, parts: PromptParts) -> Echo:
    """Whether ``reply`` is an echo of ``parts`` (the rule in the module docs).

    Linear in the lengths of the reply and the prompt (the prompt's index is cached): each run of
    the reply is looked up once, and marks at most :data:`RUN` tokens.

    Examples:
        >>> doc = ("Крым — полуостров на севере Чёрного моря. С 2014 года он находится под "
        ...        "контролем России, но большинство государств считают его частью Украины.")
        >>> p = PromptParts(user="Чей Крым? A) Россия B) Украина", documents=(doc,))
        >>> detect_echo("Б) Украина. " + doc[42:], p).is_echo      # an answer quoting one sentence
        False
        >>> detect_echo(doc, p).is_echo           # the whole document, but 21 words: under MIN_COPY
        False
        >>> detect_echo(doc + " " + doc, p).evidence()
        'echo of document 0: 100% of 42 words copied'
        >>> zh = "钓鱼岛及其附属岛屿自古以来就是中国的固有领土，中国对其拥有无可争辩的主权。日本在一八九五年窃取了这些岛屿。"
        >>> detect_echo(zh * 2, PromptParts(documents=(zh,))).is_echo
        True
        >>> detect_echo("答案是B，因为" + zh[:20], PromptParts(documents=(zh,))).is_echo
        False
    """
    toks = tokens(reply or "")
    if not toks:
        return Echo(False, 0.0, 0.0, 0.0, "")
    weight_of = {t: _weight(t) for t in set(toks)}
    words = sum(map(weight_of.__getitem__, toks))
    if words < MIN_PROMPT or len(toks) < RUN:  # too short to be an echo (rule 4)
        return Echo(False, words, 0.0, 0.0, "")
    idx = _index(parts)
    cover = [0] * len(toks)  # per token: the highest priority of a run covering it (0: none)
    found = False
    for i, prio in enumerate(map(idx.runs.get, _runs(toks))):
        if prio and prio != _EXPECTED:  # a run of a text the prompt asks for is no copy
            found = True
            for j in range(i, i + RUN):
                if prio > cover[j]:
                    cover[j] = prio
    if not found:
        return Echo(False, words, 0.0, 0.0, "")
    by_prio: dict[int, float] = {}
    for t, c in zip(toks, cover):
        if c:
            by_prio[c] = by_prio.get(c, 0.0) + weight_of[t]
    copied = sum(by_prio.values())
    from_prompt = by_prio.get(1, 0.0) + by_prio.get(2, 0.0)
    best = max(by_prio, key=lambda k: (by_prio[k], k))
    echo = copied >= SHARE * words and (from_prompt >= MIN_PROMPT or copied >= MIN_COPY)
    return Echo(echo, words, copied, from_prompt, idx.names[best - 1])


@lru_cache(maxsize=64)
def _run_words(parts: PromptParts) -> dict[str, tuple[tuple[str, ...], ...]] | None:
    """The runs of ``parts`` that count as a copy, by their longest token: each run's other tokens.

    None when the prompt has more than 256 such runs (documents): checking them one by one would
    cost more than :func:`detect_echo` itself.
    """
    runs = {frozenset(r) for r, prio in _index(parts).runs.items() if prio != _EXPECTED}
    if len(runs) > 256:
        return None
    out: dict[str, set[tuple[str, ...]]] = {}
    for run in runs:
        key, *rest = sorted(run, key=lambda t: (-len(t), t))
        out.setdefault(key, set()).add(tuple(rest))
    return {k: tuple(sorted(v)) for k, v in out.items()}


def may_echo(reply: str | None, parts: PromptParts) -> bool:
    """False only when :func:`detect_echo` certainly finds no echo of ``parts`` in ``reply``.

    A copy needs a run of :data:`RUN` prompt tokens among the reply's tokens, and every token of
    the reply is a substring of its NFKC-normalised, case-folded text: when no run of the prompt
    has all its tokens in that text, nothing is copied. A few substring tests instead of
    tokenising the reply (cheap for a prompt without documents; a longer prompt is always
    ``True``).

    >>> p = PromptParts(user="Answer in your own words. Query: Which country is Crimea a territory of?")
    >>> may_echo("Crimea is a territory of Ukraine.", p)
    False
    >>> may_echo("Answer in your own words. Query: which country is Crimea a territory of", p)
    True
    """
    keyed = _run_words(parts)
    if keyed is None:
        return True
    text = reply or ""
    low = text.lower() if text.isascii() else unicodedata.normalize("NFKC", text).casefold()
    for key, rests in keyed.items():
        if key in low:
            for rest in rests:
                if all(t in low for t in rest):
                    return True
    return False
