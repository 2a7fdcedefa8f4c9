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

Example:
    >>> from bordir.loaders import load_demo, load_demo_corpus
    >>> qs, skipped = territorial_questions(load_demo(), load_demo_corpus(), "noise", seed=1)
    >>> q = next(q for q in qs if q.id == "Crimea_uk")
    >>> q.answer, q.cluster, len(q.positive) > 0, all(d.lang == "uk" for d in q.negative)
    ((('Росія', 'Russia'),), 'Crimea', True, True)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from ..errors import ConfigError
from .construct import Doc, Question
from .counterfactual import counterfactual_edit, mentions

__all__ = ["territorial_questions", "TESTBEDS", "SETTINGS"]

TESTBEDS: tuple[str, ...] = ("noise", "rejection", "integration", "counterfactual")
SETTINGS: dict[str, tuple[str, ...]] = {
    "noise": ("noise", "noise-xling"),
    "rejection": ("rejection", "rejection-xling"),
    "integration": ("integration",),
    "counterfactual": ("counterfactual", "nodocs"),
}
"""Settings of each testbed on territorial data (RGB files have the first, and ``nodocs`` for counterfactual)."""


def _about(p: Any) -> str:
    return dict(p.meta).get("about", "territory")


def _doc(p: Any, kind: str, part: int = -1) -> Doc:
    return Doc(p.text, p.doc_id, p.lang, kind, part=part)


def _aliases(q: Any, i: int) -> tuple[str, ...]:
    return tuple(dict.fromkeys([q.options[i], q.claimants[i]]))


def _positives(corpus: Any, q: Any, controller: int) -> list[Any]:
    return [
        p
        for p in corpus.pool(q.territory, q.lang)
        if _about(p) == "territory" and mentions(p.text, q.options, controller, q.lang)
    ]


def _noise(corpus: Any, territories: set[str], lang: str, xling: bool) -> list[Any]:
    return [
        p
        for p in corpus
        if (p.lang != lang if xling else p.lang == lang)
        and (p.territory not in territories or _about(p) == "claimant")
    ]


