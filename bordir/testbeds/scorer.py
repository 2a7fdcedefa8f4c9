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

bordir also refuses RGB's substring leniency on free-text answers (:func:`answer_outcome`):
an answer that names the true answer **and** the counterfactual (fake) answer is ``hedged``
("X or F"), one that names the true answer only under a negation is ``negated`` ("not X but F",
"X is wrong"), and a true answer found only inside the fake one (fake ``170``, true ``70``) does
not count. Neither outcome is correct. A mention is negated when a negation cue stands right
before it (``not``, ``never``, ``isn't``, ``no``, ``pas``, ``nicht``, ``не``, ``不是``, ``并非`` …,
the last two words) or right after it (``is not``, ``is wrong``, ``是错误``, ``ではなく``,
``아니라`` …); :data:`NEGATION_BEFORE` and :data:`NEGATION_AFTER` list the cues, which cover the
RGB languages (English, Chinese) and a few others, not every language. A correction that quotes
the fake answer to attribute it to the documents or call it false ("The documents say F, which is
incorrect; the answer is X"; "Although the document claims F, the correct answer is X") is not a
hedge: it stays ``correct`` (:mod:`~bordir.testbeds.corrections`: the cues, per language).

**Echoes, under both policies.** Given the prompt's parts, a prediction that is mostly a copy of
the prompt or of a document (:func:`bordir.generation.parse.echo.detect_echo`) is ``echo``:
labels all 0, not correct, not rejected, not flagged. RGB's rules would score it by the answer or
the phrases it copied (an echo of the documents contains the answer); this is the rgb policy's
one departure from ``evalue.py``, and every run says how many echoes it had.

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
    >>> " ".join(score(p, ("Paris",), "en", policy="bordir", fake=("Lyon",)).outcome
    ...          for p in ("Paris.", "Paris or Lyon.", "Not Paris but Lyon.", "Paris, not Lyon."))
    'correct hedged negated correct'
    >>> score("Paris or Lyon.", ("Paris",), "en", policy="rgb").correct   # RGB: a substring is enough
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
from ..generation.parse.echo import PromptParts, detect_echo
from ..policies import TESTBED_POLICIES
from .corrections import corrected
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
    "answer_outcome",
    "NEGATION_BEFORE",
    "NEGATION_AFTER",
    "ZH_LANGS",
]

Policy = Literal["rgb", "bordir"]
POLICIES: tuple[str, ...] = tuple(
    e.name for e in TESTBED_POLICIES.entries() if e.meta.get("labels_rgb", True)
)  # rgb, bordir (nomiracl labels NoMIRACL replies: bordir.testbeds.nomiracl)
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
        outcome: ``correct``, ``wrong``, ``rejected``, ``failed``, ``echo``; bordir on
            multiple-choice parts may also give ``multiple``, ``unparsed``, ``refused``, and on
            free text ``hedged`` (it names the fake answer too) or ``negated`` (the true answer
            only under a negation).
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


NEGATION_BEFORE: tuple[str, ...] = (
    "not", "never", "isn't", "isnt", "wasn't", "aren't", "weren't", "no", "non", "pas", "ni", "nicht",
    "kein", "keine", "niet", "geen", "não", "nem", "nunca", "не", "нет", "ні", "değil",
)  # fmt: skip
"""Words that negate the mention right after them (one of the two words before it)."""
NEGATION_BEFORE_CJK: tuple[str, ...] = ("不是", "并非", "並非", "而非", "非", "不", "没有", "沒有")
"""Chinese cues that negate the mention right after them (the text just before it ends so)."""
NEGATION_AFTER: tuple[str, ...] = (
    "is not", "isn't", "is wrong", "is incorrect", "is false", "was not", "wasn't", "is a mistake",
    "是错误", "是錯誤", "是错的", "是錯的", "不对", "不對", "有误", "有誤", "是假", "不正确", "不正確",
    "ではな", "じゃな", "は誤り", "は間違", "아니라", "아닌", "아니다", "가 아니", "이 아니",
)  # fmt: skip
"""Cues that negate the mention right before them (the text just after it starts so)."""
_WORD = re.compile(r"[\w'’]+")
_CLAUSE = re.compile(r"[,.;:!?()\[\]\n，。；：！？、（）]")


def _soft(text: str) -> tuple[str, str, list[int]]:
    """(soft form, matching form, map): NFKC and case-folded; the matching form without whitespace, and for each of its characters its position in the soft form (negation cues need the word boundaries)."""
    soft = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
    idx = [i for i, ch in enumerate(soft) if not ch.isspace()]
    return soft, "".join(soft[i] for i in idx), idx


def _negated(soft: str, start: int, end: int) -> bool:
    """Whether the mention ``soft[start:end]`` stands under a negation cue (see the module docs)."""
    before, after = soft[:start].rstrip(), soft[end:].lstrip(" ,.;:!?，。；：")
    clause = _CLAUSE.split(before[-60:])[-1]  # "No, it is X": the cue must be in X's own clause
    words = [w.replace("’", "'") for w in _WORD.findall(clause)][-2:]
    if words[-2:] == ["not", "only"]:
        return False
    if any(w in NEGATION_BEFORE for w in words) or before.endswith(NEGATION_BEFORE_CJK):
        return True
    return after.startswith(NEGATION_AFTER)


