"""``bordir audit collect`` and ``bordir audit resolve`` (attached to the ``audit`` group; see docs/audit.md)."""

from __future__ import annotations

from typing import Any

import click

from .._io.json_write import write_json
from . import _decorators as opt
from ._output import echo_json

__all__ = ["collect_cmd", "resolve_cmd"]


@click.command("collect")
@click.option("--model", "models", multiple=True, required=True, metavar="API/MODEL",
              help="A search-enabled assistant: openai-search/<model>, perplexity/<model>, gemini/<model>, anthropic/<model> (repeatable).")  # fmt: skip
@click.option(
    "--territories",
    metavar="NAME[,NAME]",
    help="BorderLines territories to ask about ('all': every one).",
)
@click.option(
    "--langs",
    metavar="LANG[,LANG]",
    help="The query languages (default: each territory's claimants' languages and English).",
)
@click.option(
    "--dataset",
    default="demo",
    show_default=True,
    help="The BorderLines dataset of --territories (demo, borderlines).",
)
@opt.dataset_path("A local BorderLines directory (for --dataset borderlines).")
@opt.file(
    "--questions",
    "A JSONL or CSV file of questions (group, lang, question[, territory, claimants, claimant_langs]) instead of --territories.",
)
@opt.count(
    "--samples", 1, "Ask each question this many times (answers vary; each is cached apart)."
)
@opt.count("--max-tokens", 1024, "The most output tokens per answer.")
@click.option(
    "--max-cost",
    type=float,
    help="The most this run may spend, in USD (required unless --dry-run; cached answers cost nothing).",
)
@opt.file(
    "--cache",
    "The response cache (SQLite; default: bordir's cache). A re-run asks only what is not in it.",
)
@click.option(
    "--base-url",
    "base_urls",
    multiple=True,
    metavar="API=URL",
    help="Another endpoint for an API (a proxy or a local server), e.g. perplexity=http://127.0.0.1:8080.",
)
@click.option("--rpm", type=float, help="Requests per minute per API (default: unlimited).")
@opt.concurrency("Calls in flight per API (default: 4).")
@opt.count("--max-retries", 6, "Retries of a transient failure (429, 5xx, timeout).", minimum=0)
@opt.flag("--dry-run", "Print the calls and their worst-case cost; send nothing.")
@opt.out_file("The black-box log to write (JSONL; the manifest goes to FILE.json).")
@opt.json("Print the plan or the manifest as JSON.")
def collect_cmd(
    models: tuple[str, ...], territories: str | None, langs: str | None, dataset: str, path: str | None,
    questions: str | None, samples: int, max_tokens: int, max_cost: float | None, cache: str | None,
    base_urls: tuple[str, ...], rpm: float | None, concurrency: int | None, max_retries: int, dry_run: bool,
    out: str, as_json: bool,
) -> None:  # fmt: skip
    """Ask search-enabled assistants a question set (BorderLines territories in their claimants' languages and English, or a file) and write the black-box log, each answer with its cited URLs and its raw response."""
    from ..audit.blackbox.collect.apis import search_backend
    from ..audit.blackbox.collect.questions import borderlines_questions, file_questions
    from ..audit.blackbox.collect.run import collect, plan_collect
    from ..errors import ConfigError
    from ..generation.cache import ResponseCache
    from ..generation.call_limits import ExecutorOptions

    if bool(questions) == bool(territories):
        raise ConfigError("give either --territories NAME[,NAME] or --questions FILE")
    for m in models:
        search_backend(m)  # a wrong API name stops here, before anything is read or sent
    backend_options: dict[str, dict[str, Any]] = {}
    for spec in base_urls:
        api, sep, url = spec.partition("=")
        if not sep or not url.startswith(("http://", "https://")):
            raise ConfigError(
                f"--base-url {spec!r}: expected API=URL (e.g. perplexity=http://127.0.0.1:8080)"
            )
        backend_options[api] = {"base_url": url}
    if questions:
        qs = file_questions(questions)
    else:
        from ..loaders.catalog import load_dataset

        ds = load_dataset(dataset, path)
        qs = borderlines_questions(ds, [t.strip() for t in (territories or "").split(",") if t.strip()],
                                   [x.strip() for x in langs.split(",")] if langs else None)  # fmt: skip
    rc = ResponseCache(cache) if cache else ResponseCache()
    try:
        plan = plan_collect(qs, models, samples=samples, max_tokens=max_tokens, cache=rc)
        worst = sum(plan.worst_usd.values())
        if dry_run:
            info = {"questions": len(qs), "languages": sorted({q.lang for q in qs}), "calls": len(plan.calls),
                    "cached": plan.cached, "to_call": plan.to_call, "worst_case_usd": round(worst, 4),
                    "worst_case_usd_by_model": {k: round(v, 4) for k, v in plan.worst_usd.items()}}  # fmt: skip
            if as_json:
                echo_json(info)
                return
            click.echo(f"dry run: {len(qs)} questions in {len({q.lang for q in qs})} languages x {len(models)} model(s) x {samples} "
                       f"sample(s) = {len(plan.calls)} calls; {plan.cached} cached, {plan.to_call} to call; "
                       f"worst-case cost {worst:.4f} USD (search fees and result tokens included; prices in docs/audit.md)")  # fmt: skip
            for m, v in plan.worst_usd.items():
                click.echo(f"  {m}: up to {v:.4f} USD")
            return
        if max_cost is None:
            raise ConfigError(
                f"give --max-cost USD, the most this run may spend (worst case of the {plan.to_call} calls to make: {worst:.4f} USD; --dry-run shows it)"
            )
        opts = ExecutorOptions(concurrency=concurrency or 4, rpm=rpm, max_retries=max_retries)
        res = collect(
            plan,
            out,
            cache=rc,
            max_cost=max_cost,
            options=opts,
            backend_options=backend_options,
            progress=not as_json,
        )
    finally:
        rc.close()
    manifest = {
        "log": str(out), "questions": len(qs), "models": list(models), "samples": samples, "calls": len(plan.calls),
        "answered": res.answered, "failed": len(res.failed), "failures": res.failed[:50], "not_asked": res.not_asked,
        "spent_usd": round(res.spent_usd, 6), "max_cost_usd": max_cost, "stopped": res.stopped or None,
        "cache": str(rc.path),
    }  # fmt: skip
    write_json(manifest, str(out) + ".json")
    if as_json:
        echo_json(manifest)
        return
    click.echo(f"{res.answered} answers written to {out} ({len(res.failed)} failed, {res.not_asked} not asked); "
               f"spent {res.spent_usd:.4f} USD of --max-cost {max_cost:g}")  # fmt: skip
    if res.stopped:
        click.echo(
            f"stopped: {res.stopped}; re-run with a higher --max-cost to go on (cached answers are not paid again)"
        )
    if res.failed:
        click.echo(
            f"first failure: {res.failed[0]['id']}: {res.failed[0]['error']} (a re-run retries the failed calls)"
        )


