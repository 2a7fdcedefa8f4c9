"""``bordir judge``: judge the answers of a test run (a thin layer over :mod:`bordir.testgen`)."""

from __future__ import annotations

import click

from ._cache_options import response_cache, with_cache_options
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
@with_cache_options
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def judge_cmd(
    run_dir,
    judges,
    prompt_langs,
    repeats,
    temperature,
    keyword_source,
    label_judges,
    precision_n,
    ci,
    suite_path,
    baseline,
    concurrency,
    cache,
    no_cache,
    as_json,
):
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
        )
    finally:
        if rc is not None:
            rc.close()
    if baseline:
        summary["vs_baseline"] = compare_to_baseline(run_dir, baseline)
    if as_json:
        echo_json(summary)
        return

    def fmt(x):
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
            f"strategy vs baseline: more failures on {vb['more_failures']}, fewer on {vb['fewer_failures']}, "
            f"ties {vb['ties']} configurations (sign test p = {vb['p_sign']:.3g})"
        )
        click.echo(f"signature: {vb['signature']}")
    click.echo(f"outcomes: {', '.join(f'{k} {v}' for k, v in sorted(summary['outcomes'].items()))}")
    click.echo(f"signature: {summary['signature']}")
    click.echo(f"wrote {run_dir}/judgments.jsonl, verdicts.csv, fail_rates.csv, summary.json")
