"""The request of one testbed instance, rendered as RGB's ``predict`` renders it.

RGB joins the documents with newlines into its instruction template and sends
the system prompt with it; with no documents (``passage_num = 0``, the
counterfactual testbed's "without documents" accuracy) it sends the template
with empty documents and *no* system prompt. bordir does the same, in the
question's language (:mod:`~bordir.testbeds.instructions`). No answer options
are attached, so a rank-classification backend (``local/…``) generates free text.

Example:
    >>> from bordir.testbeds.construct import Doc, Question, Instance
    >>> q = Question(id="1", query="Who?", answer=("x",), lang="en", cluster="1", kind="noise", positive=(), negative=())
    >>> inst = Instance(q, "noise", "noise", 0.0, 5, (Doc("x did it", "pos0", "en", "positive"),), seed=1)
    >>> r = request_for(inst, model="mock/echo", temperature=0.0, seed=1)
    >>> [m.role for m in r.messages], r.options
    (['system', 'user'], ())
    >>> [m.role for m in request_for(Instance(q, "counterfactual", "nodocs", 0.0, 0, (), seed=1), model="mock/echo").messages]
    ['user']
"""

from __future__ import annotations

from ..generation.types import GenerationRequest, Message
from .construct import Instance
from .instructions import get_instruction

__all__ = ["request_for", "DEFAULT_MAX_TOKENS", "DEFAULT_TEMPERATURE"]

DEFAULT_MAX_TOKENS = 256
DEFAULT_TEMPERATURE = 0.7
"""RGB's ``--temp`` default."""


def request_for(
    instance: Instance,
    *,
    model: str,
    temperature: float = DEFAULT_TEMPERATURE,
    seed: int | None = None,
    max_tokens: int = DEFAULT_MAX_TOKENS,
) -> GenerationRequest:
    """The generation request of ``instance`` (see the module docs)."""
    ins = get_instruction(instance.question.lang)
    docs = [d.text for d in instance.docs]
    user = ins.user_text(instance.question.query, docs)
    messages = (
        (Message("system", ins.system), Message("user", user)) if docs else (Message("user", user),)
    )
    return GenerationRequest(
        model=model,
        messages=messages,
        temperature=float(temperature),
        seed=seed,
        max_tokens=int(max_tokens),
    )
