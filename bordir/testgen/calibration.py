"""``bordir judge``'s oracle as a calibrated judge: the ``testgen`` judge task, and the calibration block of a judged run.

* :data:`TASK` (:data:`~bordir.judging.tasks.JUDGE_TASKS` ``testgen``): the oracle's own prompt
  (``judge.<lang>.txt``, :func:`~bordir.testgen.judge.render_judge_prompt`) on a labelled item:
  the item's question, its passages as the retrieved documents, the rated text as the answer,
  no expected answer or keywords ("(not given)"). Its **faithfulness** rating is read:
  ``True`` → ``Supported``; ``Partially`` or ``False`` → ``Not Supported`` (the oracle's fail rule
  fails an answer whose faithfulness is False; Partially lowers its mean). A rank-classification
  backend scores ``True`` / ``Partially`` / ``False`` after "criterion: faithfulness", as
  ``bordir judge`` asks it; its score is ``log p(True) − max(log p(Partially), log p(False))``.
* :func:`judge_calibration`: per (config, language) of a judged run, the share of answers whose
  faithfulness the judge did not rate True (the ``unsupported rate``: the quantity the
  calibration measures), beside the judge's balanced accuracy in that language
  (:func:`~bordir.judging.judged.judged_rates`); the fail rate itself combines five criteria and
  is not corrected.

Example:
    >>> TASK.prompt_id("zero_shot", "en").startswith("judge.en@sha256-")
    True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from ..judging.faithfulness import CHALLENGING, NOT_SUPPORTED, SUPPORTED
from ..judging.tasks import JudgeTask, Reading
from .oracle import RATINGS, parse_judgment

if TYPE_CHECKING:
    from ..generation.types import GenerationRequest, GenerationResult
    from ..judging.calibration import Calibration
    from ..judging.items import JudgeItem

__all__ = ["TASK", "TestgenTask", "check_calibration", "judge_calibration", "UNSUPPORTED_RATE"]

UNSUPPORTED_RATE = "unsupported rate"
"""The judged rate a calibration of the oracle stands beside."""


class TestgenTask(JudgeTask):
    """The faithfulness rating of ``bordir judge``'s oracle (see the module docs)."""

    __test__ = False  # not a pytest test class
    name = "testgen"
    positive = SUPPORTED
    negative = NOT_SUPPORTED
    abstain = (CHALLENGING,)
    variants = ("zero_shot",)
    answers = "the answer"

    def prompt_langs(self) -> tuple[str, ...]:
        from .judge import judge_languages

        return judge_languages()

    def prompt_id(self, variant: str, lang: str) -> str:
        from .judge import judge_prompt_id

        self.check(variant, lang)
        return judge_prompt_id(lang)

    def render(self, item: JudgeItem, lang: str) -> str:
        """The oracle's prompt for ``item``."""
        from .chunks import Chunk
        from .judge import render_judge_prompt
        from .testcase import TestCase

        chunks = {
            f"c{i}": Chunk(f"c{i}", "item", item.lang, text, index=i)
            for i, text in enumerate(item.context)
        }
        test = TestCase(
            test_id=item.item_id,
            lang=item.lang,
            strategy="calibration",
            question=item.question,
            expected_answer="(not given)",
            keywords=(),
            source_chunk_ids=tuple(chunks),
            generated_from="calibration",
        )
        return render_judge_prompt(
            {"answer": item.text, "retrieved": list(chunks)}, test, chunks, lang=lang
        )

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
        from ..generation.types import GenerationRequest, Message

        prompt = self.render(item, lang)
        if rank:
            return [
                GenerationRequest(
                    model=model,
                    messages=(Message("user", f"{prompt}\n\ncriterion: faithfulness"),),
                    temperature=0.0,
                    max_tokens=4,
                    options=RATINGS,
                    extra=(("task", "testgen-judge"),),
                )
            ]
        return [
            GenerationRequest(
                model=model,
                messages=(Message("user", prompt),),
                temperature=0.0,
                max_tokens=max(max_tokens, 256),
                extra=(("rank_classification", "false"), ("task", "testgen-judge")),
            )
        ]

    def read(self, item: JudgeItem, results: Sequence[GenerationResult], *, rank: bool) -> Reading:
        res = results[0]
        if rank and res.option_logprobs is not None:
            lp = list(res.option_logprobs)
            score = lp[0] - max(lp[1:])
            return Reading(SUPPORTED if res.text == "True" else NOT_SUPPORTED, float(score))
        j = parse_judgment(res.text)
        if j.outcome != "judged":
            return Reading(None, note=j.note or "unparsed")
        return Reading(SUPPORTED if j.ratings.get("faithfulness") == "True" else NOT_SUPPORTED)


TASK = TestgenTask()
"""The task (:data:`~bordir.judging.tasks.JUDGE_TASKS` ``testgen``)."""


def check_calibration(
    calibration: Calibration,
    *,
    judges: Sequence[str],
    prompt_lang: str,
    repeats: int,
    temperature: float | None,
    langs: Iterable[str],
) -> None:
    """Refuse a calibration that does not describe this judged run (before any judge call).

    Raises:
        ConfigError: several judges, repeats, a temperature other than 0, another judge model or
            prompt (both signatures named).
        DataError: a language of the run that the calibration does not have.
    """
    from .judge import judge_prompt_id

    if len(judges) != 1:
        raise ConfigError(
            f"--calibration is of one judge; this run's verdicts are the majority of "
            f"{len(judges)} judges ({', '.join(judges)}): judge with one --judge"
        )
    if repeats != 1 or (temperature not in (None, 0, 0.0)):
        shown = temperature if temperature is not None else (0.0 if repeats == 1 else 0.7)
        raise ConfigError(
            "--calibration describes one judge call at temperature 0; this run makes "
            f"{repeats} call(s) per answer at temperature {shown}: judge with --repeats 1 "
            "(and no --temperature)"
        )
    prompt = judge_prompt_id(prompt_lang)
    run = f"testgen_judge|judges:{judges[0]}|prompt:{prompt}"
    calibration.check(judge=judges[0], task="testgen", prompts=prompt, langs=langs, run=run)


def judge_calibration(
    judgments: Sequence[dict[str, Any]],
    calibration: Calibration | None,
    *,
    judges: Sequence[str],
    prompt_lang: str,
    correct: bool = False,
) -> dict[str, Any]:
    """The calibration block of a judged run (see the module docs; :func:`check_calibration` first).

    Args:
        judgments: the rows of ``judgments.jsonl``.
        calibration: the calibration file (None: every language "not calibrated").
        judges: the run's judges.
        prompt_lang: the primary prompt language.
        correct: also give the corrected unsupported rate.
    """
    from ..judging.judged import judged_rates

    rows = [
        r
        for r in judgments
        if r["prompt_lang"] == prompt_lang
        and r["repeat"] == 0
        and r["outcome"] == "judged"
        and r["judge"] == judges[0]
    ]
    units = [(r["config"], r["lang"], r["test_id"], r["faithfulness"] != "True") for r in rows]
    return judged_rates(
        units,
        calibration,
        task="testgen",
        counted=NOT_SUPPORTED,
        rate=UNSUPPORTED_RATE,
        correct=correct,
    )
