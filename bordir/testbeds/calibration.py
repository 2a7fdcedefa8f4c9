"""RGB's LLM judges as calibrated judges: the ``rgb_rejection`` and ``rgb_counterfactual`` tasks, and a testbed run's calibration block.

* :data:`REJECTION` (``rgb_rejection``): RGB's Rej* prompt on a labelled item (its question,
  the rated text as the answer; RGB's judge sees no documents): ``rejected`` when the reply
  contains "not addressed" (RGB's test), ``answered`` otherwise.
* :data:`COUNTERFACTUAL` (``rgb_counterfactual``): RGB's ED* prompt: ``identified`` when the reply
  says the response identified the factual errors, ``not_identified`` otherwise.

RGB's substring tests read every reply, so these judges are never unparseable. Their prompts
are English only. :func:`judge_calibration_block` gives, per (model, setting, noise rate) and
language, the judged rate (Rej* or ED*) beside the judge's calibration there
(:func:`~bordir.judging.judged.judged_rates`); CR* is conditional on ED* and is not corrected.

Example:
    >>> REJECTION.labels, REJECTION.prompt_id("zero_shot", "en").startswith("rgb_rejection@sha256-")
    (('rejected', 'answered'), True)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from ..judging.tasks import JudgeTask, Reading, text_id

if TYPE_CHECKING:
    import pandas as pd

    from ..generation.types import GenerationRequest, GenerationResult
    from ..judging.calibration import Calibration
    from ..judging.items import JudgeItem

__all__ = [
    "REJECTION",
    "COUNTERFACTUAL",
    "RgbJudgeTask",
    "TASKS",
    "check_calibration",
    "judge_calibration_block",
]


class RgbJudgeTask(JudgeTask):
    """One of RGB's judges (see the module docs)."""

    def __init__(self, name: str, testbed: str, positive: str, negative: str, rate: str) -> None:
        self.name = name
        self.testbed = testbed
        self.positive = positive
        self.negative = negative
        self.rate = rate
        self.answers = "the answer"

    def prompt_langs(self) -> tuple[str, ...]:
        return ("en",)

    def prompt_id(self, variant: str, lang: str) -> str:
        from .testbed import get_testbed

        self.check(variant, lang)
        judge = get_testbed(self.testbed).judge
        assert judge is not None  # both testbeds have one
        return text_id(self.name, judge.prompt)

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
        from .judge import judge_request

        return [judge_request(self.testbed, item.question, item.text, model=model)]

    def read(self, item: JudgeItem, results: Sequence[GenerationResult], *, rank: bool) -> Reading:
        from .judge import judge_label

        return Reading(
            self.positive if judge_label(self.testbed, results[0].text) else self.negative
        )


REJECTION = RgbJudgeTask(
    "rgb_rejection", "rejection", "rejected", "answered", "rejection_rate_judge"
)
"""RGB's Rej* judge."""
COUNTERFACTUAL = RgbJudgeTask(
    "rgb_counterfactual",
    "counterfactual",
    "identified",
    "not_identified",
    "error_detection_rate_judge",
)
"""RGB's ED* judge."""
TASKS = {t.testbed: t for t in (REJECTION, COUNTERFACTUAL)}
"""The judge task of each judged testbed."""


def _task(testbed: str) -> RgbJudgeTask:
    task = TASKS.get(testbed)
    if task is None:
        raise ConfigError(
            f"--calibration: the {testbed} testbed has no LLM judge (judged testbeds: "
            f"{', '.join(TASKS)})"
        )
    return task


def check_calibration(
    calibration: Calibration, *, testbed: str, judge: str | None, langs: Iterable[str]
) -> None:
    """Refuse, before any call, a calibration that is not of this testbed's judge.

    Raises:
        ConfigError: no ``--judge``, a testbed without a judge, another judge model or prompt.
        DataError: a language of the run that the calibration does not have.
    """
    task = _task(testbed)
    if not judge:
        raise ConfigError(
            "--calibration describes a judge: give the judge too (--judge provider/model)"
        )
    prompt = task.prompt_id("zero_shot", "en")
    run = f"testbed {testbed}|judge:{judge}|prompt:{prompt}"
    calibration.check(judge=judge, task=task.name, prompts=prompt, langs=langs, run=run)


def judge_calibration_block(
    items: pd.DataFrame,
    calibration: Calibration | None,
    *,
    testbed: str,
    correct: bool = False,
    n_resamples: int = 2000,
    seed: int = 0,
) -> dict[str, Any]:
    """The calibration block of a testbed run: per (model, setting, noise rate) and language, the judged rate."""
    from ..judging.judged import judged_rates

    task = _task(testbed)
    units = []
    if "judge_flag" in items.columns:
        judged = items[items["judge_flag"].notna()]
        for r in judged.itertuples(index=False):
            cell = f"{r.model} {r.setting} r={float(r.noise_rate):g}"
            units.append((cell, str(r.lang), str(r.cluster), bool(r.judge_flag)))
    return judged_rates(
        units,
        calibration,
        task=task.name,
        counted=task.positive,
        rate=task.rate,
        correct=correct,
        n_resamples=n_resamples,
        seed=seed,
    )
