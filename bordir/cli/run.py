"""``bordir run``: run an experiment config into a run directory (resumable); a thin layer over :func:`bordir.run`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from ._choices import RegistryChoice


def _executors() -> tuple[str, ...]:
    from ..runner.executors import EXECUTORS

    return EXECUTORS.names()


_CONFIG_OVERRIDES = (
    click.option("--models", help="Comma-separated provider/model list (overrides the config)."),
    click.option("--modes", help="'all' or comma-separated modes."),
    click.option("--k", type=int, help="Documents per prompt."),
    click.option("--runs", type=int, help="Number of runs (paper seeds first)."),
    click.option("--temperature", type=float),
    click.option("--langs", help="Comma-separated query languages to keep."),
    click.option("--retriever", help="bm25, e5-small, bge-m3, openai/<model>, cohere/<model>."),
    click.option(
        "--corpus",
        help="Corpus: demo, a corpus directory, a passages .jsonl/.parquet/.csv, all_docs.json.",
    ),
    click.option("--response-format", type=click.Choice(["direct", "citation"])),
    click.option("--system", help="System prompt variant (vanilla, un, nationalist)."),
    click.option("--cache", type=click.Path(dir_okay=False), help="Response cache file."),
    click.option("--concurrency", type=int, help="Calls in flight at most."),
    click.option(
        "--timeout", type=float, help="Seconds one request may take over all its retries."
    ),
    click.option("--max-retries", type=int, help="Retries of a transient failure."),
    click.option("--deadline", type=float, help="Seconds one (model, mode) batch may take in all."),
    click.option(
        "--max-consecutive-failures",
        type=int,
        help="Stop a (model, mode) after this many failures in a row.",
    ),
)
"""The options that override a field of the experiment config (each named like its field)."""


def config_overrides(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add :data:`_CONFIG_OVERRIDES` to ``command``; it receives them as ``**overrides``."""
    for option in reversed(_CONFIG_OVERRIDES):
        command = option(command)
    return command


@click.command("run")
@click.argument("config", type=click.Path(dir_okay=False))
@click.option(
    "--out", "out_dir", required=True, type=click.Path(file_okay=False), help="Run directory."
)
@config_overrides
@click.option(
    "--dry-run", is_flag=True, help="Estimate calls, tokens and cost per language; call nothing."
)
@click.option(
    "--progress/--no-progress", default=True, show_default=True, help="Progress bars on stderr."
)
@click.option(
    "--executor",
    type=RegistryChoice(_executors),
    default="local",
    show_default=True,
    help="Where the calls run: this process, or shards of model x territories on a Ray cluster.",
)
@click.option(
    "--address",
    help="Ray cluster for --executor ray (auto, HOST:6379, ray://HOST:10001; default $RAY_ADDRESS "
    "or a local one).",
)
@click.option(
    "--submit",
    type=click.Choice(["batch"]),
    help="Submit the uncached requests as provider batches (OpenAI Batch API, about half the "
    "price) and return; collect them later with --collect (docs/batch.md).",
)
@click.option(
    "--collect",
    is_flag=True,
    help="Fetch the finished batches of --out and write the run (exit 3 while one is pending).",
)
@click.option(
    "--wait", is_flag=True, help="With --submit batch or --collect: wait for the batches."
)
@click.option(
    "--poll", type=float, default=30.0, show_default=True, help="Seconds between batch polls."
)
def run_cmd(
    config: str,
    out_dir: str,
    dry_run: bool,
    progress: bool,
    executor: str,
    address: str | None,
    submit: str | None,
    collect: bool,
    wait: bool,
    poll: float,
    **overrides: Any,
) -> None:
    """Run the experiment CONFIG (TOML) and write hits.parquet, responses.parquet and run.json to --out.

    Exits with status 1 when any call failed (re-running retries exactly those; the others come from the cache).
    """
    from ..experiment.config import load_config

    cfg = load_config(config).override(**overrides)  # the one config object, passed down
    if dry_run:
        _dry_run(cfg, batch=submit == "batch")
        return
    if submit or collect or wait:
        from ._batch import run_batch

        if executor != "local" or address:
            from ..errors import ConfigError

            raise ConfigError(
                "--executor ray / --address do not apply to --submit batch / --collect "
                "(the provider runs the batches); drop them"
            )

        run_batch(
            cfg, out_dir, submit=submit, collect=collect, wait=wait, poll=poll, progress=progress
        )
        return
    from ..runner.run import run
    from ._batch import refuse_if_batches_pending

    refuse_if_batches_pending(out_dir)  # an online run would pay for them a second time
    result = run(cfg, out=out_dir, progress=progress, executor=executor, address=address)
    info = result.info
    calls = info["calls"]
    path = result.path if result.path is not None else Path(out_dir)
    click.echo(
        f"wrote {path / 'responses.parquet'} ({info['responses']} rows) and {path / 'run.json'}"
    )
    click.echo(
        f"calls: {calls['requests']} ({calls['cached']} from the cache {info['cache']['path']})"
    )
    click.echo(
        f"signature: {result.responses['signature'].iloc[0] if len(result.responses) else '-'}"
    )
    if calls["failed"]:
        click.echo(
            f"{calls['failed']} of {calls['requests']} calls failed (outcome 'failed'; the first: "
            f"{info['failures'][0] if info['failures'] else '?'}); re-run the same command to retry them",
            err=True,
        )
        raise click.exceptions.Exit(1)


def _dry_run(cfg, *, batch: bool = False) -> None:
    from ..runner.dry_run import dry_run as estimate
    from ._output import echo_table

    table = estimate(cfg, batch=True) if batch else estimate(cfg)
    echo_table(list(table.columns), table.itertuples(index=False))
    costs = table["max_cost_usd"].dropna()
    click.echo(
        f"total: {int(table['calls'].sum())} calls to make, {int(table['cached'].sum())} cached; "
        f"at most ${costs.sum():.4f}"
        + (" at batch prices" if batch else "")
        + (" (some models have no price)" if len(costs) < len(table) else "")
    )
    click.echo(
        "tokens are estimated as characters / 4; output tokens at max_tokens (an upper bound)"
    )
    if table.attrs.get("note"):
        click.echo(table.attrs["note"])
    if table.attrs.get("power"):
        _power(table.attrs["power"])


def _power(records) -> None:
    """The power table of the design: territories and minimum detectable difference per query language."""
    from ._output import echo_table

    def mde(x):
        return "undetectable" if x is None or x != x else f"{100 * x:.1f}"

    click.echo("")
    click.echo(
        "power per query language: minimum detectable difference (x100) between two modes, paired by "
        "territory (sign-flip test, alpha 0.05, power 0.8, planning sd 0.5; docs/methodology.md)"
    )
    echo_table(
        ["query lang", "metric", "territories", "MDE", ""],
        [
            (
                r["query_lang"],
                r["metric"],
                r["n_territories"],
                mde(r["mde"]),
                "thin" if r["thin"] else "",
            )
            for r in records
        ],
    )
    thin = sum(r["thin"] for r in records if r["query_lang"] != "*")
    langs = sum(r["query_lang"] != "*" for r in records)
    click.echo(
        f"{thin} of {langs} language cells are thin (< 10 territories); `bordir plan CONFIG --target-mde 0.05` "
        "says what a target would need"
    )
