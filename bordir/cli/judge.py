"""``bordir judge``: judge the answers of a test run (a thin layer over :mod:`bordir.testgen`)."""

from __future__ import annotations

from typing import Any

import click

from ._cache_options import response_cache, with_cache_options
from ._calls import NothingMade, call_options, exit_for_calls, with_call_options
from ._output import echo_json, echo_table

__all__ = ["judge_cmd"]


@click.command("judge")
@click.argument("run_dir", type=click.Path(file_okay=False, path_type=str))
@click.option(
    "--judge",
    "judges",
    multiple=True,
    required=True,
    help="Judge model provider/model (repeatable: majority vote of several judges).",
)
@click.option(
    "--prompt-langs",
    default="en",
    show_default=True,
    help="Judge prompt languages, comma-separated (the first decides; several: invariance is reported).",
)
@click.option(
    "--repeats",
    default=1,
    show_default=True,
    type=click.IntRange(min=1),
    help="Calls per answer and judge (agreement is reported for 2+).",
)
@click.option(
    "--temperature", type=float, help="Judge temperature (default 0, or 0.7 with --repeats 2+)."
)
@click.option(
    "--keyword-source", type=click.Choice(["judge", "computed"]), default="judge", show_default=True
)
@click.option(
    "--label-judge",
    "label_judges",
    multiple=True,
    help="Oracle precision: judges whose majority vote labels a Cochran sample of the failures.",
)
@click.option("--precision-n", type=click.IntRange(min=1), help="Sample size (default: Cochran's).")
@click.option(
    "--ci",
    type=click.Choice(["wilson", "beta"]),
    default="wilson",
    show_default=True,
    help="Interval method (beta: Clopper–Pearson).",
)
@click.option(
    "--suite",
    "suite_path",
    type=click.Path(dir_okay=False, path_type=str),
    help="The tests file (default: the one run.json names).",
)
@click.option(
    "--baseline",
    type=click.Path(file_okay=False, path_type=str),
    help="A judged run directory of a baseline suite: compare failures with it.",
)
@click.option("--concurrency", type=click.IntRange(min=1))
@click.option(
    "--replace",
    is_flag=True,
    help="Overwrite the verdicts an earlier, different judge setting left in RUN_DIR.",
)
@with_cache_options
@with_call_options
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def judge_cmd(
    run_dir: str,
    judges: tuple[str, ...],
    prompt_langs: str,
    repeats: int,
    temperature: float | None,
    keyword_source: str,
    label_judges: tuple[str, ...],
    precision_n: int | None,
    ci: str,
    suite_path: str | None,
    baseline: str | None,
    concurrency: int | None,
    replace: bool,
    cache: str | None,
    no_cache: bool,
    timeout: float | None,
    max_retries: int | None,
    as_json: bool,
) -> None:
    """Judge the answers of a `bordir testrun` RUN_DIR with an LLM oracle (five criteria, RAG-Tester's fail rule).

    Writes judgments.jsonl, verdicts.csv, fail_rates.csv, paired.csv and summary.json into RUN_DIR.
    """
    from ..testgen.pipeline import compare_to_baseline, judge_run

    rc = response_cache(cache, no_cache)
    try:
        summary = judge_run(
            run_dir,
            judges=list(judges),
            prompt_langs=[x for x in prompt_langs.split(",") if x],
            repeats=repeats,
            temperature=temperature,
            label_judges=list(label_judges),
            precision_n=precision_n,
            keyword_source=keyword_source,
            ci=ci,
            suite_path=suite_path,
            cache=rc,
            concurrency=concurrency,
            progress=not as_json,
            replace=replace,
            **call_options(timeout, max_retries),
        )
    finally:
        if rc is not None:
            rc.close()
    if baseline:
        summary["vs_baseline"] = compare_to_baseline(run_dir, baseline)
    if as_json:
        echo_json(summary)
        _exit_status(summary, run_dir)
        return

    def fmt(x: float | None) -> str:
        return "-" if x is None else f"{x:.3f}"

    echo_table(
        ["config", "decided", "fails", "fail rate [CI]", "tie", "unparsed", "failed", "no answer"],
        [
            (
                r["config"],
                r["decided"],
                r["fails"],
                f"{fmt(r['fail_rate'])} [{fmt(r['ci_low'])}, {fmt(r['ci_high'])}]",
                r["tie"],
                r["unparsed"],
                r["failed"],
                r["no_answer"],
            )
            for r in summary["fail_rates"]
        ],
    )
    for r in summary["fail_rates"]:
        click.echo(f"signature: {r['signature']}")
    inv = summary.get("invariance")
    if inv:
        click.echo(
            f"judge invariance ({'+'.join(inv['langs'])}): disagreement {fmt(inv['disagreement'])} "
            f"[{fmt(inv['ci'][0])}, {fmt(inv['ci'][1])}] on {inv['units']} answers"
        )
        click.echo(f"signature: {inv['signature']}")
    for a in summary.get("repeat_agreement") or []:
        if a["of"] == "verdict":
            click.echo(
                f"repeat agreement {a['judge']} ({a['prompt_lang']}): alpha {fmt(a['alpha'])}, "
                f"mean kappa {fmt(a['kappa_mean'])}, all repeats equal on {fmt(a['percent_agreement'])} "
                f"over {a['repeats']} repeats"
            )
    prec = summary.get("oracle_precision")
    if prec:
        click.echo(
            f"oracle precision {fmt(prec['precision'])} [{fmt(prec['precision_ci'][0])}, "
            f"{fmt(prec['precision_ci'][1])}], FDR {fmt(prec['fdr'])} on {prec['labelled']} labelled of "
            f"{prec['sampled']} sampled failures"
        )
        click.echo(f"signature: {prec['signature']}")
    vb = summary.get("vs_baseline")
    if vb:
        click.echo(
            f"strategy vs baseline, failure rates: higher on {vb['higher_rate']}, lower on {vb['lower_rate']}, "
            f"equal on {vb['same_rate']} configurations (sign test p = {vb['p_sign']:.3g})"
        )
        for r in vb["per_config"]:
            if r["lang"] != "all":
                continue
            diff = (
                "-"
                if r["rate_diff"] is None
                else f"{fmt(r['rate_diff'])} [{fmt(r['diff_low'])}, {fmt(r['diff_high'])}]"
            )
            click.echo(
                f"  {r['config']}: {r['strategy_fails']}/{r['strategy_decided']} vs "
                f"{r['baseline_fails']}/{r['baseline_decided']} failed, rate difference {diff} "
                f"({r['interval']}), {r['test']} p = {r['p_value']:.3g}"
            )
        click.echo(f"signature: {vb['signature']}")
    if summary.get("flagged_passes"):
        click.echo(
            f"{summary['flagged_passes']} judged passes flagged: the answer or a retrieved chunk "
            "holds a ratings object (a prompt injection?); see 'flag' in judgments.jsonl"
        )
    click.echo(f"outcomes: {', '.join(f'{k} {v}' for k, v in sorted(summary['outcomes'].items()))}")
    click.echo(f"signature: {summary['signature']}")
    click.echo(f"wrote {run_dir}/judgments.jsonl, verdicts.csv, fail_rates.csv, summary.json")
    _exit_status(summary, run_dir)


def _exit_status(summary: dict[str, Any], run_dir: str) -> None:
    """Exit 2 when no answer could be judged, 1 when a judge call failed (``bordir run``'s rule)."""
    calls = summary.get("calls") or {}
    asked, failed = int(calls.get("requests", 0)), int(calls.get("failed", 0))
    if not summary.get("decided"):
        if not asked:
            why = "every answer of the run failed in testrun (nothing to judge)"
        elif failed == asked:
            why = f"all {failed} judge calls failed (the first: {calls.get('first')})"
        else:
            why = (
                f"0 of {asked} judge replies could be read ({calls.get('unparsed', 0)} unparsed, "
                f"{failed} failed; see 'note' in {run_dir}/judgments.jsonl)"
            )
        raise NothingMade(f"no answer could be judged: {why}")
    exit_for_calls(failed, asked, calls.get("first"), what="judge calls")
