"""What a judged run shows beside each per-language judged figure: the judge's calibration in that language, and the corrected rate.

:func:`judged_rates` takes the judged units of a run (its cells: a config, a model, a
setting …; the unit's language and cluster; whether the judge gave the label the rate counts)
and the calibration file (or None), and returns one row per (cell, language): the judged rate,
the judge's balanced accuracy there with its interval (``judge``), its status —
``calibrated``, ``uncalibrated`` (below the floor; the figure is marked), or ``not
calibrated`` (no calibration file: "judge not calibrated in this language") — and, with
``correct``, the Rogan–Gladen corrected rate or why it is refused. ``bordir judge``,
``bordir annotate`` and ``bordir testbed`` print it; their summaries store it (the report and
``bordir view`` show the same rows).

Example:
    >>> block = judged_rates([("c1", "en", "q1", True), ("c1", "en", "q2", False)], None,
    ...                      task="testgen", counted="Not Supported", rate="unsupported rate")
    >>> row = block.get("rows")[0]
    >>> row.get("rate"), row.get("judge").get("text")
    (0.5, 'judge not calibrated in this language')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .calibration import Calibration
from .correction import corrected_rate

__all__ = ["NOT_CALIBRATED", "judge_cell", "judged_rates", "mark", "text_rows"]

NOT_CALIBRATED = "judge not calibrated in this language"
"""What a judged figure says without a calibration file."""

Unit = tuple[str, str, str, bool]
"""A judged unit: ``(cell, language, cluster, the judge gave the counted label)``."""


def judge_cell(calibration: Calibration | None, lang: str) -> dict[str, Any]:
    """``status``, ``text`` and (with a calibration) ``balanced_accuracy`` and ``reason`` of one language.

    Raises:
        DataError: the calibration has no entry for ``lang``.
    """
    if calibration is None:
        return {"status": "not calibrated", "text": NOT_CALIBRATED}
    lc = calibration.for_language(lang)
    return {
        "status": lc.status,
        "text": lc.describe(),
        "balanced_accuracy": lc.balanced_accuracy,
        "reason": lc.reason,
    }


def mark(value: str, judge: dict[str, Any]) -> str:
    """A figure marked when its language's judge is uncalibrated.

    >>> mark("0.25", {"status": "uncalibrated"}), mark("0.25", {"status": "calibrated"})
    ('0.25 (uncalibrated judge)', '0.25')
    """
    return f"{value} (uncalibrated judge)" if judge.get("status") == "uncalibrated" else value


def judged_rates(
    units: Sequence[Unit],
    calibration: Calibration | None,
    *,
    task: str,
    counted: str,
    rate: str,
    correct: bool = False,
    n_resamples: int = 2000,
    seed: int = 0,
) -> dict[str, Any]:
    """One row per (cell, language) of a judged run, with the judge's calibration there (see the module docs).

    Args:
        units: the judged units (unparseable and failed judgements left out by the caller).
        calibration: the calibration file, or None.
        task: the run's judge task (in the block, for readers).
        counted: the label the rate counts (``Not Supported`` for an unsupported rate).
        rate: what the rate is, in words (a column header).
        correct: also give the Rogan–Gladen corrected rate.
        n_resamples: bootstrap resamples of the correction.
        seed: the correction's seed.

    Raises:
        DataError: a language of the units that the calibration does not have.
    """
    cells: dict[tuple[str, str], list[tuple[str, bool]]] = {}
    for cell, lang, cluster, flag in units:
        cells.setdefault((cell, lang), []).append((cluster, bool(flag)))
    langs = sorted({lang for _, lang in cells})
    judges = {lang: judge_cell(calibration, lang) for lang in langs}
    rows = []
    for (cell, lang), got in sorted(cells.items()):
        flags = [f for _, f in got]
        row: dict[str, Any] = {
            "cell": cell,
            "lang": lang,
            "n": len(flags),
            "k": sum(flags),
            "rate": sum(flags) / len(flags) if flags else None,
            "judge": judges[lang],
            "corrected": None,
        }
        if correct and calibration is not None:
            row["corrected"] = corrected_rate(
                flags,
                [c for c, _ in got],
                [r for r in calibration.items if r.get("lang") == lang],
                counted=counted,
                labels=calibration.labels,
                n_resamples=n_resamples,
                seed=seed,
                name=f"{cell}/{lang}",
            )
        rows.append(row)
    return {
        "task": task,
        "rate": rate,
        "counted": counted,
        "calibration": None if calibration is None else calibration.data["signature"],
        "calibration_file": None if calibration is None else calibration.path,
        "floor": None if calibration is None else calibration.floor,
        "corrected": bool(correct and calibration is not None),
        "rows": rows,
    }


def text_rows(block: dict[str, Any]) -> tuple[list[str], list[tuple[str, ...]]]:
    """Headers and rows of a terminal table of :func:`judged_rates`' block."""
    heads = ["cell", "lang", "n", block["rate"], "judge (calibration)"]
    if block.get("corrected"):
        heads.append("corrected rate [95% CI]")
    rows = []
    for r in block["rows"]:
        value = "-" if r["rate"] is None else f"{r['rate']:.3f}"
        row = [r["cell"], r["lang"], str(r["n"]), mark(value, r["judge"]), r["judge"]["text"]]
        if block.get("corrected"):
            c = r["corrected"] or {}
            row.append(
                f"refused: {c['refused']}"
                if c.get("refused")
                else f"{c['value']:.3f} [{c['low']:.3f}, {c['high']:.3f}]"
                if c.get("value") is not None
                else "-"
            )
        rows.append(tuple(row))
    return heads, rows
