"""The top-level group imports a subcommand's module only when it runs (:mod:`bordir.cli._lazy`).

``bordir -h`` lists every command from the table in :mod:`bordir.cli._commands` without importing
them; the table's one-line help must be the command's own (its docstring's first line).
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import click
import pytest

from bordir.cli._commands import COMMANDS
from bordir.cli.main import cli

from ..conftest import REPO

CLI_DIR = Path(importlib.import_module("bordir.cli").__file__ or "").parent


@pytest.mark.parametrize("entry", COMMANDS, ids=[c.name for c in COMMANDS])
def test_the_tables_help_is_the_commands_docstring_first_line(entry):
    cmd = entry.load()
    assert isinstance(cmd, click.Command) and cmd.name == entry.name
    assert cmd.help is not None
    first, _, rest = cmd.help.partition("\n")
    assert entry.help == first, f"update the help of {entry.name!r} in bordir/cli/_commands.py"
    # one line makes the first paragraph, which click shortens for `bordir -h`
    assert rest == "" or rest.startswith("\n")
    assert not cmd.hidden and not cmd.deprecated and not cmd.short_help


def test_every_command_module_is_in_the_table():
    modules = {c.module for c in COMMANDS}
    files = {f"bordir.cli.{p.stem}" for p in CLI_DIR.glob("*.py") if not p.stem.startswith("_")}
    assert files - {"bordir.cli.main"} == modules
    assert len({c.name for c in COMMANDS}) == len(COMMANDS)
    assert not {c.name for c in COMMANDS} & {"list", "data"}  # defined in main.py itself


def _run(argv: list[str]) -> tuple[str, set[str]]:
    """What ``main(argv)`` prints in a fresh interpreter, and the ``bordir.cli`` modules it imported."""
    code = (
        "import sys, json; from bordir.cli import main\n"
        f"main({argv!r})\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('bordir.cli.'))))"
    )
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True
    )
    text, _, loaded = r.stdout.rstrip("\n").rpartition("\n")
    return text, set(json.loads(loaded))


def test_help_lists_every_command_as_click_does_without_importing_them():
    text, loaded = _run(["-h"])
    assert loaded == {
        "bordir.cli.main",
        "bordir.cli._commands",
        "bordir.cli._lazy",
        "bordir.cli._decorators",
        "bordir.cli._choices",
        "bordir.cli._output",
    }
    # the same listing as a plain click group holding every command
    top = click.Context(cli)
    commands = [cli.get_command(top, name) for name in cli.list_commands(top)]
    eager = click.Group(cli.name, commands=[c for c in commands if c is not None], help=cli.help)
    ctx = click.Context(eager, info_name="bordir")
    formatter = ctx.make_formatter()
    eager.format_commands(ctx, formatter)
    assert formatter.getvalue().rstrip("\n") in text
    assert all(f"  {c.name} " in text for c in COMMANDS)


def test_a_command_imports_its_own_module_only():
    _, loaded = _run(["score", "-h"])
    assert "bordir.cli.score" in loaded
    assert not loaded & ({c.module for c in COMMANDS} - {"bordir.cli.score"})
