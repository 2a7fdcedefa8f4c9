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
bordir's strings with their testbeds (:data:`~bordir.testbeds.builtin.rejection.REJECT_PROMPT`,
:data:`~bordir.testbeds.builtin.counterfactual.FACT_PROMPT`: each testbed's
:class:`~bordir.testbeds.testbed.Judge`); the judge sees the raw prediction. Judge
calls go through the same response cache and executor as the testbed's own calls.

Example:
    >>> judge_label("rejection", "No, the question is not addressed by the documents.")
    True
    >>> judge_label("counterfactual", "NO, the model fail to identify the factual errors.")
    False
    >>> "Question: Q?" in judge_prompt("rejection", "Q?", "A.")
    True
    >>> is_judged("noise")
    False
"""

from __future__ import annotations

from ..errors import ConfigError
from ..generation.types import GenerationRequest, Message
from .testbed import Judge, get_testbed

__all__ = ["judge_prompt", "judge_label", "judge_request", "is_judged"]


def is_judged(testbed: str) -> bool:
    """True if ``testbed`` has an LLM judge."""
    return get_testbed(testbed).judge is not None


def _judge(testbed: str) -> Judge:
    judge = get_testbed(testbed).judge
    if judge is None:
        raise ConfigError(f"the {testbed} testbed has no LLM judge")
    return judge


def judge_prompt(testbed: str, question: str, answer: str) -> str:
    """The judge prompt of ``testbed`` for one prediction."""
    return _judge(testbed).render(question, answer)


def judge_label(testbed: str, reply: str) -> bool:
    """RGB's test of the judge's reply: rejected (Rej*) or error identified (ED*)."""
    return _judge(testbed).label(reply)


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
