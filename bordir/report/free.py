"""The report's section for an open run: free-answer outcomes, CS on free answers and the forced-vs-free gap.

:func:`free_report` reads the open run and its forced twin (``forced/``,
:mod:`bordir.experiment.twin`), computes :func:`bordir.metrics.free.summary.free_summary` (the
``free`` entry of ``metrics.json``), writes ``tables/free_outcomes.csv`` and
``tables/free_gap.csv``, and renders the section: outcome rates, the CS metrics of both formats,
the gap per (mode, metric) and per query language, each with its interval or "too few to judge"
and the power it had. :func:`free_findings` gives the summary's lines: the gap, or what cannot be
judged. Every value shown is escaped.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import pandas as pd

from .._io.percent import pct
from ..experiment.rundir import RunDir, read_run_dir
from ..experiment.twin import twin_dir
from ..generation.parse.free.outcome import FREE_OUTCOMES

_pct = partial(pct, missing="–")

__all__ = ["FreeReport", "free_report", "free_findings"]


@dataclass(frozen=True)
class FreeReport:
    """The ``free`` entry of ``metrics.json`` and the section's HTML."""

    json: dict[str, Any]
    html: str


def _e(x: Any) -> str:
    return html.escape(str(x))


def _table(headers: list[str], rows: list[list[Any]]) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def free_report(run: RunDir, out: Path, *, n_resamples: int, seed: int | None) -> FreeReport:
    """The ``free`` metrics and the HTML section of the open run ``run`` written in ``out``."""
    from ..metrics.free.summary import free_summary

    twin = twin_dir(run.path)  # the forced twin beside the run (out: the staging folder)
    forced = read_run_dir(twin).responses if twin is not None else None
    summary = free_summary(forced, run.responses, run.dataset, n_resamples=n_resamples, seed=seed)
    tables = out / "tables"
    tables.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(summary["outcomes"]).to_csv(tables / "free_outcomes.csv", index=False)
    if summary.get("languages"):
        pd.DataFrame(summary["languages"]).to_csv(tables / "free_gap.csv", index=False)
    return FreeReport(summary, _html(summary, twin is not None))


def _html(s: dict[str, Any], has_twin: bool) -> str:
    parts = ['<section id="free"><h2>Free answers (open format) and the forced-vs-free gap</h2>']
    parts.append(
        "<p>Each free answer is resolved to one outcome (one claimant, several, controller only, "
        "refusal, another country, unparsed, empty) with the rule and the text span that decided; "
        f"{_e(s['treatment'])}.</p>"
    )
    parts.append("<ul>" + "".join(f"<li>{_e(h)}</li>" for h in s["headline"]) + "</ul>")
    outcomes = list(FREE_OUTCOMES)
    rows = [
        [
            r["model"],
            r["mode"],
            r["query_lang"],
            r["n"],
            *(_pct(r.get(f"rate_{o}")) for o in outcomes),
        ]
        for r in s["outcomes"]
    ]
    parts.append("<h3>Outcomes of the free answers (% of answers)</h3>")
    parts.append(_table(["model", "mode", "lang", "n", *outcomes], rows))
    cs = {(r["model"], r["mode"]): r for r in s.get("cs_forced", [])}
    metrics = ("kb_cs", "control_cs", "non_control_cs", "delta_cs", "cst_cs")
    rows = []
    for r in s["cs_free"]:
        f = cs.get((r["model"], r["mode"]), {})
        rows.append([r["model"], r["mode"], *(f"{_pct(f.get(m))} → {_pct(r[m])}" for m in metrics)])
    parts.append("<h3>CS, forced → free (×100, means over runs)</h3>")
    parts.append(_table(["model", "mode", *metrics], rows))
    if not has_twin:
        parts.append("<p>No forced twin (forced/) beside this run: no gap.</p></section>")
        return "".join(parts)
    rows = [
        [
            r["model"], r["mode"], r.get("metric"), _pct(r.get("value_b")), _pct(r.get("value_a")),
            _pct(r.get("diff"), True),
            "–" if not r.get("ci95") or r["ci95"][0] is None else
            f"[{_pct(r['ci95'][0], True)}, {_pct(r['ci95'][1], True)}]",
            "–" if r.get("p_holm") is None else f"{r['p_holm']:.3g}", r.get("status", r.get("note")),
            r.get("n_territories", ""),
        ]
        for r in s.get("cs_gap", [])
    ]  # fmt: skip
    parts.append("<h3>Gap per mode: free − forced on the same territories (runs pooled)</h3>")
    parts.append(
        _table(["model", "mode", "metric", "forced", "free", "gap", "95% CI", "Holm p", "status",
                "territories"], rows)
    )  # fmt: skip
    rows = [
        [
            r["model"], r["mode"], r["query_lang"], _pct(r["switch_rate"]), _pct(r["free_named_rate"]),
            _pct(r["agree_forced"]), _pct(r["agree_free"]), _pct(r["gap"], True),
            "–" if r["gap_low"] is None else f"[{_pct(r['gap_low'], True)}, {_pct(r['gap_high'], True)}]",
            "–" if r["p_holm"] is None else f"{r['p_holm']:.3g}", r["status"], r["n_territories"],
            f"{_pct(r['power_10'])}/{_pct(r['power_20'])}",
        ]
        for r in s.get("languages", [])
    ]  # fmt: skip
    parts.append(
        "<h3>Per query language (paired by territory, language and run; * = all languages)</h3>"
        "<p>switch: the share of pairs naming different claimants; agree: naming the controller; "
        "Holm over the languages of each mode; power against a gap of 10 / 20 points.</p>"
    )
    parts.append(
        _table(["model", "mode", "lang", "switch", "named", "agree forced", "agree free", "gap",
                "95% CI", "Holm p", "status", "territories", "power 10/20"], rows)
    )  # fmt: skip
    parts.append(f'<p class="sig">{_e(s["signature"])}</p></section>')
    return "".join(parts)


def free_findings(free: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The summary's lines for the gap: judged gaps as findings, the rest as what cannot be judged."""
    found: list[str] = []
    quiet: list[str] = []
    for line, judged in zip(free.get("headline", []), free.get("headline_judged", [])):
        (found if judged else quiet).append(f"Forced vs free: {line}.")
    return found, quiet
