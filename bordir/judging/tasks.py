"""Judge tasks: what a calibrated judge is asked, how its reply is read, and which bordir judge it stands for.

A :class:`JudgeTask` turns one labelled item into the judge's request(s) and the
judge's reply into a :class:`Reading` (a label, or None when the reply could not be
read, and a score where the judge gives one). Every task is binary: a
``positive`` and a ``negative`` label, plus labels the humans may use to abstain
(``abstain``: left out of the agreement and counted). Tasks register with
:data:`JUDGE_TASKS`; the built-ins, each the prompt of one of bordir's judges:

* ``faithfulness`` (:mod:`bordir.judging.faithfulness`): is the sentence supported by
  the passages? MEMERAG's task; four prompt variants, prompts in de, en, es, fr, hi;
* ``testgen`` (:mod:`bordir.testgen.calibration`): the faithfulness rating of
  ``bordir judge``'s five-criterion oracle, with the oracle's own prompt;
* ``relevance`` (:mod:`bordir.annotations.calibration`): ``bordir annotate``'s
  relevance label (relevant or partially relevant vs not relevant), with its prompt;
* ``rgb_rejection`` and ``rgb_counterfactual`` (:mod:`bordir.testbeds.calibration`):
  RGB's Rej* and ED* judges of ``bordir testbed rejection`` / ``counterfactual``.

The prompt's identity (``prompt_id``: a name and the hash of its text) is what a
judged run is matched with: a calibration file of another prompt is refused.

Example:
    >>> JUDGE_TASKS.names()
    ('faithfulness', 'testgen', 'relevance', 'rgb_rejection', 'rgb_counterfactual')
    >>> t = get_task("faithfulness")
    >>> t.labels, t.abstain
    (('Supported', 'Not Supported'), ('Challenging to determine',))
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import ConfigError
from ..registry import Registry

if TYPE_CHECKING:
    from ..generation.types import GenerationRequest, GenerationResult
    from .items import JudgeItem

__all__ = [
    "VARIANTS",
    "PROMPT_LANGS",
    "Reading",
    "JudgeTask",
    "JUDGE_TASKS",
    "get_task",
    "text_id",
    "normalize_label",
]

VARIANTS: tuple[str, ...] = ("zero_shot", "cot", "guidelines", "guidelines_cot")
"""Prompt variants: zero-shot, chain of thought, with annotation guidelines, and both."""

PROMPT_LANGS: tuple[str, ...] = ("en", "item")
"""The judge's prompt language: the English rubric, or the item's own language."""


@dataclass(frozen=True, slots=True)
class Reading:
    """The judge's reply, read: ``label`` (None: unparseable), ``score`` (higher: more positive) and a note."""

    label: str | None
    score: float | None = None
    note: str = ""


def text_id(name: str, text: str) -> str:
    """``<name>@sha256-<12 hex>``: a prompt's identity.

    >>> text_id("x", "abc")
    'x@sha256-ba7816bf8f01'
    """
    return f"{name}@sha256-{hashlib.sha256(text.encode('utf-8')).hexdigest()[:12]}"


def normalize_label(value: str, labels: Sequence[str]) -> str | None:
    """``value`` as one of ``labels`` (case, spaces, ``_`` and ``-`` ignored), or None.

    >>> normalize_label(" not_supported ", ("Supported", "Not Supported"))
    'Not Supported'
    """

    def key(s: str) -> str:
        return " ".join(s.replace("_", " ").replace("-", " ").casefold().split())

    want = key(value)
    return next((l for l in labels if key(l) == want), None)


class JudgeTask:
    """One kind of judgement (see the module docs). Subclasses set the attributes and implement the three methods.

    Attributes:
        name: the task's name (registry key, in signatures).
        positive: the label the task's rates count as positive (``Supported``).
        negative: the other label.
        abstain: labels the humans may give that are no judgement (left out, counted).
        variants: the prompt variants the task has.
        needs: fields of :attr:`JudgeItem.extra` every item must have.
        aliases: human labels read as one of the two (``partially_relevant`` → ``relevant``).
        answers: what the judge rates, in words (for error messages).
    """

    name: str = ""
    positive: str = ""
    negative: str = ""
    abstain: tuple[str, ...] = ()
    variants: tuple[str, ...] = ("zero_shot",)
    needs: tuple[str, ...] = ()
    aliases: tuple[tuple[str, str], ...] = ()
    answers: str = "the answer"

    @property
    def labels(self) -> tuple[str, str]:
        """``(positive, negative)``."""
        return (self.positive, self.negative)

    def prompt_langs(self) -> tuple[str, ...]:
        """The languages the task has a prompt in."""
        raise NotImplementedError

    def prompt_id(self, variant: str, lang: str) -> str:
        """The identity of the prompt of ``variant`` in ``lang`` (``name@sha256-…``)."""
        raise NotImplementedError

    def requests(
        self,
        item: JudgeItem,
        *,
        model: str,
        variant: str,
        lang: str,
        rank: bool,
        max_tokens: int,
    ) -> list[GenerationRequest]:
        """The judge's request(s) for ``item`` (temperature 0); ``rank``: the backend scores options."""
        raise NotImplementedError

    def read(self, item: JudgeItem, results: Sequence[GenerationResult], *, rank: bool) -> Reading:
        """The judge's replies to :meth:`requests` for ``item``, read."""
        raise NotImplementedError

    def check(self, variant: str, lang: str) -> None:
        """Refuse a variant or prompt language the task does not have (one line: what it has).

        Raises:
            ConfigError: ``variant`` or ``lang`` is not one of the task's.
        """
        if variant not in self.variants:
            raise ConfigError(
                f"the {self.name} judge has no prompt variant {variant!r}; it has: "
                f"{', '.join(self.variants)}"
            )
        if lang not in self.prompt_langs():
            raise ConfigError(
                f"the {self.name} judge has no prompt in {lang!r}; it has: "
                f"{', '.join(self.prompt_langs())} (use --prompt-lang en for the English rubric)"
            )

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, labels={self.labels!r})"


JUDGE_TASKS: Registry[JudgeTask] = Registry(
    "judge task", hint="(bordir judge calibrate --task; docs/judge.md)"
)
"""The judge tasks by name (the built-ins are imported on first use)."""

JUDGE_TASKS.register(
    "faithfulness",
    module="bordir.judging.faithfulness:TASK",
    description="is the sentence supported by the passages? (MEMERAG's labels)",
)
JUDGE_TASKS.register(
    "testgen",
    module="bordir.testgen.calibration:TASK",
    description="the faithfulness rating of bordir judge's five-criterion oracle, its own prompt",
)
JUDGE_TASKS.register(
    "relevance",
    module="bordir.annotations.calibration:TASK",
    description="bordir annotate's relevance label (relevant or partially vs not), its own prompt",
)
JUDGE_TASKS.register(
    "rgb_rejection",
    module="bordir.testbeds.calibration:REJECTION",
    description="RGB's Rej* judge (bordir testbed rejection --judge): did the answer reject?",
)
JUDGE_TASKS.register(
    "rgb_counterfactual",
    module="bordir.testbeds.calibration:COUNTERFACTUAL",
    description="RGB's ED* judge (bordir testbed counterfactual --judge): errors identified?",
)


def get_task(task: str | JudgeTask) -> JudgeTask:
    """The task named ``task`` (a task object is returned as it is).

    Raises:
        ConfigError: no task has that name.
    """
    return task if isinstance(task, JudgeTask) else JUDGE_TASKS.get(task)
