"""``bordir judge calibrate`` (a subcommand of :mod:`bordir.cli.judge`): a judge's agreement with human labels per language, into a calibration file (a thin layer over :mod:`bordir.judging`)."""

from __future__ import annotations

from typing import Any

import click

from . import _decorators as opt
from ._cache import opened_cache, with_cache_options
from ._calls import NothingMade, exit_for_calls, with_call_options
from ._output import echo_json, echo_lines, echo_table

__all__ = ["calibrate_cmd", "print_calibration"]


def _tasks() -> tuple[str, ...]:
    from ..judging.tasks import JUDGE_TASKS

    return JUDGE_TASKS.names()


def _ci(m: dict[str, Any] | None) -> str:
    if not m or m.get("value") is None:
        return "-"
    ci = "" if m.get("low") is None else f" [{m['low']:.3f}, {m['high']:.3f}]"
    return f"{m['value']:.3f}{ci}"


def print_calibration(data: dict[str, Any]) -> None:
    """The calibration's tables: agreement per language, counts, ceilings, thresholds; then its signature."""
    langs = data["languages"]
    click.echo(
        f"judge {data['judge']} ({data['method']}): task {data['task']}, prompt variant "
        f"{data['variant']}, prompt language {data['prompt_lang']}; data {data['data']['name']}"
    )
    echo_table(
        ["lang", "items", "questions", "balanced acc [95% CI]", "accuracy", "kappa", "status"],
        [
            (
                lang,
                e["n_items"],
                e["n_clusters"],
                _ci(e["metrics"]["balanced_accuracy"]),
                _ci(e["metrics"]["accuracy"]),
                _ci(e["metrics"]["kappa"]),
                e["status"] + (f" ({e['reason']})" if e.get("reason") else ""),
            )
            for lang, e in sorted(langs.items())
        ],
    )
    pos, neg = data["labels"]
    echo_table(
        [
            "lang",
            "sensitivity",
            "specificity",
            "unparseable",
            "tp fn fp tn",
            "unparseable +/-",
            "left out",
        ],
        [
            (
                lang,
                _ci(e["metrics"]["sensitivity"]),
                _ci(e["metrics"]["specificity"]),
                _ci(e["metrics"]["unparseable"]),
                " ".join(str(e["counts"][k]) for k in ("tp", "fn", "fp", "tn")),
                f"{e['counts']['up']}/{e['counts']['un']}",
                ", ".join(f"{k} {v}" for k, v in e["left_out"].items() if v) or "-",
            )
            for lang, e in sorted(langs.items())
        ],
    )
    click.echo(
        f"positive: {pos!r}; sensitivity = the judge's recall of {pos!r}, specificity of {neg!r}; "
        "an unparseable reply counts as the opposite of the human label"
    )
    ceilings = [(l, e["ceiling"]) for l, e in sorted(langs.items()) if e.get("ceiling")]
    if ceilings:
        echo_table(
            ["lang", "annotators", "pairs", "human ceiling: balanced acc [95% CI]", "kappa"],
            [
                (
                    l,
                    c["annotators"],
                    c["n_items"],
                    _ci(c["metrics"]["balanced_accuracy"]),
                    _ci(c["metrics"]["kappa"]),
                )
                for l, c in ceilings
            ],
        )
    fitted = [(l, e["threshold"]) for l, e in sorted(langs.items()) if e.get("threshold")]
    if fitted:
        rows = []
        for l, t in fitted:
            if not t.get("fitted"):
                rows.append((l, "-", "-", "-", t["note"]))
                continue
            rows.append(
                (
                    l,
                    f"{t['threshold']:.4g}",
                    f"{t['calibration_questions']}/{t['held_out_questions']}",
                    _ci(t["held_out"]["metrics"]["balanced_accuracy"]),
                    _ci(t["held_out_own_labels"]["metrics"]["balanced_accuracy"]),
                )
            )
        echo_table(
            [
                "lang",
                "threshold",
                "questions cal/held",
                "held-out BA, threshold",
                "held-out BA, own labels",
            ],
            rows,
        )
    f = data["floor"]
    click.echo(
        f"floor: a language is calibrated when the lower bound of the balanced accuracy reaches "
        f"{f['value']:.2f} (an always-{pos!r} judge scores exactly 0.5)"
    )
    echo_lines(f"signature: {data['signature']}")


