"""Top-level command group and the ``list`` / ``data`` subcommands."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click

from .._version import __version__
from . import _decorators as opt
from ._commands import COMMANDS
from ._lazy import LazyGroup
from ._output import echo_json, echo_table


@click.group(cls=LazyGroup, lazy=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="bordir")
def cli() -> None:
    """bordir: measure how retrieval-augmented generation answers territorial-dispute questions across languages (BorderLines / BordIRLines)."""
    from ..registry import load_plugins
    from ..settings import check_all

    check_all()  # every BORDIR_* variable that is set is valid, or one line and status 2
    load_plugins()  # $BORDIR_PLUGINS / bordir.plugins entry points register their backends, metrics …


_AS_JSON = opt.json("Print JSON instead of a table.")
"""``--json`` of the ``list`` commands."""


@cli.group(name="list")
def list_() -> None:
    """List what bordir knows: languages, datasets, backends, retrievers, modes, metrics, fusions, policies, testbeds, prompt templates, system prompts, testgen strategies."""


@list_.command("languages")
@_AS_JSON
@click.option("--query-only", is_flag=True, help="Only the 49 BorderLines query languages.")
@click.option(
    "--curated-only", is_flag=True, help="Only the 55 curated languages (languages/languages.tsv)."
)
def list_languages(as_json: bool, query_only: bool, curated_only: bool) -> None:
    """The languages registry: curated (languages.tsv) and generated Wikipedia languages (wikipedia.tsv)."""
    from dataclasses import asdict

    from .. import languages

    if query_only:
        langs = languages.query_languages()
    else:
        langs = languages.all_languages(generated=not curated_only)
    if as_json:
        echo_json([asdict(l) for l in langs])
        return
    echo_table(
        [
            "code",
            "name",
            "native",
            "script",
            "dir",
            "wiki",
            "langdetect",
            "resource",
            "tokenizer",
            "stemmer",
            "query",
            "source",
        ],
        [
            (
                l.code,
                l.name,
                l.native_name,
                l.script,
                l.direction,
                l.wiki + (f" ({l.wiki_variant})" if l.wiki_variant else ""),
                l.langdetect,
                l.resource or "-",
                l.tokenizer,
                l.stemmer,
                "yes" if l.query_language else "no",
                "curated" if l.curated else "generated",
            )
            for l in langs
        ],
    )
    n_cur = sum(l.curated for l in langs)
    click.echo(
        f"{len(langs)} languages: {n_cur} curated, {len(langs) - n_cur} generated "
        f"({sum(l.query_language for l in langs)} query languages)"
    )


def _list_rows(rows: Sequence[dict[str, Any]], as_json: bool, what: str) -> None:
    if as_json:
        echo_json(rows)
        return
    if rows:
        headers = list(rows[0])
        echo_table(headers, [[r.get(h, "") for h in headers] for r in rows])
    click.echo(f"{len(rows)} {what}")


@list_.command("datasets")
@_AS_JSON
def list_datasets(as_json: bool) -> None:
    """Datasets bordir can load (bordir.load_dataset)."""
    from ..catalog import list_datasets as rows

    _list_rows(rows(), as_json, "datasets")


@list_.command("backends")
@_AS_JSON
def list_backends(as_json: bool) -> None:
    """Generation backends (provider/model) and the mock backend's behaviours."""
    from ..catalog import list_backends as rows

    _list_rows(rows(), as_json, "backends")


@list_.command("retrievers")
@_AS_JSON
def list_retrievers(as_json: bool) -> None:
    """Retrievers (the retrieval registry)."""
    from ..catalog import list_retrievers as rows

    _list_rows(rows(), as_json, "retrievers")


@list_.command("modes")
@_AS_JSON
def list_modes(as_json: bool) -> None:
    """The six retrieval modes, with their BordIRLines aliases."""
    from ..catalog import list_modes as rows

    _list_rows(rows(), as_json, "modes")


@list_.command("metrics")
@_AS_JSON
def list_metrics(as_json: bool) -> None:
    """Concurrence scores and per-language measures."""
    from ..catalog import list_metrics as rows

    _list_rows(rows(), as_json, "metrics")


