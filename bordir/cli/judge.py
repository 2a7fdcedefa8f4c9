"""``bordir judge``: judge the answers of a test run (a thin layer over :mod:`bordir.testgen`), and ``bordir judge calibrate``.

``bordir judge RUN_DIR …`` is ``bordir judge run RUN_DIR …``: the group runs its ``run``
subcommand when the first argument is not a subcommand's name, so the command line of before
the group keeps working.
"""

from __future__ import annotations

from typing import Any

import click

from ..stats.rate import format_rate
from . import _decorators as opt
from ._cache import opened_cache, with_cache_options
from ._calls import NothingMade, exit_for_calls, with_call_options
from ._output import echo_json, echo_lines, echo_table

__all__ = ["judge_cmd", "judge_run_cmd"]


class _JudgeGroup(click.Group):
    """A group whose ``run`` subcommand is the default: ``bordir judge RUN_DIR`` = ``bordir judge run RUN_DIR``."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ctx.help_option_names:
            args = ["run", *args]
        return super().parse_args(ctx, args)


@click.group("judge", cls=_JudgeGroup)
def judge_cmd() -> None:
    """Judge the answers of a `bordir testrun` RUN_DIR with an LLM oracle (five criteria, RAG-Tester's fail rule); calibrate a judge against human labels.

    `bordir judge RUN_DIR [OPTIONS]` is `bordir judge run RUN_DIR [OPTIONS]`;
    `bordir judge calibrate` measures a judge's agreement with human labels per language.
    """


@judge_cmd.command("run")
@click.argument("run_dir", type=click.Path(file_okay=False, path_type=str))
@opt.repeatable(
    "--judge",
    "judges",
    "Judge model provider/model (repeatable: majority vote of several judges).",
    required=True,
)
@opt.text(
    "--prompt-langs",
    "en",
    "Judge prompt languages, comma-separated (the first decides; several: invariance is reported).",
)
@opt.count("--repeats", 1, "Calls per answer and judge (agreement is reported for 2+).")
@click.option(
    "--temperature", type=float, help="Judge temperature (default 0, or 0.7 with --repeats 2+)."
)
@opt.choice("--keyword-source", ["judge", "computed"], "judge")
@opt.repeatable(
    "--label-judge",
    "label_judges",
    "Oracle precision: judges whose majority vote labels a Cochran sample of the failures.",
)
@click.option("--precision-n", type=click.IntRange(min=1), help="Sample size (default: Cochran's).")
@opt.choice(
    "--ci",
    ["wilsoncc", "wilson", "beta"],
    "wilsoncc",
    "Interval method: wilsoncc (continuity-corrected Wilson, every rate's default), wilson, "
    "beta (Clopper–Pearson).",
)
@opt.file("--suite", "The tests file (default: the one run.json names).", dest="suite_path")
@opt.directory(
    "--baseline", "A judged run directory of a baseline suite: compare failures with it."
)
@opt.concurrency()
@opt.flag(
    "--replace", "Overwrite the verdicts an earlier, different judge setting left in RUN_DIR."
)
@opt.file(
    "--calibration",
    "A calibration file of this judge (bordir judge calibrate --task testgen): its balanced "
    "accuracy beside each language's unsupported rate.",
)
@opt.flag(
    "--correct",
    "With --calibration: also correct the unsupported rate for the judge's sensitivity and "
    "specificity (Rogan-Gladen; refused near chance).",
)
@with_cache_options
@with_call_options
@opt.json("Print the summary as JSON.")
def judge_run_cmd(
    run_dir: str,
    judges: tuple[str, ...],
    prompt_langs: str,
    label_judges: tuple[str, ...],
    baseline: str | None,
    calibration: str | None,
    cache: str | None,
    no_cache: bool,
    as_json: bool,
    **settings: Any,
) -> None:
    """Judge the answers of a `bordir testrun` RUN_DIR with an LLM oracle (five criteria, RAG-Tester's fail rule).

    Writes judgments.jsonl, verdicts.csv, fail_rates.csv, paired.csv and summary.json into RUN_DIR.
    Per configuration and language it prints the unsupported rate beside the judge's calibration
    there (--calibration), or says the judge is not calibrated.
    """
    # ``settings``: the options named like a keyword of judge_run (--repeats … --max-retries)
    from ..testgen.judge import check_prompt_langs
    from ..testgen.pipeline import compare_to_baseline, judge_run

    check_prompt_langs(prompt_langs.split(","), option="--prompt-langs")
    cal = None
    if calibration:
        from ..judging.calibration import Calibration

        cal = Calibration.load(calibration)
    elif settings.get("correct"):
        from ..errors import ConfigError

        raise ConfigError("--correct needs --calibration FILE (the judge's known errors)")
    with opened_cache(cache, no_cache) as rc:
        summary = judge_run(
            run_dir,
            judges=list(judges),
            prompt_langs=[x for x in prompt_langs.split(",") if x],
            label_judges=list(label_judges),
            cache=rc,
            progress=not as_json,
            calibration=cal,
            **settings,
        )
    if baseline:
        summary["vs_baseline"] = compare_to_baseline(run_dir, baseline)
    if as_json:
        echo_json(summary)
        _exit_status(summary, run_dir)
        return

    def fmt(x: float | None) -> str:
        return "-" if x is None else f"{x:.3f}"

    echo_table(
        [
            "config",
            "decided",
            "fails",
            "fail rate [CI]",
            "tie",
            "unparsed",
            "failed",
            "no answer",
            "echo",
        ],  # fmt: skip
        [
            (
                r["config"],
                r["decided"],
                r["fails"],
                format_rate(
                    r["fail_rate"],
                    r["ci_low"],
                    r["ci_high"],
                    too_few=bool(r.get("too_few")),
                    scale=1.0,
                    digits=3,
                ),
                r["tie"],
                r["unparsed"],
                r["failed"],
                r["no_answer"],
                r.get("echo", 0),
            )
            for r in summary["fail_rates"]
        ],
    )
    for r in summary["fail_rates"]:
        echo_lines(f"signature: {r['signature']}")
    if inv := summary.get("invariance"):
        click.echo(
            f"judge invariance ({'+'.join(inv['langs'])}): disagreement {fmt(inv['disagreement'])} "
            f"[{fmt(inv['ci'][0])}, {fmt(inv['ci'][1])}] on {inv['units']} answers"
        )
        echo_lines(f"signature: {inv['signature']}")
    for a in summary.get("repeat_agreement") or []:
        if a["of"] == "verdict":
            click.echo(
                f"repeat agreement {a['judge']} ({a['prompt_lang']}): alpha {fmt(a['alpha'])}, "
                f"mean kappa {fmt(a['kappa_mean'])}, all repeats equal on {fmt(a['percent_agreement'])} "
                f"over {a['repeats']} repeats"
            )
    if prec := summary.get("oracle_precision"):
        click.echo(
            f"oracle precision {fmt(prec['precision'])} [{fmt(prec['precision_ci'][0])}, "
            f"{fmt(prec['precision_ci'][1])}], FDR {fmt(prec['fdr'])} on {prec['labelled']} labelled of "
            f"{prec['sampled']} sampled failures"
        )
        echo_lines(f"signature: {prec['signature']}")
    if vb := summary.get("vs_baseline"):
        click.echo(
            f"strategy vs baseline, failure rates: higher on {vb['higher_rate']}, lower on {vb['lower_rate']}, "
            f"equal on {vb['same_rate']} configurations; per test over the configurations, "
            f"{fmt(vb['across']['diff'])} (permutation p over tests = {vb['across']['p_value']:.3g})"
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
        echo_lines(f"signature: {vb['signature']}")
    if summary.get("flagged_passes"):
        click.echo(
            f"{summary['flagged_passes']} judged passes flagged: the answer or a retrieved chunk "
            "holds a ratings object (a prompt injection?); see 'flag' in judgments.jsonl"
        )
    _print_judge_calibration(summary["judge_calibration"])
    click.echo(f"outcomes: {', '.join(f'{k} {v}' for k, v in sorted(summary['outcomes'].items()))}")
    echo_lines(f"signature: {summary['signature']}")
    click.echo(f"wrote {run_dir}/judgments.jsonl, verdicts.csv, fail_rates.csv, summary.json")
    _exit_status(summary, run_dir)


def _print_judge_calibration(block: dict[str, Any]) -> None:
    """The per-language judged rates beside the judge's calibration (``bordir.judging.judged``)."""
    from ..judging.judged import text_rows

    if not block["rows"]:
        return
    heads, rows = text_rows(block)
    echo_table(heads, rows)
    if block["calibration"]:
        click.echo(f"judge calibration: {block['calibration']}")


def _exit_status(summary: dict[str, Any], run_dir: str) -> None:
    """Exit 2 when no answer could be judged, 1 when a judge call failed (``bordir run``'s rule)."""
    calls = summary.get("calls") or {}
    asked, failed = int(calls.get("requests", 0)), int(calls.get("failed", 0))
    if not summary.get("decided"):
        if not asked:
            kinds = summary.get("judgment_outcomes") or {}
            parts = [
                f"{kinds[k]} {label}"
                for k, label in (
                    ("echo", "echo their prompt or documents"),
                    ("no_answer", "failed in testrun"),
                )
                if kinds.get(k)
            ]
            why = f"no answer to judge ({'; '.join(parts) or 'the run has no answers'})"
        elif failed == asked:
            why = f"all {failed} judge calls failed (the first: {calls.get('first')})"
        else:
            why = (
                f"0 of {asked} judge replies could be read ({calls.get('unparsed', 0)} unparsed, "
                f"{failed} failed; see 'note' in {run_dir}/judgments.jsonl)"
            )
        raise NothingMade(f"no answer could be judged: {why}")
    exit_for_calls(failed, asked, calls.get("first"), what="judge calls")


from ._calibrate import calibrate_cmd  # noqa: E402  (the group's second subcommand)

judge_cmd.add_command(calibrate_cmd)
