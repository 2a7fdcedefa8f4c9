"""Issue 25.8: docs/cli.md's command reference is generated from the click commands (docs/gen_cli.py)."""

from __future__ import annotations

import runpy
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _gen():
    return runpy.run_path(str(REPO / "docs" / "gen_cli.py"), run_name="gen_cli")


def test_the_cli_reference_is_current():
    gen = _gen()
    assert gen["page_text"]() == (REPO / "docs" / "cli.md").read_text(encoding="utf-8"), (
        "docs/cli.md is out of date: run `python docs/gen_cli.py` (it is generated from the commands)"
    )


def test_every_command_has_its_section():
    import click

    from bordir.cli.main import cli

    text = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    ctx = click.Context(cli, info_name="bordir")
    for name in cli.list_commands(ctx):
        assert f"## `bordir {name}`" in text, name
    for new in (
        "runs",
        "list prompts",
        "list systems",
        "list strategies",
        "testgen",
        "judge",
        "view",
    ):
        assert f"## `bordir {new}`" in text, new
    assert "`--limit INTEGER RANGE`" in text  # bordir run --limit


def test_the_config_tables_are_generated_from_the_fields():
    """docs/experiments.md's key table and override table come from bordir.experiment.fields."""
    gen = _gen()
    assert gen["experiments_text"]() == (REPO / "docs" / "experiments.md").read_text(
        encoding="utf-8"
    ), "docs/experiments.md is out of date: run `python docs/gen_cli.py`"


def test_the_config_fields_are_described_once():
    """Every field of the config has one description; validation and the CLI use it."""
    import dataclasses

    from bordir.cli.run import run_cmd
    from bordir.experiment.config import Experiment, Operational
    from bordir.experiment.fields import FIELDS, cli_fields

    names = [f.name for part in (Experiment, Operational) for f in dataclasses.fields(part)]
    assert sorted(f.name for f in FIELDS) == sorted(names)
    options = {p.name for p in run_cmd.params}
    assert {f.name for f in cli_fields()} <= options
