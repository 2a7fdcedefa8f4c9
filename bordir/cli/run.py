"""``bordir run``: run an experiment config into a run directory (resumable); a thin layer over :func:`bordir.run`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from . import _decorators as opt

if TYPE_CHECKING:
    from ..experiment.config import ExperimentConfig


def _executors() -> tuple[str, ...]:
    from ..runner.executors import EXECUTORS

    return EXECUTORS.names()


def _override(f: Any) -> Any:
    """The ``bordir run`` option of the config field ``f`` (:mod:`bordir.experiment.fields`)."""
    name = "--" + f.name.replace("_", "-")
    if f.name == "limit":
        return opt.limit(f.cli)
    if f.cli_type == "choice":
        return opt.choice(name, list(f.allowed()))
    kinds: dict[str, Any] = {
        "int": int,
        "float": float,
        "seconds": float,
        "file": click.Path(dir_okay=False),
        "dir": click.Path(file_okay=False),
    }
    kind = kinds.get(f.cli_type or f.kind)
    return click.option(name, **({"type": kind} if kind else {}), help=f.cli or None)


def _overrides() -> tuple[Any, ...]:
    from ..experiment.fields import cli_fields

    return tuple(_override(f) for f in cli_fields())


_CONFIG_OVERRIDES = _overrides()
"""The options that override a field of the experiment config (each named like its field),
generated from the fields' description (:func:`bordir.experiment.fields.cli_fields`)."""


config_overrides = opt.options(*_CONFIG_OVERRIDES)
"""Add :data:`_CONFIG_OVERRIDES` to a command; it receives them as ``**overrides``."""


@click.command("run")
@click.argument("config", type=click.Path(dir_okay=False))
@opt.out_dir("Run directory.", path_type=None)
@config_overrides
@opt.flag("--dry-run", "Estimate calls, tokens and cost per language; call nothing.")
@opt.flag(
    "--verbose",
    "With --dry-run: also the per-(model, language) table and the per-language power table.",
)
@opt.switch("--progress/--no-progress", True, "Progress bars on stderr.")
@opt.registry(
    "--executor",
    _executors,
    "local",
    "Where the calls run: this process, or shards of model x territories on a Ray cluster.",
)
@click.option(
    "--address",
    help="Ray cluster for --executor ray (auto, HOST:6379, ray://HOST:10001; default $RAY_ADDRESS "
    "or a local one).",
)
@opt.choice(
    "--submit",
    ["batch"],
    help="Submit the uncached requests as provider batches (OpenAI Batch API, about half the "
    "price) and return; collect them later with --collect (docs/batch.md).",
)
@opt.flag(
    "--collect",
    "Fetch the finished batches of --out and write the run (exit 3 while one is pending).",
)
@opt.flag("--wait", "With --submit batch or --collect: wait for the batches.")
@click.option(
    "--poll", type=float, default=30.0, show_default=True, help="Seconds between batch polls."
)
@click.option(
    "--only",
    help="A suite ([[runs]]): only these runs (comma-separated names).",
)
def run_cmd(
    config: str,
    out_dir: str,
    dry_run: bool,
    verbose: bool,
    progress: bool,
    executor: str,
    address: str | None,
    submit: str | None,
    collect: bool,
    wait: bool,
    poll: float,
    only: str | None,
    **overrides: Any,
) -> None:
    """Run the experiment CONFIG (TOML) and write hits.parquet, responses.parquet and run.json to --out.

    A suite (a TOML with [[runs]], such as configs/borderlines-2023.toml) runs each run into
    --out/<name>. Exits with status 1 when any call failed (re-running retries exactly those;
    the others come from the cache).
    """
    from ..experiment.suite import load_suite

    suite = load_suite(config)
    if only:
        if not suite.is_suite:
            from ..errors import ConfigError

            raise ConfigError(f"--only picks runs of a suite; {config} has no [[runs]]")
        suite = suite.only([n.strip() for n in only.split(",") if n.strip()])
    if suite.is_suite:
        batch = bool(submit or collect or wait)
        _run_suite(
            suite, out_dir, dry_run, progress, executor, address, batch, overrides, verbose=verbose
        )
        return
    cfg = suite.runs[0][1].override(**overrides)  # the one config object, passed down
    if dry_run:
        _dry_run(cfg, batch=submit == "batch", verbose=verbose)
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

    if any(
        m.startswith("local/") for m in cfg.models
    ):  # the one backend whose speed is this machine's
        from ..experiment.writer import RunDirWriter
        from ..runner.eta import notice_lines

        RunDirWriter.preflight(out_dir)  # a bad --out is said before the plan
        for line in notice_lines(cfg):
            click.echo(line, err=True)
    result = run(cfg, out=out_dir, progress=progress, executor=executor, address=address)
    _summary(result, Path(out_dir))
    info = result.info
    calls = info["calls"]
    if calls["failed"]:
        click.echo(
            f"{calls['failed']} of {calls['requests']} calls failed (outcome 'failed'; the first: "
            f"{info['failures'][0] if info['failures'] else '?'}); re-run the same command to retry them",
            err=True,
        )
        raise click.exceptions.Exit(1)


