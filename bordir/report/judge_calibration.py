"""The judge-calibration section of a judged directory's page: per (cell, language) the judged rate beside the judge's calibration.

The rows are the ``judge_calibration`` block a judged run stores (``scores.json`` of a testbed,
``summary.json`` of a judged test run; :func:`bordir.judging.judged.judged_rates`): the report and
``bordir view`` render the same rows as the terminal. Every value is escaped.

Example:
    >>> block = {"rate": "rejection_rate_judge", "calibration": None, "corrected": False,
    ...          "rows": [{"cell": "m", "lang": "en", "n": 4, "rate": 0.5,
    ...                    "judge": {"status": "not calibrated", "text": "judge not calibrated in this language"}}]}
    >>> "judge not calibrated in this language" in calibration_html(block)
    True
    >>> calibration_html(None)
    ''
"""

from __future__ import annotations

import html
from typing import Any

from ..judging.judged import text_rows

__all__ = ["calibration_html"]


def calibration_html(block: dict[str, Any] | None, *, heading: str = "h2") -> str:
    """The section's HTML ('' without a block or rows)."""
    if not block or not block.get("rows"):
        return ""
    e = html.escape
    heads, rows = text_rows(block)
    sig = block.get("calibration")
    note = (
        f'Judge calibration <span class="sig">{e(str(sig))}</span>; a language whose balanced '
        "accuracy's lower bound is below the floor is marked uncalibrated."
        if sig
        else "No calibration file was given: the judge is not calibrated in any language "
        "(bordir judge calibrate, then --calibration FILE)."
    )
    body = "".join("<tr>" + "".join(f"<td>{e(str(c))}</td>" for c in r) + "</tr>" for r in rows)
    return (
        f'<{heading} id="judge-calibration">Judge calibration</{heading}>'
        f'<p class="muted">{note}</p>'
        '<table class="data"><thead><tr>'
        + "".join(f'<th scope="col">{e(h)}</th>' for h in heads)
        + f"</tr></thead><tbody>{body}</tbody></table>"
    )
