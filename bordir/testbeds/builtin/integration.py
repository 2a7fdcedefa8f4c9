"""Information integration: answers with several parts, each with its own documents.

Two territories make one question (``1. … 2. …``, both queries in the same
language), paired within a language so that they share no claimant (neither
answer can match the other part); each part's positives are its own, and
noise must be noise for both.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from ..construct import Question
from ..territorial import Pools, Skipped, noise_meta, shuffled
from ..testbed import Testbed, register_testbed

__all__ = ["INTEGRATION", "questions"]


def questions(
    pools: Pools,
    queries: Sequence[Any],
    *,
    seed: int,
    xling: bool,
    max_negatives: int,
    source: str,
) -> tuple[list[Question], Skipped]:
    """One question per pair of queries in a language (with a known controller and a positive each)."""
    skipped: Skipped = []
    out: list[Question] = []
    by_lang: dict[str, list[Any]] = {}
    for q in queries:
        by_lang.setdefault(q.lang, []).append(q)
    ctrl = pools.controller_index
    for lang, qs in sorted(by_lang.items()):
        rng = random.Random(f"{seed}|pairs|{lang}")
        usable = [q for q in qs if ctrl(q) >= 0 and pools.positives(q, ctrl(q))]
        for q in qs:
            if q not in usable:
                skipped.append(
                    {
                        "query_id": q.query_id,
                        "reason": "no known controller or no positive paragraph",
                    }
                )
        usable = shuffled(usable, rng)
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
            idx = [ctrl(q) for q in pair]
            positive = tuple(
                tuple(
                    pools.doc(p, "positive", part=k) for p in shuffled(pools.positives(q, c), qrng)
                )
                for k, (q, c) in enumerate(zip(pair, idx))
            )
            negative = tuple(
                pools.doc(p, "negative")
                for p in shuffled(
                    pools.noise({q1.territory, partner.territory}, lang, xling),
                    qrng,
                    max_negatives,
                )
            )
            out.append(
                Question(
                    id=qid,
                    query=f"1. {q1.text}\n2. {partner.text}",
                    answer=tuple(pools.aliases(q, c) for q, c in zip(pair, idx)),
                    lang=lang,
                    cluster="+".join(sorted((q1.territory, partner.territory))),
                    kind="integration",
                    positive=positive,
                    negative=negative,
                    mc=tuple((q, c, -1) for q, c in zip(pair, idx)),
                    source=source,
                    meta=(
                        ("territories", f"{q1.territory}+{partner.territory}"),
                        *noise_meta(xling),
                    ),
                )
            )
    return out, skipped


INTEGRATION = register_testbed(
    Testbed(
        "integration",
        "Information integration: answers with several parts, each with its own documents.",
        kind="integration",
        settings=("integration",),
        ratios=(0.0, 0.2, 0.4),
        questions=questions,
    )
)
