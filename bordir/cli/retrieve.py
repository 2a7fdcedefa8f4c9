"""``bordir retrieve``: the hits table for a dataset × modes."""

from __future__ import annotations

from typing import Any

import click

from . import _decorators as opt
from ._output import echo_json, echo_lines, echo_table


def _fusions() -> tuple[str, ...]:
    from ..retrieval.fusion import FUSIONS

    return FUSIONS.names()


@click.command("retrieve")
@opt.text("--dataset", "demo", "Dataset name (demo, borderlines).")
@opt.dataset_path("Dataset directory (BorderLines layout).", path_type=None)
@click.option(
    "--corpus",
    "corpus_path",
    type=click.Path(),
    help="Corpus: demo, a corpus directory (bordir corpus fetch), a passages .jsonl/.parquet/.csv, "
    "BordIRLines all_docs.json or raw <lang>/Q<id>.json articles; default: demo.",
)
@opt.text("--retriever", "bm25", "bm25, e5-small, bge-m3, openai/<model>, cohere/<model>.")
@opt.text("--modes", "all", "'all' or comma-separated modes.")
@click.option("--k", default=10, show_default=True, help="Documents per prompt.")
@click.option("--depth", default=50, show_default=True, help="Hits stored per query and mode.")
@opt.registry("--fusion", _fusions, help="Cross-language score fusion.")
@opt.flag("--balanced", "Equal share of the k slots per language of the mode.")
@click.option("--langs", help="Comma-separated query languages to keep.")
@opt.out_file("Output .parquet.", path_type=None)
@opt.json("Print the summary as JSON.")
def retrieve_cmd(
    dataset: str,
    path: str | None,
    corpus_path: str | None,
    retriever: str,
    modes: str,
    k: int,
    depth: int,
    fusion: str | None,
    balanced: bool,
    langs: str | None,
    out: str,
    as_json: bool,
) -> None:
    """Retrieve documents for every query under every mode and save the hits table."""
    from ..corpus import load_corpus
    from ..errors import ConfigError
    from ..loaders.catalog import load_dataset
    from ..retrieval.evaluate import language_mix_by_mode
    from ..retrieval.run import retrieve

    if dataset not in ("demo", "borderlines"):
        raise ConfigError(f"unknown dataset {dataset!r} for retrieval; use demo or borderlines")
    ds = load_dataset(dataset, path)
    corpus = load_corpus(corpus_path or "demo")
    queries = None
    if langs:
        wanted = {l.strip() for l in langs.split(",") if l.strip()}
        queries = [q for q in ds.queries if q.lang in wanted]
        if not queries:
            raise ConfigError(
                f"no queries in language(s) {', '.join(sorted(wanted))}; present: {', '.join(ds.query_langs)}"
            )
    run = retrieve(
        ds,
        corpus,
        retriever,
        modes,
        k=k,
        depth=depth,
        fusion=fusion,
        balanced=balanced,
        queries=queries,
    )
    run.to_parquet(out)
    per_mode = language_mix_by_mode(run.hits, ds, k=k)
    summary: dict[str, Any] = {
        "out": str(out),
        "signature": run.signature,
        "hits": len(run.hits),
        "queries": len(queries or ds.queries),
        "skipped": run.skipped_counts(),
        "language_mix_top_k": {
            m: {
                c.removesuffix("_share"): round(float(r[c]), 4)
                for c in per_mode.columns
                if c.endswith("_share")
            }
            for m, r in per_mode.iterrows()
        },
    }
    if as_json:
        echo_json(summary)
        return
    echo_table(
        ["mode", "query_lang", "en", "other_claimant", "other", "docs"],
        [
            (
                m,
                *(f"{v:.2f}" for v in summary["language_mix_top_k"][m].values()),
                int(per_mode.loc[m, "n_docs"]),
            )
            for m in per_mode.index
        ],
    )
    for mode, n in summary["skipped"].items():
        click.echo(
            f"{mode}: {n} queries skipped (mode undefined for them; reasons in the file's metadata)"
        )
    click.echo(f"wrote {len(run.hits)} hits to {out}")
    echo_lines(f"signature: {run.signature}")
