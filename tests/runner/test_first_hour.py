"""Issue 25.1, 25.5 and 25.6: no silent default corpus; every dropped pair counted with its cause;
terminal summaries that fit; progress in a log; --limit, `bordir runs`, `bordir list`.

The BorderLines data is a small BorderLines-layout directory the tests write (the demo's files),
and the real files in ../shared/data/borderlines when they are there (skipped otherwise).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bordir.errors import ConfigError, DataError
from bordir.experiment.config import ExperimentConfig, load_config
from bordir.loaders.demo import demo_dir
from bordir.modes import SKIP_NO_TERRITORY, Mode

from ..conftest import invoke_cli

IR_MODES = [m.value for m in Mode if m is not Mode.NO_IR]


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> Path:
    """A BorderLines-layout directory (the demo's 12 territories, without a corpus of its own)."""
    root = tmp_path_factory.mktemp("bl") / "borderlines"
    shutil.copytree(
        demo_dir(), root, ignore=shutil.ignore_patterns("corpus", "embeddings", "README.md")
    )
    return root


@pytest.fixture(scope="module")
def crimea_corpus(tmp_path_factory) -> Path:
    """A passages file with the demo's Crimea passages only."""
    from bordir.corpus import load_corpus

    path = tmp_path_factory.mktemp("corpus") / "crimea.jsonl"
    rows = [
        {
            "doc_id": p.doc_id,
            "lang": p.lang,
            "territory": p.territory,
            "title": p.title,
            "text": p.text,
        }
        for p in load_corpus("demo")
        if p.territory == "Crimea"
    ]
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    return path


def _toml(path: Path, **fields) -> Path:
    lines = ["[experiment]"]
    for k, v in fields.items():
        lines.append(f"{k} = {json.dumps(v)}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# --- 25.1: no silent default corpus ----------------------------------------------------------


def test_a_borderlines_config_without_a_corpus_is_refused(small, tmp_path):
    cfg_path = _toml(tmp_path / "bl.toml", dataset="borderlines", dataset_path=str(small),
                     models=["mock/first"], runs=2)  # fmt: skip
    from bordir.runner.dry_run import dry_run

    with pytest.raises(ConfigError) as exc:
        dry_run(load_config(cfg_path))
    msg = str(exc.value)
    assert msg.startswith(f"{cfg_path}: field 'corpus': missing") and "--corpus PATH" in msg
    assert "corpus = 'demo'" in msg and "\n" not in msg
    out = invoke_cli("run", str(cfg_path), "--out", str(tmp_path / "r"), "--dry-run")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and "field 'corpus': missing" in out.stderr
    # the demo keeps its own corpus; no_ir needs none; the demo corpus on purpose is allowed
    assert ExperimentConfig.from_dict({"models": ["mock/first"]}).corpus is None
    ok = load_config(_toml(tmp_path / "noir.toml", dataset="borderlines", dataset_path=str(small),
                           models=["mock/first"], modes=["no_ir"], runs=1))  # fmt: skip
    assert len(dry_run(ok))
    # a demo config moved to another dataset does not take the demo corpus along
    moved = ExperimentConfig.from_dict({"models": ["mock/first"], "corpus": "demo"}).override(
        dataset="borderlines", dataset_path=str(small)
    )
    assert moved.corpus is None


def test_the_real_borderlines_grid_without_a_corpus_is_refused(shared_borderlines, tmp_path):
    cfg = _toml(tmp_path / "bl.toml", dataset="borderlines", dataset_path=str(shared_borderlines),
                models=["openai/gpt-4o", "openai/gpt-4o-mini", "cohere/command-r-08-2024"], runs=10)  # fmt: skip
    out = invoke_cli("run", str(cfg), "--out", str(tmp_path / "r"), "--dry-run")
    assert out.returncode == 2 and "field 'corpus': missing" in out.stderr


def test_a_missing_corpus_path_is_not_found_with_the_file_and_the_field(tmp_path):
    cfg_path = _toml(tmp_path / "exp.toml", models=["mock/first"], corpus="corpus/", runs=1)
    out = invoke_cli("run", str(cfg_path), "--out", str(tmp_path / "r"))
    assert out.returncode == 2
    assert f"{cfg_path}: field 'corpus': 'corpus/' not found" in out.stderr
    # the dry run prices a corpus not fetched yet, saying so (issue 51.1)
    out = invoke_cli("run", str(cfg_path), "--out", str(tmp_path / "r"), "--dry-run")
    assert out.returncode == 0, out.stderr
    assert "'corpus/' does not exist yet" in out.stdout
    with pytest.raises(DataError, match=r"corpus: not found"):
        import bordir

        bordir.load_corpus("corpus/")


def _expected_kept(ds, covered: set[str]) -> int:
    """IR (query, mode) pairs with documents, counted from the definitions (not from the grid)."""
    from bordir.modes import swap_skip_reason

    kept = 0
    for q in ds.queries:
        if q.territory not in covered:
            continue
        for mode in IR_MODES:
            if mode == "swap_docs" and swap_skip_reason(q, ds) is not None:
                continue
            kept += 1
    return kept


def test_the_dry_run_counts_every_dropped_pair_and_prices_the_real_grid(
    small, crimea_corpus, tmp_path
):
    from bordir.loaders.borderlines_files import load_borderlines_files
    from bordir.runner.dry_run import dry_run

    cfg = load_config(_toml(tmp_path / "bl.toml", dataset="borderlines", dataset_path=str(small),
                            corpus=str(crimea_corpus), models=["mock/first"], runs=3))  # fmt: skip
    table = dry_run(cfg)
    ds = load_borderlines_files(small)
    n = len(ds.queries)
    kept = _expected_kept(ds, {"Crimea"})
    dropped = table.attrs["dropped"]
    assert table.attrs["pairs"] == n * 6 and len(dropped) == n * 5 - kept
    causes = {r for _, _, r in dropped}
    assert SKIP_NO_TERRITORY in causes
    for qid, _, reason in dropped:  # the cause is the real one: the territory is not in the corpus
        if reason == SKIP_NO_TERRITORY:
            assert ds.query(qid).territory != "Crimea"
    # the cost is the cost of the grid as it runs: one request per kept pair and run
    assert int(table["requests"].sum()) == (n + kept) * 3
    out = invoke_cli("run", str(tmp_path / "bl.toml"), "--out", str(tmp_path / "r"), "--dry-run")
    assert out.returncode == 0, out.stderr
    tail = out.stdout.splitlines()
    assert any(
        l.startswith(f"dropped {len(dropped):,} of {n * 6:,} (query, mode) pairs:") for l in tail
    )
    assert "no passage about the territory" in " ".join(tail)
    verbose = invoke_cli(
        "run", str(tmp_path / "bl.toml"), "--out", str(tmp_path / "r"), "--dry-run", "--verbose"
    )
    assert any(
        "the corpus has no passage about this territory" in l for l in verbose.stdout.splitlines()
    )


def test_the_real_grid_on_the_demo_corpus_counts_694_territories_per_mode(
    shared_borderlines, tmp_path
):
    """The issue's grid: BorderLines with the 12-territory demo corpus, now on purpose and counted."""
    from bordir.corpus import load_corpus
    from bordir.runner.dry_run import dry_run

    cfg = load_config(_toml(tmp_path / "bl.toml", dataset="borderlines",
                            dataset_path=str(shared_borderlines), corpus="demo",
                            models=["openai/gpt-4o-mini"], runs=10))  # fmt: skip
    table = dry_run(cfg)
    covered = set(load_corpus("demo").territories)
    from bordir.loaders.borderlines_files import load_borderlines_files

    ds = load_borderlines_files(shared_borderlines)
    outside = sum(q.territory not in covered for q in ds.queries)
    by_mode: dict[str, int] = {}
    for _, mode, reason in table.attrs["dropped"]:
        if reason == SKIP_NO_TERRITORY:
            by_mode[mode] = by_mode.get(mode, 0) + 1
    assert outside == 694
    assert all(by_mode[m] == outside for m in ("qlang", "qlang+en", "en_only", "rel_langs"))
    kept = _expected_kept(ds, covered)
    assert int(table["requests"].sum()) == (len(ds.queries) + kept) * 10


# --- 25.1 / 25.5: the run's summary and the report's top -----------------------------------


def _assert_fits(text: str, lines: int = 25, width: int = 100) -> list[str]:
    out = [l for l in text.splitlines()]
    while out and not out[0].strip():
        out.pop(0)
    assert len(out) <= lines, f"{len(out)} lines:\n" + text
    too_wide = [l for l in out if len(l) > width]
    assert not too_wide, too_wide
    return out


@pytest.mark.slow  # a whole run, report, testbed or audit
def test_bordir_run_ends_with_a_summary_that_fits_and_counts_the_drops(
    small, crimea_corpus, tmp_path
):
    cfg = _toml(tmp_path / "bl.toml", dataset="borderlines", dataset_path=str(small),
                corpus=str(crimea_corpus), models=["mock/first"], runs=2,
                cache=str(tmp_path / "c.sqlite3"))  # fmt: skip
    out = invoke_cli("run", str(cfg), "--out", str(tmp_path / "run"), "--no-progress")
    assert out.returncode == 0, out.stderr
    lines = _assert_fits(out.stdout)
    assert any(l.startswith("dropped ") and "(query, mode) pairs" in l for l in lines)
    assert any("the corpus has no passage about this territory" in l for l in lines)
    info = json.loads((tmp_path / "run" / "run.json").read_text(encoding="utf-8"))
    assert len(info["skipped"]) > 0
    from bordir.report import build_report

    build_report(tmp_path / "run", n_resamples=50, plots=False)
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text(encoding="utf-8"))
    dropped = metrics["summary"]["dropped"]
    assert dropped["n"] == len(info["skipped"]) and dropped["pairs"] == info["queries"] * 6
    assert any(c["cause"] == SKIP_NO_TERRITORY for c in dropped["causes"])
    assert not any("the mode is undefined" in w for w in metrics["warnings"])
    html = (tmp_path / "run" / "report.html").read_text(encoding="utf-8")
    assert html.index('id="summary"') < html.index('id="tables"')
    assert "the corpus has no passage about this territory" in html.split('id="tables"')[0]


@pytest.mark.slow  # a whole run, report, testbed or audit
def test_the_report_summary_fits_the_terminal(demo_run_mock, tmp_path):
    from bordir.cli.report import print_summary  # noqa: F401 - the printer bordir demo uses
    from bordir.report.summary import summary_lines

    saved = tmp_path / "run"
    demo_run_mock.save(saved)
    out = invoke_cli("report", str(saved), "--resamples", "50", "--no-plots")
    assert out.returncode == 0, out.stderr
    _assert_fits(out.stdout)
    metrics = json.loads((saved / "metrics.json").read_text(encoding="utf-8"))
    assert metrics["summary"]["cannot_judge"]  # 12 territories: intervals under-cover
    assert all(len(l) <= 100 for l in summary_lines(metrics))


@pytest.mark.slow  # a whole run, report, testbed or audit
def test_testbed_and_audit_summaries_fit(tmp_path):
    out = invoke_cli("testbed", "noise", "--data", "demo", "--model", "mock/first", "--out",
                     str(tmp_path / "tb"), "--no-progress", "--resamples", "50")  # fmt: skip
    assert out.returncode == 0, out.stderr
    _assert_fits(out.stdout)
    from ..audit.test_audit_planted import make_records, write_jsonl

    logs = write_jsonl(make_records(600, seed=2, biased={"sw": "*"}), tmp_path / "logs.jsonl")
    out = invoke_cli("audit", str(logs), "--out", str(tmp_path / "aud"), "--no-plots",
                     "--resamples", "200")  # fmt: skip
    assert out.returncode == 0, out.stderr
    _assert_fits(out.stdout)


def test_the_documented_demo_output_fits():
    """The demo's summary as docs/experiments.md shows it (the docs test compares it with a fresh run)."""
    from ..docblocks import REPO, blocks

    demo = [
        b for b in blocks(REPO / "docs" / "experiments.md") if b.body.startswith("$ bordir demo\n")
    ]
    assert demo, "docs/experiments.md shows the output of `bordir demo`"
    body = demo[0].body.split("\n", 1)[1]
    _assert_fits(body)


# --- 25.5: progress in a log ------------------------------------------------------------------


@pytest.mark.slow
def test_progress_lines_when_stderr_is_not_a_terminal(tmp_path):
    cfg = _toml(
        tmp_path / "exp.toml", models=["mock/first"], runs=3, cache=str(tmp_path / "c.sqlite3")
    )
    # a line at most every 5 % of the work once 0.05 s have passed, or after 0.3 s without 5 %
    env = {**os.environ, "BORDIR_PROGRESS_EVERY": "0.05"}
    env.pop("BORDIR_PROGRESS", None)
    r = subprocess.run(
        [sys.executable, "-m", "bordir", "run", str(cfg), "--out", str(tmp_path / "run")],
        capture_output=True, text=True, env=env, timeout=600,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    lines = [l for l in r.stderr.splitlines() if "ETA" in l or "elapsed" in l]
    assert lines, r.stderr[-2000:]
    assert any("%" in l and "ETA" in l for l in lines)
    assert "\r" not in r.stderr  # plain lines, no terminal bar
    per_bar: dict[str, int] = {}
    for l in lines:
        per_bar[l.split(":")[0]] = per_bar.get(l.split(":")[0], 0) + 1
    # one every 5 % of the work and a last one (22), and one after each 0.3 s without 5 %: the
    # model's one bar over every mode (492 calls, about 0.5 s) leaves room for ten on a busy machine
    assert max(per_bar.values()) <= 32, per_bar


def test_short_work_in_a_log_prints_nothing(monkeypatch, capsys):
    from bordir._progress import LineProgress, progress_bar

    monkeypatch.delenv("BORDIR_PROGRESS", raising=False)
    bar = progress_bar(None, total=10, desc="short")
    assert isinstance(bar, LineProgress)
    for _ in range(10):
        bar.update(1)
    bar.close()
    assert capsys.readouterr().err == ""


# --- 25.6: --limit, bordir runs, bordir list --------------------------------------------------


def test_limit_keeps_the_first_territories_and_is_in_the_signature(tmp_path):
    import bordir
    from bordir.loaders.demo import load_demo

    run = bordir.run({"models": ["mock/first"], "modes": ["no_ir"], "runs": 1, "limit": 2},
                     cache=tmp_path / "c.sqlite3", progress=False)  # fmt: skip
    first = {t.name for t in load_demo().territories[:2]}
    assert set(run.responses["territory"]) == first
    assert run.responses["signature"].str.contains("|limit:2|").all()
    with pytest.raises(ConfigError, match="field 'limit'"):
        ExperimentConfig.from_dict({"limit": 0})
    full = bordir.run({"models": ["mock/first"], "modes": ["no_ir"], "runs": 1},
                      cache=tmp_path / "c.sqlite3", progress=False)  # fmt: skip
    assert not full.responses["signature"].str.contains("limit:").any()


@pytest.mark.slow  # a whole run, report, testbed or audit
def test_bordir_runs_is_a_leaderboard(demo_run_mock, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    demo_run_mock.save(a)
    demo_run_mock.save(b)
    out = invoke_cli("runs", str(a), str(b), "--sort", "cst_cs")
    assert out.returncode == 0, out.stderr
    head = out.stdout.splitlines()[0].split()
    assert head[:4] == ["run", "model", "mode", "runs"] and "ΔCS" in head
    rows = [l for l in out.stdout.splitlines()[2:] if l.startswith((str(a), str(b)))]
    assert len(rows) == 2 * 3  # two directories × three modes
    import re

    cells = [re.split(r"\s{2,}", l.strip()) for l in rows]
    col = re.split(r"\s{2,}", out.stdout.splitlines()[0].strip()).index("Cst CS")
    cst = [float(c[col].split()[0]) for c in cells]
    assert cst == sorted(cst, reverse=True)  # --sort cst_cs: highest first
    js = invoke_cli("runs", str(a), "--json")
    doc = json.loads(js.stdout)
    assert {r["metric"] for r in doc} == {"kb_cs", "cst_cs", "delta_cs"}
    assert all(r["signature"] and r["run"] == str(a) for r in doc)
    bad = invoke_cli("runs", str(tmp_path / "nothing"))
    assert bad.returncode == 2


@pytest.mark.parametrize(
    ("what", "names"),
    [
        ("prompts", {"direct", "citation"}),
        ("systems", {"vanilla", "un", "nationalist"}),
        ("strategies", {"complex", "negative", "coverage", "baseline"}),
        ("testbeds", {"noise", "rejection", "integration", "counterfactual"}),
    ],
)
def test_bordir_list_prompts_systems_strategies_testbeds(what, names):
    out = invoke_cli("list", what, "--json")
    assert out.returncode == 0, out.stderr
    assert names <= {r["name"] for r in json.loads(out.stdout)}


def test_a_dry_run_reads_the_cache_and_never_creates_one(tmp_path, monkeypatch):
    """`--dry-run` calls nothing and writes nothing: without a cache file it creates none (it made
    an empty ``$BORDIR_CACHE/responses.sqlite3``, the user's ``~/.cache/bordir`` by default); with
    one, the calls it holds count as cached."""
    import bordir
    from bordir.runner.dry_run import dry_run

    monkeypatch.setenv("BORDIR_CACHE", str(tmp_path / "default"))
    cfg = ExperimentConfig.from_dict(
        {"models": ["mock/first"], "modes": ["no_ir"], "runs": 1, "langs": ["uk"]}
    )
    cold = dry_run(cfg)
    assert int(cold["calls"].sum()) > 0 and int(cold["cached"].sum()) == 0
    assert not (tmp_path / "default").exists()
    bordir.run(cfg, progress=False)  # the default cache, now created by a real run
    warm = dry_run(cfg)
    assert int(warm["cached"].sum()) == int(cold["calls"].sum())
    assert (tmp_path / "default" / "responses.sqlite3").is_file()
