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

    from ..audit import AuditOptions, run_audit, write_audit
    from ..audit.run import skipped_line

    options = AuditOptions(citation_base=int(citation_base), **settings)
    strict = options.strict
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    from ..errors import DataError

    skipped = out / "skipped.jsonl"
    try:
        result = run_audit(logs, options, skipped_path=None if strict else skipped, progress=True)
    except DataError as exc:
        if not strict and skipped.is_file() and skipped.stat().st_size:
            raise DataError(
                f"{exc.message}; every skipped record is listed in {skipped}",
                path=exc.path,
                line=exc.line,
                field=exc.field,
            ) from None
        skipped.unlink(missing_ok=True)
        raise
    paths = write_audit(result, out, plots=plots)
    if result.summary["skipped"] == 0 or strict:
        skipped.unlink(missing_ok=True)
    else:
        paths["skipped.jsonl"] = skipped
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
    """Echoes, and the response-language mismatch rate (response language != query language), every query language pooled."""
    from ._output import split_line

    pooled = answers[answers["query_lang"] == "*"]
    for r in pooled.itertuples():
        if getattr(r, "n_echo", 0):
            click.echo(
                f"echoes ({r.group}): {r.n_echo} of {r.n_answers} answers mostly copy their query or "
                "documents: left out of the rates and the language match"
            )
    if "language_match_rate" not in answers.columns:
        return
    for r in pooled.itertuples():
        short = int(getattr(r, "n_lang_short", 0) or 0)
        skipped = (
            f"; {short} answers too short to detect their language were skipped (audit.md)"
            if short
            else ""
        )
        if r.n_lang_checked:
            lo, hi = 1 - r.language_match_rate_high, 1 - r.language_match_rate_low
            text = (
                f"language mismatch ({r.group}): {100 * (1 - r.language_match_rate):.1f}% "
                f"[{100 * lo:.1f}, {100 * hi:.1f}] of {r.n_lang_checked} answers not in the query's "
                f"language{skipped}"
            )
        elif short:
            text = f"language match ({r.group}): not checked{skipped}"
        else:
            continue
        for line in split_line(text, sep=" ", indent=""):
            click.echo(line)
