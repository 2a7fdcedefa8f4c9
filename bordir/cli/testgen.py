"""``bordir testgen`` (generate a test suite), ``bordir testrun`` (run it) and ``bordir judge`` (judge the answers).

Thin layers over :mod:`bordir.testgen`; see ``docs/testgen.md``.
"""

from __future__ import annotations

import click

from ._output import echo_json, echo_table


def _cache(path: str | None, no_cache: bool):
    from ..generation.cache import ResponseCache

    return None if no_cache else ResponseCache(path) if path else ResponseCache()


_cache_options = [
    click.option(
        "--cache",
        type=click.Path(dir_okay=False, path_type=str),
        help="Response cache file (default: $BORDIR_CACHE/responses.sqlite3).",
    ),
    click.option("--no-cache", is_flag=True, help="Do not read or write the response cache."),
]


def _with_cache(f):
    for opt in reversed(_cache_options):
        f = opt(f)
    return f


@click.command("testgen")
@click.argument("sources", nargs=-1)
@click.option(
    "--strategies",
    default="complex,negative,coverage",
    show_default=True,
    help="Comma-separated: complex, negative, coverage; or 'baseline' alone.",
)
@click.option(
    "--n", "n", default=50, show_default=True, type=click.IntRange(min=1), help="Tests to generate."
)
@click.option(
    "--out",
    required=True,
    type=click.Path(dir_okay=False, path_type=str),
    help="Tests JSONL to write.",
)
@click.option(
    "--generator",
    default="template",
    show_default=True,
    help="'template' (offline, deterministic) or a provider/model for the LLM generator.",
)
@click.option(
    "--negative-methods", default="absent,cross", show_default=True, help="absent and/or cross."
)
@click.option("--full-coverage", is_flag=True, help="Coverage goes on until every chunk is used.")
@click.option(
    "--lang",
    default="en",
    show_default=True,
    help="Language of user files (PDF, HTML, Markdown, text).",
)
@click.option("--langs", help="Corpora: keep only these comma-separated languages.")
@click.option(
    "--chunk-by", type=click.Choice(["paragraph", "tokens"]), default="paragraph", show_default=True
)
@click.option("--max-tokens", type=click.IntRange(min=1), help="Largest chunk, in analyzer tokens.")
@click.option("--seed", default=12345, show_default=True, type=int)
@click.option(
    "--write",
    "topics",
    multiple=True,
    help="Have --writer write a document on this topic (repeatable).",
)
@click.option("--writer", help="provider/model that writes the --write documents.")
@click.option(
    "--write-lang", default="en", show_default=True, help="Language of the written documents."
)
@click.option(
    "--write-length", default=300, show_default=True, type=click.IntRange(min=1), help="Words."
)
@_with_cache
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def testgen_cmd(
    sources,
    strategies,
    n,
    out,
    generator,
    negative_methods,
    full_coverage,
    lang,
    langs,
    chunk_by,
    max_tokens,
    seed,
    topics,
    writer,
    write_lang,
    write_length,
    cache,
    no_cache,
    as_json,
):
    """Generate a test suite from SOURCES (demo, corpus paths, PDF/HTML/Markdown/text files or folders)
    and/or documents an LLM writes (--write TOPIC --writer MODEL).

    Writes OUT (one test per line), OUT.meta.json (settings, outcomes, signature)
    and <stem>.chunks.jsonl (the chunks the tests refer to); written documents
    are also saved as Markdown in <stem>.docs/.
    """
    from pathlib import Path

    from ..errors import ConfigError
    from ..testgen.generators import LLMGenerator, TemplateGenerator
    from ..testgen.sources import load_chunks
    from ..testgen.suite import generate_suite
    from ..testgen.testcase import write_suite

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

            rc = _cache(cache, no_cache)
            written = write_documents(
                topics,
                lang=write_lang,
                model=writer,
                length=write_length,
                cache=rc,
                by=chunk_by,
                max_tokens=max_tokens,
                progress=not as_json,
            )
            if written.failed:
                raise ConfigError(
                    f"the writer failed on {len(written.failed)} document(s): "
                    f"{next(iter(written.failed.values()))}; re-run to retry"
                )
            written.save(Path(out).with_name(Path(out).stem + ".docs"))
            chunks += written.chunks
        if generator == "template":
            gen = TemplateGenerator(chunks)
        else:
            rc = rc or _cache(cache, no_cache)
            gen = LLMGenerator(chunks, generator, cache=rc, progress=not as_json)
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
    click.echo(f"{len(chunks)} chunks, {suite.coverage_rate():.1%} used by a test")
    click.echo(f"wrote {len(suite)} tests to {path}")
    click.echo(f"signature: {suite.meta['signature']}")


