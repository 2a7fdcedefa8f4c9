"""A click group whose subcommands are imported when they run, not when ``bordir`` starts.

Each subcommand is a :class:`LazyCommand`: the module and attribute that define it, and the
one-line help ``bordir -h`` lists (its docstring's first line: ``tests/cli`` hold them equal).
``bordir CMD …`` imports the module of ``CMD`` only; ``bordir -h`` imports none.

Example:
    >>> import click
    >>> @click.group(cls=LazyGroup, lazy=(LazyCommand("view", "bordir.cli.view", "view_cmd", "…"),))
    ... def top() -> None:
    ...     '''A group.'''
    >>> top.list_commands(click.Context(top))
    ['view']
    >>> "view" in top.commands, top.get_command(click.Context(top), "view").name, "view" in top.commands
    (False, 'view', True)
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import Any, NamedTuple

import click

__all__ = ["LazyCommand", "LazyGroup"]


class LazyCommand(NamedTuple):
    """A subcommand not imported yet (a named tuple: no :mod:`dataclasses` at start).

    Attributes:
        name: the command's name on the command line.
        module: the module that defines it.
        attr: the command object's name in ``module``.
        help: the one line ``bordir -h`` lists (the command's docstring's first line).
    """

    name: str
    module: str
    attr: str
    help: str

    def load(self) -> click.Command:
        """The command itself (its module imported)."""
        cmd = getattr(importlib.import_module(self.module), self.attr)
        if not isinstance(cmd, click.Command):  # pragma: no cover - a wrong table entry
            raise TypeError(f"{self.module}.{self.attr} is not a click command")
        return cmd


class LazyGroup(click.Group):
    """A :class:`click.Group` with subcommands that load on first use (:class:`LazyCommand`)."""

    def __init__(self, *args: Any, lazy: Iterable[LazyCommand] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = {c.name: c for c in lazy}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        cmd = self.commands.get(cmd_name)
        if cmd is None and cmd_name in self.lazy:
            cmd = self.lazy[cmd_name].load()
            self.add_command(cmd, cmd_name)
        return cmd

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The commands and their one-line help, as :class:`click.Group` lists them, none imported."""
        commands = [
            (name, self.commands.get(name) or click.Command(name, help=self.lazy[name].help))
            for name in self.list_commands(ctx)
        ]
        commands = [(name, cmd) for name, cmd in commands if not cmd.hidden]
        if commands:
            limit = formatter.width - 6 - max(len(name) for name, _ in commands)
            with formatter.section("Commands"):
                formatter.write_dl(
                    [(name, cmd.get_short_help_str(limit)) for name, cmd in commands]
                )
