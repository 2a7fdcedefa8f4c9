"""Judge calibration: how far each LLM judge agrees with native-speaker labels, per language, and what that does to every judged rate.

bordir's judges (``bordir judge``'s five-criterion oracle, ``bordir annotate``'s relevance
labels, RGB's Rej* / ED* in ``bordir testbed``) each produce per-language rates. Whether a
verdict means the same in Hindi as in English is measured here:

* :mod:`~bordir.judging.items` — :class:`JudgeItem`, :class:`ItemSet`: labelled items;
* :mod:`~bordir.judging.memerag` — :func:`load_memerag` (MEMERAG's native-speaker labels, three
  variants); :mod:`~bordir.judging.labelfile` — :func:`load_label_file` (your own JSONL / CSV);
* :mod:`~bordir.judging.tasks` — :data:`JUDGE_TASKS`: the prompt and the reader of each judge
  (:mod:`~bordir.judging.faithfulness`: MEMERAG's task, four prompt variants, five languages);
* :mod:`~bordir.judging.agreement` — accuracy, balanced accuracy, Cohen's κ, sensitivity,
  specificity and the unparseable share with cluster-bootstrap intervals;
  :mod:`~bordir.judging.ceiling` — the inter-annotator ceiling;
  :mod:`~bordir.judging.thresholds` — a threshold on the judge's score per language;
* :mod:`~bordir.judging.calibrate` — :func:`calibrate_judge` (``bordir judge calibrate``);
* :mod:`~bordir.judging.calibration` — :class:`Calibration`: the file, its signature, its lookups;
* :mod:`~bordir.judging.correction` — the Rogan–Gladen corrected rate with its interval;
* :mod:`~bordir.judging.judged` — what a judged run prints beside each per-language figure.

``docs/judge.md`` explains how to read it all.

Example:
    >>> from bordir.judging import JUDGE_TASKS
    >>> "faithfulness" in JUDGE_TASKS
    True
"""

from __future__ import annotations

from .calibrate import DEFAULT_FLOOR, calibrate_judge, estimate_calibration
from .calibration import Calibration, LanguageCalibration
from .data import load_items
from .items import ItemSet, JudgeItem
from .labelfile import load_label_file
from .memerag import load_memerag
from .tasks import JUDGE_TASKS, PROMPT_LANGS, VARIANTS, JudgeTask, Reading, get_task

__all__ = [
    "JudgeItem",
    "ItemSet",
    "load_memerag",
    "load_label_file",
    "load_items",
    "JUDGE_TASKS",
    "JudgeTask",
    "Reading",
    "VARIANTS",
    "PROMPT_LANGS",
    "get_task",
    "calibrate_judge",
    "estimate_calibration",
    "DEFAULT_FLOOR",
    "Calibration",
    "LanguageCalibration",
]
