"""``bordir run``: run an experiment config into a run directory (resumable); a thin layer over :func:`bordir.run`."""

from __future__ import annotations

import click


@click.command("run")
@click.argument("config", type=click.Path(dir_okay=False))
@click.option(
    "--out", "out_dir", required=True, type=click.Path(file_okay=False), help="Run directory."
)
@click.option("--models", help="Comma-separated provider/model list (overrides the config).")
@click.option("--modes", help="'all' or comma-separated modes.")
@click.option("--k", type=int, help="Documents per prompt.")
@click.option("--runs", type=int, help="Number of runs (paper seeds first).")
@click.option("--temperature", type=float)
@click.option("--langs", help="Comma-separated query languages to keep.")
@click.option("--retriever", help="bm25, e5-small, bge-m3, openai/<model>, cohere/<model>.")
@click.option(
    "--corpus",
    help="Corpus: demo, a corpus directory, a passages .jsonl/.parquet/.csv, all_docs.json.",
)
@click.option("--response-format", type=click.Choice(["direct", "citation"]))
@click.option("--system", help="System prompt variant (vanilla, un, nationalist).")
@click.option("--cache", type=click.Path(dir_okay=False), help="Response cache file.")
@click.option("--concurrency", type=int, help="Calls in flight at most.")
@click.option("--timeout", type=float, help="Seconds one request may take over all its retries.")
@click.option("--max-retries", type=int, help="Retries of a transient failure.")
@click.option("--deadline", type=float, help="Seconds one (model, mode) batch may take in all.")
@click.option(
    "--max-consecutive-failures",
    type=int,
    help="Stop a (model, mode) after this many failures in a row.",
)
@click.option(
    "--dry-run", is_flag=True, help="Estimate calls, tokens and cost per language; call nothing."
)
@click.option(
    "--progress/--no-progress", default=True, show_default=True, help="Progress bars on stderr."
)
def run_cmd(
    config,
    out_dir,
    models,
    modes,
    k,
    runs,
    temperature,
    langs,
    retriever,
    corpus,
    response_format,
    system,
    cache,
    concurrency,
    timeout,
    max_retries,
    deadline,
    max_consecutive_failures,
    dry_run,
    progress,
):
    """Run the experiment CONFIG (TOML) and write hits.parquet, responses.parquet and run.json to --out.

    Exits with status 1 when any call failed (re-running retries exactly those; the others come from the cache).
    """
    from ..experiment.config import load_config

    cfg = load_config(config).override(
        models=models,
        modes=modes,
        k=k,
        runs=runs,
        temperature=temperature,
        langs=langs,
        retriever=retriever,
        corpus=corpus,
        response_format=response_format,
        system=system,
        cache=cache,
        concurrency=concurrency,
        timeout=timeout,
        max_retries=max_retries,
        deadline=deadline,
        max_consecutive_failures=max_consecutive_failures,
    )
    if dry_run:
        _dry_run(cfg)
        return
    from ..experiment.run import run

    result = run(cfg, out=out_dir, progress=progress)
    info = result.info
    calls = info["calls"]
    click.echo(
        f"wrote {result.path / 'responses.parquet'} ({info['responses']} rows) and {result.path / 'run.json'}"
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


def _dry_run(cfg) -> None:
    from ..experiment.dry_run import dry_run as estimate
    from ._output import echo_table

    table = estimate(cfg)
    echo_table(list(table.columns), table.itertuples(index=False))
    costs = table["max_cost_usd"].dropna()
    click.echo(
        f"total: {int(table['calls'].sum())} calls to make, {int(table['cached'].sum())} cached; "
        f"at most ${costs.sum():.4f}"
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
