"""``bordir testgen``: generate a test suite (``bordir testrun`` runs it, ``bordir judge`` judges the answers).

Thin layers over :mod:`bordir.testgen`; see ``docs/testgen.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from . import _decorators as opt
from ._cache import response_cache, with_cache_options
from ._calls import NothingMade, call_options, exit_for_calls, with_call_options
from ._output import echo_json, echo_lines, echo_table

if TYPE_CHECKING:
    from ..testgen.chunks import SplitBy

__all__ = ["testgen_cmd"]


@click.command("testgen")
@click.argument("sources", nargs=-1)
@opt.text(
    "--strategies",
    "complex,negative,coverage",
    "Comma-separated: complex, negative, coverage; or 'baseline' alone.",
)
@opt.count("--n", 50, "Tests to generate.", dest="n")
@opt.out_file("Tests JSONL to write.")
@opt.text(
    "--generator",
    "template",
    "'template' (offline, deterministic) or a provider/model for the LLM generator.",
)
@opt.text("--negative-methods", "absent,cross", "absent and/or cross.")
@opt.flag("--full-coverage", "Coverage goes on until every chunk is used.")
@click.option(
    "--lang",
    default=None,
    help="Language of every user file (PDF, HTML, Markdown, text) that does not name its own "
    "(FILE:lang, e.g. guia.md:es). Default: each file's language is detected from its text.",
)
@click.option("--langs", help="Corpora: keep only these comma-separated languages.")
@opt.choice("--chunk-by", ["paragraph", "tokens"], "paragraph")
@click.option("--max-tokens", type=click.IntRange(min=1), help="Largest chunk, in analyzer tokens.")
@click.option("--seed", default=12345, show_default=True, type=int)
@opt.repeatable("--write", "topics", "Have --writer write a document on this topic (repeatable).")
@click.option("--writer", help="provider/model that writes the --write documents.")
@opt.text("--write-lang", "en", "Language of the written documents.")
@opt.count("--write-length", 300, "Words.")
@with_cache_options
@with_call_options
@opt.json("Print the summary as JSON.")
def testgen_cmd(
    sources: tuple[str, ...],
    strategies: str,
    n: int,
    out: str,
    generator: str,
    negative_methods: str,
    full_coverage: bool,
    lang: str | None,
    langs: str | None,
    chunk_by: SplitBy,
    max_tokens: int | None,
    seed: int,
    topics: tuple[str, ...],
    writer: str | None,
    write_lang: str,
    write_length: int,
    cache: str | None,
    no_cache: bool,
    timeout: float | None,
    max_retries: int | None,
    as_json: bool,
) -> None:
    """Generate a test suite from SOURCES (demo, corpus paths, PDF/HTML/Markdown/text files or folders) and/or documents an LLM writes (--write TOPIC --writer MODEL).

    Writes OUT (one test per line), OUT.meta.json (settings, outcomes, signature)
    and <stem>.chunks.jsonl (the chunks the tests refer to); written documents
    are also saved as Markdown in <stem>.docs/.
    """
    from pathlib import Path

    from ..errors import ConfigError
    from ..testgen.generators import Generator, LLMGenerator, TemplateGenerator
    from ..testgen.sources import load_chunks
    from ..testgen.suite import generate_suite
    from ..testgen.testcase import write_suite

    _check_langs(lang, write_lang if topics else None, langs)
    if not sources and not topics:
        raise ConfigError(
            "testgen needs SOURCES (e.g. demo, a PDF) or --write TOPIC with --writer MODEL"
        )
    if topics and not writer:
        raise ConfigError(
            "--write needs --writer provider/model (the model that writes the documents)"
        )
    chunks = (
        load_chunks(
            sources,
            lang=lang,
            by=chunk_by,
            max_tokens=max_tokens,
            langs=[x for x in langs.split(",") if x] if langs else None,
        )
        if sources
        else []
    )
    rc = None
    try:
        if topics:
            from ..testgen.writer import write_documents

            rc = response_cache(cache, no_cache)
            written = write_documents(
                topics,
                lang=write_lang,
                model=writer,
                length=write_length,
                cache=rc,
                by=chunk_by,
                max_tokens=max_tokens,
                progress=not as_json,
                **call_options(timeout, max_retries),
            )
            if written.failed:
                raise ConfigError(
                    f"the writer failed on {len(written.failed)} document(s): "
                    f"{next(iter(written.failed.values()))}; re-run to retry"
                )
            written.save(Path(out).with_name(Path(out).stem + ".docs"))
            chunks += written.chunks
        if generator == "template":
            gen: Generator = TemplateGenerator(chunks)
        else:
            rc = rc or response_cache(cache, no_cache)
            gen = LLMGenerator(
                chunks,
                generator,
                cache=rc,
                progress=not as_json,
                **call_options(timeout, max_retries),
            )
        suite = generate_suite(
            chunks,
            strategies=strategies,
            n=n,
            generator=gen,
            seed=seed,
            negative_methods=[m for m in negative_methods.split(",") if m],
            full_coverage=full_coverage,
        )
    finally:
        if rc is not None:
            rc.close()
    calls, failures = getattr(gen, "calls", 0), list(getattr(gen, "failures", []))
    if not suite.tests:  # nothing to write: say why, exit 2
        why = (
            f"all {calls} generator calls failed (the first: {failures[0]})"
            if calls and len(failures) == calls
            else "not made: "
            + "; ".join(
                f"{s} " + ", ".join(f"{k} {v}" for k, v in c.items() if k != "made")
                for s, c in suite.outcomes.items()
            )
        )
        raise NothingMade(
            f"no test could be made from {len(chunks)} chunks ({why}); {out} not written"
        )
    suite.meta["sources"] = list(sources) + [f"llm:{writer}:{t}" for t in topics]
    path = write_suite(suite, out)
    summary = {
        "out": str(path),
        "tests": len(suite),
        "chunks": len(chunks),
        "coverage_rate": suite.coverage_rate(),
        "outcomes": suite.outcomes,
        **suite.meta,
    }
    if as_json:
        echo_json(summary)
        exit_for_calls(
            len(failures), calls, failures[0] if failures else None, what="generator calls"
        )
        return
    rows = []
    for strategy, counts in suite.outcomes.items():
        made = [t for t in suite.tests if t.strategy == strategy]
        rows.append(
            (
                strategy,
                len(made),
                len({t.lang for t in made}),
                ", ".join(f"{k} {v}" for k, v in counts.items() if k != "made") or "-",
            )
        )
    echo_table(["strategy", "tests", "languages", "not made"], rows)
    if (stop := suite.meta.get("stop_words")) and stop["missing"]:
        click.echo(
            f"note: no stop-word list ({stop['source']}) for {', '.join(stop['missing'])}: their "
            "template questions may be about function words (--generator provider/model asks an LLM)",
            err=True,
        )
    click.echo(f"{len(chunks)} chunks, {suite.coverage_rate():.1%} used by a test")
    click.echo(f"wrote {len(suite)} tests to {path}")
    echo_lines(f"signature: {suite.meta['signature']}")
    exit_for_calls(len(failures), calls, failures[0] if failures else None, what="generator calls")


def _check_langs(lang: str | None, write_lang: str | None, langs: str | None) -> None:
    """Refuse an unknown code of ``--lang``, ``--write-lang`` or ``--langs`` before reading anything.

    The error names the option, the known codes and the close ones (one line, exit 2).
    """
    from .. import languages

    registry = languages.registry()
    given = [("--lang", lang), ("--write-lang", write_lang)] + [
        ("--langs", code) for code in (langs or "").split(",") if code.strip()
    ]
    for option, code in given:
        if code is not None:
            registry.get_checked(code.strip(), where=f"{option} {code.strip()!r}")
