"""Issue 25.2: every code block of README.md and docs/ runs as written (tests/docblocks.py says how).

One test per page; each page runs in a subprocess of its own (its examples register plugins,
change directory and set variables), in a temporary directory. Blocks that need the network, a
key or a cluster say so in the Markdown (``<!-- requires: … -->``) and are checked for syntax.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from .docblocks import REPO, blocks, pages

PAGES = [str(p.relative_to(REPO)) for p in pages() if blocks(p)]
SLOW_PAGES = [str(p.relative_to(REPO)) for p in pages() if any(b.slow for b in blocks(p))]


def _run(page: str, workdir, *args: str) -> list[str]:
    r = subprocess.run(
        [sys.executable, str(REPO / "tests" / "docblocks.py"), page, str(workdir), *args],
        capture_output=True,
        text=True,
        timeout=1800,
        cwd=REPO,
    )
    assert r.returncode == 0, r.stderr[-4000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES)
def test_every_block_of_the_page_runs(page, tmp_path):
    """Every block but the slow ones (``<!-- slow: … -->``: syntax only here, run below)."""
    failures = _run(page, tmp_path / "work")
    assert not failures, "\n\n".join(failures)


@pytest.mark.slow
@pytest.mark.parametrize("page", SLOW_PAGES)
def test_the_slow_blocks_of_the_page_run(page, tmp_path):
    """The blocks that run for minutes (``bordir demo`` and its documented output), each alone.

    The demo with a cold cache is about 100 s on the one core pytest-xdist gives a worker, while
    the other worker goes on with the rest of the suite (``make test-fast`` leaves it out).
    """
    failures = _run(page, tmp_path / "work", "--slow")
    assert not failures, "\n\n".join(failures)
    if page == "docs/experiments.md":
        _the_demo_run_is_the_local_models(tmp_path / "work" / "slow-0" / "bordir-demo")


def _the_demo_run_is_the_local_models(out):
    """What the documented ``bordir demo`` wrote with the real local model (the one local-model run of
    the whole pipeline in the suite: the local model through `bordir run` and `bordir report` was a
    second one, on two of its languages, until the two were merged here)."""
    import pandas as pd

    df = pd.read_parquet(out / "responses.parquet")
    assert set(df["model"]) == {"local/gemma-3-270m"} and df["query_lang"].nunique() == 15
    assert (df["outcome"] == "answered").all()  # rank classification always picks an option
    by_prompt = df.groupby(["query_id", "mode", "option_order"])["option_logprobs"]
    assert all(len(v) >= 2 and all(x < 0 for x in v) for v in by_prompt.first())
    # one scoring per (query, mode, option order), sampled per run: identical logprobs across runs
    assert by_prompt.apply(lambda s: len({tuple(v) for v in s})).eq(1).all()
    info = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert info["calls"]["requests"] == by_prompt.ngroups and info["calls"]["failed"] == 0
    assert set(df.groupby("option_order")["mode"].unique()["reversed"]) == {"no_ir"}
    metrics = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    assert list(metrics["results"]) == ["local/gemma-3-270m"]
    assert metrics["settings"]["boot95"]["n_resamples"] == 1000
    assert (out / "report.html").is_file() and (out / "view.html").is_file()
    assert {p.name for p in (out / "plots").glob("*.png")} >= {"scores.png", "perlang_forest_0.png"}


def test_slow_blocks_say_why_and_stand_alone():
    """A slow block names what makes it slow and runs commands only (it gets a directory of its own)."""
    slow = [b for p in pages() for b in blocks(p) if b.slow]
    assert slow, "docs/experiments.md marks `bordir demo` slow"
    for b in slow:
        assert b.slow != "slow" and b.lang in ("console", "bash", "sh"), b.where


def test_output_matching_rules():
    from .docblocks import output_matches

    assert output_matches(["a", "b …"], ["", "a", "b 1.0 s", ""])  # blank lines at either end
    assert output_matches(["a", "...", "z"], ["a", "x", "y", "z"])
    assert not output_matches(["a", "b"], ["a", "c"])
    assert not output_matches(["a"], ["a", "b"])  # no trailing lines without ``...``
    near = {"numbers_within": 5.0}
    assert output_matches(
        ["KB 46.7 [25.5, 69.1] of 102 …"], ["KB 50.0 [29.6, 70.4] of 102 in 3 s"], **near
    )
    assert not output_matches(["KB 46.7 [25.5, 69.1]"], ["KB 56.7 [25.5, 69.1]"], **near)  # too far
    assert not output_matches(["KB 46.7 [25.5, 69.1]"], ["Cst 46.7 [25.5, 69.1]"], **near)  # text
    assert not output_matches(["KB 46.7 [25.5, 69.1]"], ["KB 46.7 [25.5]"], **near)
    assert not output_matches(["KB 46.7 s"], ["KB 46.7"], **near)


def test_markers_name_what_is_missing():
    """A ``requires`` marker is explicit: no empty marker, and a marked block is one of the run languages."""
    for p in pages():
        for b in blocks(p):
            for req in b.requires:
                assert req.strip(), b.where


def test_the_readme_snippet_runs_offline_first():
    """The README's notebook path leads with an offline block (demo corpus, mock or local model)."""
    readme = [b for b in blocks(REPO / "README.md") if b.lang == "python"]
    runs = [b for b in readme if "bordir.run(" in b.body]
    assert runs and not runs[0].requires, "the first bordir.run block must run offline, unmarked"
    assert '"corpus": "demo"' in runs[0].body and (
        "mock/" in runs[0].body or "local/" in runs[0].body
    )
    assert any("openai/" in b.body and b.requires for b in runs[1:]), (
        "then the same with a provider"
    )


def test_the_readme_gives_one_demo_time():
    """Issue 25.8: the README gave three different demo times."""
    import re

    text = (REPO / "README.md").read_text(encoding="utf-8")
    text = text.split("## The two commands", 1)[1].split("\n## ", 1)[
        0
    ]  # where the demo is described
    times = re.findall(
        r"(?:about|~)\s*\d+\s*(?:s|min)\b|about (?:a|two|three|a few) minutes?\b", text
    )
    assert times == ["about a minute"], times
