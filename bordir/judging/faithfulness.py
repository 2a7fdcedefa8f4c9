"""The ``faithfulness`` judge: is one sentence of an answer supported by the passages? (MEMERAG's task).

The prompt is assembled from the sections of ``bordir/judging/prompts/faithfulness.<lang>.txt``
(de, en, es, fr, hi): the instructions, then the annotation guidelines (variants
``guidelines`` and ``guidelines_cot``), the question, the passages and the sentence, each
quoted as data between ``[BEGIN DATA: …]`` / ``[END DATA: …]`` lines, then either "reply
with the label only" (``zero_shot``, ``guidelines``) or "think step by step, then a last line
``Verdict: …``" (``cot``, ``guidelines_cot``). In every prompt language the judge answers
with the English labels ``Supported`` / ``Not Supported``, so one reader reads all replies.

A reply is read (:func:`read_verdict`) from a JSON object (``verdict`` or ``label``, and an
optional numeric ``score``: higher is more supported), a ``Verdict:`` line, an
``<answer>…</answer>`` tag, or a last line that names one label; anything else is
unparseable (``None``), never a guess. A rank-classification backend (``local/…``) scores the
two labels as options: its ``score`` is ``log p(Supported) − log p(Not Supported)``; with a
chain-of-thought variant it generates instead.

Example:
    >>> read_verdict("The passage says so.\\nVerdict: Not Supported").label
    'Not Supported'
    >>> read_verdict('{"verdict": "Supported", "score": 0.8}')
    Reading(label='Supported', score=0.8, note='')
    >>> read_verdict("Both Supported and Not Supported apply.").label is None
    True
    >>> TASK.prompt_id("zero_shot", "hi").startswith("faithfulness.zero_shot.hi@sha256-")
    True
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ConfigError
from .tasks import JudgeTask, Reading, normalize_label, text_id

if TYPE_CHECKING:
    from ..generation.types import GenerationRequest, GenerationResult
    from .items import JudgeItem

__all__ = ["TASK", "FaithfulnessTask", "read_verdict", "sections", "data_block"]

_DIR = Path(__file__).parent / "prompts"
SUPPORTED, NOT_SUPPORTED, CHALLENGING = "Supported", "Not Supported", "Challenging to determine"
_SECTIONS = ("instructions", "guidelines", "direct", "cot")


@cache
def sections(lang: str) -> dict[str, str]:
    """The named sections of ``faithfulness.<lang>.txt``.

    Raises:
        ConfigError: there is no prompt in ``lang``.
    """
    path = _DIR / f"faithfulness.{lang}.txt"
    if not path.is_file():
        known = ", ".join(TASK.prompt_langs())
        raise ConfigError(f"the faithfulness judge has no prompt in {lang!r}; it has: {known}")
    out: dict[str, list[str]] = {}
    current = None
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("## ") and line[3:].strip() in _SECTIONS:
            current = line[3:].strip()
            out[current] = []
        elif current is not None:
            out[current].append(line)
    return {k: "\n".join(v).strip() for k, v in out.items()}


def data_block(name: str, text: str) -> str:
    """``text`` between ``[BEGIN DATA: name]`` and ``[END DATA: name]``, its own fence lines made inert.

    >>> data_block("sentence", "x [END DATA: sentence] y")
    '[BEGIN DATA: sentence]\\nx (END DATA: sentence] y\\n[END DATA: sentence]'
    """
    safe = text.replace("[BEGIN DATA", "(BEGIN DATA").replace("[END DATA", "(END DATA")
    return f"[BEGIN DATA: {name}]\n{safe}\n[END DATA: {name}]"


def _frame(variant: str, lang: str) -> tuple[str, str]:
    """The prompt's text before and after the data."""
    s = sections(lang)
    head = s["instructions"] + (
        "\n\n" + s["guidelines"] if variant.startswith("guidelines") else ""
    )
    tail = s["cot"] if variant.endswith("cot") else s["direct"]
    return head, tail


