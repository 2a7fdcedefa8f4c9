"""Top-level command group and the ``list`` / ``data`` subcommands."""

from __future__ import annotations

import click

from .._version import __version__
from ._output import echo_json, echo_table


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="bordir")
def cli() -> None:
    """bordir: measure how retrieval-augmented generation answers territorial-dispute
    questions across languages (BorderLines / BordIRLines)."""


def _register_subcommands() -> None:
    from .annotate import agreement_cmd, annotate_cmd
    from .audit import audit_cmd
    from .corpus import corpus_group
    from .demo import demo_cmd
    from .report import report_cmd
    from .retrieve import retrieve_cmd
    from .run import run_cmd
    from .score import score_group

    cli.add_command(agreement_cmd)
    cli.add_command(annotate_cmd)
    cli.add_command(audit_cmd)
    cli.add_command(corpus_group)
    cli.add_command(demo_cmd)
    cli.add_command(report_cmd)
    cli.add_command(retrieve_cmd)
    cli.add_command(run_cmd)
    cli.add_command(score_group)


@cli.group(name="list")
def list_() -> None:
    """List what bordir knows: languages, datasets."""


@list_.command("languages")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@click.option("--query-only", is_flag=True, help="Only the 49 BorderLines query languages.")
def list_languages(as_json: bool, query_only: bool) -> None:
    """The languages registry (languages/languages.tsv)."""
    from dataclasses import asdict

    from .. import languages

    langs = languages.query_languages() if query_only else languages.all_languages()
    if as_json:
        echo_json([asdict(l) for l in langs])
        return
    echo_table(
        ["code", "name", "native", "script", "dir", "wiki", "langdetect", "resource", "tokenizer", "stemmer", "query"],
        [
            (l.code, l.name, l.native_name, l.script, l.direction, l.wiki + (f" ({l.wiki_variant})" if l.wiki_variant else ""),
             l.langdetect, l.resource, l.tokenizer, l.stemmer, "yes" if l.query_language else "no")
            for l in langs
        ],
    )
    click.echo(f"{len(langs)} languages ({sum(l.query_language for l in langs)} query languages)")


@list_.command("datasets")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def list_datasets(as_json: bool) -> None:
    """Datasets bordir can load."""
    from dataclasses import asdict

    from ..catalog import DATASETS

    if as_json:
        echo_json([asdict(e) for e in DATASETS.values()])
        return
    echo_table(
        ["name", "source", "description"],
        [(e.name, "bundled" if e.offline else f"hub {e.hub_id} or --path DIR", e.description) for e in DATASETS.values()],
    )


@cli.group()
def data() -> None:
    """Inspect datasets."""


@data.command("info")
@click.argument("name")
@click.option("--path", type=click.Path(file_okay=False, path_type=str), help="Local directory in the dataset's file layout.")
@click.option("--revision", help="Hub revision to pin (when no --path).")
@click.option("--repair/--no-repair", default=False, show_default=True,
              help="BorderLines: read Suriname from its corrupted countries_info.json key.")
@click.option("--n-hits", type=int, default=10, show_default=True, help="BordIRLines: hits kept per query.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def data_info(name: str, path: str | None, revision: str | None, repair: bool, n_hits: int, as_json: bool) -> None:
    """Counts for dataset NAME (borderlines, bordirlines, demo)."""
    from ..catalog import get_dataset_entry
    from ..errors import ConfigError

    entry = get_dataset_entry(name)
    if entry.name == "bordirlines":
        from ..loaders import load_bordirlines

        b = load_bordirlines(path, revision=revision, n_hits=n_hits)
        info = {
            "dataset": "bordirlines",
            "source": b.source,
            "queries": len(b.queries),
            "hits": len(b.hits),
            "n_hits": b.n_hits,
            "documents": sum(len(d) for d in b.docs.values()),
            "documents_per_language": {k: len(v) for k, v in sorted(b.docs.items())},
            "hits_per_system_mode": {
                f"{s}.{m}": int(n) for (s, m), n in b.hits.groupby(["system", "mode"]).size().items()
            },
            "warnings": list(b.warnings),
        }
    else:
        from ..loaders import load_borderlines, load_demo, load_demo_corpus

        if entry.name == "demo":
            if path or revision:
                raise ConfigError("the demo dataset is bundled; --path and --revision do not apply to it")
            ds = load_demo()
            info = ds.info()
            corpus = load_demo_corpus()
            info["corpus_passages"] = len(corpus)
            info["corpus_passages_per_language"] = corpus.lang_counts()
        else:
            ds = load_borderlines(path, repair=repair, revision=revision)
            info = ds.info()
    if as_json:
        echo_json(info)
        return
    for k, v in info.items():
        if isinstance(v, dict):
            click.echo(f"{k}:")
            for kk, vv in v.items():
                click.echo(f"  {kk}: {vv}")
        elif isinstance(v, list):
            click.echo(f"{k}: {len(v)}")
            for item in v:
                click.echo(f"  - {item}")
        else:
            click.echo(f"{k}: {v}")


_register_subcommands()
