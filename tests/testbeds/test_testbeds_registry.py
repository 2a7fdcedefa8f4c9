"""Issue 24.3: a testbed is one registry entry that carries its settings, file kind, ratios, questions,
metrics, comparisons and judge; adding one is one file that registers itself."""

from __future__ import annotations

import json
import sys
import textwrap

import pytest

from bordir.errors import ConfigError
from bordir.testbeds.testbed import NODOCS, TESTBEDS, Testbed, get_testbed, register_testbed

from ..conftest import run_cli

PLUGIN = textwrap.dedent(
    '''
    """A plugin testbed: noise robustness at two ratios, without cross-lingual noise."""
    from bordir.testbeds.builtin.noise import questions
    from bordir.testbeds.testbed import Testbed, register_testbed

    register_testbed(
        Testbed(
            "noise-lite",
            "Noise robustness at r = 0 and 0.5, same-language noise only (a test plugin).",
            kind="noise",
            settings=("noise",),
            ratios=(0.0, 0.5),
            questions=questions,
        )
    )
    '''
)


def test_the_builtins_carry_what_the_run_needs():
    assert TESTBEDS.names() == ("counterfactual", "integration", "noise", "nomiracl", "rejection")
    nm = get_testbed("nomiracl")  # its own data, prompt and scoring: an engine
    assert nm.engine is not None and nm.engine.policies == ("nomiracl", "bordir")
    assert nm.kind == "nomiracl" and nm.settings == ("vanilla", "native") and nm.judge is None
    assert [o.name for o in nm.options] == ["split", "settings"]
    assert nm.defaults["passage_num"] == 10
    noise, rej, integ, cf = (
        get_testbed(n) for n in ("noise", "rejection", "integration", "counterfactual")
    )
    assert (noise.kind, rej.kind, integ.kind, cf.kind) == ("noise", "noise", "integration", "fact")
    assert noise.resolved_ratios(None) == (0.0, 0.2, 0.4, 0.6, 0.8)
    assert noise.resolved_ratios((0.1,)) == (0.1,) and rej.resolved_ratios((0.1,)) == (1.0,)
    assert cf.settings_for(rgb_file=True) == ("counterfactual", NODOCS)
    assert noise.settings_for(rgb_file=True) == ("noise",)
    assert rej.headline == "rejection_rate" and noise.headline == "accuracy"
    assert cf.compare == (("counterfactual", NODOCS),)
    assert rej.judge is not None and rej.judge.label("the question is not addressed")
    assert cf.judge is not None and cf.judge.metrics == (
        "error_detection_rate_judge",
        "error_correction_rate_judge",
    )
    assert noise.judge is None and integ.judge is None
    assert cf.applies("error_detection_rate", "counterfactual", judged=False)
    assert not cf.applies("error_detection_rate", NODOCS, judged=False)
    assert not noise.applies("error_detection_rate", "noise", judged=False)
    assert rej.applies("rejection_rate_judge", "rejection-xling", judged=True)


def test_a_testbed_name_is_registered_once():
    with pytest.raises(ConfigError, match="testbed 'noise' is already registered"):
        register_testbed(get_testbed("noise"))
    with pytest.raises(
        ConfigError, match="unknown testbed 'loud'; known: counterfactual, integration"
    ):
        get_testbed("loud")


def test_a_registered_testbed_runs_end_to_end(tmp_path):
    from bordir.testbeds.builtin.noise import questions
    from bordir.testbeds.runner import TestbedConfig, run_testbed

    tb = register_testbed(
        Testbed(
            "noise-lite-inproc",
            "noise at two ratios",
            kind="noise",
            settings=("noise",),
            ratios=(0.0, 0.5),
            questions=questions,
        )
    )
    try:
        cfg = TestbedConfig(
            testbed=tb.name,
            data="demo",
            models=("mock/first",),
            langs=("uk",),
            limit=2,
            n_resamples=50,
            cache=str(tmp_path / "c.sqlite3"),
        )
        out = run_testbed(cfg, tmp_path / "out", progress=False)
        scores = json.loads((out / "scores.json").read_text(encoding="utf-8"))
        assert {(g["setting"], g["noise_rate"]) for g in scores["groups"]} == {
            ("noise", 0.0),
            ("noise", 0.5),
        }
        assert all("accuracy" in g["metrics"]["bordir"] for g in scores["groups"])
        assert [c["a"] + " vs " + c["b"] for c in scores["comparisons"]] == ["r=0.5 vs r=0"]
    finally:
        TESTBEDS.unregister(tb.name)


@pytest.mark.slow
def test_a_plugin_testbed_is_listed_and_is_a_command(tmp_path):
    (tmp_path / "bordir_test_testbed.py").write_text(PLUGIN, encoding="utf-8")
    env = {"PYTHONPATH": str(tmp_path), "BORDIR_PLUGINS": "bordir_test_testbed"}
    r = run_cli("list", "testbeds", "--json", env=env)
    assert r.returncode == 0, r.stderr
    rows = {row["name"]: row for row in json.loads(r.stdout)}
    assert rows["noise-lite"]["ratios"] == "0, 0.5" and rows["noise-lite"]["kind"] == "noise"
    assert set(rows) == {
        "counterfactual",
        "integration",
        "noise",
        "nomiracl",
        "rejection",
        "noise-lite",
    }
    r = run_cli("testbed", "--help", env=env)
    assert r.returncode == 0 and "noise-lite" in r.stdout, r.stderr
    r = run_cli("testbed", "noise-lite", "--help", env=env)
    assert r.returncode == 0 and "same-language noise only" in r.stdout, r.stderr
    sys.modules.pop("bordir_test_testbed", None)


def test_list_testbeds_without_plugins(capsys):
    from bordir.cli import main as cli_main

    assert cli_main(["list", "testbeds"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split()[:3] == ["name", "kind", "settings"]
    assert out.strip().endswith("5 testbeds")
