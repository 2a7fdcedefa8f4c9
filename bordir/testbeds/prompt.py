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

from collections.abc import Sequence

from ..generation.types import GenerationRequest, Message
from .construct import Instance
from .instructions import get_instruction

__all__ = [
    "request_for",
    "instruction_messages",
    "generation_request",
    "DEFAULT_MAX_TOKENS",
    "DEFAULT_TEMPERATURE",
]

DEFAULT_MAX_TOKENS = 256
DEFAULT_TEMPERATURE = 0.7
"""RGB's ``--temp`` default."""


def instruction_messages(query: str, lang: str, docs: Sequence[str]) -> tuple[Message, ...]:
    """bordir's instruction in ``lang`` with ``docs``: system and user message, the user message alone without documents."""
    ins = get_instruction(lang)
    user = ins.user_text(query, docs)
    return (
        (Message("system", ins.system), Message("user", user)) if docs else (Message("user", user),)
    )


def generation_request(
    messages: tuple[Message, ...],
    *,
    model: str,
    temperature: float,
    seed: int | None,
    max_tokens: int,
) -> GenerationRequest:
    """The generation request of a testbed's ``messages`` (no options: free text from every backend)."""
    return GenerationRequest(
        model=model,
        messages=messages,
        temperature=float(temperature),
        seed=seed,
        max_tokens=int(max_tokens),
    )


def request_for(
    instance: Instance,
    *,
    model: str,
    temperature: float = DEFAULT_TEMPERATURE,
    seed: int | None = None,
    max_tokens: int = DEFAULT_MAX_TOKENS,
) -> GenerationRequest:
    """The generation request of ``instance`` (see the module docs)."""
    q = instance.question
    messages = instruction_messages(q.query, q.lang, [d.text for d in instance.docs])
    return generation_request(
        messages, model=model, temperature=temperature, seed=seed, max_tokens=max_tokens
    )
