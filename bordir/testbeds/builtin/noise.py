"""Noise robustness: accuracy at each noise ratio, with same-language and cross-lingual noise.

A question is the BorderLines query of a territory with a known controller;
its positives name the controller (in the query's language), its negatives are
noise (:class:`~bordir.testbeds.territorial.Pools`). Queries with no such
positive paragraph are left out.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from ..construct import Doc, Question
from ..territorial import Pools, Skipped, noise_meta, per_query, shuffled
from ..testbed import Testbed, register_testbed

__all__ = ["NOISE", "questions"]


def questions(
    pools: Pools,
    queries: Sequence[Any],
    *,
    seed: int,
    xling: bool,
    max_negatives: int,
    source: str,
) -> tuple[list[Question], Skipped]:
    """One question per query with a known controller and a positive paragraph."""

    def rule(q: Any, c: int, negative: tuple[Doc, ...], rng: random.Random) -> Question | str:
        pos = shuffled(pools.positives(q, c), rng)
        if not pos:
            return f"no paragraph in {q.lang} names the controller"
        return Question(
            id=q.query_id,
            query=q.text,
            answer=(pools.aliases(q, c),),
            lang=q.lang,
            cluster=q.territory,
            kind="noise",
            positive=tuple(pools.doc(p, "positive") for p in pos),
            negative=negative,
            mc=((q, c, -1),),
            source=source,
            meta=noise_meta(xling),
        )

    return per_query(pools, queries, rule, seed=seed, xling=xling, max_negatives=max_negatives)


NOISE = register_testbed(
    Testbed(
        "noise",
        "Noise robustness: accuracy at each noise ratio (RGB), same-language and cross-lingual noise.",
        kind="noise",
        settings=("noise", "noise-xling"),
        ratios=(0.0, 0.2, 0.4, 0.6, 0.8),
        questions=questions,
    )
)
