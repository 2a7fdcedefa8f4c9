"""``bordir audit LOGS``: citation-language audit of a deployed assistant's logs (see docs/audit.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from . import _options as opt
from ._output import echo_json, echo_table

if TYPE_CHECKING:
    import pandas as pd


def _ratio(r: Any) -> str:
    lo, hi = r.ratio_low, r.ratio_high
    return f"{r.ratio:.2f} [{lo:.2f}, {hi:.2f}]"


@click.command("audit")
@click.argument("logs", type=click.Path(path_type=str))
@opt.choice(
    "--format",
    ["jsonl", "parquet"],
    dest="fmt",
    help="Log format (default: from the file name; .parquet/.pq is Parquet, anything else JSONL).",
)
@opt.choice(
    "--group-by", ["model", "month"], help="One set of cells per model or per month (drift)."
)
@click.option(
    "--cluster-by",
    metavar="FIELD",
    help="Record field naming the cluster resampled together "
    "(conversation or user id); default: each record.",
)
@opt.flag("--strict", "Stop at the first bad record (exit status 2) instead of skipping it.")
@opt.out_dir(
    "Directory for audit.json, audit.md, CSVs, plots/ and skipped.jsonl.", default="bordir-audit"
)
@opt.resamples(2000, "Cluster-bootstrap resamples.", dest="n_resamples")
@opt.seed()
@opt.choice(
    "--adjust",
    ["holm", "none"],
    "holm",
    "Flags: Holm across the cells tested, or every interval excluding 1.",
)
@opt.count(
    "--min-clusters",
    10,
    "Cells with fewer clusters are reported as 'too few to judge' (not flagged).",
)
@opt.switch(
    "--language-match/--no-language-match",
    True,
    "Check the response language against the query language (detected when not in the log).",
)
@opt.choice(
    "--citation-base",
    ["0", "1"],
    "0",
    "Number of the first document, for citations parsed from the response text.",
)
@opt.switch("--plots/--no-plots", True, "Draw plots (needs bordir[stats]).")
@opt.json("Print the summary, flags and signature as JSON.")
def audit_cmd(
    logs: str, out_dir: str, citation_base: str, plots: bool, as_json: bool, **settings: Any
) -> None:
    """Audit LOGS (JSONL or Parquet, one record per answer): citation vs inclusion rate per query language x document language, ratio with cluster-bootstrap CI, over/under-citation flags, answers without citation, out-of-range citations and language match. Bad records are skipped and counted (--strict: fatal)."""
    # ``settings``: the options named like a field of AuditOptions
    from pathlib import Path

    from ..audit import AuditOptions
    from ..audit.record import audit_into
    from ..audit.run import skipped_line

    options = AuditOptions(citation_base=int(citation_base), **settings)
    result, paths = audit_into(logs, out_dir, options, plots=plots, progress=True)
    out = Path(out_dir)
    import pandas as pd

    # every flagged cell: every query language pooled (query_lang "*") first, then per query language
    parts = [result.tables.flagged(overall=True), result.tables.flagged()]
    flagged = (
        pd.concat([p for p in parts if len(p)], ignore_index=True)
        if any(len(p) for p in parts)
        else parts[1]
    )
    if as_json:
        cols = [
            "group",
            "query_lang",
            "doc_lang",
            "rate",
            "inclusion_rate_citing",
            "citation_rate",
            "ratio",
            "ratio_low",
            "ratio_high",
            "p_adjusted",
            "flag",
            "n_docs",
            "n_citations",
            "n_clusters",
        ]
        echo_json(
            {
                "signature": str(result.signature),
                "summary": {
                    k: result.summary[k]
                    for k in (
                        "records",
                        "valid",
                        "skipped",
                        "skipped_by_reason",
                        "citations_given",
                        "citations_parsed",
                        "detection",
                        "seconds",
                    )
                    if k in result.summary
                },
                "flagged": flagged[cols]
                .astype(object)
                .where(flagged[cols].notna(), None)
                .to_dict(orient="records"),
                "files": {k: str(v) for k, v in paths.items()},
            }
        )
        return
    from ._output import WIDTH, echo_lines, split_line

    click.echo(skipped_line(result.summary))
    shown = flagged.head(MAX_FLAGGED)
    if len(flagged):
        echo_table(
            ["group", "query", "docs", "rate", "incl. %", "cited %", "ratio [95% CI]", "flag"],
            [
                (
                    r.group,
                    r.query_lang,
                    r.doc_lang,
                    r.rate,
                    f"{100 * r.inclusion_rate_citing:.1f}",
                    f"{100 * r.citation_rate:.1f}",
                    _ratio(r),
                    r.flag,
                )
                for r in shown.itertuples()
            ],
        )
        if len(flagged) > len(shown):
            click.echo(f"… {len(flagged) - len(shown)} more flagged cells in audit.md")
    else:
        click.echo("no cell flagged")
    s = result.tables.settings
    tested = s["flags"]["tested_cells"]["rates"]
    for line in split_line(
        f"{len(flagged)} flagged of {tested} cells tested (query '*': every query language pooled): "
        "the ratio's interval lies above (over) or below (under) 1 and its Holm-adjusted p < 0.05; "
        f"a zero-width interval never flags; clusters = {s['cluster']}, {s['n_resamples']} resamples, "
        f"seed {s['seed']} (the full rule: audit.md)",
        width=WIDTH,
        sep=" ",
        indent="",
    ):
        click.echo(line)
    _mismatch_line(result.tables.answers)
    echo_lines(f"signature: {result.signature}")
    click.echo(f"report: {out / 'audit.md'}")


MAX_FLAGGED = 12
"""Flagged cells the terminal table shows at most (audit.md lists every one)."""


def _mismatch_line(answers: pd.DataFrame) -> None:
    """The response-language mismatch rate (response language != query language), every query language pooled."""
    if "language_match_rate" not in answers.columns:
        return
    for r in answers[answers["query_lang"] == "*"].itertuples():
        if r.n_lang_checked:
            lo, hi = 1 - r.language_match_rate_high, 1 - r.language_match_rate_low
            click.echo(
                f"language mismatch ({r.group}): {100 * (1 - r.language_match_rate):.1f}% "
                f"[{100 * lo:.1f}, {100 * hi:.1f}] of {r.n_lang_checked} answers not in the query's "
                "language"
            )