def _run_suite(
    suite: Any,
    out_dir: str,
    dry_run: bool,
    progress: bool,
    executor: str,
    address: str | None,
    batch: Any,
    overrides: dict[str, Any],
    *,
    verbose: bool = False,
) -> None:
    """Each run of a suite into ``out_dir/<name>`` (or its dry run), then the total."""
    from ..errors import ConfigError
    from ..runner.run import run

    if batch:
        raise ConfigError(
            "--submit batch / --collect take one experiment; pick a run of the suite with --only NAME"
        )
    from .._io.texttable import clip

    title = suite.meta.get("name") or Path(suite.path).stem
    click.echo(
        clip(
            f"suite {title}: {len(suite.runs)} run(s)"
            + (f" ({suite.meta['paper']})" if suite.meta.get("paper") else ""),
            100,
        )
    )
    calls, cost, failed, priced, partial = 0, 0.0, 0, True, False
    unserved: float | None = 0.0
    last = None
    for i, (name, cfg) in enumerate(suite.runs):
        cfg = cfg.override(**overrides)
        n_models = len(cfg.models)
        what = cfg.models[0] if n_models == 1 else f"{n_models} models"
        header = f"== {name} ({what}; system {cfg.system}; {cfg.response_format}) =="
        if dry_run:
            from ..runner.dry_run import dry_run as estimate
            from ..runner.dry_run_text import dataset_line, run_lines, totals

            table = estimate(cfg)
            if i == 0:
                click.echo(dataset_line(table))
            if verbose:
                click.echo("")
            click.echo(header)
            for line in run_lines(table, verbose=verbose, notes=False):
                click.echo(line)
            t = totals(table)
            calls, cost, priced = calls + t.calls, cost + t.cost, priced and t.priced
            if table.attrs.get("unserved") is not None:
                partial = True
                unserved = (
                    None
                    if unserved is None or t.unserved_cost is None
                    else (unserved + t.unserved_cost)
                )
            last = table
            continue
        click.echo("")
        click.echo(header)
        result = run(
            cfg, out=Path(out_dir) / name, progress=progress, executor=executor, address=address
        )
        _summary(result, Path(out_dir) / name)
        failed += result.info["calls"]["failed"]
    if dry_run:
        from ..runner.dry_run_text import note_lines

        if verbose:
            click.echo("")
        waiting = ""
        if partial:
            waiting = " for the pairs served (" + (
                "the pairs without passages: no price)"
                if unserved is None
                else f"+ at most ${unserved:,.2f} without passages)"
            )
        import textwrap

        total = (
            f"suite total: {calls:,} calls to make; at most ${cost:,.4f}"
            + ("" if priced else " (some models have no price)")
            + waiting
        )
        for line in textwrap.wrap(
            total, 100, subsequent_indent="  ", break_long_words=False, break_on_hyphens=False
        ):
            click.echo(line)
        if last is not None:
            for line in note_lines(last):
                click.echo(line)
        return
    click.echo("")
    if failed:
        click.echo(f"{failed} call(s) failed; re-run the same command to retry them", err=True)
        raise click.exceptions.Exit(1)


def _summary(result: Any, out_dir: Path) -> None:
    """What a run wrote, in at most 100 characters a line: rows, calls, dropped pairs, signature, next step."""
    from ..modes import describe_skips
    from ._output import echo_lines

    info = result.info
    calls = info["calls"]
    path = result.path if result.path is not None else out_dir
    grid = info.get("grid") or {}
    n_modes = len(grid.get("modes") or result.config.modes)
    echo_lines(f"run directory: {path}", sep="/")
    click.echo(
        f"wrote {info['responses']:,} response rows ({len(result.config.models)} model(s) × {n_modes} "
        f"mode(s) × {len(result.config.seeds)} run(s), {info['queries']:,} queries)"
    )
    click.echo(
        f"calls: {calls['requests']:,} ({calls['cached']:,} from the cache, {calls['failed']:,} failed)"
    )
    echo_lines(f"cache: {info['cache']['path']}", sep="/")
    if calls["cached"] and result.config.cache is None:
        click.echo(
            f"  {calls['cached']:,} answers came from this shared cache (every bordir run on this "
            "machine writes it; --cache FILE keeps a run's own)"
        )
    skipped = [(s["query_id"], s["mode"], s["reason"]) for s in info.get("skipped") or []]
    for line in describe_skips(skipped, int(info["queries"]) * n_modes):
        click.echo(line)
    if len(result.responses):
        echo_lines(f"signature: {result.responses['signature'].iloc[0]}")
    click.echo("next: bordir report RUN_DIR (metrics, tables, report.html), bordir view RUN_DIR")


def _dry_run(cfg: ExperimentConfig, *, batch: bool = False, verbose: bool = False) -> None:
    """Print the dry run of ``cfg`` (:mod:`bordir.runner.dry_run_text`)."""
    from ..runner.dry_run import dry_run as estimate
    from ..runner.dry_run_text import dataset_line, run_lines

    table = estimate(cfg, batch=batch)
    click.echo(dataset_line(table))
    for line in run_lines(table, verbose=verbose, batch=batch):
        click.echo(line)
