"""``bordir testbed``: RGB-style robustness testbeds and NoMIRACL, and re-scoring RGB's and NoMIRACL's outputs."""

from __future__ import annotations

from typing import Any

import click

from . import _decorators as opt
from ._output import echo_json, echo_lines, echo_table


def _policies() -> tuple[str, ...]:
    from ..policies import TESTBED_POLICIES

    return TESTBED_POLICIES.names()


def _kinds() -> tuple[str, ...]:
    from ..testbeds.rgb_data import KINDS

    return KINDS


class _TestbedGroup(click.Group):
    """``bordir testbed``: one subcommand per entry of the testbed registry, and ``score``.

    The testbed commands are made when the command line is parsed, so a testbed a
    plugin registers (``BORDIR_PLUGINS``) is a command too.
    """

    def list_commands(self, ctx: click.Context) -> list[str]:
        from ..testbeds.testbed import TESTBEDS

        return sorted({*super().list_commands(ctx), *TESTBEDS.names()})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        cmd = super().get_command(ctx, cmd_name)
        if cmd is not None:
            return cmd
        from ..testbeds.testbed import TESTBEDS

        if cmd_name not in TESTBEDS:
            return None
        return _testbed_command(cmd_name, TESTBEDS.get(cmd_name).description)


@click.group("testbed", cls=_TestbedGroup)
def testbed_group() -> None:
    """RGB's noise robustness, negative rejection, information integration and counterfactual robustness; NoMIRACL."""


