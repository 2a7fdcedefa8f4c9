"""``bordir run``: run an experiment config into a run directory (resumable); a thin layer over :func:`bordir.run`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from . import _options as opt

if TYPE_CHECKING:
    from ..experiment.config import ExperimentConfig


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
    opt.limit("Only the dataset's first N territories (a quick trial; recorded in the signature)."),
    click.option("--retriever", help="bm25, e5-small, bge-m3, openai/<model>, cohere/<model>."),
    click.option(
        "--corpus",
        help="Corpus: demo, a corpus directory, a passages .jsonl/.parquet/.csv, all_docs.json.",
    ),
    opt.choice("--response-format", ["direct", "citation", "open"]),
    click.option("--system", help="System prompt variant (vanilla, un, nationalist, input_demo)."),
    click.option(
        "--dataset-path",
        type=click.Path(file_okay=False),
        help="A local copy of the dataset's files (BorderLines: its repository's data files).",
    ),
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


config_overrides = opt.options(*_CONFIG_OVERRIDES)
"""Add :data:`_CONFIG_OVERRIDES` to a command; it receives them as ``**overrides``."""


@click.command("run")
@click.argument("config", type=click.Path(dir_okay=False))
@opt.out_dir("Run directory.", path_type=None)
@config_overrides
@opt.flag("--dry-run", "Estimate calls, tokens and cost per language; call nothing.")
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
        _run_suite(suite, out_dir, dry_run, progress, executor, address, batch, overrides)
        return
    cfg = suite.runs[0][1].override(**overrides)  # the one config object, passed down
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
) -> None:
    """Each run of a suite into ``out_dir/<name>`` (or its dry run), then the total."""
    from ..errors import ConfigError
    from ..runner.run import run

    if batch:
        raise ConfigError(
            "--submit batch / --collect take one experiment; pick a run of the suite with --only NAME"
        )
    title = suite.meta.get("name") or Path(suite.path).stem
    click.echo(
        f"suite {title}: {len(suite.runs)} run(s)"
        + (f" ({suite.meta['paper']})" if suite.meta.get("paper") else "")
    )
    calls, cost, failed, priced = 0, 0.0, 0, True
    for name, cfg in suite.runs:
        cfg = cfg.override(**overrides)
        click.echo("")
        click.echo(
            f"== {name} ({', '.join(cfg.models)}; system {cfg.system}; {cfg.response_format}) =="
        )
        if dry_run:
            n, usd, ok = _dry_run(cfg)
            calls, cost, priced = calls + n, cost + usd, priced and ok
            continue
        result = run(
            cfg, out=Path(out_dir) / name, progress=progress, executor=executor, address=address
        )
        _summary(result, Path(out_dir) / name)
        failed += result.info["calls"]["failed"]
    click.echo("")
    if dry_run:
        click.echo(
            f"suite total: {calls:,} calls to make; at most ${cost:,.4f}"
            + ("" if priced else " (some models have no price)")
        )
        return
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
    skipped = [(s["query_id"], s["mode"], s["reason"]) for s in info.get("skipped") or []]
    for line in describe_skips(skipped, int(info["queries"]) * n_modes):
        click.echo(line)
    if len(result.responses):
        echo_lines(f"signature: {result.responses['signature'].iloc[0]}")
    click.echo("next: bordir report RUN_DIR (metrics, tables, report.html), bordir view RUN_DIR")


def _dry_run(cfg: ExperimentConfig, *, batch: bool = False) -> tuple[int, float, bool]:
    from ..modes import describe_skips
    from ..runner.dry_run import dry_run as estimate
    from ._output import echo_table

    table = estimate(cfg, batch=True) if batch else estimate(cfg)
    shown = table.copy()
    notes: list[
        str
    ] = []  # a note repeated on every row of a model is printed once, under the table
    if "note" in shown.columns:
        for i, note in enumerate(shown["note"]):
            if isinstance(note, str) and note:
                if note not in notes:
                    notes.append(note)
                shown.iat[i, shown.columns.get_loc("note")] = f"[{notes.index(note) + 1}]"
    if "max_cost_usd" in shown.columns:
        shown["max_cost_usd"] = [
            "?" if c is None or c != c else f"{c:.4f}" for c in shown["max_cost_usd"]
        ]
    echo_table(list(shown.columns), shown.itertuples(index=False))
    for n, note in enumerate(notes, 1):
        click.echo(f"[{n}] {note}")
    if table.attrs.get("power"):
        _power(table.attrs["power"])
    # the summary last: what a user reads before deciding to pay
    click.echo("")
    for model, g in table.groupby("model", sort=False):
        cost = g["max_cost_usd"].dropna()
        click.echo(
            f"{model}: {int(g['calls'].sum()):,} calls ({int(g['cached'].sum()):,} cached), "
            + (f"at most ${cost.sum():,.2f}" if len(cost) else "no price")
        )
    costs = table["max_cost_usd"].dropna()
    click.echo(
        f"total: {int(table['calls'].sum()):,} calls to make, {int(table['cached'].sum()):,} cached; "
        f"at most ${costs.sum():,.4f}"
        + (" at batch prices" if batch else "")
        + (" (some models have no price)" if len(costs) < len(table) else "")
    )
    for line in describe_skips(table.attrs.get("dropped", []), table.attrs.get("pairs", 0)):
        click.echo(line)
    click.echo(
        "tokens are estimated as characters / 4; output tokens at max_tokens (an upper bound)"
    )
    if table.attrs.get("max_tokens"):
        click.echo(table.attrs["max_tokens"])
    if table.attrs.get("note"):
        click.echo(table.attrs["note"])
    return int(table["calls"].sum()), float(costs.sum()), len(costs) == len(table)


def _power(records: Sequence[Mapping[str, Any]]) -> None:
    """The power table of the design: territories and minimum detectable difference per query language."""
    from ._output import echo_table

    def mde(x: float | None) -> str:
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
