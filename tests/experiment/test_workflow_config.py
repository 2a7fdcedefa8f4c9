"""Issue 14.7: bad config values are refused at load, naming the config file and the field."""

from __future__ import annotations

import pytest

from bordir.errors import ConfigError
from bordir.experiment.config import Experiment, ExperimentConfig, Operational, load_config


def _load(tmp_path, body: str):
    path = tmp_path / "exp.toml"
    path.write_text(body, encoding="utf-8")
    return load_config(path), path


@pytest.mark.parametrize(
    ("line", "field", "expected"),
    [
        ('balanced = "no"', "balanced", "true or false"),
        ("repair = 1", "repair", "true or false"),
        ("k = true", "k", "an integer >= 1"),
        ("k = 2.5", "k", "an integer >= 1"),
        ("temperature = nan", "temperature", "a finite number >= 0"),
        ("temperature = inf", "temperature", "a finite number >= 0"),
        ("temperature = -0.1", "temperature", "a finite number >= 0"),
        ("temperature = true", "temperature", "a finite number >= 0"),
        ("seeds = []", "seeds", "a non-empty list"),
        ("seeds = [1, 1]", "seeds", "distinct integers"),
        ("seeds = [1, true]", "seeds", "a list of integers"),
        ("runs = 0", "runs", "an integer >= 1"),
        ("runs = -3", "runs", "an integer >= 1"),
        ("models = [1]", "models", "a list of non-empty strings"),
        ("models = []", "models", "at least one"),
        ("modes = []", "modes", "at least one mode"),
        ("cache = 5", "cache", "a non-empty string"),
        ("concurrency = 0", "concurrency", "an integer >= 1"),
        ("timeout = 0", "timeout", "a positive number of seconds"),
        ("deadline = -1", "deadline", "a positive number of seconds"),
        ("request_deadline = 0", "request_deadline", "a positive number of seconds"),
        ("max_retries = -1", "max_retries", "an integer >= 0"),
        ("max_consecutive_failures = 0", "max_consecutive_failures", "an integer >= 1"),
        ('fusion = "sum"', "fusion", "raw, minmax or rrf"),
        ('retriever = "tfidf"', "retriever", "one of bge-m3, bm25"),
        ('system = "skeptic"', "system", "one of input_demo, nationalist, un, vanilla"),
        ('dataset = "mmlu"', "dataset", "one of borderlines, demo"),
        ("temperature = 50", "temperature", "a number from 0 to 2"),
        ("temperature = 2.01", "temperature", "a number from 0 to 2"),
        ("k = 100000000000000000", "k", "an integer from 1 to 1,000"),
        ("k = 1001", "k", "an integer from 1 to 1,000"),
        ("concurrency = 1000000", "concurrency", "an integer from 1 to 10,000"),
        ("max_tokens = 10000000", "max_tokens", "an integer from 1 to 1,000,000"),
    ],
)
def test_bad_values_name_file_and_field(tmp_path, line, field, expected):
    with pytest.raises(ConfigError) as exc:
        _load(tmp_path, f"[experiment]\n{line}\n")
    msg = str(exc.value)
    assert msg.startswith(str(tmp_path / "exp.toml") + f": field {field!r}: expected {expected}"), (
        msg
    )


def test_names_are_checked(tmp_path):
    with pytest.raises(
        ConfigError,
        match=r"exp.toml: field 'models': 'nope/x' is not provider/model with a known "
        r"provider; providers: cohere, local, mock",
    ):
        _load(tmp_path, '[experiment]\nmodels = ["nope/x"]\n')
    with pytest.raises(
        ConfigError, match=r"exp.toml: field 'modes': unknown retrieval mode 'all_langs'"
    ):
        _load(tmp_path, '[experiment]\nmodes = ["all_langs"]\n')
    with pytest.raises(ConfigError, match=r"exp.toml: field 'langs': languages/ has no entry 'qq'"):
        _load(tmp_path, '[experiment]\nlangs = ["qq"]\n')


