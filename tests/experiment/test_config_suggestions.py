"""An unknown config key names the key it was probably meant to be (issue 51.9)."""

from __future__ import annotations

import pytest

from bordir.errors import ConfigError
from bordir.experiment.config import ExperimentConfig

from ..conftest import invoke_cli


@pytest.mark.parametrize(("key", "meant"), [("mode", "modes"), ("run", "runs"), ("seed", "seeds")])
def test_an_unknown_key_says_did_you_mean(key, meant):
    with pytest.raises(ConfigError) as exc:
        ExperimentConfig.from_dict({"models": ["mock/first"], key: 1}, where="exp.toml")
    assert f"'{key}' (did you mean '{meant}'?)" in str(exc.value)


def test_a_key_close_to_nothing_is_named_without_a_guess():
    with pytest.raises(ConfigError) as exc:
        ExperimentConfig.from_dict({"models": ["mock/first"], "zzzz": 1}, where="exp.toml")
    assert "'zzzz';" in str(exc.value) and "did you mean" not in str(exc.value)


def test_the_cli_prints_it_on_one_line(tmp_path):
    cfg = tmp_path / "exp.toml"
    cfg.write_text('[experiment]\nmode = ["no_ir"]\nrun = 3\nmodels = ["mock/first"]\n')
    res = invoke_cli("run", str(cfg), "--out", str(tmp_path / "r"), "--dry-run")
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert "'mode' (did you mean 'modes'?), 'run' (did you mean 'runs'?)" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1
