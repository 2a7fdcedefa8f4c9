"""``bordir annotate``'s annotator as a calibrated judge: the ``relevance`` task, and the calibration block of a set of LLM labels.

* :data:`TASK` (``relevance``): the annotator's own prompt
  (:func:`~bordir.annotations.annotator.render_prompt`) on a labelled item: the item's question
  as the query, its territory and claimants (fields every item must have: ``claimants``
  ``;``-separated), its context as the document (in ``doc_lang``, default the item's language).
  The relevance read (:func:`~bordir.annotations.annotator.parse_label`) is binarised as
  ``relevance_binary`` is: ``relevant`` (relevant or partially relevant) vs ``not_relevant``;
  human labels ``partially_relevant`` count as ``relevant``. A rank-classification backend
  scores every (relevance, viewpoint) option; its score is the log of the summed probability
  of the relevant options minus that of the not-relevant one.
* :func:`relevance_calibration`: per query language, the share of pairs labelled relevant,
  beside the annotator's calibration there (:func:`~bordir.judging.judged.judged_rates`).

Example:
    >>> TASK.labels, TASK.prompt_id("zero_shot", "en").startswith("relevance_viewpoint@sha256-")
    (('relevant', 'not_relevant'), True)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..judging.tasks import JudgeTask, Reading
from .annotator import TEMPLATE, build_annotation_request, parse_label, prompt_id
from .schema import RELEVANT_LEVELS

if TYPE_CHECKING:
    from ..generation.types import GenerationRequest, GenerationResult
    from ..judging.calibration import Calibration
    from ..judging.items import JudgeItem
    from .labelset import LabelSet

__all__ = ["TASK", "RelevanceTask", "check_calibration", "relevance_calibration"]

RELEVANT_RATE = "relevant share"


def _claimants(item: JudgeItem) -> tuple[str, ...]:
    raw = item.get("claimants")
    parts = raw if isinstance(raw, list) else str(raw).split(";")
    return tuple(p.strip() for p in parts if str(p).strip())


class RelevanceTask(JudgeTask):
    """``bordir annotate``'s relevance label (see the module docs)."""

    name = "relevance"
    positive = "relevant"
    negative = "not_relevant"
    aliases = (("partially_relevant", "relevant"),)
    needs = ("territory", "claimants")
    answers = "the document"

    def prompt_langs(self) -> tuple[str, ...]:
        return ("en",)

    def prompt_id(self, variant: str, lang: str) -> str:
        self.check(variant, lang)
        return prompt_id(TEMPLATE)

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
        from ..records import Passage, Query

        claimants = _claimants(item)
        query = Query(
            item.cluster, str(item.get("territory")), item.lang, item.question, claimants, claimants
        )
        doc = Passage(
            item.item_id, str(item.get("doc_lang") or item.lang), "\n\n".join(item.context)
        )
        return [build_annotation_request(query, doc, model=model, rank_classification=rank)]

    def read(self, item: JudgeItem, results: Sequence[GenerationResult], *, rank: bool) -> Reading:
        res = results[0]
        p = parse_label(res.text, _claimants(item))
        if p.outcome != "labelled" or p.relevance is None:
            return Reading(None, note=p.note)
        label = self.positive if p.relevance in RELEVANT_LEVELS else self.negative
        lp = res.option_logprobs
        score = None
        if lp is not None and len(lp) > 1:
            rel = math.log(sum(math.exp(x - max(lp)) for x in lp[:-1])) + max(lp)
            score = rel - lp[-1]  # the not-relevant option is the last one (label_options)
        return Reading(label, score)


TASK = RelevanceTask()
"""The task (:data:`~bordir.judging.tasks.JUDGE_TASKS` ``relevance``)."""


def check_calibration(calibration: Calibration, *, model: str, langs: Iterable[str]) -> None:
    """Refuse, before any call, a calibration that is not of this annotator and prompt.

    Raises:
        ConfigError: another judge model or prompt (both signatures named).
        DataError: a query language that the calibration does not have.
    """
    langs = sorted(set(langs))
    prompt = prompt_id(TEMPLATE)
    calibration.check(
        judge=model,
        task=TASK.name,
        prompts=dict.fromkeys(langs, prompt),
        langs=langs,
        run=f"annotate|gen:{model}|prompt:{prompt}",
    )


def relevance_calibration(
    labels: LabelSet, calibration: Calibration | None, *, correct: bool = False
) -> dict[str, Any]:
    """The calibration block of an annotator's labels: per query language, the relevant share."""
    from ..judging.judged import judged_rates

    frame = labels.to_frame()
    done = frame[frame["outcome"] == "labelled"]
    units = [
        ("all", str(r.query_lang), str(r.query_id), r.relevance in RELEVANT_LEVELS)
        for r in done.itertuples(index=False)
    ]
    return judged_rates(
        units,
        calibration,
        task=TASK.name,
        counted=TASK.positive,
        rate=RELEVANT_RATE,
        correct=correct,
    )