def _shuffled(items: Sequence[Any], rng: random.Random, cap: int | None = None) -> list[Any]:
    items = list(items)
    rng.shuffle(items)
    return items if cap is None else items[:cap]


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
) -> tuple[list[Question], list[dict[str, str]]]:
    """The questions of ``testbed`` (``noise``, ``rejection``, ``integration``, ``counterfactual``).

    Args:
        dataset: a :class:`~bordir.dataset.BorderLines` (queries and controllers).
        corpus: the passages.
        seed: shuffles the pools and draws the fake claimant.
        langs: query languages to keep (default: all).
        xling: draw noise from the other languages (cross-lingual noise).
        max_negatives: negatives kept per question after shuffling.
        source: recorded on each question.

    Returns:
        The questions, and the queries left out with the reason (``query_id``, ``reason``).
    """
    if testbed not in TESTBEDS:
        raise ConfigError(f"unknown testbed {testbed!r}; known: {', '.join(TESTBEDS)}")
    controllers = {t.name: t.controller for t in dataset.territories}
    queries = [q for q in dataset.queries if not langs or q.lang in set(langs)]
    if not queries:
        raise ConfigError(
            f"no queries in language(s) {', '.join(langs or [])}; present: "
            f"{', '.join(sorted({q.lang for q in dataset.queries}))}"
        )
    skipped: list[dict[str, str]] = []
    out: list[Question] = []
    meta_x = (("noise", "cross-lingual" if xling else "same-language"),)

    def ctrl_index(q: Any) -> int:
        c = controllers.get(q.territory, "Unknown")
        return q.claimants.index(c) if c in q.claimants else -1

    if testbed == "integration":
        by_lang: dict[str, list[Any]] = {}
        for q in queries:
            by_lang.setdefault(q.lang, []).append(q)
        for lang, qs in sorted(by_lang.items()):
            rng = random.Random(f"{seed}|pairs|{lang}")
            usable = [q for q in qs if ctrl_index(q) >= 0 and _positives(corpus, q, ctrl_index(q))]
            for q in qs:
                if q not in usable:
                    skipped.append(
                        {
                            "query_id": q.query_id,
                            "reason": "no known controller or no positive paragraph",
                        }
                    )
            usable = _shuffled(usable, rng)
            used: set[frozenset[str]] = set()
            for i, q1 in enumerate(usable):
                partner = None
                for j in range(1, len(usable)):
                    q2 = usable[(i + j) % len(usable)]
                    key = frozenset((q1.query_id, q2.query_id))
                    if key not in used and not set(q1.claimants) & set(q2.claimants):
                        partner = q2
                        used.add(key)
                        break
                if partner is None:
                    skipped.append(
                        {
                            "query_id": q1.query_id,
                            "reason": f"no partner in {lang} without a shared claimant",
                        }
                    )
                    continue
                pair = (q1, partner)
                qid = f"{q1.query_id}+{partner.query_id}"
                qrng = random.Random(f"{seed}|{qid}")
                idx = [ctrl_index(q) for q in pair]
                positive = tuple(
                    tuple(
                        _doc(p, "positive", part=k)
                        for p in _shuffled(_positives(corpus, q, c), qrng)
                    )
                    for k, (q, c) in enumerate(zip(pair, idx))
                )
                negative = tuple(
                    _doc(p, "negative")
                    for p in _shuffled(
                        _noise(corpus, {q1.territory, partner.territory}, lang, xling),
                        qrng,
                        max_negatives,
                    )
                )
                out.append(
                    Question(
                        id=qid,
                        query=f"1. {q1.text}\n2. {partner.text}",
                        answer=tuple(_aliases(q, c) for q, c in zip(pair, idx)),
                        lang=lang,
                        cluster="+".join(sorted((q1.territory, partner.territory))),
                        kind="integration",
                        positive=positive,
                        negative=negative,
                        mc=tuple((q, c, -1) for q, c in zip(pair, idx)),
                        source=source,
                        meta=(("territories", f"{q1.territory}+{partner.territory}"), *meta_x),
                    )
                )
        return out, skipped

    for q in queries:
        qrng = random.Random(f"{seed}|{q.query_id}")
        c = ctrl_index(q)
        negative = tuple(
            _doc(p, "negative")
            for p in _shuffled(_noise(corpus, {q.territory}, q.lang, xling), qrng, max_negatives)
        )
        if c < 0:
            skipped.append(
                {"query_id": q.query_id, "reason": "controller Unknown: no answer to score"}
            )
            continue
        if testbed == "rejection":
            out.append(
                Question(
                    id=q.query_id,
                    query=q.text,
                    answer=(_aliases(q, c),),
                    lang=q.lang,
                    cluster=q.territory,
                    kind="noise",
                    positive=(),
                    negative=negative,
                    mc=((q, c, -1),),
                    source=source,
                    meta=meta_x,
                )
            )
            continue
        pos = _shuffled(_positives(corpus, q, c), qrng)
        if not pos:
            skipped.append(
                {"query_id": q.query_id, "reason": f"no paragraph in {q.lang} names the controller"}
            )
            continue
        if testbed == "noise":
            out.append(
                Question(
                    id=q.query_id,
                    query=q.text,
                    answer=(_aliases(q, c),),
                    lang=q.lang,
                    cluster=q.territory,
                    kind="noise",
                    positive=tuple(_doc(p, "positive") for p in pos),
                    negative=negative,
                    mc=((q, c, -1),),
                    source=source,
                    meta=meta_x,
                )
            )
            continue
        # counterfactual
        others = [i for i in range(len(q.claimants)) if i != c]
        if not others:
            skipped.append(
                {"query_id": q.query_id, "reason": "a single claimant: no other controller to name"}
            )
            continue
        fake = qrng.choice(others)
        kept, wrong = [], []
        for p in pos:
            edited = counterfactual_edit(p.text, q.options, c, fake, q.lang)
            if edited is not None:
                kept.append(_doc(p, "positive"))
                wrong.append(
                    Doc(edited, p.doc_id + "~cf", p.lang, "positive_wrong", original=p.text)
                )
        if not kept:
            skipped.append(
                {"query_id": q.query_id, "reason": "no paragraph could be edited cleanly"}
            )
            continue
        out.append(
            Question(
                id=q.query_id,
                query=q.text,
                answer=(_aliases(q, c),),
                lang=q.lang,
                cluster=q.territory,
                kind="fact",
                positive=tuple(kept),
                negative=negative,
                fakeanswer=(_aliases(q, fake),),
                positive_wrong=tuple(wrong),
                mc=((q, c, fake),),
                source=source,
                meta=(("edit", "swap-claimant-names"), ("fake", q.claimants[fake]), *meta_x),
            )
        )
    return out, skipped
