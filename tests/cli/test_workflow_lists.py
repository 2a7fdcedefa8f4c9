"""Issue 11.5 and 25.6: `bordir list backends|retrievers|modes|metrics|datasets|prompts|systems|
strategies|testbeds`, each from its registry."""

from __future__ import annotations

import json

import pytest

from bordir.cli import main as cli_main

from ..conftest import invoke_cli


def _rows(capsys, what: str) -> list[dict]:
    assert cli_main(["list", what, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_backends_include_every_provider_and_the_mock_behaviours(capsys):
    from bordir.generation.backend import available_backends

    rows = _rows(capsys, "backends")
    names = {r["name"] for r in rows}
    for provider in available_backends():
        assert any(n.startswith(provider + "/") for n in names), provider
    assert {"mock/echo", "mock/first", "mock/fixed:<text>", "mock/planted:<langs>[@<dir>]"} <= names
    assert all(r["description"] for r in rows)


def test_retrievers_modes_metrics_datasets(capsys):
    from bordir.metrics import METRICS
    from bordir.modes import Mode
    from bordir.retrieval.base import available

    ret = {r["name"].split("/")[0] for r in _rows(capsys, "retrievers")}
    assert ret == set(available())
    modes = _rows(capsys, "modes")
    assert [r["name"] for r in modes] == [m.value for m in Mode] and all(
        r["description"] for r in modes
    )
    metrics = _rows(capsys, "metrics")
    assert set(METRICS) <= {r["name"] for r in metrics} and all(r["description"] for r in metrics)
    assert {r["name"] for r in _rows(capsys, "datasets")} == {
        "borderlines",
        "bordirlines",
        "demo",
        "nomiracl",
    }


@pytest.mark.parametrize("what", ["backends", "retrievers", "modes", "metrics", "datasets"])
def test_tables(capsys, what):
    assert cli_main(["list", what]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("name") and out.strip().endswith(what)


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
