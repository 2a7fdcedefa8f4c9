"""``bordir testrun``: run a generated test suite against one or more configurations (a thin layer over :mod:`bordir.testgen`)."""

from __future__ import annotations

import click

from . import _decorators as opt
from ._cache import opened_cache, with_cache_options
from ._calls import NothingMade, call_options, exit_for_calls, with_call_options
from ._output import echo_json, echo_lines, echo_table

__all__ = ["testrun_cmd"]


@click.command("testrun")
@click.argument("tests", type=click.Path(dir_okay=False, path_type=str))
@opt.repeatable(
    "--config",
    "configs",
    "A system under test: retriever=bm25,backend=provider/model,mode=qlang,k=3 (repeatable). "
    "Modes: no_ir, qlang, qlang+en, en_only, all.",
    required=True,
)
@opt.out_dir("Output directory (answers.jsonl, run.json).")
@opt.concurrency("Calls in flight at most.")
@with_cache_options
@with_call_options
@opt.switch("--progress/--no-progress", False)
@opt.json("Print the summary as JSON.")
def testrun_cmd(
    tests: str,
    configs: tuple[str, ...],
    out_dir: str,
    concurrency: int | None,
    cache: str | None,
    no_cache: bool,
    timeout: float | None,
    max_retries: int | None,
    progress: bool,
    as_json: bool,
) -> None:
    """Answer every test of TESTS with every --config; resumable, nothing is billed twice."""
    from ..testgen.execute import parse_config, run_suite
    from ..testgen.testcase import read_suite

    suite = read_suite(tests)
    cfgs = [parse_config(c) for c in configs]
    with opened_cache(cache, no_cache) as rc:
        rows = run_suite(
            suite,
            cfgs,
            out_dir,
            cache=rc,
            concurrency=concurrency,
            progress=progress,
            suite_path=str(tests),
            **call_options(timeout, max_retries),
        )
    failed = sum(r["error"] is not None for r in rows)
    summary = {
        "out": out_dir,
        "answers": len(rows),
        "cached": sum(r["cached"] for r in rows),
        "failed": failed,
        "echo": sum(r["echo"] for r in rows),
        "configs": [c.name for c in cfgs],
        "signatures": [str(c.signature(suite.meta.get("signature", ""))) for c in cfgs],
    }
    if as_json:
        echo_json(summary)
    else:
        echo_table(
            ["config", "answers", "refusals", "echoes", "source retrieved", "failed"],
            [
                (
                    c.name,
                    sum(r["config"] == c.name for r in rows),
                    sum(r["config"] == c.name and r["refusal"] for r in rows),
                    sum(r["config"] == c.name and r["echo"] for r in rows),
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
            echo_lines(f"signature: {s}")
    first = next((r["error"] for r in rows if r["error"] is not None), None)
    if rows and failed == len(rows):
        raise NothingMade(
            f"no answer could be made: all {failed} calls failed (the first: {first}); "
            "re-run the same command to retry them"
        )
    exit_for_calls(failed, len(rows), first)
