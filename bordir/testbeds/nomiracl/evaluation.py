"""NoMIRACL's metric, ported line by line: ``ConfusionMetric`` and the rows of ``hallucination_evaluation.py``.

The reference is ``nomiracl/eval/metrics.py`` (``ConfusionMetric.evaluate``) and
``examples/hallucination_evaluation.py`` of ``project-miracl/nomiracl``. Per
model, over the labels :func:`~bordir.testbeds.nomiracl.template.postprocess`
gave its replies (one per query id):

* ``stats`` counts each label; every denominator is ``sum(stats.values())``, so
  ``Invalid`` replies stay in it;
* non-relevant subset: ``Accuracy`` = ``I don't know`` / n and ``Hallucination`` =
  ``Yes, answer is present`` / n; relevant subset: ``Accuracy`` = answer / n and
  ``Error`` = ``I don't know`` / n; ``Invalid`` = ``Invalid`` / n;
* **quirk**: the error (hallucination) rate is computed only when the subset's correct
  label occurs at least once (``if subset == "non_relevant" and self.no_answer_str in stats``),
  and ``Invalid`` only when some reply is Invalid; otherwise the model has no entry and the
  evaluation script writes ``0.0``. A model that never says "I don't know" on the
  non-relevant subset is reported with a hallucination rate of 0, whatever it said.

**The README differs from the code.** NoMIRACL's README defines the hallucination
rate as FP / (FP + TN) and the error rate as FN / (FN + TP), over the replies that
are an answer or a refusal; the code divides by *all* replies, Invalid ones
included, and leaves the rate at 0 in the case above. bordir follows the code
(:func:`confusion_metric`, :func:`evaluation_row`) and reports the count behind
every value.

Example:
    >>> r = confusion_metric("non_relevant", {"m": {"q1": "I don't know", "q2": "Invalid",
    ...                                             "q3": "Yes, answer is present", "q4": "I don't know"}})
    >>> r["Accuracy"]["m"], r["Hallucination"]["m"], r["Invalid"]["m"]
    (0.5, 0.25, 0.25)
    >>> quirk = confusion_metric("non_relevant", {"m": {"q1": "Yes, answer is present"}})
    >>> "m" in quirk["Hallucination"], evaluation_row(quirk, "non_relevant", ["m", "absent"])
    (False, [0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from ...errors import ConfigError
from .template import ANSWER, INVALID, NO_ANSWER

__all__ = [
    "SUBSETS",
    "ERROR_NAME",
    "ACCURACY",
    "confusion_metric",
    "evaluation_row",
    "evaluation_header",
]

SUBSETS = ("non_relevant", "relevant")
"""NoMIRACL's two subsets (``ConfusionMetric.evaluate``'s ``subset``)."""
ERROR_NAME = {"relevant": "Error", "non_relevant": "Hallucination"}
"""``ConfusionMetric(error_name=…)``: the error rate's name per subset."""
ACCURACY = "Accuracy"


def confusion_metric(
    subset: str, results: Mapping[str, Mapping[str, str]]
) -> dict[str, dict[str, Any]]:
    """``ConfusionMetric().evaluate(subset, results)``: ``results`` maps model → query id → label.

    Returns ``{"Accuracy": {model: rate}, error_name: {model: rate}, "Invalid": {model: rate},
    "stats": {model: {label: count}}}`` with the original's missing entries (module docs).
    """
    if subset not in SUBSETS:  # metrics.py raises ValueError for another name
        raise ConfigError(f"NoMIRACL subset must be one of {', '.join(SUBSETS)}, got {subset!r}")
    error_name = ERROR_NAME[subset]
    out: dict[str, dict[str, Any]] = {ACCURACY: {}, error_name: {}, INVALID: {}, "stats": {}}
    for model in results:
        out[ACCURACY][model] = 0.0
        out["stats"][model] = {}
    for model in results:
        stats = dict(Counter(results[model].values()))
        out["stats"][model] = stats
        total = sum(stats.values())
        if subset == "non_relevant" and NO_ANSWER in stats:
            out[ACCURACY][model] = stats[NO_ANSWER] / total
            out[error_name][model] = stats[ANSWER] / total if ANSWER in stats else 0.0
        elif subset == "relevant" and ANSWER in stats:
            out[ACCURACY][model] = stats[ANSWER] / total
            out[error_name][model] = stats[NO_ANSWER] / total if NO_ANSWER in stats else 0.0
        if INVALID in stats:
            out[INVALID][model] = stats[INVALID] / total
    return out


def evaluation_header(subset: str, models: Sequence[str]) -> list[list[str]]:
    """The two header rows ``hallucination_evaluation.py`` writes to its TSV."""
    error = ERROR_NAME[subset]
    n = len(models)
    return [
        ["Language", *([ACCURACY] * n), *([error] * n), *([INVALID] * n)],
        ["Code", *(list(models) * 3)],
    ]


def evaluation_row(
    eval_results: Mapping[str, Mapping[str, Any]], subset: str, models: Sequence[str]
) -> list[float]:
    """One language's values as ``hallucination_evaluation.py`` writes them.

    For each of Accuracy, the error rate and Invalid, then each model: ``round(rate * 100, 4)``,
    or ``0.0`` where ``eval_results`` has no entry for the model.
    """
    out: list[float] = []
    for metric in (ACCURACY, ERROR_NAME[subset], INVALID):
        for model in models:
            if model in eval_results[metric]:
                out.append(round(eval_results[metric][model] * 100, 4))
            else:
                out.append(0.0)
    return out