def test_keys_outside_the_experiment_table_are_refused(tmp_path):
    with pytest.raises(
        ConfigError, match=r"exp.toml: key\(s\) k, models outside \[experiment\] would be ignored"
    ):
        _load(tmp_path, 'k = 3\nmodels = ["mock/first"]\n[experiment]\nruns = 2\n')
    cfg, _ = _load(
        tmp_path, 'k = 3\nmodels = ["mock/first"]\n'
    )  # no table: top-level keys are the config
    assert cfg.k == 3


def test_dry_run_refuses_an_unknown_provider(tmp_path):
    from bordir.cli import main as cli_main

    path = tmp_path / "exp.toml"
    path.write_text('[experiment]\nmodels = ["opneai/gpt-4o"]\n', encoding="utf-8")
    assert cli_main(["run", str(path), "--out", str(tmp_path / "o"), "--dry-run"]) == 2


def test_results_and_operational_settings_are_split():
    cfg = ExperimentConfig.from_dict(
        {
            "models": ["mock/first"],
            "k": 3,
            "concurrency": 2,
            "timeout": 30,
            "max_retries": 1,
            "cache": "/tmp/c.sqlite3",
        }
    )
    assert cfg.experiment == Experiment(models=("mock/first",), k=3)
    assert cfg.operational == Operational(
        concurrency=2, timeout=30.0, max_retries=1, cache="/tmp/c.sqlite3"
    )
    assert (
        repr(cfg.operational)
        == "Operational(concurrency=2, cache='/tmp/c.sqlite3', timeout=30.0, max_retries=1)"
    )
    assert cfg.k == 3 and cfg.timeout == 30.0
    flat = cfg.to_dict()
    assert ExperimentConfig.from_dict(flat) == cfg and hash(
        ExperimentConfig.from_dict(flat)
    ) == hash(cfg)
    with pytest.raises(TypeError):
        Experiment("demo")  # keyword-only
    # operational settings never reach a signature
    import bordir

    a = bordir.run(
        {"models": ["mock/first"], "modes": "no_ir", "runs": 1, "concurrency": 1},
        progress=False,
        cache=_tmp_cache(),
    )
    b = bordir.run(
        {"models": ["mock/first"], "modes": "no_ir", "runs": 1, "concurrency": 7, "timeout": 9},
        progress=False,
        cache=_tmp_cache(),
    )
    assert a.responses["signature"].iloc[0] == b.responses["signature"].iloc[0]


def _tmp_cache() -> str:
    import tempfile

    return tempfile.mkdtemp() + "/c.sqlite3"


def test_the_upper_bounds_themselves_are_accepted(tmp_path):
    cfg, _ = _load(tmp_path, "[experiment]\ntemperature = 2\nk = 1000\nconcurrency = 10000\n")
    assert (cfg.temperature, cfg.k, cfg.concurrency) == (2.0, 1000, 10000)


def test_the_request_deadline_reaches_the_executor(tmp_path):
    cfg, _ = _load(tmp_path, "[experiment]\ntimeout = 20\nrequest_deadline = 90\n")
    opts = cfg.operational.executor_options()
    assert (opts.timeout, opts.request_deadline) == (20.0, 90.0)


@pytest.mark.parametrize(
    ("body", "args", "said"),
    [
        ('modes = ["no_ir", "qlang"]\nresponse_format = "citation"\n', (), "includes no_ir"),
        ('response_format = "citation"\n', (), "is not set, so every mode runs, no_ir too"),
        ('modes = ["no_ir"]\n', ("--response-format", "citation"), "includes no_ir"),
    ],
)
def test_the_citation_format_without_documents_names_file_and_field(tmp_path, body, args, said):
    """Before: `the citation format needs documents; use response_format='direct' with no_ir=True`."""
    from ..conftest import invoke_cli

    cfg = tmp_path / "experiment.toml"
    cfg.write_text('[experiment]\nmodels = ["mock/first"]\n' + body, encoding="utf-8")
    res = invoke_cli("run", str(cfg), "--out", str(tmp_path / "run"), *args)
    err = res.stderr.strip()
    assert res.returncode == 2 and len(err.splitlines()) == 1, err
    where = f"{cfg} with --response-format" if args else str(cfg)
    assert err.startswith(f"bordir: error: {where}: field 'modes': {said}, whose prompt has no "), (
        err
    )
    assert 'use response_format = "direct"' in err and not (tmp_path / "run").exists()