@list_.command("fusions")
@_AS_JSON
def list_fusions(as_json: bool) -> None:
    """Cross-language score fusions (bordir retrieve --fusion)."""
    from ..catalog import list_fusions as rows

    _list_rows(rows(), as_json, "fusions")


@list_.command("policies")
@_AS_JSON
def list_policies(as_json: bool) -> None:
    """Scoring policies: how answers count (--policy of score, testbed)."""
    from ..catalog import list_policies as rows

    _list_rows(rows(), as_json, "policies")


@list_.command("testbeds")
@_AS_JSON
def list_testbeds(as_json: bool) -> None:
    """RGB-style testbeds (bordir testbed NAME): kind of RGB file, settings, default ratios, judge."""
    from ..catalog import list_testbeds as rows

    _list_rows(rows(), as_json, "testbeds")


@list_.command("prompts")
@_AS_JSON
def list_prompts(as_json: bool) -> None:
    """Prompt templates (the config's response_format): template file, max tokens, instruction languages."""
    from ..catalog import list_prompts as rows

    _list_rows(rows(), as_json, "prompt templates")


@list_.command("systems")
@_AS_JSON
def list_systems(as_json: bool) -> None:
    """System prompts (the config's system, --system) and their text."""
    from ..catalog import list_systems as rows

    _list_rows(rows(), as_json, "system prompts")


@list_.command("strategies")
@_AS_JSON
def list_strategies(as_json: bool) -> None:
    """Test-generation strategies (bordir testgen --strategies)."""
    from ..catalog import list_strategies as rows

    _list_rows(rows(), as_json, "strategies")


@list_.command("publishers")
@_AS_JSON
def list_publishers(as_json: bool) -> None:
    """The publisher registry of black-box audits: domain, country (or none), type, language, the source of each entry."""
    from ..catalog import list_publishers as rows

    _list_rows(rows(), as_json, "publishers")


@cli.group()
def data() -> None:
    """Inspect datasets."""


@data.command("info")
@click.argument("name")
@opt.dataset_path("Local directory in the dataset's file layout.")
@click.option("--revision", help="Hub revision to pin (when no --path).")
@opt.switch(
    "--repair/--no-repair",
    False,
    "BorderLines: read Suriname from its corrupted countries_info.json key.",
)
@click.option(
    "--n-hits", type=int, default=10, show_default=True, help="BordIRLines: hits kept per query."
)
@click.option("--lang", help="NoMIRACL: the language (sw, swahili, zh …).")
@opt.choice("--split", ["test", "dev"], help="NoMIRACL: the split.")
@opt.json()
def data_info(
    name: str,
    path: str | None,
    revision: str | None,
    repair: bool,
    n_hits: int,
    lang: str | None,
    split: str | None,
    as_json: bool,
) -> None:
    """Counts for dataset NAME (borderlines, bordirlines, demo, nomiracl)."""
    from ..loaders.catalog import get_dataset_entry, load_dataset

    entry = get_dataset_entry(name)
    if entry.name == "bordirlines":
        b = load_dataset("bordirlines", path, revision, n_hits=n_hits)
        info = {
            "dataset": "bordirlines",
            "source": b.source,
            "queries": len(b.queries),
            "hits": len(b.hits),
            "n_hits": b.n_hits,
            "documents": sum(len(d) for d in b.docs.values()),
            "documents_per_language": {k: len(v) for k, v in sorted(b.docs.items())},
            "hits_per_system_mode": {
                f"{s}.{m}": int(n)
                for (s, m), n in b.hits.groupby(["system", "mode"]).size().items()
            },
            "warnings": list(b.warnings),
        }
    else:
        from ..corpus import load_corpus

        ds = load_dataset(entry.name, path, revision, repair=repair, lang=lang, split=split)
        info = ds.info()
        if entry.name == "demo":
            corpus = load_corpus("demo")
            info["corpus_passages"] = len(corpus)
            info["corpus_passages_per_language"] = corpus.lang_counts()
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