@click.command("testrun")
@click.argument("tests", type=click.Path(dir_okay=False, path_type=str))
@click.option(
    "--config",
    "configs",
    multiple=True,
    required=True,
    help="A system under test: retriever=bm25,backend=provider/model,mode=qlang,k=3 (repeatable). "
    "Modes: no_ir, qlang, qlang+en, en_only, all.",
)
@click.option(
    "--out",
    "out_dir",
    required=True,
    type=click.Path(file_okay=False, path_type=str),
    help="Output directory (answers.jsonl, run.json).",
)
@click.option("--concurrency", type=click.IntRange(min=1), help="Calls in flight at most.")
@_with_cache
@click.option("--progress/--no-progress", default=False, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def testrun_cmd(tests, configs, out_dir, concurrency, cache, no_cache, progress, as_json):
    """Answer every test of TESTS with every --config; resumable, nothing is billed twice."""
    from ..testgen.execute import parse_config, run_suite
    from ..testgen.testcase import read_suite

    suite = read_suite(tests)
    cfgs = [parse_config(c) for c in configs]
    rc = _cache(cache, no_cache)
    try:
        rows = run_suite(
            suite,
            cfgs,
            out_dir,
            cache=rc,
            concurrency=concurrency,
            progress=progress,
            suite_path=str(tests),
        )
    finally:
        if rc is not None:
            rc.close()
    failed = sum(r["error"] is not None for r in rows)
    summary = {
        "out": out_dir,
        "answers": len(rows),
        "cached": sum(r["cached"] for r in rows),
        "failed": failed,
        "configs": [c.name for c in cfgs],
        "signatures": [str(c.signature(suite.meta.get("signature", ""))) for c in cfgs],
    }
    if as_json:
        echo_json(summary)
    else:
        echo_table(
            ["config", "answers", "refusals", "source retrieved", "failed"],
            [
                (
                    c.name,
                    sum(r["config"] == c.name for r in rows),
                    sum(r["config"] == c.name and r["refusal"] for r in rows),
                    sum(r["config"] == c.name and r["source_retrieved"] for r in rows),
                    sum(r["config"] == c.name and r["error"] is not None for r in rows),
                )
                for c in cfgs
            ],
        )
        click.echo(
            f"wrote {len(rows)} answers to {out_dir}/answers.jsonl ({summary['cached']} from the cache)"
        )
        for s in summary["signatures"]:
            click.echo(f"signature: {s}")
    if failed:
        click.echo(f"{failed} calls failed; re-run the same command to retry them", err=True)
        raise click.exceptions.Exit(1)


@click.command("judge")
@click.argument("run_dir", type=click.Path(file_okay=False, path_type=str))
@click.option(
    "--judge",
    "judges",
    multiple=True,
    required=True,
    help="Judge model provider/model (repeatable: majority vote of several judges).",
)
@click.option(
    "--prompt-langs",
    default="en",
    show_default=True,
    help="Judge prompt languages, comma-separated (the first decides; several: invariance is reported).",
)
@click.option(
    "--repeats",
    default=1,
    show_default=True,
    type=click.IntRange(min=1),
    help="Calls per answer and judge (agreement is reported for 2+).",
)
@click.option(
    "--temperature", type=float, help="Judge temperature (default 0, or 0.7 with --repeats 2+)."
)
@click.option(
    "--keyword-source", type=click.Choice(["judge", "computed"]), default="judge", show_default=True
)
@click.option(
    "--label-judge",
    "label_judges",
    multiple=True,
    help="Oracle precision: judges whose majority vote labels a Cochran sample of the failures.",
)
@click.option("--precision-n", type=click.IntRange(min=1), help="Sample size (default: Cochran's).")
@click.option(
    "--ci",
    type=click.Choice(["wilson", "beta"]),
    default="wilson",
    show_default=True,
    help="Interval method (beta: Clopper–Pearson).",
)
@click.option(
    "--suite",
    "suite_path",
    type=click.Path(dir_okay=False, path_type=str),
    help="The tests file (default: the one run.json names).",
)
@click.option(
    "--baseline",
    type=click.Path(file_okay=False, path_type=str),
    help="A judged run directory of a baseline suite: compare failures with it.",
)
@click.option("--concurrency", type=click.IntRange(min=1))
@_with_cache
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def judge_cmd(
    run_dir,
    judges,
    prompt_langs,
    repeats,
    temperature,
    keyword_source,
    label_judges,
    precision_n,
    ci,
    suite_path,
    baseline,
    concurrency,
    cache,
    no_cache,
    as_json,
):
    """Judge the answers of a `bordir testrun` RUN_DIR with an LLM oracle (five criteria, RAG-Tester's fail rule).

    Writes judgments.jsonl, verdicts.csv, fail_rates.csv, paired.csv and summary.json into RUN_DIR.
    """
    from ..testgen.pipeline import compare_to_baseline, judge_run

    rc = _cache(cache, no_cache)
    try:
        summary = judge_run(
            run_dir,
            judges=list(judges),
            prompt_langs=[x for x in prompt_langs.split(",") if x],
            repeats=repeats,
            temperature=temperature,
            label_judges=list(label_judges),
            precision_n=precision_n,
            keyword_source=keyword_source,
            ci=ci,
            suite_path=suite_path,
            cache=rc,
            concurrency=concurrency,
            progress=not as_json,
        )
    finally:
        if rc is not None:
            rc.close()
    if baseline:
        summary["vs_baseline"] = compare_to_baseline(run_dir, baseline)
    if as_json:
        echo_json(summary)
        return

    def fmt(x):
        return "-" if x is None else f"{x:.3f}"

    echo_table(
        ["config", "decided", "fails", "fail rate [CI]", "tie", "unparsed", "failed", "no answer"],
        [
            (
                r["config"],
                r["decided"],
                r["fails"],
                f"{fmt(r['fail_rate'])} [{fmt(r['ci_low'])}, {fmt(r['ci_high'])}]",
                r["tie"],
                r["unparsed"],
                r["failed"],
                r["no_answer"],
            )
            for r in summary["fail_rates"]
        ],
    )
    for r in summary["fail_rates"]:
        click.echo(f"signature: {r['signature']}")
    inv = summary.get("invariance")
    if inv:
        click.echo(
            f"judge invariance ({'+'.join(inv['langs'])}): disagreement {fmt(inv['disagreement'])} "
            f"[{fmt(inv['ci'][0])}, {fmt(inv['ci'][1])}] on {inv['units']} answers"
        )
        click.echo(f"signature: {inv['signature']}")
    for a in summary.get("repeat_agreement") or []:
        if a["of"] == "verdict":
            click.echo(
                f"repeat agreement {a['judge']} ({a['prompt_lang']}): alpha {fmt(a['alpha'])}, "
                f"mean kappa {fmt(a['kappa_mean'])}, all repeats equal on {fmt(a['percent_agreement'])} "
                f"over {a['repeats']} repeats"
            )
    prec = summary.get("oracle_precision")
    if prec:
        click.echo(
            f"oracle precision {fmt(prec['precision'])} [{fmt(prec['precision_ci'][0])}, "
            f"{fmt(prec['precision_ci'][1])}], FDR {fmt(prec['fdr'])} on {prec['labelled']} labelled of "
            f"{prec['sampled']} sampled failures"
        )
        click.echo(f"signature: {prec['signature']}")
    vb = summary.get("vs_baseline")
    if vb:
        click.echo(
            f"strategy vs baseline: more failures on {vb['more_failures']}, fewer on {vb['fewer_failures']}, "
            f"ties {vb['ties']} configurations (sign test p = {vb['p_sign']:.3g})"
        )
        click.echo(f"signature: {vb['signature']}")
    click.echo(f"outcomes: {', '.join(f'{k} {v}' for k, v in sorted(summary['outcomes'].items()))}")
    click.echo(f"signature: {summary['signature']}")
    click.echo(f"wrote {run_dir}/judgments.jsonl, verdicts.csv, fail_rates.csv, summary.json")
