"""``bordir corpus fetch`` and ``bordir corpus info``: build a corpus from Wikipedia, describe a corpus."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from . import _decorators as opt
from ._output import echo_json, echo_lines, echo_table

if TYPE_CHECKING:
    from ..corpus import Corpus
    from ..dataset import BorderLines


def _finite(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    """Reject NaN and infinity (which pass ``click.FloatRange``)."""
    if value is not None and not math.isfinite(value):
        raise click.BadParameter(f"{value} is not a finite number", ctx=ctx, param=param)
    return value


@click.group("corpus")
def corpus_group() -> None:
    """Build and inspect retrieval corpora (Wikipedia paragraphs)."""


@corpus_group.command("fetch")
@opt.text(
    "--dataset",
    "borderlines",
    "Territories and claimants from: borderlines (--path DIR or the hub) or demo.",
)
@opt.dataset_path("BorderLines directory (default: the hub).", path_type=None)
@opt.text(
    "--langs",
    "claimants+en",
    "Languages per territory: claimants, claimants+en, or codes (ru,uk,en).",
)
@click.option("--territories", help="Comma-separated territory names (default: all).")
@click.option(
    "--as-of", "as_of", help="Fetch the revision at or before this date (2023-05-15 = BordIRLines)."
)
@opt.out_dir("Corpus directory (created or resumed).", dest="out", path_type=None)
@click.option(
    "--endpoint",
    default=None,
    show_default="https://{edition}.wikipedia.org/w/api.php",
    help="MediaWiki API URL template with {edition}.",
)
@click.option(
    "--title-fixes",
    "title_fixes",
    multiple=True,
    type=click.Path(dir_okay=False),
    help="TSV of name<TAB>title overriding the shipped title fixes (repeatable).",
)
@click.option(
    "--rpm",
    type=click.FloatRange(min=0),
    default=200.0,
    show_default=True,
    callback=_finite,
    help="Requests per minute at most (0: no limit).",
)
@opt.count("--max-retries", 5, "Retries on 429/5xx/network errors.", minimum=0)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=30.0,
    show_default=True,
    callback=_finite,
    help="Seconds per request (> 0).",
)
@click.option(
    "--contact", help="Contact (e-mail or URL) for the User-Agent; default $BORDIR_WIKI_CONTACT."
)
@click.option(
    "--progress/--no-progress", default=None, help="Progress bars (default: on a terminal)."
)
@opt.json("Print the summary as JSON.")
def fetch_cmd(
    dataset: str,
    path: str | None,
    langs: str,
    territories: str | None,
    as_of: str | None,
    out: str,
    endpoint: str | None,
    title_fixes: tuple[str, ...],
    rpm: float,
    max_retries: int,
    timeout: float,
    contact: str | None,
    progress: bool,
    as_json: bool,
) -> None:
    """Fetch the Wikipedia articles of each territory and its claimants into a corpus directory.

    Re-running with the same --out resumes: stored pools are skipped and stored articles reused.
    """
    from ..errors import ConfigError
    from ..wiki.client import DEFAULT_ENDPOINT
    from ..wiki.fetch import LangSpec, fetch_corpus, normalize_as_of
    from ..wiki.retry import RetryPolicy
    from ..wiki.titles import load_title_fixes

    spec = LangSpec.parse(langs)
    normalize_as_of(as_of)
    fixes = load_title_fixes(*title_fixes)
    ds = _dataset(dataset, path)
    names = [t.strip() for t in territories.split(",") if t.strip()] if territories else None
    if territories is not None and not names:
        raise ConfigError("--territories is empty; give comma-separated territory names")
    for n in names or ():
        ds.territory(n)
    policy = RetryPolicy(
        rpm=rpm if rpm and rpm > 0 else None, max_retries=max_retries, timeout=timeout
    )
    report = fetch_corpus(
        ds,
        out,
        langs=spec,
        territories=names,
        as_of=as_of,
        endpoint=endpoint or DEFAULT_ENDPOINT,
        title_fixes=fixes,
        policy=policy,
        contact=contact,
        progress=progress,
    )
    if as_json:
        echo_json(report.to_dict())
        return
    _echo_rows(report.rows)
    for w in report.warnings:
        click.echo(f"warning: {w}")
    resumed = f" ({report.pools_skipped} pools already stored)" if report.pools_skipped else ""
    click.echo(
        f"fetched {report.pools_fetched} pools{resumed}; {report.requests} requests, {report.retries} retries"
    )
    click.echo(f"wrote {report.passages} passages to {report.path}")
    echo_lines(f"signature: {report.signature}")


@corpus_group.command("info")
@click.argument("path")
@opt.json()
def info_cmd(
    path: str,
    as_json: bool,
) -> None:
    """Describe the corpus at PATH: anything `bordir.load_corpus` reads (demo, a directory, .jsonl/.parquet/.csv, all_docs.json)."""
    from .._version import __version__
    from ..corpus import CorpusStore, corpus_kind, load_corpus, signature
    from ..wiki.fetch import summary_rows

    if path != "demo" and not Path(path).exists():
        from ..errors import DataError

        raise DataError(
            "not found (no such file or directory); expected demo or a corpus path", path=path
        )
    kind = corpus_kind(path)
    if kind == "store":
        store = CorpusStore.open(path)
        corpus: Corpus = store.load(verify=True)
        m = store.manifest
        info = {
            "path": str(path),
            "format": m["format"],
            "name": m.get("name"),
            "bordir_version": m.get("bordir_version"),
            "created_at": m.get("created_at"),
            "updated_at": m.get("updated_at"),
            "parameters": m.get("parameters", {}),
            "passages": len(corpus),
            "articles": len(m.get("articles", [])),
            "territories": len(corpus.territories),
            "pools": m["counts"].get("pools"),
            "flagged": m["counts"].get("flagged"),
            "parts": len(m.get("parts", [])),
            "runs": [
                {
                    k: r.get(k)
                    for k in ("started_at", "status", "langs", "pools_fetched", "pools_skipped")
                }
                for r in m.get("runs", [])
            ],
            "per_language": summary_rows(m),
            "warnings": m.get("warnings", []),
            "content_hash": m["content_hash"],
            "signature": signature(m),
        }
    else:
        corpus = load_corpus(path)
        info = {
            "path": str(path),
            "format": {"all_docs": "bordirlines-all_docs", "wiki_raw": "bordirlines-wiki-raw"}.get(
                kind, kind
            ),
            "passages": len(corpus),
            "territories": len(corpus.territories),
            "per_language": [{"lang": k, "paragraphs": v} for k, v in corpus.lang_counts().items()],
            "content_hash": corpus.content_hash(),
            "signature": signature(
                {
                    "name": corpus.name,
                    "content_hash": corpus.content_hash(),
                    "parameters": {"source": kind},
                    "bordir_version": __version__,
                }
            ),
        }
    if as_json:
        echo_json(info)
        return
    for k, v in info.items():
        if k in ("per_language", "runs", "warnings"):
            continue
        if isinstance(v, dict):
            click.echo(f"{k}: " + ", ".join(f"{kk}={vv}" for kk, vv in v.items()))
        else:
            click.echo(f"{k}: {v}")
    _echo_rows(info["per_language"])
    for w in info.get("warnings", []):
        click.echo(f"warning: {w}")


def _echo_rows(rows: Sequence[dict[str, Any]]) -> None:
    if not rows:
        click.echo("(no passages)")
        return
    headers = list(rows[0])
    echo_table(headers, [[r.get(h, "") for h in headers] for r in rows])


def _dataset(name: str, path: str | None) -> BorderLines:
    from ..errors import ConfigError
    from ..loaders.catalog import load_dataset

    if name not in ("demo", "borderlines"):
        raise ConfigError(f"unknown dataset {name!r} for corpus fetch; use borderlines or demo")
    ds: BorderLines = load_dataset(name, path)
    return ds
