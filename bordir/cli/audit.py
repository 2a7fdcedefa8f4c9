"""``bordir audit LOGS``: citation audits of a deployed assistant's logs, white-box or black-box (see docs/audit.md).

``bordir audit`` is a group whose default command is ``logs``: ``bordir audit LOGS …`` is
``bordir audit logs LOGS …``. ``bordir audit collect`` asks search-enabled assistants and writes a
black-box log; ``bordir audit resolve`` follows the redirect URLs of a log (online).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from . import _decorators as opt
from ._output import echo_json, echo_table

if TYPE_CHECKING:
    pass


class _DefaultGroup(click.Group):
    """A group whose first argument, when it is not one of its commands, goes to its default command."""

    default_command = "logs"

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("-h", "--help"):
            args = [self.default_command, *args]
        return super().parse_args(ctx, args)


@click.group("audit", cls=_DefaultGroup, context_settings={"help_option_names": ["-h", "--help"]})
def audit_cmd() -> None:
    """Audit the citations of a deployed assistant's logs (white-box: prompt documents; black-box: answers and cited URLs); collect a black-box log from search APIs.

    `bordir audit LOGS …` runs `bordir audit logs LOGS …`.
    """


@audit_cmd.command("logs")
@click.argument("logs", type=click.Path(path_type=str))
@opt.choice(
    "--format",
    ["jsonl", "parquet", "csv"],
    dest="fmt",
    help="Log format (default: from the file name; .parquet/.pq Parquet, .csv/.tsv CSV (black-box only), else JSONL).",
)
@opt.choice(
    "--kind",
    ["auto", "whitebox", "blackbox"],
    "auto",
    "White-box (records carry the prompt's documents) or black-box (answers and cited URLs); auto: from the first records.",
)
@opt.repeatable(
    "--field",
    "fields",
    "Black-box: NAME=FIELD, the log's field for NAME (response, urls, question, query_lang, model, group …); the rest by common names.",
)
@opt.repeatable(
    "--domains",
    "domains",
    "Black-box: LABEL=FILE.csv, a list of domains (a 'domain' column) whose share is reported, matched with subdomains.",
)
@opt.file(
    "--publishers",
    "Black-box: a publisher registry TOML in the layout of the shipped one (default: the shipped one).",
)
@opt.choice(
    "--cluster",
    ["answer", "group"],
    help="Black-box: the cluster of the intervals (default: the question group when the log has one, else the answer; said in the output).",
)
@click.option(
    "--compare-countries",
    metavar="CC,CC",
    help="Black-box: the countries whose shares are compared (default: the claimants of the log's territorial questions, else the five most cited).",
)
@opt.file(
    "--resolved",
    "Black-box: a JSON map of redirect URL -> final URL written by `bordir audit resolve`.",
)
@opt.resamples(
    2000,
    "Paired-bootstrap resamples (black-box) / cluster-bootstrap resamples (white-box).",
    dest="n_resamples",
    name="--resamples",
)
@opt.resamples(
    2000, "Black-box: swap-test permutations.", dest="n_permutations", name="--permutations"
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
def logs_cmd(
    logs: str,
    out_dir: str,
    citation_base: str,
    plots: bool,
    as_json: bool,
    kind: str,
    fields: tuple[str, ...],
    domains: tuple[str, ...],
    publishers: str | None,
    cluster: str | None,
    compare_countries: str | None,
    resolved: str | None,
    n_permutations: int,
    **settings: Any,
) -> None:
    """Audit LOGS (JSONL, Parquet or CSV; one record per answer). White-box records (the prompt's documents): citation vs inclusion rate per query x document language with flags. Black-box records (the answer and its cited URLs, or a search API's raw response): who is cited, by country, language and list, with intervals and paired comparisons. Bad records are skipped and counted (--strict: fatal)."""
    from pathlib import Path

    from ..audit import AuditOptions
    from ..audit.record import audit_into
    from ..audit.run import skipped_line

    if kind != "whitebox":
        from ..audit.blackbox.reader import detect_format as bb_format
        from ..audit.blackbox.reader import log_kind

        fmt = bb_format(logs, settings.get("fmt"))
        found = (
            log_kind(logs, fmt, dict(f.split("=", 1) for f in fields if "=" in f))[0]
            if kind == "auto"
            else kind
        )
        if found == "blackbox" or fmt == "csv":
            from ._audit_blackbox import run_blackbox_cli

            run_blackbox_cli(
                logs, out_dir, fmt=fmt, fields=fields, domains=domains, publishers=publishers,
                cluster=cluster, compare_countries=compare_countries, resolved=resolved,
                n_permutations=n_permutations, plots=plots, as_json=as_json, settings=settings,
            )  # fmt: skip
            return
    if settings.get("fmt") == "csv":
        from ..errors import ConfigError

        raise ConfigError("--format csv is for black-box logs; a white-box log is JSONL or Parquet")

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
    from ..audit.terminal import FLAGGED_HEADERS, answer_notes, flag_rule, flagged_rows
    from ._output import WIDTH, echo_lines, split_line

    click.echo(skipped_line(result.summary))
    shown = flagged.head(MAX_FLAGGED)
    if len(flagged):
        echo_table(list(FLAGGED_HEADERS), flagged_rows(shown))
        if len(flagged) > len(shown):
            click.echo(f"… {len(flagged) - len(shown)} more flagged cells in audit.md")
    else:
        click.echo("no cell flagged")
    for text in [
        flag_rule(len(flagged), result.tables.settings),
        *answer_notes(result.tables.answers),
    ]:
        for line in split_line(text, width=WIDTH, sep=" ", indent=""):
            click.echo(line)
    echo_lines(f"signature: {result.signature}")
    click.echo(f"report: {out / 'audit.md'}")


MAX_FLAGGED = 12
"""Flagged cells the terminal table shows at most (audit.md lists every one)."""


def _attach() -> None:
    from ._audit_collect import collect_cmd, resolve_cmd

    audit_cmd.add_command(collect_cmd)
    audit_cmd.add_command(resolve_cmd)


_attach()