def _split(values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(x.strip() for v in values for x in v.split(",") if x.strip())


def _ratios(text: str | None) -> tuple[float, ...] | None:
    if not text:
        return None
    try:
        return tuple(float(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise click.BadParameter(
            f"expected comma-separated numbers in [0, 1], got {text!r}"
        ) from None


def _testbed_command(name: str, description: str) -> click.Command:
    """The ``bordir testbed NAME`` command of a registered testbed (its defaults and options come from it)."""
    from ..testbeds.testbed import TESTBEDS

    spec = TESTBEDS.get(name)
    defaults = dict(spec.defaults)

    @click.option(
        "--data",
        required=True,
        help="rgb:FILE (an RGB JSON-lines file), demo, or a corpus spec; "
        "nomiracl: nomiracl:PATH or nomiracl (the hub).",
    )
    @opt.repeatable("--model", "models", "provider/model; repeatable.", required=True)
    @opt.repeatable(
        "--lang",
        "langs",
        "Query languages (comma-separated or repeated); "
        "for rgb: the file's language (default from its name).",
    )
    @click.option(
        "--ratios", help="Noise ratios, e.g. 0,0.2,0.4 (default per testbed; rejection: 1)."
    )
    @opt.out_dir("Output directory (resumable).")
    @opt.count(
        "--passages", defaults.get("passage_num", 5), "Documents per prompt.", dest="passage_num"
    )
    @opt.seed("Instance seed (default $BORDIR_SEED or 12345; RGB: 2333).")
    @opt.choice(
        "--seeding",
        ["bordir", "rgb"],
        "bordir",
        "rgb: random.seed(seed) before every instance, as RGB (with --seed 2333: RGB's documents).",
    )
    @click.option(
        "--temperature", type=float, default=defaults.get("temperature", 0.7), show_default=True
    )
    @opt.count("--max-tokens", defaults.get("max_tokens", 256))
    @opt.limit("At most N questions per language (nomiracl: NoMIRACL's sample, N per subset).")
    @opt.text("--dataset", "demo", "Queries for a corpus spec: demo or borderlines:PATH.")
    @opt.registry(
        "--policy",
        _policies,
        help="Headline policy (default rgb for rgb: files, nomiracl for nomiracl, bordir otherwise); "
        "every policy is computed.",
    )
    @click.option(
        "--judge",
        help="provider/model of an LLM judge: RGB's Rej* (rejection), ED*/CR* (counterfactual).",
    )
    @opt.file(
        "--calibration",
        "A calibration file of the judge (bordir judge calibrate --task rgb_rejection or "
        "rgb_counterfactual): its balanced accuracy beside each language's judged rate.",
    )
    @opt.flag(
        "--correct",
        "With --calibration: also correct the judged rates for the judge's sensitivity and "
        "specificity (Rogan-Gladen; refused near chance).",
    )
    @opt.file("--cache", "Response cache file.")
    @opt.concurrency("Calls in flight.")
    @opt.resamples(2000, dest="n_resamples")
    @opt.flag("--no-progress", "No progress bar.")
    @opt.json("Print the scores as JSON.")
    def cmd(
        models: tuple[str, ...],
        langs: tuple[str, ...],
        ratios: str | None,
        out_dir: str,
        no_progress: bool,
        as_json: bool,
        **fields: Any,
    ) -> None:
        # ``fields``: the options named like a field of TestbedConfig (--data, --passages …),
        # then the testbed's own (its ``extra``)
        from pathlib import Path

        from .._io.json_read import read_json
        from ..testbeds.runner import TestbedConfig, run_testbed

        extra = {o.name: fields.pop(o.name) for o in spec.options}
        cfg = TestbedConfig(
            testbed=name,
            models=_split(models),
            langs=_split(langs),
            ratios=_ratios(ratios),
            extra={k: v for k, v in extra.items() if v is not None},
            **fields,
        )
        out = run_testbed(cfg, out_dir, progress=not no_progress)
        info = read_json(Path(out) / "testbed.json")
        # the data's warnings (e.g. a fake answer that contains the true one), one line each
        for w in (info.get("data") or {}).get("warnings") or []:
            click.echo(f"bordir: warning: {w}", err=True)
        scores = read_json(Path(out) / "scores.json")
        if as_json:
            echo_json({"out": str(out), **scores})
            return
        print_scores(scores)
        print_judge_calibration(scores)
        click.echo(f"results: {out}")
        click.echo(
            "report: bordir report on that directory (report.html), bordir view (every sample)"
        )

    for own in reversed(spec.options):  # the testbed's own options (NoMIRACL: --split, --settings)
        cmd = click.option(
            f"--{own.name}",
            own.name,
            type=click.Choice(own.choices) if own.choices else str,
            default=own.default,
            show_default=True,
            help=own.help,
        )(cmd)
    return click.command(name, help=description)(cmd)


def _value(m: dict[str, Any] | None) -> str:
    return "-" if not m or m["value"] is None else f"{100 * m['value']:.1f}"


def _with_ci(m: dict[str, Any] | None) -> str:
    from ..stats.rate import format_rate

    if not m or m["value"] is None:
        return "-"
    lo, hi = m["ci95"]
    return format_rate(m["value"], lo, hi, too_few=bool(m.get("too_few")))


def print_judge_calibration(scores: dict[str, Any]) -> None:
    """The judged rates per language beside the judge's calibration (``scores.json``'s ``judge_calibration``)."""
    block = scores.get("judge_calibration")
    if not block or not block["rows"]:
        return
    from ..judging.judged import text_rows

    heads, rows = text_rows(block)
    echo_table(heads, rows[:MAX_ROWS])
    if len(rows) > MAX_ROWS:
        click.echo(f"… {len(rows) - MAX_ROWS} more rows in scores.json and the report")
    if block["calibration"]:
        click.echo(f"judge calibration: {block['calibration']}")


MAX_ROWS = 16
"""Rows of the terminal table at most (the rest: scores.json and the report)."""


def print_scores(scores: dict[str, Any]) -> None:
    """Both policies' metrics of a testbed run, pooled over languages, in at most 25 lines of 100 characters.

    One row per (model, setting, noise rate): the headline policy's value with its interval and the
    other policy's value (``scores.json`` has both, per language too), ×100 like ``testbed score``.
    """
    from ..testbeds.metrics import METRICS as names
    from ._output import WIDTH, split_line

    policy = scores["policy"]
    other = next((p for p in scores.get("policies") or [] if p != policy), None)
    groups = [g for g in scores["groups"] if g["lang"] == "all"] or scores["groups"]
    shown = [m for m in names if any(m in g["metrics"][policy] for g in groups)][:3]
    heads = ["model", "setting", "r", "n"]
    for m in shown:
        mark = "†" if m == "rejection_rate" else ""
        heads += [f"{m}{mark} ({policy})", *([f"({other})"] if other else [])]
    rows = []
    for g in groups:
        row = [g["model"], g["setting"], f"{g['noise_rate']:g}", str(g["n_items"])]
        for m in shown:
            row.append(_with_ci(g["metrics"][policy].get(m)))
            if other:
                row.append(_value(g["metrics"].get(other, {}).get(m)))
        rows.append(row)
    echo_table(heads, rows[:MAX_ROWS])
    if len(rows) > MAX_ROWS:
        click.echo(f"… {len(rows) - MAX_ROWS} more rows in scores.json and the report")
    langs = sorted({g["lang"] for g in scores["groups"]} - {"all"})
    pooled = f"pooled over {len(langs)} language(s); per language in scores.json; " if langs else ""
    note = (
        f"{pooled}×100, {policy} policy [95% cluster score interval over questions; 'too few to judge' below 10 questions]"
        + (f", then the {other} policy's value (docs/testbeds.md: the two rules)" if other else "")
    )
    if "rejection_rate" in shown:
        from ..testbeds.metrics import RGB_REJECTION_NOTE

        note += f". † {RGB_REJECTION_NOTE}"  # the note names its policy itself
    for line in split_line(note, width=WIDTH, sep=" ", indent=""):
        click.echo(line)
    echoes = echo_note(groups)
    for line in split_line(echoes, width=WIDTH, sep=" ", indent="") if echoes else ():
        click.echo(line)


def echo_note(groups: list[dict[str, Any]]) -> str:
    """How many replies of each model were echoes (mostly a copy of the prompt or a document); "" if none."""
    counts: dict[str, str] = {}
    for model in dict.fromkeys(g["model"] for g in groups):
        mine = [g for g in groups if g["model"] == model]
        n_echo, n = sum(g.get("n_echo", 0) for g in mine), sum(g["n_items"] for g in mine)
        if n_echo:
            counts[model] = f"{model} {n_echo} of {n}"
    if not counts:
        return ""
    return (
        f"echoes (replies mostly copied from the prompt or a document; never correct, rejected or "
        f"flagged): {', '.join(counts.values())}"
    )


@testbed_group.command("score")
@click.argument(
    "predictions", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=str)
)
@opt.choice(
    "--format",
    ["rgb", "nomiracl"],
    "rgb",
    "rgb: RGB prediction files; nomiracl: NoMIRACL result files (query_id, docids, prompt, "
    "template, results), both policies side by side.",
    dest="fmt",
)
@opt.registry(
    "--dataset-kind",
    _kinds,
    help="rgb: default from the file name, as RGB (_int, _fact, else noise).",
)
@click.option(
    "--lang",
    help="rgb: en, zh or a bordir code (default: from the file name, as RGB's 'zh' in dataset); "
    "nomiracl: the files' language (default: each name's first part).",
)
@opt.choice(
    "--subset",
    ["relevant", "non_relevant"],
    help="nomiracl: the files' subset (default: from each path).",
)
@click.option(
    "--models",
    "models",
    help="nomiracl: only these models, in this order (comma-separated; NoMIRACL's --parse_models).",
)
@opt.directory(
    "--tsv",
    "nomiracl: also write eval_results.{subset}.tsv as NoMIRACL's hallucination_evaluation.py.",
    dest="tsv_dir",
)
@opt.count("--examples", 3, minimum=0)
@opt.registry("--policy", _policies, "rgb", "rgb format only (nomiracl prints its two policies).")
@click.option(
    "--data",
    "data_file",
    type=click.Path(dir_okay=False, path_type=str),
    help="rgb format, bordir policy: the RGB data file the predictions answer (en_fact.json …), "
    "to read each line's fakeanswer by id (without it hedges cannot be detected).",
)
@opt.json()
def score_cmd(
    predictions: tuple[str, ...],
    fmt: str,
    dataset_kind: str | None,
    lang: str | None,
    subset: str | None,
    models: str | None,
    tsv_dir: str | None,
    examples: int,
    policy: str,
    data_file: str | None,
    as_json: bool,
) -> None:
    """Re-score prediction files: RGB's (one file), or NoMIRACL's result files (--format nomiracl)."""
    if fmt == "nomiracl":
        from ..testbeds.nomiracl.rescore import rescore_nomiracl, write_evaluation_tsv
        from ._nomiracl import print_nomiracl

        wanted = [m.strip() for m in models.split(",") if m.strip()] if models else None
        res = rescore_nomiracl(
            predictions, subset=subset, lang=lang, models=wanted, examples=examples
        )
        if tsv_dir:
            res["tsv"] = [str(p) for p in write_evaluation_tsv(res, tsv_dir, models=wanted)]
        if as_json:
            echo_json(res)
            return
        print_nomiracl(res, examples=examples)
        for p in res.get("tsv", []):
            click.echo(f"wrote {p}")
        return
    if len(predictions) != 1:
        raise click.UsageError("the rgb format re-scores one prediction file at a time")
    from ..stats.rate import format_rate_dict
    from ..testbeds.rescore import HEDGES_UNDETECTED, rescore_predictions

    result = rescore_predictions(
        predictions[0], dataset_kind=dataset_kind, lang=lang, policy=policy, data=data_file
    )
    if as_json:
        echo_json(result)
        return
    rows = []
    for rate, block in [
        ("all", {"n": result["n"], "metrics": result["metrics"]}),
        *result["by_noise_rate"].items(),
    ]:
        for name, m in block["metrics"].items():
            v = format_rate_dict({**m, "count": None})
            rows.append((rate, f"{name}†" if m.get("note") else name, v, m["count"], m["n"]))
    echo_table(["noise_rate", "metric", "value ×100 [95% CI]", "count", "n"], rows)
    note = next((m["note"] for m in result["metrics"].values() if m.get("note")), None)
    if note:
        click.echo(f"† {note}")
    if result.get("hedges") == HEDGES_UNDETECTED:
        click.echo(f"bordir: warning: {HEDGES_UNDETECTED}", err=True)
    mm = result["label_mismatches"]
    if mm is not None:
        click.echo(
            f"{mm['count']} line(s) whose stored label/factlabel differ from the recomputed ones"
            + (f" (lines {', '.join(map(str, mm['lines']))})" if mm["count"] else "")
        )
    echoes = result["echoes"]
    if echoes["count"]:
        click.echo(
            f"{echoes['count']} of {result['n']} prediction(s) are echoes of the prompt or its "
            f"documents: not answers (lines {', '.join(map(str, echoes['lines']))})"
        )
    echo_lines(f"signature: {result['signature']}")
