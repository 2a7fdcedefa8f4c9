"""Echoes in ``testrun``: an answer that is mostly a copy of the system under test's prompt or of a chunk.

A small model often repeats its instruction, which quotes the "not enough information" phrase
(:data:`bordir.testgen.phrases.IDK`), so an echoed prompt used to count as a refusal. Each answer
row of ``testrun`` now says whether it is an ``echo`` (:func:`bordir.generation.parse.echo.detect_echo`
on the rendered system and user messages and the retrieved chunks; the phrase itself is an
expected text, so the instructed refusal stays a refusal); an echo is never a refusal. The judge
does not rate an echo: its verdict is ``echo`` (:mod:`bordir.testgen.judge`), and it counts as a
failure of the system under test (:mod:`bordir.testgen.compare`).

Example:
    >>> system = ("Answer the question using only the documents below. Answer in English, in one or "
    ...           "two sentences. If the documents do not contain the answer, reply exactly: " + idk("en"))
    >>> answer_echo((system, "Question: who?"), [], "en", system).is_echo
    True
    >>> answer_echo((system, "Question: who?"), [], "en", idk("en")).is_echo
    False
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..generation.parse.echo import Echo, PromptParts, detect_echo
from .phrases import idk

__all__ = ["answer_echo"]


def answer_echo(
    prompt: tuple[str, str], documents: Sequence[Any], lang: str, answer: str | None
) -> Echo:
    """Whether ``answer`` is an echo of ``prompt`` (system, user) with the chunks ``documents`` (``.text``)."""
    system, user = prompt
    texts = tuple(getattr(d, "text", d) for d in documents)
    return detect_echo(answer, PromptParts(system, user, texts, (idk(lang),)))
