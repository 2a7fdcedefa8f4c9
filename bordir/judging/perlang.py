"""One language of a calibration: the agreement, the ceiling, the threshold and the status against the floor.

Example:
    >>> from bordir.judging.faithfulness import TASK
    >>> rows = [{"human": h, "judge": "Supported", "outcome": "judged", "cluster": "q1",
    ...          "score": None} for h in ("Supported", "Not Supported")]
    >>> r = language_result("en", rows, [], TASK, floor=0.7, split=None, n_resamples=0, seed=1,
    ...                     data_path="")
    >>> r["status"], r["reason"]
    ('uncalibrated', 'no interval (none: 1 question(s), fewer than 10)')
"""

from __future__ import annotations

from typing import Any

from ..errors import DataError
from ..stats import named_rng
from .agreement import agreement
from .ceiling import ceiling
from .items import JudgeItem
from .tasks import JudgeTask
from .thresholds import apply_threshold, best_threshold, split_questions

__all__ = ["language_result", "check_split"]


def check_split(items: list[JudgeItem], task: JudgeTask, split: float, data_path: str) -> None:
    """Refuse, before any call, a ``split`` that leaves a language's calibration or held-out part empty.

    Raises:
        DataError: a language with too few questions for ``split`` (file and field named).
    """
    questions: dict[str, set[str]] = {}
    for it in items:
        if it.label in task.labels:
            questions.setdefault(it.lang, set()).add(it.cluster)
    for lang, qs in sorted(questions.items()):
        k = int(round(split * len(qs)))
        if not 0 < k < len(qs):
            name = "calibration" if k == 0 else "held-out"
            raise DataError(
                f"the {name} split of {lang!r} is empty ({len(qs)} question(s) with "
                f"--split {split:g}); give more items of {lang!r} or another --split",
                path=data_path or None,
                field="split",
            )


def language_result(
    lang: str,
    rows: list[dict[str, Any]],
    items: list[JudgeItem],
    task: JudgeTask,
    *,
    floor: float,
    split: float | None,
    n_resamples: int,
    seed: int,
    data_path: str,
) -> dict[str, Any]:
    """The language's entry of the calibration file (``rows``: its per-item rows; ``items``: its items)."""
    left = {"abstain": 0, "tie": 0, "failed": 0}
    use = []
    for r in rows:
        if r["human"] is None:
            left["tie"] += 1
        elif r["human"] not in task.labels:
            left["abstain"] += 1
        elif r["outcome"] == "failed":
            left["failed"] += 1
        else:
            use.append(r)
    human = [r["human"] for r in use]
    judge = [r["judge"] for r in use]
    clusters = [r["cluster"] for r in use]
    out = agreement(
        human,
        judge,
        clusters,
        labels=task.labels,
        n_resamples=n_resamples,
        rng=named_rng(seed, f"judge-calibration/{lang}"),
    )
    out["left_out"] = left
    out["ceiling"] = ceiling(
        items,
        labels=task.labels,
        n_resamples=n_resamples,
        rng=named_rng(seed, f"judge-calibration/{lang}/ceiling"),
    )
    out["threshold"] = None
    if split is not None:
        out["threshold"] = _threshold(lang, use, task, split, n_resamples, seed, data_path)
    ba = out["metrics"]["balanced_accuracy"]
    if not use:
        status, reason = "uncalibrated", "no item with a human label the judge could be scored on"
    elif ba["value"] is None:
        status, reason = (
            "uncalibrated",
            ("the humans gave one label only: no balanced accuracy (label items of both kinds)"),
        )
    elif ba["low"] is None:
        status, reason = "uncalibrated", f"no interval ({out['interval']})"
    elif ba["low"] < floor:
        status, reason = (
            "uncalibrated",
            (f"balanced accuracy lower bound {ba['low']:.3f} < floor {floor:.2f}"),
        )
    else:
        status, reason = "calibrated", ""
    out.update(status=status, reason=reason)
    return out


def _threshold(
    lang: str,
    use: list[dict[str, Any]],
    task: JudgeTask,
    split: float,
    n_resamples: int,
    seed: int,
    data_path: str,
) -> dict[str, Any]:
    cal_q, held_q = split_questions(
        [r["cluster"] for r in use], split, named_rng(seed, f"judge-calibration/{lang}/split")
    )
    for name, qs in (("calibration", cal_q), ("held-out", held_q)):
        if not qs:
            raise DataError(
                f"the {name} split of {lang!r} is empty ({len(cal_q | held_q)} question(s) with "
                f"--split {split:g}); give more items of {lang!r} or another --split",
                path=data_path or None,
                field="split",
            )
    counts = {
        "split": split,
        "calibration_questions": len(cal_q),
        "held_out_questions": len(held_q),
    }
    if not any(r["score"] is not None for r in use):
        return {"fitted": False, "note": "the judge gave no scores: no threshold", **counts}
    cal = [r for r in use if r["cluster"] in cal_q]
    held = [r for r in use if r["cluster"] in held_q]
    t = best_threshold([r["score"] for r in cal], [r["human"] for r in cal], labels=task.labels)
    if t is None:
        return {
            "fitted": False,
            "note": "the calibration split has one human label only (or no scores): no threshold",
            **counts,
        }
    h = [r["human"] for r in held]
    c = [r["cluster"] for r in held]
    return {
        "fitted": True,
        "threshold": t,
        **counts,
        "held_out": agreement(
            h,
            apply_threshold([r["score"] for r in held], t, labels=task.labels),
            c,
            labels=task.labels,
            n_resamples=n_resamples,
            rng=named_rng(seed, f"judge-calibration/{lang}/held-out"),
        ),
        "held_out_own_labels": agreement(
            h,
            [r["judge"] for r in held],
            c,
            labels=task.labels,
            n_resamples=n_resamples,
            rng=named_rng(seed, f"judge-calibration/{lang}/held-out-own"),
        ),
    }