def _mentions(norm: str, needle: str, hide: Sequence[str] = ()) -> list[tuple[int, int]]:
    """Spans of ``needle`` in ``norm`` that do not lie inside a span of one of ``hide`` (longer strings)."""
    covered = [
        (i, i + len(h)) for h in hide for i in range(len(norm)) if h and norm.startswith(h, i)
    ]
    out = []
    i = norm.find(needle) if needle else -1
    while i >= 0:
        j = i + len(needle)
        if not any(a <= i and j <= b for a, b in covered):
            out.append((i, j))
        i = norm.find(needle, i + 1)
    return out


def _aliases(part: AnswerPart) -> list[str]:
    return [normalize(a) for a in (part if isinstance(part, tuple) else (part,)) if normalize(a)]


def answer_outcome(
    prediction: str, answer: Sequence[AnswerPart], fake: Sequence[AnswerPart] = ()
) -> tuple[tuple[int, ...], str]:
    """bordir's labels and outcome of a free-text answer: ``correct``, ``hedged``, ``negated`` or ``wrong``.

    Each part of ``answer`` is found (label 1) when one of its aliases occurs, outside any longer fake
    alias that contains it, and not under a negation; the answer is ``hedged`` when a fake alias also
    occurs, outside the true one and not negated, and ``negated`` when a true alias occurs only
    negated. A fake alias equal to a true one cannot tell them apart and is ignored.

    >>> answer_outcome("一共有170个议席。", ("70",), ("170",))
    ((0,), 'wrong')
    >>> answer_outcome("It is not the capital: the answer is Paris.", ("Paris",))
    ((1,), 'correct')
    >>> answer_outcome("No, it is Paris.", ("Paris",)), answer_outcome("不是巴黎，而是里昂。", ("巴黎",), ("里昂",))
    (((1,), 'correct'), ((0,), 'negated'))
    """
    soft, norm, idx = _soft(prediction)
    true_all = [a for part in answer for a in _aliases(part)]
    fakes = [f for part in fake for f in _aliases(part) if f not in true_all]

    def found(alias: str, hide: Sequence[str], quoted: bool = False) -> tuple[bool, bool]:
        """(named plainly, named only under a negation).

        ``quoted``: a mention quoted to be corrected
        (:func:`~bordir.testbeds.corrections.corrected`) does not count as named.
        """
        spans = _mentions(norm, alias, [h for h in hide if alias in h and h != alias])
        plain = [
            (a, b)
            for a, b in spans
            if not _negated(soft, idx[a], idx[b - 1] + 1)
            and not (quoted and corrected(soft, idx[a], idx[b - 1] + 1))
        ]
        return bool(plain), bool(spans) and not plain

    labels, negated = [], False
    for part in answer:
        hits = [found(a, fakes) for a in _aliases(part)]
        labels.append(int(any(p for p, _ in hits)))
        negated |= not labels[-1] and any(n for _, n in hits)
    named_fake = any(found(f, true_all, quoted=True)[0] for f in fakes)
    if is_correct(labels):
        return tuple(labels), "hedged" if named_fake else "correct"
    return tuple(labels), "negated" if negated else "wrong"


def _score_bordir(
    prediction: str,
    answer: Sequence[AnswerPart],
    mc: Sequence[tuple[Any, int, int]],
    echo: Sequence[str],
    fake: Sequence[AnswerPart] = (),
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
    labels, outcome = answer_outcome(prediction, answer, fake)
    return Scored(labels, False, fact, outcome == "correct", outcome, "bordir")


def score(
    prediction: str | None,
    answer: Sequence[AnswerPart],
    lang: str,
    *,
    policy: Policy = "rgb",
    mc: Sequence[tuple[Any, int, int]] = (),
    failed: bool = False,
    echo: Sequence[str] = (),
    fake: Sequence[AnswerPart] = (),
    prompt: PromptParts | None = None,
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
        fake: bordir policy: the counterfactual answer parts (``fakeanswer``); an answer that also
            names them is ``hedged``, not correct (:func:`answer_outcome`). The rgb policy ignores them.
        prompt: the prompt's parts: a prediction that is mostly a copy of them is ``echo`` under
            both policies (module docs).
    """
    if policy not in POLICIES:
        raise ConfigError(
            f"unknown testbed scoring policy {policy!r}; known: {', '.join(POLICIES)}"
        )
    if failed or prediction is None:
        return Scored(tuple(0 for _ in answer), False, False, False, "failed", policy)
    if prompt is not None and detect_echo(prediction, prompt):
        return Scored(tuple(0 for _ in answer), False, False, False, "echo", policy)
    if policy == "rgb":
        return _score_rgb(prediction, answer, lang)
    return _score_bordir(prediction, answer, mc, echo, fake)
