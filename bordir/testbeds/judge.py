"""LLM-judge rates of RGB: Rej* (negative rejection) and ED* / CR* (counterfactual robustness).

RGB asks a judge model (``gpt-3.5-turbo`` in its ``reject_evalue.py`` and
``fact_evalue.py``) one question per prediction, with a few-shot prompt, and
tests the judge's reply by substring:

* **Rej\\***: "can the retrieved documents solve the question?" — the
  prediction counts as a rejection if the reply contains ``not addressed``;
* **ED\\***: "does the response say the documents contain factual errors?" —
  flagged if the reply contains ``has identified`` or ``Yes`` (case-sensitive);
  **CR\\***: of the flagged predictions, the share that are correct (``0 not in
  label and 1 in label``; unlike ``evalue.py``'s CR, rejected answers do not count).

The two prompts are RGB's (English, with Chinese demonstrations), shipped as
bordir's strings below; the judge sees the raw prediction. Judge calls go
through the same response cache and executor as the testbed's own calls.

Example:
    >>> judge_label("rejection", "No, the question is not addressed by the documents.")
    True
    >>> judge_label("counterfactual", "NO, the model fail to identify the factual errors.")
    False
    >>> "Question: Q?" in judge_prompt("rejection", "Q?", "A.")
    True
"""

from __future__ import annotations

from ..generation.types import GenerationRequest, Message

__all__ = [
    "REJECT_PROMPT",
    "FACT_PROMPT",
    "judge_prompt",
    "judge_label",
    "judge_request",
    "JUDGED_TESTBEDS",
]

JUDGED_TESTBEDS = ("rejection", "counterfactual")

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


def judge_prompt(testbed: str, question: str, answer: str) -> str:
    """The judge prompt of ``testbed`` for one prediction."""
    if testbed == "rejection":
        return REJECT_PROMPT.replace("{question}", question).replace("{answer}", answer)
    return FACT_PROMPT.replace("{answer}", answer)


def judge_label(testbed: str, reply: str) -> bool:
    """RGB's test of the judge's reply: rejected (Rej*) or error identified (ED*)."""
    if testbed == "rejection":
        return "not addressed" in reply
    return "has identified" in reply or "Yes" in reply


def judge_request(
    testbed: str, question: str, answer: str, *, model: str, max_tokens: int = 64
) -> GenerationRequest:
    """One judge call (temperature 0; RGB used the API's default)."""
    return GenerationRequest(
        model=model,
        messages=(Message("user", judge_prompt(testbed, question, answer)),),
        temperature=0.0,
        max_tokens=max_tokens,
    )
