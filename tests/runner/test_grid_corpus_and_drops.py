"""Issue 25.1 and 25.5: no silent default corpus; the real grid's dry run and `bordir run` count
every dropped (query, mode) pair with its cause, in a summary that fits and in the report's top.

The BorderLines data is a small BorderLines-layout directory the tests write (the demo's files),
and the real files in ../shared/data/borderlines when they are there (skipped otherwise).
"""

from __future__ import annotations

import json

import pytest

from bordir.errors import ConfigError, DataError
from bordir.experiment.config import ExperimentConfig, load_config
from bordir.modes import SKIP_NO_TERRITORY, Mode

from ..cli.test_summaries_fit import _assert_fits
from ..conftest import invoke_cli
from .conftest import experiment_toml

IR_MODES = [m.value for m in Mode if m is not Mode.NO_IR]


_toml = experiment_toml


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
