"""Before a run: its calls, the share from a shared cache, and the local model's time on this
machine's cores and load, with what to do on a busy machine (issue 51.6)."""

from __future__ import annotations

import pandas as pd
import pytest

from bordir.experiment.config import ExperimentConfig
from bordir.runner.eta import Machine, expected_seconds, machine, notice_lines, start_notice

from ..conftest import invoke_cli

DEMO = {"dataset": "demo", "modes": "all", "k": 2, "runs": 3, "option_orders": "reversed",
        "order_modes": ["no_ir"], "calibrate": False}  # fmt: skip


def _text(lines: list[str]) -> str:
    return " ".join(" ".join(lines).split())  # the lines are wrapped at 100 characters


def _table(calls=189, cached=0, tokens=40_355, model="local/gemma-3-270m"):
    return pd.DataFrame(
        {"model": [model], "calls": [calls], "cached": [cached], "input_tokens": [tokens]}
    )


def test_the_time_follows_the_free_cores():
    idle, busy = Machine(2, 0.0, 2), Machine(2, 1.5, 2)
    assert expected_seconds(40_355, busy) > 3 * expected_seconds(40_355, idle)
    assert not idle.busy and Machine(2, 1.2, 2).busy


def test_a_busy_machine_gets_a_range_and_what_to_do():
    lines = _text(start_notice(_table(), None, Machine(2, 8.0, 2)))
    assert "the machine is busy (load 8.0 on 2 cores" in lines
    assert "BORDIR_CPUS=1" in lines and "mock/planted" in lines
    assert " to " in lines.split("prompt tokens):")[1].split("on this machine")[0]  # a range
    one = _text(start_notice(_table(), None, Machine(2, 8.0, 1)))
    assert "BORDIR_CPUS=1" not in one and "mock/planted" in one  # one thread already
    quiet = start_notice(_table(), None, Machine(2, 0.1, 2))
    assert "busy" not in _text(quiet) and "about 65 s" in _text(quiet)
    assert all(len(line) <= 100 for line in start_notice(_table(), None, Machine(2, 8.0, 2)))


def test_no_time_is_promised_for_a_remote_or_mock_model():
    lines = start_notice(_table(model="openai/gpt-4o-mini"), None, Machine(2, 8.0, 2))
    assert lines == ["189 calls to make"]


def test_the_real_demo_plan_on_this_machine(tmp_path, monkeypatch):
    """The demo's own grid, dry-run (no model is loaded): 189 local calls with a cold cache."""
    monkeypatch.setenv("BORDIR_CACHE", str(tmp_path / "c"))
    cfg = ExperimentConfig.from_dict({**DEMO, "models": ["local/gemma-3-270m"]})
    lines = notice_lines(cfg)
    m = machine()
    assert lines[0].startswith("189 local-model calls to make")
    assert f"({m.cpus} cores, load" in _text(lines)


def test_answers_from_the_shared_cache_are_said(tmp_path, monkeypatch):
    monkeypatch.setenv("BORDIR_CACHE", str(tmp_path / "shared"))
    cfg = tmp_path / "exp.toml"
    cfg.write_text('[experiment]\nmodels = ["mock/first"]\nmodes = ["no_ir"]\nruns = 2\n')
    first = invoke_cli("run", str(cfg), "--out", str(tmp_path / "a"))
    assert first.returncode == 0, first.stderr
    assert "shared cache" not in first.stdout
    second = invoke_cli("run", str(cfg), "--out", str(tmp_path / "b"))
    assert second.returncode == 0, second.stderr
    assert "answers came from this shared cache" in second.stdout
    c = ExperimentConfig.from_dict({"models": ["mock/first"], "modes": ["no_ir"], "runs": 2})
    lines = notice_lines(c)
    assert "come from the response cache" in _text(lines)
    assert "shared by every bordir run" in _text(lines)
    own = ExperimentConfig.from_dict(
        {"models": ["mock/first"], "modes": ["no_ir"], "runs": 2, "cache": str(tmp_path / "own")}
    )
    assert not any("shared" in line for line in notice_lines(own))


@pytest.mark.parametrize("load", [0.0, 3.0])
def test_machine_reads_this_process(load):
    m = machine()
    assert m.cpus >= 1 and m.threads >= 1 and m.load >= 0