@click.command("calibrate")
@click.option(
    "--data",
    required=True,
    help="memerag:PATH (MEMERAG's <lang>.jsonl files, one file, or its data/ folder) or "
    "labels:PATH (a .jsonl/.csv of lang, question, context, answer or sentence, label[, annotator]).",
)
@click.option("--judge", "judge", required=True, help="The judge model, provider/model.")
@opt.file("--out", "The calibration file to write (JSON; required unless --dry-run).")
@opt.registry("--task", _tasks, "faithfulness", "What the judge is asked (bordir's judges).")
@opt.choice(
    "--variant",
    ["zero_shot", "cot", "guidelines", "guidelines_cot"],
    "zero_shot",
    "Prompt variant: zero-shot, chain of thought, with annotation guidelines, both.",
)
@opt.choice(
    "--prompt-lang",
    ["en", "item"],
    "en",
    "The judge's prompt language: the English rubric, or the item's own language.",
)
@opt.choice(
    "--memerag-variant",
    ["memerag", "majority", "ext"],
    help="For a MEMERAG data/ folder: memerag (one label), majority (majority of five), ext "
    "(five annotators).",
)
@click.option("--langs", help="Comma-separated languages (default: every language of the data).")
@opt.limit("At most N questions per language (their first ones).")
@click.option(
    "--split",
    type=float,
    help="Fit a threshold on the judge's score on this share of each language's questions and "
    "report it on the rest (e.g. 0.5; default: no threshold).",
)
@click.option(
    "--floor",
    type=float,
    default=0.70,
    show_default=True,
    help="A language is calibrated when the balanced accuracy's lower bound reaches it.",
)
@opt.resamples(2000, "Cluster-bootstrap resamples (questions).", dest="n_resamples")
@opt.seed()
@click.option("--max-tokens", type=click.IntRange(min=1), help="The judge's longest reply.")
@click.option(
    "--max-cost",
    type=float,
    help="Refuse to start when the calls not in the cache may cost more (USD, upper bound).",
)
@opt.flag("--dry-run", "Print calls, tokens and cost per language; call nothing.")
@with_cache_options
@opt.concurrency()
@with_call_options
@opt.json("Print the calibration as JSON (without its per-item rows).")
def calibrate_cmd(
    data: str,
    judge: str,
    out: str | None,
    langs: str | None,
    limit: int | None,
    memerag_variant: str | None,
    dry_run: bool,
    cache: str | None,
    no_cache: bool,
    as_json: bool,
    **settings: Any,
) -> None:
    """Calibrate a judge against human labels: per language its balanced accuracy, accuracy, kappa and errors, with intervals.

    Runs the judge on the labelled items of --data (through the response cache: a re-run
    re-bills nothing) and writes --out, a calibration file with its signature, which `bordir
    judge`, `bordir annotate` and `bordir testbed` take as --calibration. A language whose
    balanced accuracy's lower bound is below --floor is 'uncalibrated'.
    """
    from ..errors import ConfigError

    wanted = [x.strip() for x in langs.split(",") if x.strip()] if langs else None
    common = dict(
        task=settings.pop("task"),
        variant=settings.pop("variant"),
        prompt_lang=settings.pop("prompt_lang"),
        langs=wanted,
        limit=limit,
        memerag_variant=memerag_variant,
        max_tokens=settings.pop("max_tokens"),
    )
    if dry_run:
        from ..judging.calibrate import estimate_calibration

        with opened_cache(cache, no_cache) as rc:
            est = estimate_calibration(data, judge, cache=rc, **common)
        click.echo(str(est))
        return
    if not out:
        raise ConfigError("--out FILE is needed: where to write the calibration (or use --dry-run)")
    from ..judging.calibrate import calibrate_judge

    with opened_cache(cache, no_cache) as rc:
        cal = calibrate_judge(data, judge, cache=rc, progress=not as_json, **common, **settings)
    path = cal.save(out)
    calls = cal.data["calls"]
    if as_json:
        echo_json({k: v for k, v in cal.data.items() if k != "items"} | {"out": str(path)})
    else:
        print_calibration(cal.data)
        click.echo(f"wrote {path}")
    judged = sum(r["outcome"] != "failed" for r in cal.items)
    if calls["requests"] and not judged:
        raise NothingMade(f"all {calls['failed']} judge calls failed (the first: {calls['first']})")
    exit_for_calls(calls["failed"], len(cal.items), calls["first"], what="judge calls")