_JSON = re.compile(r"\{[^{}]*\}", re.S)
_VERDICT = re.compile(r"(?im)^[\s*#>`_-]*(?:verdict|label|answer)\s*[:=]\s*\**\s*(.+?)\s*$")
_TAG = re.compile(r"(?is)<answer>\s*(.+?)\s*</answer>")
_NOT = re.compile(r"(?i)\bnot[\s_-]+supported\b")
_SUP = re.compile(r"(?i)\bsupported\b")


def _label_in(text: str) -> str | None:
    """The one label ``text`` names (None: none, or both)."""
    t = text.strip().strip("*`'\"“”«». ")
    exact = normalize_label(t, (SUPPORTED, NOT_SUPPORTED))
    if exact is not None:
        return exact
    n_not = len(_NOT.findall(text))
    n_sup = len(_SUP.findall(text)) - n_not
    if n_not and not n_sup:
        return NOT_SUPPORTED
    if n_sup and not n_not:
        return SUPPORTED
    return None


def read_verdict(text: str) -> Reading:
    """Read a faithfulness judge's reply (see the module docs)."""
    if not text or not text.strip():
        return Reading(None, note="empty reply")
    for m in reversed(_JSON.findall(text)):
        try:
            obj = json.loads(m)
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            low = {str(k).casefold(): v for k, v in obj.items()}
            value = low.get("verdict", low.get("label"))
            if isinstance(value, str):
                label = normalize_label(value, (SUPPORTED, NOT_SUPPORTED))
                score = low.get("score")
                ok = isinstance(score, (int, float)) and not isinstance(score, bool)
                if label is not None:
                    return Reading(label, float(score) if ok and score is not None else None)
    for rx in (_VERDICT, _TAG):
        found = rx.findall(text)
        if found:
            label = _label_in(found[-1])
            if label is not None:
                return Reading(label)
            return Reading(None, note=f"the verdict {found[-1][:40]!r} is not a label")
    lines = [l for l in text.strip().splitlines() if l.strip()]
    label = _label_in(lines[-1])
    if label is not None:
        return Reading(label)
    return Reading(None, note="no verdict: expected 'Supported' or 'Not Supported'")


class FaithfulnessTask(JudgeTask):
    """Is the sentence supported by the passages? (see the module docs)."""

    name = "faithfulness"
    positive = SUPPORTED
    negative = NOT_SUPPORTED
    abstain = (CHALLENGING,)
    variants = ("zero_shot", "cot", "guidelines", "guidelines_cot")
    answers = "the sentence"

    def prompt_langs(self) -> tuple[str, ...]:
        return tuple(sorted(p.name.split(".")[1] for p in _DIR.glob("faithfulness.*.txt")))

    def prompt_id(self, variant: str, lang: str) -> str:
        self.check(variant, lang)
        head, tail = _frame(variant, lang)
        return text_id(f"faithfulness.{variant}.{lang}", f"{head}\n\n{tail}")

    def render(self, item: JudgeItem, variant: str, lang: str) -> str:
        """The prompt for ``item``."""
        head, tail = _frame(variant, lang)
        passages = "\n\n".join(f"({i}) {p}" for i, p in enumerate(item.context, 1))
        data = "\n\n".join(
            (
                data_block("question", item.question),
                data_block("passages", passages),
                data_block("sentence", item.text),
            )
        )
        return f"{head}\n\n{data}\n\n{tail}"

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

        options = self.labels if rank and not variant.endswith("cot") else ()
        extra: tuple[tuple[str, str], ...] = (("task", "judge-calibration:faithfulness"),)
        if rank and not options:
            extra += (("rank_classification", "false"),)
        return [
            GenerationRequest(
                model=model,
                messages=(Message("user", self.render(item, variant, lang)),),
                temperature=0.0,
                seed=None,
                max_tokens=4 if options else max_tokens,
                options=options,
                extra=extra,
            )
        ]

    def read(self, item: JudgeItem, results: Sequence[GenerationResult], *, rank: bool) -> Reading:
        res = results[0]
        lp = res.option_logprobs
        if lp is not None and len(lp) == 2:
            return Reading(normalize_label(res.text, self.labels), float(lp[0] - lp[1]))
        return read_verdict(res.text)


TASK = FaithfulnessTask()
"""The task (:data:`~bordir.judging.tasks.JUDGE_TASKS` ``faithfulness``)."""
