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
