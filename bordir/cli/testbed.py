"""``bordir testbed``: RGB-style robustness testbeds, and re-scoring RGB prediction files."""

from __future__ import annotations

import click

from ._choices import RegistryChoice
from ._output import echo_json, echo_table


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
    """Noise robustness, negative rejection, information integration and counterfactual robustness (RGB)."""


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


def _pct(m: dict | None) -> str:
    if not m or m["value"] is None:
        return "-"
    lo, hi = m["ci95"]
    ci = "" if lo is None else f" [{100 * lo:.1f}, {100 * hi:.1f}]"
    return f"{100 * m['value']:.1f}{ci} ({m['count']}/{m['n']})"


def _testbed_command(name: str, description: str) -> click.Command:
    """The ``bordir testbed NAME`` command of a registered testbed."""

    @click.option(
        "--data", required=True, help="rgb:FILE (an RGB JSON-lines file), demo, or a corpus spec."
    )
    @click.option(
        "--model", "models", multiple=True, required=True, help="provider/model; repeatable."
    )
    @click.option(
        "--lang",
        "langs",
        multiple=True,
        help="Query languages (comma-separated or repeated); "
        "for rgb: the file's language (default from its name).",
    )
    @click.option(
        "--ratios", help="Noise ratios, e.g. 0,0.2,0.4 (default per testbed; rejection: 1)."
    )
    @click.option(
        "--out",
        "out_dir",
        required=True,
        type=click.Path(file_okay=False, path_type=str),
        help="Output directory (resumable).",
    )
    @click.option(
        "--passages",
        "passage_num",
        type=click.IntRange(min=1),
        default=5,
        show_default=True,
        help="Documents per prompt.",
    )
    @click.option(
        "--seed", type=int, help="Instance seed (default $BORDIR_SEED or 12345; RGB: 2333)."
    )
    @click.option(
        "--seeding",
        type=click.Choice(["bordir", "rgb"]),
        default="bordir",
        show_default=True,
        help="rgb: random.seed(seed) before every instance, as RGB (with --seed 2333: RGB's documents).",
    )
    @click.option("--temperature", type=float, default=0.7, show_default=True)
    @click.option("--max-tokens", type=click.IntRange(min=1), default=256, show_default=True)
    @click.option("--limit", type=click.IntRange(min=1), help="At most N questions per language.")
    @click.option(
        "--dataset",
        default="demo",
        show_default=True,
        help="Queries for a corpus spec: demo or borderlines:PATH.",
    )
    @click.option(
        "--policy",
        type=RegistryChoice(_policies),
        help="Headline policy (default rgb for rgb: files, bordir otherwise); both are computed.",
    )
    @click.option(
        "--judge",
        help="provider/model of an LLM judge: RGB's Rej* (rejection), ED*/CR* (counterfactual).",
    )
    @click.option(
        "--cache", type=click.Path(dir_okay=False, path_type=str), help="Response cache file."
    )
    @click.option("--concurrency", type=click.IntRange(min=1), help="Calls in flight.")
    @click.option(
        "--resamples", "n_resamples", type=click.IntRange(min=1), default=2000, show_default=True
    )
    @click.option("--no-progress", is_flag=True, help="No progress bar.")
    @click.option("--json", "as_json", is_flag=True, help="Print the scores as JSON.")
    def cmd(
        data: str,
        models: tuple[str, ...],
        langs: tuple[str, ...],
        ratios: str | None,
        out_dir: str,
        passage_num: int,
        seed: int | None,
        seeding: str,
        temperature: float,
        max_tokens: int,
        limit: int | None,
        dataset: str,
        policy: str | None,
        judge: str | None,
        cache: str | None,
        concurrency: int | None,
        n_resamples: int,
        no_progress: bool,
        as_json: bool,
    ) -> None:
        import json
        from pathlib import Path

        from ..testbeds.runner import TestbedConfig, run_testbed

        cfg = TestbedConfig(
            testbed=name,
            data=data,
            models=_split(models),
            langs=_split(langs),
            ratios=_ratios(ratios),
            passage_num=passage_num,
            seed=seed,
            seeding=seeding,
            temperature=temperature,
            max_tokens=max_tokens,
            limit=limit,
            dataset=dataset,
            policy=policy,
            judge=judge,
            cache=cache,
            concurrency=concurrency,
            n_resamples=n_resamples,
        )
        out = run_testbed(cfg, out_dir, progress=not no_progress)
        scores = json.loads((Path(out) / "scores.json").read_text(encoding="utf-8"))
        if as_json:
            echo_json({"out": str(out), **scores})
            return
        print_scores(scores)
        click.echo(f"results: {out} (bordir report {out})")

    return click.command(name, help=description)(cmd)


def print_scores(scores: dict) -> None:
    """The headline-policy metrics of a testbed run, one row per group."""
    policy = scores["policy"]
    from ..testbeds.metrics import METRICS as names

    shown = [m for m in names if any(m in g["metrics"][policy] for g in scores["groups"])]
    rows = [
        (
            g["model"],
            g["lang"],
            g["setting"],
            f"{g['noise_rate']:g}",
            *(_pct(g["metrics"][policy].get(m)) for m in shown),
        )
        for g in scores["groups"]
    ]
    echo_table(["model", "lang", "setting", "r", *shown], rows)
    click.echo(f"{policy} policy; values x100 [95% cluster bootstrap over questions] (count/n)")


@testbed_group.command("score")
@click.argument("predictions", type=click.Path(dir_okay=False, path_type=str))
@click.option(
    "--dataset-kind",
    type=RegistryChoice(_kinds),
    help="Default: from the file name, as RGB (_int, _fact, else noise).",
)
@click.option(
    "--lang",
    help="en, zh or a bordir code (default: from the file name, as RGB's 'zh' in dataset).",
)
@click.option("--policy", type=RegistryChoice(_policies), default="rgb", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def score_cmd(
    predictions: str, dataset_kind: str | None, lang: str | None, policy: str, as_json: bool
) -> None:
    """Re-score an RGB prediction file (id, query, ans, label, prediction, docs, noise_rate, factlabel)."""
    from ..testbeds.rescore import rescore_predictions

    result = rescore_predictions(predictions, dataset_kind=dataset_kind, lang=lang, policy=policy)
    if as_json:
        echo_json(result)
        return
    rows = []
    for rate, block in [
        ("all", {"n": result["n"], "metrics": result["metrics"]}),
        *result["by_noise_rate"].items(),
    ]:
        for name, m in block["metrics"].items():
            v = "-" if m["value"] is None else f"{m['value']:.4f}"
            rows.append((rate, name, v, m["count"], m["n"]))
    echo_table(["noise_rate", "metric", "value", "count", "n"], rows)
    mm = result["label_mismatches"]
    if mm is not None:
        click.echo(
            f"{mm['count']} line(s) whose stored label/factlabel differ from the recomputed ones"
            + (f" (lines {', '.join(map(str, mm['lines']))})" if mm["count"] else "")
        )
    click.echo(f"signature: {result['signature']}")
