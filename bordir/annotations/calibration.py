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
  beside the annotator's calibration there (:func:`~bordir.judging.judged.judged_rates`);
* :func:`relevance_items`: human relevance labels (``bordir annotate``'s label files, a double
  annotation: one label set per annotator) as calibration items, the query and document texts
  read from the dataset and the corpus.

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
    from ..corpus import Corpus
    from ..dataset import BorderLines
    from ..generation.types import GenerationRequest, GenerationResult
    from ..judging.calibration import Calibration
    from ..judging.items import ItemSet, JudgeItem
    from .labelset import LabelSet

__all__ = [
    "TASK",
    "RelevanceTask",
    "check_calibration",
    "relevance_calibration",
    "relevance_items",
]

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
    prompt = prompt_id(TEMPLATE)
    run = f"annotate|gen:{model}|prompt:{prompt}"
    calibration.check(judge=model, task=TASK.name, prompts=prompt, langs=langs, run=run)


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


def relevance_items(
    label_sets: Sequence[LabelSet], *, dataset: BorderLines, corpus: Corpus, name: str = ""
) -> ItemSet:
    """Human relevance labels of (query, document) pairs as calibration items of the ``relevance`` task.

    One item per pair, labelled by every set that labelled it (``labelled`` outcomes only), so a
    double annotation gives two annotators per item and the human ceiling. The query's text is
    the question, the document the context, its query the cluster; relevance is binarised
    (partially relevant counts as relevant).

    Raises:
        ConfigError: a pair whose query is not in ``dataset``.
        DataError: no labelled pair.
    """
    from ..errors import ConfigError, DataError
    from ..judging.items import ItemSet, JudgeItem, content_hash
    from ..stats import plurality

    pairs: dict[tuple[str, str, str], list[tuple[str, str]]] = {}
    for ls in label_sets:
        for l in ls:
            if l.outcome != "labelled" or l.relevance is None:
                continue
            label = TASK.positive if l.relevance in RELEVANT_LEVELS else TASK.negative
            pairs.setdefault(l.pair, []).append((l.annotator or ls.name, label))
    if not pairs:
        raise DataError("the label sets hold no labelled (query, document) pair")
    items = []
    for (qid, doc_lang, doc_id), anns in pairs.items():
        q = dataset.find_query(qid)
        if q is None:
            raise ConfigError(
                f"label of query {qid!r}: the query is not in dataset {dataset.name!r}"
            )
        doc = corpus.get(doc_lang, doc_id)
        ref: str | None = anns[0][1] if len(anns) == 1 else plurality([l for _, l in anns])[0]
        items.append(
            JudgeItem(
                item_id=f"{qid}/{doc_lang}:{doc_id}",
                lang=q.lang,
                question=q.text,
                context=(doc.text,),
                text=doc.text,
                label=ref,
                annotations=tuple(anns),
                cluster=qid,
                extra=(
                    ("territory", q.territory),
                    ("claimants", ";".join(q.claimants)),
                    ("doc_lang", doc_lang),
                ),
            )
        )
    ident = content_hash(f"{i.item_id}|{a}|{l}".encode() for i in items for a, l in i.annotations)
    names = "+".join(ls.name for ls in label_sets)
    return ItemSet(items, name=name or f"relevance:{names}", ident=ident)
