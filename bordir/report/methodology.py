"""The report's methodology sections, in page order: option order, power, variance, answer language.

:func:`methodology_sections` is the one hook :func:`bordir.report.build_report`
calls; each section is its own module (:mod:`~bordir.report.orders`,
:mod:`~bordir.report.power`, :mod:`~bordir.report.variance`,
:mod:`~bordir.report.answer_lang`); docs/methodology.md gives the formulas.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..experiment.rundir import RunDir
from .orders import Section

__all__ = ["methodology_sections"]


def methodology_sections(
    run: RunDir, out: Path, *, n_resamples: int, seed: int | None, draw: bool = True
) -> tuple[dict[str, Any], list[str]]:
    """The JSON to merge into ``metrics.json`` and the HTML sections of the four methodology parts.

    ``draw=False`` leaves their plots out.
    """
    from .answer_lang import answer_lang_section
    from .orders import order_section
    from .power import power_section
    from .variance import variance_section

    sections: list[Section | None] = [
        order_section(run, out, n_resamples=n_resamples, seed=seed, draw=draw),
        power_section(run, out, draw=draw),
        variance_section(run, out, n_resamples=n_resamples, seed=seed),
        answer_lang_section(run, out),
    ]
    js: dict[str, Any] = {}
    html: list[str] = []
    for s in sections:
        if s is None:
            continue
        js.update(s.json)
        html.append(s.html)
    return js, html
