"""Names a user mistypes: an unknown config key names the key it was probably meant to be (issue 51.9), modes and
backends say "did you mean", a country code given as a language is read as its language with a note."""

from __future__ import annotations

import warnings

import pytest

from bordir.errors import BordirNote, ConfigError
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


def test_country_codes_are_read_as_languages_with_a_note(tmp_path):
    from bordir.experiment.config import ExperimentConfig

    with pytest.warns(
        BordirNote, match="'ua' is the country code of Ukraine; read as the language code 'uk'"
    ):
        cfg = ExperimentConfig.from_dict({"langs": ["ua"], "models": ["mock/first"]})
    assert cfg.langs == ("uk",)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ExperimentConfig.from_dict({"langs": ["uk"]}).langs == ("uk",)  # no note
    from bordir import languages

    assert languages.registry().resolve("se").code == "se"  # a real code is never reinterpreted
    toml = tmp_path / "ua.toml"
    toml.write_text(
        '[experiment]\nmodels = ["mock/first"]\nmodes = ["no_ir"]\nruns = 1\nlangs = ["ua"]\n'
    )
    out = invoke_cli("run", str(toml), "--out", str(tmp_path / "r"), "--dry-run")
    assert (
        out.returncode == 0 and "bordir: note:" in out.stderr and "'uk' (Ukrainian)" in out.stderr
    )


def test_modes_and_backends_say_did_you_mean():
    from bordir.experiment.config import ExperimentConfig
    from bordir.generation import get_backend
    from bordir.modes import Mode

    with pytest.raises(ConfigError, match=r"did you mean 'qlang'"):
        Mode.parse("qlnag")
    with pytest.raises(ConfigError, match=r"did you mean 'rel_langs'"):
        ExperimentConfig.from_dict({"modes": ["rel_lang"]})
    with pytest.raises(ConfigError, match=r"did you mean 'openai'"):
        ExperimentConfig.from_dict({"models": ["opneai/gpt-4o"]})
    with pytest.raises(ConfigError, match=r"did you mean 'cohere'"):
        get_backend("cohre/command-r")
