"""Dry runs that never understate (issue 51.1): partial totals labelled, the rest estimated under a
stated assumption, a corpus not fetched yet priced offline, power on the pairs served, no two-mode
power table for a one-mode design, and a default output that fits 25 lines.

The BorderLines data is a small BorderLines-layout directory the tests write (the demo's files) and
the real files in ../shared/data/borderlines when they are there (skipped otherwise).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bordir.experiment.config import ExperimentConfig, load_config
from bordir.modes import SKIP_NO_TERRITORY, swap_skip_reason
from bordir.runner.dry_run import ASSUMED_PASSAGE_CHARS, dry_run

from ..conftest import invoke_cli
from .conftest import experiment_toml

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "data" / "borderlines"


_toml = experiment_toml


def _dry(*args: str) -> list[str]:
    res = invoke_cli("run", *args, "--dry-run")
    assert res.returncode == 0, res.stderr[-2000:]
    return res.stdout.splitlines()


def test_a_partial_total_is_labelled_and_the_pairs_without_passages_are_estimated(
    small, crimea_corpus, tmp_path, monkeypatch
):
    monkeypatch.setenv("BORDIR_CACHE", str(tmp_path / "cache.sqlite3"))
    cfg_path = _toml(tmp_path / "bl.toml", dataset="borderlines", dataset_path=str(small),
                     corpus=str(crimea_corpus), models=["openai/gpt-4o-mini"], runs=3, k=4)  # fmt: skip
    table = dry_run(load_config(cfg_path))
    waiting = [d for d in table.attrs["dropped"] if d[2] == SKIP_NO_TERRITORY]
    u = table.attrs["unserved"]
    assert u is not None and u.pairs == len(waiting) > 0
    assert u.calls == u.pairs * 3  # every pair without passages, every run, one model
    assert u.max_cost_usd is not None and u.max_cost_usd > 0
    assert "k = 4" in u.assumption and f"{ASSUMED_PASSAGE_CHARS}" in u.assumption
    assert table.attrs["served"] == table.attrs["pairs"] - len(table.attrs["dropped"])
    out = _dry(str(cfg_path), "--out", str(tmp_path / "r"))
    total = next(line for line in out if line.startswith("total: "))
    assert f"for {table.attrs['served']:,} of {table.attrs['pairs']:,} pairs (partial)" in total
    text = " ".join(out)
    assert f"{u.calls:,} calls, at most $" in text and "(assumed)" in text
    assert len(out) <= 25 and all(len(line) <= 100 for line in out)


def test_a_complete_total_is_not_marked_partial(tmp_path, monkeypatch):
    monkeypatch.setenv("BORDIR_CACHE", str(tmp_path / "cache.sqlite3"))
    cfg_path = _toml(tmp_path / "d.toml", models=["mock/first"], modes=["no_ir", "qlang"], runs=2)
    table = dry_run(load_config(cfg_path))
    assert table.attrs["unserved"] is None
    total = next(
        l for l in _dry(str(cfg_path), "--out", str(tmp_path / "r")) if l.startswith("total")
    )
    assert "partial" not in total


def test_a_corpus_not_fetched_yet_is_priced_offline_under_a_stated_assumption(
    small, tmp_path, monkeypatch
):
    monkeypatch.setenv("BORDIR_CACHE", str(tmp_path / "cache.sqlite3"))
    cfg_path = _toml(tmp_path / "bl.toml", dataset="borderlines", dataset_path=str(small),
                     corpus=str(tmp_path / "corpus-not-yet"), models=["openai/gpt-4o-mini"],
                     modes=["no_ir", "qlang", "swap_docs"], runs=2)  # fmt: skip
    table = dry_run(load_config(cfg_path))
    from bordir.loaders.borderlines_files import load_borderlines_files

    ds = load_borderlines_files(small)
    swap_defined = sum(swap_skip_reason(q, ds) is None for q in ds.queries)
    u = table.attrs["unserved"]
    assert u.corpus_missing and u.pairs == len(ds.queries) + swap_defined
    assert u.calls == u.pairs * 2
    # the power assumes the corpus will serve what it is fetched for
    assert table.attrs["power_queries"] == len(ds.queries)
    out = " ".join(_dry(str(cfg_path), "--out", str(tmp_path / "r")))
    assert "the corpus does not exist yet" in out and "(assumed)" in out
    assert not (tmp_path / "corpus-not-yet").exists()
    # the run refuses it, with the whole command that fetches it (issue 51.9)
    res = invoke_cli("run", str(cfg_path), "--out", str(tmp_path / "r"))
    assert res.returncode == 2 and "Traceback" not in res.stderr
    fetch = (f"bordir corpus fetch --dataset borderlines --path {small} --as-of 2023-05-15 "
             f"--out {tmp_path / 'corpus-not-yet'}")  # fmt: skip
    assert fetch in res.stderr and fetch in " ".join(out.split())


def test_power_counts_the_pairs_served_and_a_one_mode_design_has_no_power_table(
    small, crimea_corpus, tmp_path, monkeypatch
):
    monkeypatch.setenv("BORDIR_CACHE", str(tmp_path / "cache.sqlite3"))
    cfg_path = _toml(tmp_path / "bl.toml", dataset="borderlines", dataset_path=str(small),
                     corpus=str(crimea_corpus), models=["mock/first"], runs=1)  # fmt: skip
    table = dry_run(load_config(cfg_path))
    from bordir.loaders.borderlines_files import load_borderlines_files

    crimea = [q for q in load_borderlines_files(small).queries if q.territory == "Crimea"]
    dropped = {(q, m) for q, m, _ in table.attrs["dropped"]}
    assert all((q.query_id, "qlang") not in dropped for q in crimea)
    # with no_ir, a query served in one IR mode enters a paired comparison: Crimea's only
    assert table.attrs["power_queries"] == len(crimea)
    kb = next(r for r in table.attrs["power"] if r["query_lang"] == "*" and r["metric"] == "kb_cs")
    assert kb["n_territories"] <= 1  # only Crimea has passages
    one = _toml(tmp_path / "one.toml", dataset="borderlines", dataset_path=str(small),
                models=["mock/first"], modes=["no_ir"], runs=1)  # fmt: skip
    assert dry_run(load_config(one)).attrs["power"] == []
    out = _dry(str(one), "--out", str(tmp_path / "r1"))
    assert any(l.startswith("power: one mode (no_ir)") for l in out)
    assert not any("power per query language" in l for l in out)


def test_verbose_adds_the_per_language_tables(small, crimea_corpus, tmp_path, monkeypatch):
    monkeypatch.setenv("BORDIR_CACHE", str(tmp_path / "cache.sqlite3"))
    cfg_path = _toml(tmp_path / "bl.toml", dataset="borderlines", dataset_path=str(small),
                     corpus=str(crimea_corpus), models=["mock/first"], runs=1)  # fmt: skip
    short = _dry(str(cfg_path), "--out", str(tmp_path / "r"))
    long = _dry(str(cfg_path), "--out", str(tmp_path / "r"), "--verbose")
    assert not any(l.startswith("model ") for l in short)
    assert any(l.startswith("model ") and "max_cost_usd" in l for l in long)
    assert any(l.startswith("power per query language") for l in long)
    assert any(l.startswith("dropped ") for l in long) and len(long) > len(short)


@pytest.mark.slow
@pytest.mark.skipif(not SHARED.is_dir(), reason="needs ../shared/data/borderlines")
@pytest.mark.parametrize("config", ["borderlines-2023", "bordirlines-2024"])
def test_the_paper_suites_dry_runs_fit_25_lines_and_say_what_is_partial(
    config, tmp_path, monkeypatch
):
    monkeypatch.setenv("BORDIR_CACHE", str(tmp_path / "cache.sqlite3"))
    out = _dry(str(REPO / "configs" / f"{config}.toml"), "--out", str(tmp_path / "o"),
               "--dataset-path", str(SHARED), "--corpus", "demo")  # fmt: skip
    assert len(out) <= 25, "\n".join(out)
    assert all(len(line) <= 100 for line in out), "\n".join(out)
    m = re.search(r"suite total: ([\d,]+) calls to make; at most \$([\d,.]+)", "\n".join(out))
    assert m
    totals = [l for l in out if l.startswith("total: ")]
    if config == "bordirlines-2024":  # the demo corpus serves 843 of 4,320 pairs
        assert totals and all("(partial)" in l for l in totals)
        assert "for the pairs served" in "\n".join(out)
        assert not any("one mode" in l for l in out)
    else:  # one mode (no_ir) and every pair served
        assert all("partial" not in l for l in totals)
        assert sum(l.startswith("power: one mode (no_ir)") for l in out) == 4


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