@click.command("resolve")
@click.argument("logs", type=click.Path(path_type=str))
@opt.choice(
    "--format",
    ["jsonl", "parquet", "csv"],
    dest="fmt",
    help="Log format (default: from the file name).",
)
@opt.repeatable("--field", "fields", "NAME=FIELD, as for `bordir audit LOGS`.")
@click.option(
    "--rewrite",
    "rewrites",
    multiple=True,
    metavar="FROM=TO",
    help="Fetch the URLs starting FROM at TO instead (a mirror, an archive).",
)
@click.option("--timeout", type=float, default=20.0, show_default=True, help="Seconds per request.")
@opt.out_file(
    "The JSON map {redirect URL: final URL} to write (for `bordir audit LOGS --resolved FILE`)."
)
@opt.json("Print the counts as JSON.")
def resolve_cmd(
    logs: str,
    fmt: str | None,
    fields: tuple[str, ...],
    rewrites: tuple[str, ...],
    timeout: float,
    out: str,
    as_json: bool,
) -> None:
    """Online: follow the redirect URLs a black-box log cites (Gemini's grounding links) and write the map of their final URLs."""
    from ..audit.blackbox.fields import parse_field_specs
    from ..audit.blackbox.reader import detect_format
    from ..audit.blackbox.resolve import redirect_urls, resolve_redirects
    from ..errors import ConfigError

    rw = {}
    for spec in rewrites:
        a, sep, b = spec.partition("=")
        if not sep or not a or not b:
            raise ConfigError(f"--rewrite {spec!r}: expected FROM=TO")
        rw[a] = b
    urls = redirect_urls(logs, detect_format(logs, fmt), parse_field_specs(fields))
    resolved, failed = resolve_redirects(urls, timeout=timeout, rewrite=rw)
    write_json(resolved, out)
    info = {"redirects": len(urls), "resolved": len(resolved), "failed": failed, "map": str(out)}
    if as_json:
        echo_json(info)
        return
    click.echo(
        f"{len(resolved)} of {len(urls)} redirect URLs resolved ({', '.join(f'{k} {v}' for k, v in failed.items()) or 'none failed'}); map: {out}"
    )
