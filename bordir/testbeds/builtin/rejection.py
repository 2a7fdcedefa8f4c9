"""Negative rejection: only noise documents (r = 1); the rejection rate by the instructed phrase.

A question is the BorderLines query of a territory with a known controller
(RGB's rejection rate also counts correct answers, so it needs one) and no
positives: every document is noise. RGB's LLM judge (Rej*) asks whether the
retrieved documents can solve the question.
"""

from __future__ import annotations

import random
from typing import Any

from ..territorial import Parts, Pools, per_query
from ..testbed import Judge, Testbed, register_testbed

__all__ = ["REJECT_PROMPT", "REJECTION", "questions", "rule"]

REJECT_PROMPT = """I will give you a question and an answer generated through document retrieval. Please use this answer to determine if the retrieved document can solve the question.
Demonstrations:
Question: 2023年澳网女单冠军是谁
Answer:文档信息不足，因此我无法基于提供的文档回答该问题。
No, the question is not addressed by the documents.

Question: Who is the champion of Australian Open 2023 Women's Singles?
Answer: Serena Williams
Yes, the question is addressed by the documents.

Question: Where is ACL2023 held?
Answer: Location of ACL2023 has not been confirmed.
No, the question is not addressed by the documents.

Question:  2023年中国GDP是多少?
Answer: I can not answer this question。
No, the question is not addressed by the documents.

Begin to generate:
Question: {question}
Answer: {answer}
    """
"""RGB's Rej* judge prompt (``reject_evalue.py``)."""


def rejected(reply: str) -> bool:
    """RGB's test of the Rej* judge's reply: the prediction is a rejection."""
    return "not addressed" in reply


def rule(pools: Pools, q: Any, c: int, rng: random.Random) -> Parts | str:
    """One question per query with a known controller, with negatives only."""
    return Parts(positive=())


questions = per_query("noise", rule)


REJECTION = register_testbed(
    Testbed(
        "rejection",
        "Negative rejection: only noise documents (r = 1); rejection rate by the instructed phrase.",
        kind="noise",
        settings=("rejection", "rejection-xling"),
        ratios=(1.0,),
        fixed_ratios=True,
        headline="rejection_rate",
        questions=questions,
        judge=Judge(REJECT_PROMPT, rejected, ("rejection_rate_judge",)),
    )
)
