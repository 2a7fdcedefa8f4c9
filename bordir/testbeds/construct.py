"""Testbed questions and instances: which documents go into each prompt, exactly as RGB's ``processdata``.

A :class:`Question` is a question with its answer parts and its document pools
(positive, negative, and for counterfactual questions ``positive_wrong``); it
comes from an RGB file (:meth:`Question.from_rgb`) or from bordir's own data
(:mod:`bordir.testbeds.territorial`). :func:`build_docs` draws one prompt's
documents from it, porting RGB's ``processdata`` (``evalue.py``) line by line:

* **noise** (and negative rejection at ``noise_rate = 1``): ``ceil(passage_num ·
  noise_rate)`` negatives, the rest positives, both taken from the *front* of
  their lists; when a question has too few negatives the positives fill the gap,
  else when it has too few positives the negatives fill it (only one side is
  adjusted, so a question short of both gets fewer documents); at ``noise_rate
  = 1`` only negatives.
* **integration**: every sub-question's positive list is shuffled, then one positive of
  each, then the others round-robin by rank until ``passage_num −
  neg_num`` positives, then negatives to fill up to ``passage_num``.
* **fact** (counterfactual): ``random.sample`` of positive indices, their
  ``positive_wrong`` documents, optionally ``ceil(passage_num · correct_rate)``
  correct positives among the rest, then ``neg_num`` negatives.
* finally the documents are shuffled.

Seeding: RGB calls ``random.seed(2333)`` before every instance;
``seeding="rgb"`` does the same with ``seed`` (2333 reproduces RGB's documents
exactly), ``seeding="bordir"`` (default) seeds each instance with
``f"{seed}|{question id}"`` so that shuffles differ between questions.

Examples:
    >>> q = Question(id="q1", query="Q?", answer=("x",), lang="en", cluster="q1", kind="noise",
    ...              positive=tuple(Doc(f"p{i} x", f"p{i}", "en", "positive") for i in range(5)),
    ...              negative=tuple(Doc(f"n{i}", f"n{i}", "en", "negative") for i in range(5)))
    >>> [sum(d.kind == "positive" for d in build_docs(q, r, rng=instance_rng(q, 7))) for r in (0, 0.2, 0.4, 0.6, 0.8, 1)]
    [5, 4, 3, 2, 1, 0]
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import ConfigError
from .rgb_data import AnswerPart, Kind, RGBQuestion

__all__ = [
    "Doc",
    "Question",
    "Instance",
    "build_docs",
    "instance_rng",
    "make_instance",
    "RGB_SEED",
    "Seeding",
]

RGB_SEED = 2333
"""The seed RGB's ``evalue.py`` passes to ``random.seed`` before every instance."""

Seeding = Literal["bordir", "rgb"]


@dataclass(frozen=True, slots=True)
class Doc:
    """One document of a question's pools.

    Attributes:
        text: what goes into the prompt.
        doc_id: the corpus id (RGB: ``pos3``, ``neg0``, ``wrong1``, ``pos1.2`` for part 1).
        lang: the document's language.
        kind: ``positive``, ``negative``, ``positive_wrong``.
        part: integration: the sub-question (positive list) the positive belongs to (else -1).
        original: counterfactual: the unedited text (else "").
    """

    text: str
    doc_id: str
    lang: str
    kind: str
    part: int = -1
    original: str = ""


@dataclass(frozen=True)
class Question:
    """A testbed question with its document pools.

    Attributes:
        id: unique question id.
        query: the question text shown to the model.
        answer: the answer parts (RGB ``checkanswer`` semantics).
        lang: the question's language (bordir code; RGB's ``zh`` is ``zhs``).
        cluster: the resampling unit (questions sharing a source share a cluster).
        kind: ``noise``, ``integration`` or ``fact``.
        positive: positives (integration: one tuple per sub-question).
        negative: negatives (noise documents).
        fakeanswer, positive_wrong: counterfactual questions only.
        raw_answer: the answer as written in an RGB file (echoed as ``ans``).
        mc: territorial questions: per part ``(query, controller index, fake index or -1)``
            for bordir's multiple-choice parser.
        source: ``rgb:<file>`` or ``demo`` / the corpus name.
        meta: provenance as sorted pairs (territories, edit rule …).
    """

    id: str
    query: str
    answer: tuple[AnswerPart, ...]
    lang: str
    cluster: str
    kind: Kind
    positive: tuple[Any, ...]
    negative: tuple[Doc, ...]
    fakeanswer: tuple[AnswerPart, ...] = ()
    positive_wrong: tuple[Doc, ...] = ()
    raw_answer: Any = None
    mc: tuple[tuple[Any, int, int], ...] = ()
    source: str = ""
    meta: tuple[tuple[str, str], ...] = ()

    @classmethod
    def from_rgb(cls, q: RGBQuestion, *, lang: str, source: str) -> Question:
        """An RGB question with its documents as :class:`Doc` (ids ``pos<i>``, ``neg<i>``, ``wrong<i>``)."""
        if q.kind == "integration":
            positive: tuple[Any, ...] = tuple(
                tuple(Doc(t, f"pos{p}.{i}", lang, "positive", part=p) for i, t in enumerate(docs))
                for p, docs in enumerate(q.positive)
            )
        else:
            positive = tuple(Doc(t, f"pos{i}", lang, "positive") for i, t in enumerate(q.positive))
        wrong = tuple(
            Doc(
                t,
                f"wrong{i}",
                lang,
                "positive_wrong",
                original=q.positive[i] if i < len(q.positive) else "",
            )
            for i, t in enumerate(q.positive_wrong)
        )
        return cls(
            id=q.id,
            query=q.query,
            answer=q.answer,
            lang=lang,
            cluster=q.id,
            kind=q.kind,
            positive=positive,
            negative=tuple(Doc(t, f"neg{i}", lang, "negative") for i, t in enumerate(q.negative)),
            fakeanswer=q.fakeanswer,
            positive_wrong=wrong,
            raw_answer=q.raw_answer if q.raw_answer is not None else list(q.answer),
            source=source,
        )


