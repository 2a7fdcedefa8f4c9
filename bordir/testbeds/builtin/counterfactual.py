"""Counterfactual robustness: accuracy with no documents and with edited ones, error detection and correction.

Every positive of a question is edited to name another claimant (drawn with
the seed) as the controller
(:func:`~bordir.testbeds.counterfactual.counterfactual_edit`); paragraphs the
edit cannot rewrite cleanly are left out, and the originals are kept as the
question's ``positive``. The ``nodocs`` setting asks the question alone; the two
settings are compared on accuracy. RGB's LLM judge (ED*, CR*) asks whether the
response says the documents contain factual errors.
"""

from __future__ import annotations

import random
from typing import Any

from ..construct import Doc
from ..counterfactual import counterfactual_edit
from ..territorial import Parts, Pools, per_query, shuffled
from ..testbed import NODOCS, Judge, Testbed, register_testbed

__all__ = ["FACT_PROMPT", "COUNTERFACTUAL", "questions", "rule"]

FACT_PROMPT = """Please determine whether the model can identify factual errors in the document. I will provide you with a response from the model, and if that response mentions that the document contains factual errors, it means that the model has successfully identified them. Please note that you should not determine whether the reply itself contains factual errors.
Demonstrations:
Response:文档信息有误，2008年的奥运会在北京举办。
Yes, the model has identified the factual errors.

Response:2014年澳网女单冠军是大阪直美。
NO, the model fail to identify the factual errors.

Response: The director of the Silent Hill movie is Justin Kurzel.
NO, the model fail to identify the factual errors.

Response: Harry Potter is written by J. K. Rowling.
NO, the model fail to identify the factual errors.

Response:  There are factual errors in the provided documents. The correct answer is 2023.
Yes, the model has identified the factual errors.

Begin to generate:
Answer: {answer}
    """
"""RGB's ED* judge prompt (``fact_evalue.py``)."""


def identified(reply: str) -> bool:
    """RGB's test of the ED* judge's reply: the response identified the factual errors."""
    return "has identified" in reply or "Yes" in reply


def rule(pools: Pools, q: Any, c: int, rng: random.Random) -> Parts | str:
    """One question per query whose positives can be edited to name another claimant."""
    pos = shuffled(pools.positives(q, c), rng)
    if not pos:
        return f"no paragraph in {q.lang} names the controller"
    others = [i for i in range(len(q.claimants)) if i != c]
    if not others:
        return "a single claimant: no other controller to name"
    fake = rng.choice(others)
    kept, wrong = [], []
    for p in pos:
        edited = counterfactual_edit(p.text, q.options, c, fake, q.lang)
        if edited is not None:
            kept.append(pools.doc(p, "positive"))
            wrong.append(Doc(edited, p.doc_id + "~cf", p.lang, "positive_wrong", original=p.text))
    if not kept:
        return "no paragraph could be edited cleanly"
    return Parts(
        positive=tuple(kept),
        fake=fake,
        positive_wrong=tuple(wrong),
        meta=(("edit", "swap-claimant-names"), ("fake", q.claimants[fake])),
    )


questions = per_query("fact", rule)


COUNTERFACTUAL = register_testbed(
    Testbed(
        "counterfactual",
        "Counterfactual robustness: accuracy with no and with edited documents, ED and CR.",
        kind="fact",
        settings=("counterfactual", NODOCS),
        ratios=(0.0,),
        questions=questions,
        metrics=("error_detection_rate", "error_correction_rate"),
        compare=(("counterfactual", NODOCS),),
        judge=Judge(
            FACT_PROMPT, identified, ("error_detection_rate_judge", "error_correction_rate_judge")
        ),
    )
)
