"""Label one prediction: RGB's rules (``policy="rgb"``) and bordir's own (``policy="bordir"``).

**RGB** (``evalue.py``, ``predict`` and ``checkanswer``), to the letter:

1. Chinese questions: every space is removed from the prediction (RGB tests
   ``'zh' in dataset``; here: ``zhs``, ``zht`` and RGB's ``zh``).
2. If the prediction contains a refusal phrase — *case-sensitive*, before any
   lower-casing — the label is ``[-1]`` ("rejected", not wrong).
3. Else ``checkanswer``: the prediction is lower-cased; each answer part gives
   1 if it is found (a list of aliases: any alias is a substring; a string: it
   is a substring), else 0.
4. ``factlabel`` is 1 if the prediction contains an error phrase (case-sensitive).
5. Correct means ``0 not in labels and 1 in labels``.

RGB knows the phrases ``insufficient information`` / ``信息不足`` and ``factual
errors`` / ``事实性错误``; for another language the rgb policy adds that
language's own phrases (:mod:`~bordir.testbeds.instructions`). A failed call
(no prediction) is ``failed``; RGB's loop skips it, so rgb aggregates leave it out.

**bordir** differs where RGB's rules are brittle: text is NFKC-normalised and
case-folded, and whitespace is removed from prediction, phrases and answers
alike before matching; a verbatim echo of the system prompt (which contains
both phrases; small models repeat it) is removed first; the refusal and error phrases of *every* shipped
language are recognised; a territorial (multiple-choice) part is decided by
:func:`bordir.generation.parse.parse_answer` (option letters, native and
English names, a longer name hiding a shorter one) instead of a substring
test — for a two-question (integration) prompt on the segment after the
line-initial ``1.`` / ``2.`` when the answer is numbered so; a failed call stays in the aggregates as an explicit ``failed`` outcome.

Example:
    >>> s = score("The answer is 12人.", ("12人",), "en", policy="rgb")
    >>> s.labels, s.correct, s.rejected
    ((1,), True, False)
    >>> score("I can not answer the question because of the insufficient information in documents.",
    ...       ("12人",), "en", policy="rgb").labels
    (-1,)
    >>> score("INSUFFICIENT INFORMATION", ("x",), "en", policy="rgb").rejected   # RGB is case-sensitive
    False
    >>> score("INSUFFICIENT INFORMATION", ("x",), "en", policy="bordir").rejected
    True
    >>> score("Je ne peux pas répondre : informations insuffisantes.", ("x",), "fr", policy="rgb").rejected
    True
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from ..errors import ConfigError
from ..policies import TESTBED_POLICIES
from .instructions import RGB_LANG_ALIASES, instructions
from .rgb_data import AnswerPart

__all__ = [
    "Policy",
    "POLICIES",
    "Scored",
    "checkanswer",
    "score",
    "rgb_phrases",
    "bordir_phrases",
    "normalize",
    "is_correct",
    "strip_echo",
    "ZH_LANGS",
]

Policy = Literal["rgb", "bordir"]
POLICIES: tuple[str, ...] = TESTBED_POLICIES.names()
ZH_LANGS = frozenset({"zh", "zhs", "zht"})
"""Languages whose predictions RGB strips of spaces."""

RGB_REFUSAL = ("信息不足", "insufficient information")
RGB_ERROR = ("事实性错误", "factual errors")


@dataclass(frozen=True, slots=True)
class Scored:
    """One prediction's labels.

    Attributes:
        labels: ``(-1,)`` when rejected, else one 0/1 per answer part (RGB's ``label``).
        rejected: the refusal phrase was found.
        fact_flag: the error phrase was found (RGB's ``factlabel``).
        correct: ``0 not in labels and 1 in labels``.
        outcome: ``correct``, ``wrong``, ``rejected``, ``failed``; bordir on
            multiple-choice parts may also give ``multiple``, ``unparsed``, ``refused``.
        policy: the policy that labelled it.
    """

    labels: tuple[int, ...]
    rejected: bool
    fact_flag: bool
    correct: bool
    outcome: str
    policy: str


def is_correct(labels: Sequence[int]) -> bool:
    """RGB's accuracy test: ``0 not in label and 1 in label``."""
    return 0 not in labels and 1 in labels


def checkanswer(prediction: str, ground_truth: Any) -> list[int]:
    """RGB's ``checkanswer``: one 0/1 per answer part (lower-cased substring tests).

    >>> checkanswer("Ans: Serena", [["serena williams", "Serena"], "2023"])
    [1, 0]
    """
    prediction = prediction.lower()
    if not isinstance(ground_truth, (list, tuple)):
        ground_truth = [ground_truth]
    labels = []
    for part in ground_truth:
        if isinstance(part, (list, tuple)):
            flag = any(a.lower() in prediction for a in part)
        else:
            flag = part.lower() in prediction
        labels.append(int(flag))
    return labels


def _lang(lang: str) -> str:
    return RGB_LANG_ALIASES.get(lang, lang)


def rgb_phrases(lang: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(refusal phrases, error phrases) under the rgb policy: RGB's two of each plus ``lang``'s own."""
    ins = instructions().get(_lang(lang))
    refusal = tuple(dict.fromkeys([*RGB_REFUSAL, *([ins.refusal_phrase] if ins else [])]))
    error = tuple(dict.fromkeys([*RGB_ERROR, *([ins.error_phrase] if ins else [])]))
    return refusal, error


def normalize(text: str) -> str:
    """bordir's matching form: NFKC, case-folded, every whitespace character removed.

    >>> normalize("  Insufficient\\u00a0Information ")
    'insufficientinformation'
    """
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())


@lru_cache(maxsize=1)
def bordir_phrases() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(refusal phrases, error phrases) of every shipped language, normalised."""
    ins = instructions().values()
    refusal = tuple(dict.fromkeys(normalize(i.refusal_phrase) for i in ins))
    error = tuple(dict.fromkeys(normalize(i.error_phrase) for i in ins))
    return refusal, error


def _score_rgb(prediction: str, answer: Sequence[AnswerPart], lang: str) -> Scored:
    if _lang(lang) in ZH_LANGS:
        prediction = prediction.replace(" ", "")
    refusal, error = rgb_phrases(lang)
    if any(p in prediction for p in refusal):
        labels: tuple[int, ...] = (-1,)
    else:
        labels = tuple(checkanswer(prediction, list(answer)))
    fact = any(p in prediction for p in error)
    correct = is_correct(labels)
    outcome = "rejected" if labels == (-1,) else "correct" if correct else "wrong"
    return Scored(labels, labels == (-1,), fact, correct, outcome, "rgb")


def strip_echo(prediction: str, echo: Sequence[str], *, min_chars: int = 20) -> str:
    """``prediction`` without a verbatim echo (whole or truncated) of any text in ``echo``.

    A small model often repeats its system prompt, which contains both phrases.

    >>> strip_echo("You are an accurate and reliable AI assistant that can an", ["You are an accurate and reliable AI assistant that can answer …"])
    ''
    """
    for e in echo:
        if len(e) < min_chars:
            continue
        i = prediction.find(e[:min_chars])
        while i >= 0:
            j = min_chars
            while i + j < len(prediction) and j < len(e) and prediction[i + j] == e[j]:
                j += 1
            prediction = prediction[:i] + prediction[i + j :]
            i = prediction.find(e[:min_chars])
    return prediction


_PART = re.compile(r"(?m)^\s*(?:\*\*)?(\d)[.)．、:]")


def _part_segments(prediction: str, n: int) -> list[str]:
    r"""An answer to ``n`` numbered questions split after line-initial ``1.`` … ``n.``; else the whole text for each.

    >>> _part_segments("1. A) Russia\n2. B) Spain", 2)
    [' A) Russia\n', ' B) Spain']
    """
    if n < 2:
        return [prediction] * n
    starts: dict[int, tuple[int, int]] = {}
    for m in _PART.finditer(prediction):
        starts.setdefault(int(m.group(1)), (m.start(), m.end()))
    order = [starts[k] for k in range(1, n + 1) if k in starts]
    if len(order) != n or order != sorted(order):
        return [prediction] * n
    ends = [s for s, _ in order[1:]] + [len(prediction)]
    return [prediction[e0:end] for (_, e0), end in zip(order, ends)]


def _score_bordir(
    prediction: str,
    answer: Sequence[AnswerPart],
    mc: Sequence[tuple[Any, int, int]],
    echo: Sequence[str],
) -> Scored:
    prediction = strip_echo(prediction, echo)
    norm = normalize(prediction)
    refusal, error = bordir_phrases()
    fact = any(p in norm for p in error)
    if any(p in norm for p in refusal):
        return Scored((-1,), True, fact, False, "rejected", "bordir")
    if mc:
        from ..generation.parse import parse_answer

        labels_l: list[int] = []
        outcomes: list[str] = []
        segments = _part_segments(prediction, len(mc))
        for k, (query, truth, _fake) in enumerate(mc):
            pa = parse_answer(segments[k], query, policy="strict")
            ok = pa.outcome == "answered" and pa.choice == truth
            labels_l.append(int(ok))
            outcomes.append(
                "correct" if ok else "wrong" if pa.outcome == "answered" else pa.outcome
            )
        labels = tuple(labels_l)
        correct = is_correct(labels)
        if correct:
            outcome = "correct"
        else:
            outcome = (
                next((o for o in outcomes if o != "correct"), "wrong")
                if len(outcomes) == 1
                else "wrong"
            )
        return Scored(labels, False, fact, correct, outcome, "bordir")
    labels = tuple(
        int(any(normalize(a) in norm for a in part))
        if isinstance(part, tuple)
        else int(normalize(part) in norm)
        for part in answer
    )
    correct = is_correct(labels)
    return Scored(labels, False, fact, correct, "correct" if correct else "wrong", "bordir")


def score(
    prediction: str | None,
    answer: Sequence[AnswerPart],
    lang: str,
    *,
    policy: Policy = "rgb",
    mc: Sequence[tuple[Any, int, int]] = (),
    failed: bool = False,
    echo: Sequence[str] = (),
) -> Scored:
    """Label ``prediction`` against the answer parts.

    Args:
        prediction: the model's text (None or ``failed=True``: the call failed).
        answer: the answer parts.
        lang: the question's language (decides RGB's space removal and the phrases).
        policy: ``rgb`` or ``bordir`` (see the module docs).
        mc: bordir policy, territorial questions: per part ``(Query, controller index, fake index)``.
        failed: the call failed after its retries.
        echo: bordir policy: prompt texts (the system prompt) whose verbatim echo is removed first.
    """
    if policy not in POLICIES:
        raise ConfigError(
            f"unknown testbed scoring policy {policy!r}; known: {', '.join(POLICIES)}"
        )
    if failed or prediction is None:
        return Scored(tuple(0 for _ in answer), False, False, False, "failed", policy)
    if policy == "rgb":
        return _score_rgb(prediction, answer, lang)
    return _score_bordir(prediction, answer, mc, echo)
