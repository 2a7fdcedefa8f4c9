"""The experiment runner: configs, the responses table, resuming, dry runs (mock backend: logic only).

Real-backend runs are in test_experiment_resume.py (loopback OpenAI server) and test_demo_run.py (local model).
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from bordir.errors import ConfigError, DataError
from bordir.experiment.config import ExperimentConfig, load_config
from bordir.experiment.seeds import PAPER_SEEDS
from bordir.runner.dry_run import dry_run
from bordir.runner.rows import RESPONSE_COLUMNS
from bordir.runner.run import run_experiment

from ..conftest import invoke_cli


def _cfg(tmp_path, **kw):
    base = {"models": ["mock/first"], "runs": 2, "k": 3, "cache": str(tmp_path / "cache.sqlite3")}
    return ExperimentConfig.from_dict({**base, **kw})


def test_config_defaults_follow_the_paper():
    cfg = ExperimentConfig()
    assert (
        cfg.seeds == PAPER_SEEDS and len(cfg.seeds) == 10 and cfg.temperature == 0.5 and cfg.k == 10
    )
    assert cfg.modes == ("no_ir", "qlang", "qlang+en", "en_only", "rel_langs", "swap_docs")


def test_config_file_errors_name_the_file_and_field(tmp_path):
    p = tmp_path / "exp.toml"
    p.write_text('[experiment]\nk = "ten"\n')
    with pytest.raises(ConfigError, match=r"exp.toml: field 'k': expected an integer >= 1"):
        load_config(p)
    p.write_text("[experiment]\nmodels = [\n")
    with pytest.raises(DataError, match="invalid TOML"):
        load_config(p)
    p.write_text("[experiment]\nmodel = 'x'\n")
    with pytest.raises(ConfigError, match="unknown field"):
        load_config(p)
    p.write_text("[experiment]\nmodes = ['qlang', 'bogus']\n")
    with pytest.raises(ConfigError, match="unknown retrieval mode 'bogus'"):
        load_config(p)


def test_cli_overrides(tmp_path):
    p = tmp_path / "exp.toml"
    p.write_text('[experiment]\nmodels = ["mock/first"]\nk = 5\n')
    cfg = load_config(p).override(k=2, modes="qlang,rel_langs", runs=3)
    assert (cfg.k, cfg.modes, len(cfg.seeds)) == (2, ("qlang", "rel_langs"), 3)


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("run")
    cfg = _cfg(tmp)
    out = run_experiment(cfg, tmp / "run", progress=False)
    return cfg, out


@pytest.mark.slow
def test_one_row_per_query_mode_model_run(demo_run):
    cfg, out = demo_run
    df = pd.read_parquet(out / "responses.parquet")
    assert list(df.columns) == RESPONSE_COLUMNS
    assert not df.duplicated(["query_id", "mode", "model", "run"]).any()
    info = json.loads((out / "run.json").read_text())
    n_q = info["queries"]
    skipped = len(info["skipped"])
    assert len(df) == (n_q * len(cfg.modes) - skipped) * len(cfg.seeds)
    assert {s["mode"] for s in info["skipped"]} == {"swap_docs"}
    # documents in the prompt are the mode's, numbered from 0
    row = df[(df["mode"] == "rel_langs") & (df["query_id"] == "Crimea_uk")].iloc[0]
    assert set(row["doc_langs"]) <= {"ru", "uk", "en"} and len(row["doc_ids"]) == 3
    assert "Document: 0" in row["prompt"] and "Document: 2" in row["prompt"]
    assert row["outcome"] == "answered" and row["choice"] == 0 and row["choice_name"] == "Russia"
    no_ir = df[df["mode"] == "no_ir"].iloc[0]
    assert len(no_ir["doc_ids"]) == 0 and "Document:" not in no_ir["prompt"]
    assert df["signature"].str.contains("gen:mock/first").all()


def test_run_json_records_provenance(demo_run):
    _, out = demo_run
    info = json.loads((out / "run.json").read_text())
    assert info["config"]["models"] == ["mock/first"]
    assert info["packages"]["bordir"] and info["packages"]["python"]
    assert info["dataset"]["signature"].startswith("data:demo|hash:sha256-")
    assert info["corpus"]["hash"].startswith("sha256-")
    assert info["retrieval"]["signature"].startswith("retrieval|ret:bm25|")
    assert info["started"] <= info["finished"]
    cost = {
        (c["model"], c["lang"]): c for c in info["cost"]
    }  # usage and cost per model and language
    assert cost[("mock/first", "uk")]["cost_usd"] == 0.0 and cost[("mock/first", "uk")]["calls"] > 0
    assert (out / "hits.parquet").is_file()


@pytest.mark.slow
def test_rerun_is_free_and_identical(demo_run, tmp_path):
    cfg, out = demo_run
    before = pd.read_parquet(out / "responses.parquet")
    run_experiment(cfg, out, progress=False)
    after = pd.read_parquet(out / "responses.parquet")
    info = json.loads((out / "run.json").read_text())
    assert info["calls"]["cached"] == info["calls"]["requests"]
    key = ["query_id", "mode", "model", "run"]
    pd.testing.assert_frame_equal(
        before.drop(columns=["cached", "latency_s"]).sort_values(key).reset_index(drop=True),
        after.drop(columns=["cached", "latency_s"]).sort_values(key).reset_index(drop=True),
    )


def test_unparsed_answers_stay_unparsed(tmp_path):
    out = run_experiment(
        _cfg(tmp_path, models=["mock/fixed:I would rather not say."], modes=["no_ir"], runs=1),
        tmp_path / "r",
        progress=False,
    )
    df = pd.read_parquet(out / "responses.parquet")
    assert set(df["outcome"]) <= {"unparsed", "refused"} and (df["choice"] == -1).all()


def test_language_filter(tmp_path):
    out = run_experiment(
        _cfg(tmp_path, langs=["uk", "ja"], modes=["qlang"], runs=1), tmp_path / "r", progress=False
    )
    df = pd.read_parquet(out / "responses.parquet")
    assert set(df["query_lang"]) == {"uk", "ja"}
    with pytest.raises(ConfigError, match="no queries in language"):
        run_experiment(_cfg(tmp_path, langs=["sw"]), tmp_path / "r2", progress=False)


@pytest.mark.slow
def test_dry_run_counts_calls_per_language(tmp_path):
    cfg = _cfg(tmp_path, models=["openai/gpt-4o-mini"], modes=["no_ir", "qlang"], runs=2)
    table = dry_run(cfg)
    assert set(table["model"]) == {"openai/gpt-4o-mini"}
    # two modes, two seeds, 34 queries; duplicate prompts (none here) would count once
    assert table["requests"].sum() == 34 * 2 * 2
    assert (table["max_cost_usd"] > 0).all()
    r = invoke_cli("run", str(_write(tmp_path, cfg)), "--out", str(tmp_path / "o"), "--dry-run")
    assert r.returncode == 0, r.stderr
    assert "gpt-4o-mini" in r.stdout and not (tmp_path / "o" / "responses.parquet").exists()


def _write(tmp_path, cfg):
    p = tmp_path / "exp.toml"
    lines = ["[experiment]"]
    for k, v in cfg.to_dict().items():
        if v is None:
            continue
        lines.append(f"{k} = {json.dumps(list(v) if isinstance(v, tuple) else v)}")
    p.write_text("\n".join(lines) + "\n")
    return p


@pytest.mark.slow
def test_cli_run_and_bad_config(tmp_path):
    cfg = _cfg(tmp_path, modes=["no_ir"], runs=1)
    r = invoke_cli("run", str(_write(tmp_path, cfg)), "--out", str(tmp_path / "o"))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "o" / "responses.parquet").is_file()
    bad = tmp_path / "bad.toml"
    bad.write_text("[experiment]\ntemperature = -1\n")
    r = invoke_cli("run", str(bad), "--out", str(tmp_path / "o2"))
    assert r.returncode == 2 and "Traceback" not in r.stderr and "temperature" in r.stderr


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