@dataclass(frozen=True)
class Instance:
    """One prompt of a testbed: a question, its setting and the documents drawn for it.

    Attributes:
        question: the question.
        testbed: ``noise``, ``rejection``, ``integration`` or ``counterfactual``.
        setting: ``noise``, ``noise-xling``, ``rejection``, ``rejection-xling``,
            ``integration``, ``counterfactual``, ``nodocs`` …
        noise_rate: RGB's noise rate.
        passage_num: documents asked for (0: no documents).
        docs: the documents, in prompt order.
        seed: the seed the documents were drawn with.
    """

    question: Question
    testbed: str
    setting: str
    noise_rate: float
    passage_num: int
    docs: tuple[Doc, ...]
    seed: int
    correct_rate: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def instance_id(self) -> str:
        return f"{self.question.id}@{self.setting}@{self.noise_rate:g}"

    def count(self, kind: str) -> int:
        return sum(d.kind == kind for d in self.docs)


def instance_rng(question: Question, seed: int, seeding: Seeding = "bordir") -> random.Random:
    """The RNG one instance is drawn with (see the module docs)."""
    if seeding == "rgb":
        return random.Random(seed)
    if seeding != "bordir":
        raise ConfigError(f"unknown seeding {seeding!r}; use 'bordir' or 'rgb'")
    return random.Random(f"{seed}|{question.id}")


def build_docs(
    question: Question,
    noise_rate: float,
    *,
    rng: random.Random,
    passage_num: int = 5,
    correct_rate: float = 0.0,
) -> tuple[Doc, ...]:
    """The documents of one instance, as RGB's ``processdata`` draws them (see the module docs)."""
    if not 0 <= noise_rate <= 1:
        raise ConfigError(f"noise_rate must be in [0, 1], got {noise_rate}")
    if passage_num < 0:
        raise ConfigError(f"passage_num must be >= 0, got {passage_num}")
    if passage_num == 0:
        return ()
    neg_num = math.ceil(passage_num * noise_rate)
    pos_num = passage_num - neg_num
    negative = list(question.negative)
    if question.kind == "integration":
        parts = [list(p) for p in question.positive]
        for p in parts:
            rng.shuffle(p)
        docs = [p[0] for p in parts]
        if len(docs) < pos_num:
            maxnum = max(len(p) for p in parts)
            for i in range(1, maxnum):
                for p in parts:
                    if len(p) > i:
                        docs.append(p[i])
                        if len(docs) == pos_num:
                            break
                if len(docs) == pos_num:
                    break
        neg_num = passage_num - len(docs)
        if neg_num > 0:
            docs += negative[:neg_num]
    elif question.kind == "fact":
        correct_num = math.ceil(passage_num * correct_rate)
        pos_num = passage_num - neg_num - correct_num
        if pos_num < 0:
            raise ConfigError(
                f"noise_rate {noise_rate} and correct_rate {correct_rate} ask for more than "
                f"{passage_num} documents"
            )
        indexes = list(range(len(question.positive)))
        selected = rng.sample(indexes, min(len(indexes), pos_num))
        docs = [question.positive_wrong[i] for i in selected]
        remain = [i for i in indexes if i not in selected]
        if correct_num > 0 and len(remain) > 0:
            docs += [
                question.positive[i] for i in rng.sample(remain, min(len(remain), correct_num))
            ]
        if neg_num > 0:
            docs += negative[:neg_num]
    else:
        positive = list(question.positive)
        if noise_rate == 1:
            neg_num, pos_num = passage_num, 0
        elif neg_num > len(negative):
            neg_num = len(negative)
            pos_num = passage_num - neg_num
        elif pos_num > len(positive):
            pos_num = len(positive)
            neg_num = passage_num - pos_num
        docs = positive[:pos_num] + negative[:neg_num]
    rng.shuffle(docs)
    return tuple(docs)


def make_instance(
    question: Question,
    testbed: str,
    setting: str,
    noise_rate: float,
    *,
    seed: int,
    seeding: Seeding = "bordir",
    passage_num: int = 5,
    correct_rate: float = 0.0,
) -> Instance:
    """Draw the documents of ``question`` at ``noise_rate`` and wrap them as an :class:`Instance`."""
    docs = build_docs(
        question,
        noise_rate,
        rng=instance_rng(question, seed, seeding),
        passage_num=passage_num,
        correct_rate=correct_rate,
    )
    return Instance(
        question, testbed, setting, float(noise_rate), passage_num, docs, seed, correct_rate
    )
