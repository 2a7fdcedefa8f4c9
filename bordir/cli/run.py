"""``bordir run``: run an experiment config into a run directory (resumable)."""

from __future__ import annotations

import click


@click.command("run")
@click.argument("config", type=click.Path(dir_okay=False))
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False), help="Run directory.")
@click.option("--models", help="Comma-separated provider/model list (overrides the config).")
@click.option("--modes", help="'all' or comma-separated modes.")
@click.option("--k", type=int, help="Documents per prompt.")
@click.option("--runs", type=int, help="Number of runs (paper seeds first).")
@click.option("--temperature", type=float)
@click.option("--langs", help="Comma-separated query languages to keep.")
@click.option("--retriever", help="bm25, e5-small, bge-m3, openai/<model>, cohere/<model>.")
@click.option("--response-format", type=click.Choice(["direct", "citation"]))
@click.option("--system", help="System prompt variant (vanilla, un, nationalist).")
@click.option("--cache", type=click.Path(dir_okay=False), help="Response cache file.")
@click.option("--dry-run", is_flag=True, help="Estimate calls, tokens and cost per language; call nothing.")
def run_cmd(config, out_dir, models, modes, k, runs, temperature, langs, retriever, response_format, system, cache,
            dry_run):
    """Run the experiment CONFIG (TOML) and write responses.parquet and run.json to --out."""
    from ..experiment.config import load_config
    from ..experiment.runner import run_experiment

    cfg = load_config(config).override(
        models=models, modes=modes, k=k, runs=runs, temperature=temperature, langs=langs, retriever=retriever,
        response_format=response_format, system=system, cache=cache,
    )
    if dry_run:
        from ..experiment.dry_run import dry_run as estimate
        from ._output import echo_table

        table = estimate(cfg)
        echo_table(list(table.columns), table.itertuples(index=False))
        costs = table["max_cost_usd"].dropna()
        click.echo(f"total: {int(table['calls'].sum())} calls to make, {int(table['cached'].sum())} cached; "
                   f"at most ${costs.sum():.4f}" + (" (some models have no price)" if len(costs) < len(table) else ""))
        click.echo("tokens are estimated as characters / 4; output tokens at max_tokens (an upper bound)")
        if table.attrs.get("note"):
            click.echo(table.attrs["note"])
        return
    out = run_experiment(cfg, out_dir)
    click.echo(f"wrote {out / 'responses.parquet'} and {out / 'run.json'}")
