"""What a judged test run's page leads with: its fail rates, and what cannot be judged and why.

:func:`summarize_test_run` reads the judge's ``summary.json`` (:func:`bordir.testgen.pipeline.judge_run`)
and returns ``findings`` — each config's fail rate with its interval and counts — and
``cannot_judge`` — the ties and undecided tests left out of the rates, failed or unparsed judge
calls, passes flagged as a possible prompt injection, and repeats of the judge that do not agree.
``bordir view`` shows it at the top of a test run's page.

Example:
    >>> lead = summarize_test_run({"fail_rates": [{"config": "k=3", "tests": 9, "decided": 4, "fails": 4,
    ...     "fail_rate": 1.0, "ci_low": 0.51, "ci_high": 1.0, "tie": 5}], "calls": {"failed": 0}})
    >>> lead["findings"], lead["cannot_judge"]
    (['k=3: 4 of 4 decided tests fail, 100.0 % [51.0, 100.0] (Wilson).'], ['k=3: 5 of 9 tests are ties (the judge neither passes nor fails them): not in the rate.'])
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._io.percent import pct as _pct

__all__ = ["summarize_test_run", "RELIABLE_ALPHA"]

RELIABLE_ALPHA = 0.667
"""Krippendorff's α of the judge's repeats below which its verdicts are called unreliable (the usual
lowest bound for tentative conclusions)."""


def summarize_test_run(summary: Mapping[str, Any] | None) -> dict[str, list[str]]:
    """``{"findings": [...], "cannot_judge": [...]}`` of a test run's ``summary.json`` (None: not judged)."""
    if not summary:
        return {
            "findings": [],
            "cannot_judge": [
                "Not judged yet: `bordir judge DIR --judge MODEL` writes the verdicts and fail rates."
            ],
        }
    findings, cannot = [], []
    for r in summary.get("fail_rates") or []:
        if r.get("decided"):
            ci = (
                f" [{_pct(r.get('ci_low'))}, {_pct(r.get('ci_high'))}] (Wilson)"
                if r.get("ci_low") is not None
                else ""
            )
            findings.append(
                f"{r['config']}: {r['fails']} of {r['decided']} decided tests fail, "
                f"{_pct(r['fail_rate'])} %{ci}."
            )
        else:
            cannot.append(f"{r['config']}: no test was decided, so no fail rate.")
        ties = int(r.get("tie") or 0)
        if ties:
            cannot.append(
                f"{r['config']}: {ties} of {r.get('tests')} tests are ties (the judge neither passes "
                "nor fails them): not in the rate."
            )
        lost = {k: int(r.get(k) or 0) for k in ("unparsed", "failed", "no_answer")}
        if any(lost.values()):
            said = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in lost.items() if n)
            cannot.append(f"{r['config']}: {said}: not in the rate.")
    calls = summary.get("calls") or {}
    if calls.get("failed"):
        cannot.append(f"{calls['failed']} of {calls.get('requests')} judge calls failed.")
    if summary.get("flagged_passes"):
        cannot.append(
            f"{summary['flagged_passes']} passes were flagged as a possible prompt injection "
            "(the answer addresses the judge): check them before trusting the pass."
        )
    for a in summary.get("repeat_agreement") or []:
        alpha = a.get("alpha")
        if a.get("of") == "verdict" and alpha is not None and alpha < RELIABLE_ALPHA:
            cannot.append(
                f"The repeats of {a.get('judge')} agree on {_pct(a.get('percent_agreement'))} % of "
                f"verdicts (Krippendorff's α {alpha:.2f}, below {RELIABLE_ALPHA}): its verdicts are "
                "not reliable enough to rank configs on."
            )
    return {"findings": findings, "cannot_judge": cannot}
