"""The prompt of a testbed instance as the echo detector reads it, and how many replies were echoes.

A reply that is mostly a copy of its prompt or of a document
(:func:`bordir.generation.parse.echo.detect_echo`) is scored ``echo`` under every policy
(:func:`bordir.testbeds.scorer.score`): not correct, not rejected, not flagged. The prompt's
parts are those :func:`~bordir.testbeds.prompt.instruction_messages` renders (system prompt,
user message), the instance's documents, and as *expected* texts (which a reply may copy) the
instruction's refusal and error sentences and the options of a territorial question.

Example:
    >>> from bordir.testbeds.construct import Doc, Question, Instance
    >>> q = Question(id="1", query="Who won?", answer=("Ann",), lang="en", cluster="1", kind="noise",
    ...              positive=(), negative=())
    >>> inst = Instance(q, "noise", "noise", 0.0, 5, (Doc("Ann won the race in 2020.", "p0", "en", "positive"),), seed=1)
    >>> p = instance_prompt(inst)
    >>> p.documents, p.system[:30]
    (('Ann won the race in 2020.',), 'You are an accurate and reliab')
    >>> import pandas as pd
    >>> n_echoes(pd.DataFrame({"rgb_outcome": ["echo", "correct"], "bordir_outcome": ["echo", "correct"]}))
    1
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..generation.parse.echo import PromptParts
from .construct import Instance
from .instructions import get_instruction
from .prompt import instruction_messages

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ECHO", "instance_prompt", "rgb_record_prompt", "n_echoes", "echo_rows"]

ECHO = "echo"
"""The outcome of an echo under every testbed policy."""


def _expected(lang: str, mc: Sequence[tuple[Any, int, int]] = ()) -> tuple[str, ...]:
    ins = get_instruction(lang)
    options = tuple(o for query, _, _ in mc for o in getattr(query, "options", ()))
    return (ins.refusal, ins.refusal_phrase, ins.error, ins.error_phrase, *options)


def instance_prompt(inst: Instance) -> PromptParts:
    """The parts of ``inst``'s prompt (see the module docs)."""
    q = inst.question
    docs = [d.text for d in inst.docs]
    return PromptParts.of_messages(
        instruction_messages(q.query, q.lang, docs),
        documents=docs,
        expected=_expected(q.lang, q.mc),
    )


def rgb_record_prompt(query: str, lang: str, docs: Sequence[str]) -> PromptParts:
    """The parts of the prompt of one record of an RGB prediction file (``query``, ``docs``)."""
    return PromptParts.of_messages(
        instruction_messages(query, lang, list(docs)), documents=docs, expected=_expected(lang)
    )


def echo_rows(items: pd.DataFrame, policy: str) -> np.ndarray:
    """Per row of an item table: an echo under ``policy`` (all False without its outcome column)."""
    col = f"{policy}_outcome"
    if col not in items.columns:
        return np.zeros(len(items), dtype=bool)
    return np.asarray(items[col] == ECHO, dtype=bool)


def n_echoes(items: pd.DataFrame) -> int:
    """Rows of an item table that are echoes (the same rows under every policy: the first ``*_outcome``)."""
    col = next((c for c in items.columns if c.endswith("_outcome")), None)
    return 0 if col is None else int((items[col] == ECHO).sum())
