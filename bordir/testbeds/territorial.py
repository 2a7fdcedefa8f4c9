"""Testbed questions from bordir's territorial-dispute data, in every query language.

The question is the BorderLines query of a territory in language L ("Is Crimea
a territory of A) Russia or B) Ukraine?", translated); the answer is the
controller (territories with controller ``Unknown`` have none and are left
out: RGB's rejection rate also counts correct answers, so it needs one). The
answer's aliases are the controller's option name in L and its English name.

Documents come from the corpus (:class:`~bordir.corpus.Corpus`; ``about`` in a
passage's meta, as the demo corpus has, tells paragraphs about the territory
from off-topic paragraphs about a claimant country; without it every passage
of the territory counts as about it):

* **positive**: paragraphs about the territory, in L, that name the controller
  (:func:`~bordir.testbeds.counterfactual.mentions`). Paragraphs about the
  territory that do not name it are neither positive nor noise (not used).
* **noise** (setting ``noise``): paragraphs in L about *other* territories, and
  the territory's own off-topic paragraphs about a claimant country;
  **cross-lingual noise** (setting ``noise-xling``): the same kinds of
  paragraphs in every language but L. Negative rejection uses only noise
  (``rejection`` / ``rejection-xling``).
* **integration**: two territories in one question (``1. … 2. …``, both
  queries of L), paired within L so that they share no claimant (so neither
  answer can match the other part); each part's positives are its own; noise
  must be noise for both.
* **counterfactual**: every positive is edited to name another claimant (drawn
  with the seed) as the controller (:func:`~bordir.testbeds.counterfactual.counterfactual_edit`);
  paragraphs the edit cannot rewrite cleanly are left out; the originals are
  kept as the question's ``positive``.

Pools are shuffled with ``f"{seed}|{question id}"`` and negatives capped at
``max_negatives`` before RGB's construction takes them from the front.

This module holds what every testbed shares (:class:`Pools`, :func:`per_query`);
each testbed's own rule is its ``questions`` function, in its file of
:mod:`bordir.testbeds.builtin` (:class:`~bordir.testbeds.testbed.Testbed`).

Example:
    >>> from bordir.loaders import load_demo, load_demo_corpus
    >>> qs, skipped = territorial_questions(load_demo(), load_demo_corpus(), "noise", seed=1)
    >>> q = next(q for q in qs if q.id == "Crimea_uk")
    >>> q.answer, q.cluster, len(q.positive) > 0, all(d.lang == "uk" for d in q.negative)
    ((('Росія', 'Russia'),), 'Crimea', True, True)
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from ..errors import ConfigError
from .construct import Doc, Question
from .counterfactual import mentions
from .rgb_data import Kind
from .testbed import QuestionBuilder, get_testbed

__all__ = [
    "territorial_questions",
    "Pools",
    "Parts",
    "per_query",
    "shuffled",
    "noise_meta",
    "Skipped",
]

Skipped = list[dict[str, str]]
"""Queries left out, with the reason: ``{"query_id": …, "reason": …}``."""


def _about(p: Any) -> str:
    return cast("str", dict(p.meta).get("about", "territory"))


def shuffled(items: Sequence[Any], rng: random.Random, cap: int | None = None) -> list[Any]:
    """``items`` shuffled with ``rng``, the first ``cap`` kept."""
    items = list(items)
    rng.shuffle(items)
    return items if cap is None else items[:cap]


@dataclass(frozen=True)
class Pools:
    """The document pools of the territorial data: a corpus and the territories' controllers."""

    corpus: Any
    controllers: dict[str, str]

    def controller_index(self, q: Any) -> int:
        """The option index of the query's controller (-1: Unknown or not a claimant)."""
        c = self.controllers.get(q.territory, "Unknown")
        return q.claimants.index(c) if c in q.claimants else -1

    @staticmethod
    def doc(p: Any, kind: str, part: int = -1) -> Doc:
        """A passage as a testbed :class:`~bordir.testbeds.construct.Doc`."""
        return Doc(p.text, p.doc_id, p.lang, kind, part=part)

    @staticmethod
    def aliases(q: Any, i: int) -> tuple[str, ...]:
        """Option ``i``'s names: in the query's language and in English."""
        return tuple(dict.fromkeys([q.options[i], q.claimants[i]]))

    def positives(self, q: Any, controller: int) -> list[Any]:
        """Paragraphs about the territory, in the query's language, that name the controller."""
        return [
            p
            for p in self.corpus.pool(q.territory, q.lang)
            if _about(p) == "territory" and mentions(p.text, q.options, controller, q.lang)
        ]

    def noise(self, territories: set[str], lang: str, xling: bool) -> list[Any]:
        """Paragraphs about other territories (or off-topic), in ``lang`` or (``xling``) every other language."""
        return [
            p
            for p in self.corpus
            if (p.lang != lang if xling else p.lang == lang)
            and (p.territory not in territories or _about(p) == "claimant")
        ]


