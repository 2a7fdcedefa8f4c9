"""``bordir demo``: the whole pipeline offline on the bundled demo data, then the report."""

from __future__ import annotations

import time

import click


@click.command("demo")
@click.option("--out", "out_dir", default="bordir-demo", show_default=True, type=click.Path(file_okay=False),
              help="Run directory.")
@click.option("--model", default="local/gemma-3-270m", show_default=True, help="provider/model to ask.")
@click.option("--retriever", default="bm25", show_default=True, help="Retriever (e5-small needs bordir[local]).")
@click.option("--runs", default=3, show_default=True, type=click.IntRange(min=1), help="Runs (paper seeds first).")
@click.option("--k", default=2, show_default=True, type=click.IntRange(min=1), help="Documents per prompt.")
@click.option("--temperature", default=0.5, show_default=True, type=float)
@click.option("--resamples", default=1000, show_default=True, type=click.IntRange(min=1),
              help="Cluster-bootstrap resamples and permutations.")
@click.option("--cache", type=click.Path(dir_okay=False),
              help="Response cache (default: $BORDIR_CACHE/responses.sqlite3).")
def demo_cmd(out_dir, model, retriever, runs, k, temperature, resamples, cache):
    """Run all six modes on every demo query language with the local model, then write the report.

    Offline: the bundled demo dataset and corpus, BM25 retrieval and the in-process
    gemma 3 270M model scoring each option (rank classification; one scoring per
    query and mode, reused by the sampled runs). Re-running is served from the cache.
    """
    from ..experiment.config import ExperimentConfig
    from ..experiment.runner import run_experiment
    from ..report import build_report
    from .report import print_summary

    t0 = time.perf_counter()
    cfg = ExperimentConfig.from_dict({
        "dataset": "demo", "corpus": "demo", "retriever": retriever, "modes": "all", "k": k,
        "models": [model], "runs": runs, "temperature": temperature, "concurrency": 1,
        **({"cache": cache} if cache else {}),
    })
    run_experiment(cfg, out_dir)
    path = build_report(out_dir, n_resamples=resamples)
    click.echo("")
    print_summary(path)
    click.echo(f"demo finished in {time.perf_counter() - t0:.1f} s")
