"""The papers as shipped suites: ``configs/borderlines-2023.toml`` and ``configs/bordirlines-2024.toml``.

Each is a suite of runs (``[[runs]]``); ``bordir run CONFIG --dry-run`` prints every run's
calls, tokens and cost and the suite's total, calling nothing. The dry runs go over the
real BorderLines data in ../shared (skipped when it is absent) and over a small
BorderLines-layout directory the test writes (the demo's 12 territories).
"""

from __future__ import annotations

import re
import shutil

import pytest

from bordir.errors import ConfigError
from bordir.experiment.config import load_config
from bordir.experiment.suite import load_suite
from bordir.loaders import demo_dir

from ..conftest import REPO, invoke_cli

BORDERLINES = REPO / "configs" / "borderlines-2023.toml"
BORDIRLINES = REPO / "configs" / "bordirlines-2024.toml"


def test_borderlines_suite_is_table_2s_gpt4_grid():
    suite = load_suite(BORDERLINES)
    assert suite.is_suite and suite.meta["name"] == "borderlines-2023"
    assert [(n, c.system) for n, c in suite.runs] == [
        ("gpt4-vanilla", "vanilla"),
        ("gpt4-un", "un"),
        ("gpt4-nationalist", "nationalist"),
        ("gpt4-input_demo", "input_demo"),
    ]
    for _, c in suite.runs:
        assert c.modes == ("no_ir",) and c.models == ("openai/gpt-4-0613",)
        assert (c.temperature, c.seeds, c.max_tokens, c.policy) == (0.0, (2557,), 512, "reference")


def test_bordirlines_suite_names_its_models_modes_runs_and_corpus():
    suite = load_suite(BORDIRLINES)
    runs = dict(suite.runs)
    assert list(runs) == ["direct", "citation"]
    direct, citation = runs["direct"], runs["citation"]
    assert direct.response_format == "direct" and citation.response_format == "citation"
    assert len(direct.modes) == 6 and "no_ir" not in citation.modes
    assert direct.models == (
        "openai/gpt-4o",
        "openai/gpt-4o-mini",
        "cohere/command-r-08-2024",
        "openai-compatible/meta-llama/Llama-3.1-8B-Instruct",
    )
    for c in runs.values():
        assert c.seeds == (4321, *range(2557, 2566)) and c.temperature == 0.5 and c.k == 10
        assert c.corpus == "corpus/bordirlines" and c.retriever == "openai/text-embedding-3-large"


def test_a_suite_is_not_one_experiment(tmp_path):
    with pytest.raises(ConfigError, match=r"is a suite of runs \(\[\[runs\]\]\)"):
        load_config(BORDERLINES)
    bad = tmp_path / "s.toml"
    bad.write_text(
        '[experiment]\nmodels = ["mock/first"]\n[[runs]]\nname = "a b"\n', encoding="utf-8"
    )
    with pytest.raises(ConfigError, match=r"\[\[runs\]\] #1: field 'name'"):
        load_suite(bad)
    bad.write_text('[[runs]]\nname = "a"\nk = 0\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"\[\[runs\]\] a: field 'k'"):
        load_suite(bad)
    # a plain file with a top-level `runs = 2` is one experiment, not a suite
    one = tmp_path / "one.toml"
    one.write_text('models = ["mock/first"]\nruns = 2\n', encoding="utf-8")
    assert not load_suite(one).is_suite and load_suite(one).runs[0][1].seeds == (4321, 2557)


def _borderlines_layout(root):
    """A small BorderLines-layout directory: the demo's data files."""
    src = demo_dir()
    for name in (
        "disputed_territories.csv",
        "countries_info.json",
        "prompts_q_mc.en-control.txt",
        "choices.en-control.txt",
    ):
        shutil.copy(src / name, root / name)
    for folder in ("prompts_mc_q", "terms"):
        shutil.copytree(src / folder, root / folder)
    return root


def _total(stdout: str) -> tuple[int, float]:
    m = re.search(r"suite total: ([\d,]+) calls to make; at most \$([\d,.]+)", stdout)
    assert m, stdout[-2000:]
    return int(m.group(1).replace(",", "")), float(m.group(2).replace(",", ""))


def _dry(config, out, *args):
    res = invoke_cli("run", str(config), "--out", str(out), "--dry-run", *args)
    assert res.returncode == 0, res.stderr[-2000:]
    return res.stdout


@pytest.mark.slow
def test_dry_runs_on_a_small_borderlines_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("BORDIR_CACHE", str(tmp_path / "cache.sqlite3"))
    (tmp_path / "borderlines").mkdir()
    data = _borderlines_layout(tmp_path / "borderlines")
    out = _dry(BORDERLINES, tmp_path / "o1", "--dataset-path", str(data))
    assert out.count("== gpt4-") == 4 and "openai/gpt-4-0613:" in out
    calls, cost = _total(out)
    queries = int(re.search(r"openai/gpt-4-0613: ([\d,]+) calls", out).group(1).replace(",", ""))
    assert calls == 4 * queries and cost > 0
    corpus = tmp_path / "passages.jsonl"
    shutil.copy(demo_dir() / "corpus" / "passages.jsonl", corpus)
    out = _dry(BORDIRLINES, tmp_path / "o2", "--dataset-path", str(data), "--corpus", str(corpus))
    assert "== direct" in out and "== citation" in out
    assert "prompts sized with bm25 retrieval instead of openai/text-embedding-3-large" in out
    for model in ("openai/gpt-4o:", "cohere/command-r-08-2024:", "cohere/command-r7b-12-2024:"):
        assert model in out
    calls, cost = _total(out)
    assert calls > 0 and cost > 0
    out = _dry(BORDERLINES, tmp_path / "o3", "--dataset-path", str(data), "--only", "gpt4-un")
    assert out.count("== gpt4-") == 1


@pytest.mark.slow  # the real BorderLines files, two whole dry runs
def test_dry_runs_on_the_real_borderlines_data(shared_borderlines, tmp_path, monkeypatch):
    monkeypatch.setenv("BORDIR_CACHE", str(tmp_path / "cache.sqlite3"))
    out = _dry(BORDERLINES, tmp_path / "o1", "--dataset-path", str(shared_borderlines))
    assert out.count("openai/gpt-4-0613: 720 calls") == 4  # every query, once per role
    calls, cost = _total(out)
    assert calls == 4 * 720 and cost > 0
    corpus = tmp_path / "passages.jsonl"
    # a corpus covering a few territories
    shutil.copy(demo_dir() / "corpus" / "passages.jsonl", corpus)
    out = _dry(
        BORDIRLINES,
        tmp_path / "o2",
        "--dataset-path",
        str(shared_borderlines),
        "--corpus",
        str(corpus),
    )
    calls, cost = _total(out)
    assert calls > 0 and cost > 0 and "dropped" in out  # no documents for most territories: counted