def noise_meta(xling: bool) -> tuple[tuple[str, str], ...]:
    """The question meta that says which noise it gets."""
    return (("noise", "cross-lingual" if xling else "same-language"),)


@dataclass(frozen=True)
class Parts:
    """What a testbed's rule gives one query's question beside what every such question has.

    Attributes:
        positive: the question's positives.
        fake: the fake claimant's option index (counterfactual), or -1; its aliases become
            the question's ``fakeanswer``.
        positive_wrong: the edited positives (counterfactual).
        meta: provenance pairs, before the noise meta (:func:`noise_meta`).
    """

    positive: tuple[Doc, ...]
    fake: int = -1
    positive_wrong: tuple[Doc, ...] = ()
    meta: tuple[tuple[str, str], ...] = ()


QueryRule = Callable[[Pools, Any, int, random.Random], "Parts | str"]
"""``(pools, query, controller index, rng) -> Parts`` or the reason the query is left out."""


def per_query(kind: Kind, rule: QueryRule) -> QuestionBuilder:
    """The questions function of a testbed with one question per query with a known controller.

    The function (:data:`~bordir.testbeds.testbed.QuestionBuilder`) seeds each query's
    rng with ``f"{seed}|{query_id}"`` and draws its negatives first; queries whose
    controller is Unknown are left out (no answer to score), and so are those for
    which ``rule`` (run with the same rng, after the negatives) returns a reason.
    The question asks the query, answers with the controller's aliases and is a
    ``kind`` question of the query's territory; ``rule`` gives the rest (:class:`Parts`).
    Its docstring is the rule's.
    """

    def questions(
        pools: Pools,
        queries: Sequence[Any],
        *,
        seed: int,
        xling: bool,
        max_negatives: int,
        source: str,
    ) -> tuple[list[Question], Skipped]:
        out: list[Question] = []
        skipped: Skipped = []
        for q in queries:
            qrng = random.Random(f"{seed}|{q.query_id}")
            c = pools.controller_index(q)
            negative = tuple(
                pools.doc(p, "negative")
                for p in shuffled(pools.noise({q.territory}, q.lang, xling), qrng, max_negatives)
            )
            if c < 0:
                skipped.append(
                    {"query_id": q.query_id, "reason": "controller Unknown: no answer to score"}
                )
                continue
            made = rule(pools, q, c, qrng)
            if isinstance(made, str):
                skipped.append({"query_id": q.query_id, "reason": made})
                continue
            out.append(
                Question(
                    id=q.query_id,
                    query=q.text,
                    answer=(pools.aliases(q, c),),
                    lang=q.lang,
                    cluster=q.territory,
                    kind=kind,
                    positive=made.positive,
                    negative=negative,
                    fakeanswer=(pools.aliases(q, made.fake),) if made.fake >= 0 else (),
                    positive_wrong=made.positive_wrong,
                    mc=((q, c, made.fake),),
                    source=source,
                    meta=(*made.meta, *noise_meta(xling)),
                )
            )
        return out, skipped

    questions.__doc__ = rule.__doc__
    return questions


def territorial_questions(
    dataset: Any,
    corpus: Any,
    testbed: str,
    *,
    seed: int,
    langs: Sequence[str] | None = None,
    xling: bool = False,
    max_negatives: int = 20,
    source: str = "demo",
) -> tuple[list[Question], Skipped]:
    """The questions of ``testbed`` (a name of :data:`~bordir.testbeds.testbed.TESTBEDS`).

    Args:
        dataset: a :class:`~bordir.dataset.BorderLines` (queries and controllers).
        corpus: the passages.
        testbed: the testbed whose rule builds the questions.
        seed: shuffles the pools and draws the fake claimant.
        langs: query languages to keep (default: all).
        xling: draw noise from the other languages (cross-lingual noise).
        max_negatives: negatives kept per question after shuffling.
        source: recorded on each question.

    Returns:
        The questions, and the queries left out with the reason (``query_id``, ``reason``).
    """
    tb = get_testbed(testbed)
    queries = [q for q in dataset.queries if not langs or q.lang in set(langs)]
    if not queries:
        raise ConfigError(
            f"no queries in language(s) {', '.join(langs or [])}; present: "
            f"{', '.join(sorted({q.lang for q in dataset.queries}))}"
        )
    pools = Pools(corpus, {t.name: t.controller for t in dataset.territories})
    return tb.questions(
        pools, queries, seed=seed, xling=xling, max_negatives=max_negatives, source=source
    )
