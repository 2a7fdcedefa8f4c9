"""Write an audit's outputs: ``audit.json``, ``audit.md``, ``rates.csv`` / ``overall.csv`` / ``answers.csv`` and ``plots/``.

Plots need matplotlib (the ``stats`` extra); ``plots=False`` skips them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pandas as pd

from .._io.markdown import md_code, md_text
from ..citations.tables import ci_text, pct, spread_by_resource
from .lead import summarize_audit
from .run import AuditResult, skipped_line

__all__ = ["write_audit", "render_markdown", "AUDIT_FILES"]

AUDIT_FILES: tuple[str, ...] = ("audit.json", "audit.md", "rates.csv", "overall.csv", "answers.csv")


def _flag_lines(df: pd.DataFrame) -> list[str]:
    out = []
    for r in df[df["flag"].notna()].itertuples():
        out.append(
            f"- **{r.flag}-cited**: group {md_code(r.group)}, query language {md_code(r.query_lang)}, "
            f"documents in {md_code(r.doc_lang)} ({r.rate}): citation {pct(r.citation_rate)}% vs inclusion "
            f"{pct(r.inclusion_rate_citing)}%, ratio {r.ratio:.2f} "
            f"{ci_text(r.ratio_low, r.ratio_high, scale=1.0, digits=2)}"
        )
    return out


def render_markdown(result: AuditResult) -> str:
    """The Markdown report, led by its summary (:func:`~bordir.audit.lead.summarize_audit`).

    Then the definitions, flags, tables, answer-level shares, language match and skipped records.
    """
    s, t, st = result.summary, result.tables, result.settings
    cs = t.settings
    lead = summarize_audit(s, pd.concat([t.overall, t.rates], ignore_index=True))
    lines = [
        "# Citation audit",
        "",
        f"Log {md_code(Path(str(s['log'])).name)} ({s['format']}): {s['records']} records, {s['valid']} audited, "
        f"{s['skipped']} skipped. Groups: {st['group_by'] or 'none'}. Clusters: {cs['cluster']}.",
        "",
        "## Summary",
        "",
        "Findings that hold:",
        "",
        *([f"- {md_text(f)}" for f in lead["findings"]] or ["- None: no cell is flagged."]),
        "",
        "What cannot be judged, and why:",
        "",
        *(
            [f"- {md_text(c)}" for c in lead["cannot_judge"]]
            or ["- Nothing: every cell was tested."]
        ),
        "",
        f"Signature: `{result.signature}`",
        "",
        "## Definitions",
        "",
        "- **inclusion rate** of a document language: its share of the documents placed in prompts; "
        "the ratio uses it over answers with at least one citation.",
        "- **citation rate**: its share of the citations made.",
        f"- **pooled**: {cs['rates']['pooled']}.",
        f"- **per query**: {cs['rates']['per_query']}.",
        "- **ratio** = citation rate / inclusion rate (answers with ≥ 1 citation); 1 = cited as often as included.",
        f"- **intervals**: {cs['interval']}, {cs['n_resamples']} resamples, seed {cs['seed']}.",
        f"- **flags**: {cs['flags']['rule']}; cells with fewer than {cs['flags']['min_clusters']} clusters are "
        f"not tested ({cs['flags']['tested_cells']['rates']} cells tested).",
        "",
        "## Flags",
        "",
    ]
    flags = _flag_lines(t.rates)
    overall_flags = _flag_lines(t.overall)
    if overall_flags:
        lines += ["All query languages pooled:", "", *overall_flags, ""]
    lines += (
        ["Per query language:", "", *flags]
        if flags
        else ["No cell is flagged per query language." if overall_flags else "No cell is flagged."]
    )
    lines += [
        "",
        "## Citation vs inclusion per query language × document language",
        "",
        "Rates ×100; both the pooled and the per-query rate are shown, each with its own ratio, CI and flag.",
        "",
        t.to_markdown(),
    ]
    a = t.answers
    if len(a):
        lines += [
            "## Answers",
            "",
            "An **echo** is an answer that mostly copies its query or its documents (bordir's echo "
            "rule, docs/audit.md): counted here, left out of the citation rates and the language match.",
            "",
            "| group | query lang | answers | echoes | no citation % [95% CI] | out-of-range citations | "
            "answers with out-of-range % | query lang detected | doc langs detected |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for r in a.itertuples():
            lines.append(
                f"| {md_text(r.group)} | {md_text(r.query_lang)} | {r.n_answers} | {getattr(r, 'n_echo', 0)} | "
                f"{pct(r.no_citation_rate)} "
                f"{ci_text(r.no_citation_rate_low, r.no_citation_rate_high)} | {r.n_out_of_range} | "
                f"{pct(r.out_of_range_rate)} | {r.n_qlang_detected} | {r.n_docs_detected} |"
            )
        lines.append("")
        if "language_match_rate" in a.columns:
            lines += [
                "## Language match (response language vs query language)",
                "",
                "Response languages missing from the log are **detected** with langdetect (seeded); "
                "so are missing query languages. Undetectable texts (`und`) are not checked, and "
                "neither is a detected response **too short** for its language to be trusted: "
                "under 30 letters in Latin script, 25 in Cyrillic or Devanagari, 20 in Japanese, "
                "8 in Arabic or Han, 4 in Greek or Hebrew (measured: `bordir.langid.short`).",
                "",
                "| group | query lang | checked | match % [95% CI] | responses detected | too short |",
                "|---|---|---|---|---|---|",
            ]
            for r in a.itertuples():
                lines.append(
                    f"| {md_text(r.group)} | {md_text(r.query_lang)} | {r.n_lang_checked} | {pct(r.language_match_rate)} "
                    f"{ci_text(r.language_match_rate_low, r.language_match_rate_high)} | "
                    f"{r.n_resp_detected} | {getattr(r, 'n_lang_short', 0)} |"
                )
            lines.append("")
    spread = spread_by_resource(t.rates, ["group"])
    if len(spread):
        lines += [
            "## Spread by resource level of the query language",
            "",
            "Divergence = ½ Σ |citation rate − inclusion rate| over document languages (pooled), per query "
            "language; summarised per resource level (bordir's language registry).",
            "",
            "| group | resource | query languages | mean | sd | max |",
            "|---|---|---|---|---|---|",
        ]
        for r in spread.itertuples():
            sd = (
                "–"
                if r.divergence_sd is None or pd.isna(r.divergence_sd)
                else f"{r.divergence_sd:.3f}"
            )
            lines.append(
                f"| {md_text(r.group)} | {r.resource} | {r.n_query_langs} | {r.divergence_mean:.3f} | {sd} | "
                f"{r.divergence_max:.3f} |"
            )
        lines.append("")
    det = s["detection"]
    lines += [
        "## Records",
        "",
        skipped_line(s) + ".",
        "",
        f"Citations given as lists: {s.get('citations_given', 0)}; parsed from the response text: "
        f"{s.get('citations_parsed', 0)}.",
        "",
        f"Detected languages ({det.get('engine') or 'langdetect'}, seed {det['seed']}): queries {s.get('detected_query_lang', 0)}, "
        f"documents {s.get('detected_doc_lang', 0)}, responses {s.get('detected_response_lang', 0)}; "
        f"{det['calls']} detector calls in {det['seconds']} s.",
        "",
    ]
    if s["skipped_by_reason"]:
        lines += ["| reason | count | description | first lines |", "|---|---|---|---|"]
        for reason, v in s["skipped_by_reason"].items():
            first = md_text("; ".join(f"{e['line']}: {e['message']}" for e in v["examples"][:3]))
            lines.append(f"| {reason} | {v['count']} | {v['description']} | {first} |")
        lines.append("")
    return "\n".join(lines) + "\n"


def write_audit(
    result: AuditResult, out_dir: str | os.PathLike[str], *, plots: bool = True
) -> dict[str, Any]:
    """Write the audit's files into ``out_dir``; returns ``{name: path}`` (plots as ``plot:<name>``)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths: dict[str, Any] = {}
    data = result.as_dict()
    p = out / "audit.json"
    p.write_text(
        json.dumps(data, ensure_ascii=False, indent=2, allow_nan=False) + "\n", encoding="utf-8"
    )
    paths["audit.json"] = p
    p = out / "audit.md"
    p.write_text(render_markdown(result), encoding="utf-8")
    paths["audit.md"] = p
    for name, df in (
        ("rates.csv", result.tables.rates),
        ("overall.csv", result.tables.overall),
        ("answers.csv", result.tables.answers),
    ):
        df.to_csv(out / name, index=False)
        paths[name] = out / name
    if plots and len(result.tables.rates):
        from ..citations.plots import write_citation_plots

        for name, (png, _svg) in write_citation_plots(
            result.tables.rates, ["group"], out / "plots"
        ).items():
            paths[f"plot:{name}"] = png
    return paths
