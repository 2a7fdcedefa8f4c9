"""What a testbed run's report leads with: its headline rates, the differences that hold, what cannot be judged.

:func:`summarize_testbed` reads ``testbed.json`` and ``scores.json`` (as dicts) and returns

* ``headline``: one row per (model, setting, noise rate), every language pooled, of the testbed's
  headline metric (:attr:`~bordir.testbeds.testbed.Testbed.headline`) under the run's policy:
  value ×100, its interval and its count;
* ``findings``: every paired comparison whose Holm-adjusted p is below 0.05, largest first;
* ``cannot_judge``: how many comparisons show no difference, the failed calls, the questions
  left out.

The experiment report's own summary is :mod:`bordir.report.summary`; this is the same two lists for a
testbed (``bordir.report.testbeds`` renders them at the top of ``report.html``).

Example:
    >>> lead = summarize_testbed({"config": {"testbed": "noise"}, "skipped": []},
    ...                     {"policy": "rgb", "groups": [], "comparisons": []})
    >>> lead["findings"], lead["cannot_judge"]
    ([], ['No comparison was made (one setting, one noise rate and one model).'])
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._io.percent import pct as _pct

__all__ = ["summarize_testbed", "ALPHA", "MAX_FINDINGS"]

ALPHA = 0.05
"""The family-wise level a finding's Holm-adjusted p is below."""
MAX_FINDINGS = 6
"""Findings listed at most (the comparisons table has all)."""


def _ci(ci: Any, signed: bool = False) -> str:
    if not ci or ci[0] is None or ci[1] is None:
        return "[no interval]"
    return f"[{_pct(ci[0], signed)}, {_pct(ci[1], signed)}]"


def _where(signature: str) -> str:
    """The model, language, setting and rate a comparison's signature names (``gen``, ``lang`` …)."""
    from ..signature import Signature

    sig = Signature.parse(signature)
    parts = [sig.get("gen"), sig.get("lang"), sig.get("setting")]
    if sig.get("r") is not None:
        parts.append(f"r = {sig.get('r')}")
    return ", ".join(str(p) for p in parts if p not in (None, "", "all"))


def _headline(cfg: Mapping[str, Any]) -> str:
    from .testbed import TESTBEDS

    name = str(cfg.get("testbed"))
    return TESTBEDS.get(name).headline if name in TESTBEDS else "accuracy"


def summarize_testbed(info: Mapping[str, Any], scores: Mapping[str, Any]) -> dict[str, Any]:
    """``{"metric", "headers", "headline", "findings", "cannot_judge"}`` of a testbed run (module docs)."""
    policy = str(scores.get("policy"))
    metric = _headline(info.get("config") or {})
    groups = [g for g in scores.get("groups") or [] if g.get("lang") == "all"] or list(
        scores.get("groups") or []
    )
    rows = []
    for g in groups:
        m = (g.get("metrics") or {}).get(policy, {}).get(metric)
        if not m:
            continue
        value = "n/a" if m.get("value") is None else f"{_pct(m['value'])} {_ci(m.get('ci95'))}"
        rows.append(
            [
                str(g["model"]),
                str(g["setting"]),
                f"{float(g['noise_rate']):g}",
                f"{value} ({m.get('count')}/{m.get('n')})",
            ]
        )
    cmp = [c for c in scores.get("comparisons") or [] if c.get("p_holm") is not None]
    sig = sorted(
        (c for c in cmp if c["p_holm"] < ALPHA and c.get("diff") is not None),
        key=lambda c: -abs(c["diff"]),
    )
    findings = [
        f"{_where(c['signature'])}: {c['metric']} {_pct(c['value_a'])} % with {c['a']} against "
        f"{_pct(c['value_b'])} % with {c['b']}, {_pct(c['diff'], True)} points "
        f"{_ci(c.get('ci95'), True)}, Holm p = {c['p_holm']:.3g} ({c.get('n_clusters')} questions)."
        for c in sig[:MAX_FINDINGS]
    ]
    if len(sig) > MAX_FINDINGS:
        findings.append(f"… and {len(sig) - MAX_FINDINGS} more (the comparisons table).")
    cannot = []
    if not cmp:
        cannot.append("No comparison was made (one setting, one noise rate and one model).")
    elif len(sig) < len(cmp):
        cannot.append(
            f"{len(cmp) - len(sig)} of {len(cmp)} paired comparisons show no difference at the 5 % "
            "level after Holm (the comparisons table; not evidence of no difference)."
        )
    failed = sum(int(g.get("n_failed") or 0) for g in groups)
    if failed:
        cannot.append(f"{failed} calls failed; their questions are left out of the rates.")
    skipped = info.get("skipped") or []
    if skipped:
        cannot.append(
            f"{len(skipped)} questions were left out (listed under 'Questions left out')."
        )
    return {
        "metric": metric,
        "policy": policy,
        "headers": ["model", "setting", "r", f"{metric} ×100 [95 % CI] (count/n)"],
        "headline": rows,
        "findings": findings,
        "cannot_judge": cannot,
    }
