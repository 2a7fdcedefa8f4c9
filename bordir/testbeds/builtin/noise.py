"""Noise robustness: accuracy at each noise ratio, with same-language and cross-lingual noise.

A question is the BorderLines query of a territory with a known controller;
its positives name the controller (in the query's language), its negatives are
noise (:class:`~bordir.testbeds.territorial.Pools`). Queries with no such
positive paragraph are left out.
"""

from __future__ import annotations

import random
from typing import Any

from ..territorial import Parts, Pools, per_query, shuffled
from ..testbed import Testbed, register_testbed

__all__ = ["NOISE", "questions", "rule"]


def rule(pools: Pools, q: Any, c: int, rng: random.Random) -> Parts | str:
    """One question per query with a known controller and a positive paragraph."""
    pos = shuffled(pools.positives(q, c), rng)
    if not pos:
        return f"no paragraph in {q.lang} names the controller"
    return Parts(positive=tuple(pools.doc(p, "positive") for p in pos))


questions = per_query("noise", rule)


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
