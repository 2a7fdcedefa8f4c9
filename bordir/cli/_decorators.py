"""The options several commands share, each one decorator line; the help text stays per command.

A command module imports this one as ``opt`` (``@opt.seed()``, ``@opt.json("Print …")``). Each
factory makes one option exactly as the commands declared it (name, destination, type, default,
``show_default``; ``path_type=None`` keeps a path as given, as some commands declared it);
:func:`options` stacks several into one decorator, in the order of ``--help``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import click

from ._choices import RegistryChoice

F = TypeVar("F", bound=Callable[..., Any])
Decorator = Callable[[F], F]

__all__ = [
    "PERMUTATION_SEED_HELP",
    "SEED_HELP",
    "choice",
    "concurrency",
    "count",
    "dataset_path",
    "directory",
    "file",
    "flag",
    "json",
    "limit",
    "options",
    "out_dir",
    "out_file",
    "registry",
    "repeatable",
    "resamples",
    "seed",
    "switch",
    "text",
]

SEED_HELP = "Bootstrap seed (default: $BORDIR_SEED or 12345)."
"""The help of ``--seed`` where it seeds a bootstrap."""

PERMUTATION_SEED_HELP = "Bootstrap / permutation seed (default: $BORDIR_SEED or 12345)."
"""The help of ``--seed`` where it seeds a bootstrap and a permutation test."""


def options(*decorators: Callable[[Any], Any]) -> Callable[[F], F]:
    """One decorator applying ``decorators`` so that ``--help`` lists them in the order given.

    Example:
        >>> @click.command()
        ... @options(json(), seed())
        ... def cmd(as_json: bool, seed: int | None) -> None: ...
        >>> [p.name for p in cmd.params]
        ['as_json', 'seed']
    """

    def apply(f: F) -> F:
        for decorator in reversed(decorators):
            f = decorator(f)
        return f

    return apply


def _decls(name: str, dest: str | None) -> tuple[str, ...]:
    return (name,) if dest is None else (name, dest)


def _shown(default: str | None) -> dict[str, Any]:
    """No default, or ``default`` shown in ``--help``."""
    return {} if default is None else {"default": default, "show_default": True}


def json(help: str = "Print JSON.") -> Decorator[Any]:
    """``--json`` (destination ``as_json``), a flag."""
    return click.option("--json", "as_json", is_flag=True, help=help)


def flag(name: str, help: str, *, dest: str | None = None) -> Decorator[Any]:
    """An on/off flag ``name`` (off by default)."""
    return click.option(*_decls(name, dest), is_flag=True, help=help)


def text(name: str, default: str, help: str) -> Decorator[Any]:
    """A text option ``name`` with a ``default`` (shown)."""
    return click.option(name, default=default, show_default=True, help=help)


def switch(decls: str, default: bool, help: str | None = None) -> Decorator[Any]:
    """An on/off pair such as ``--plots/--no-plots``, ``default`` shown."""
    return click.option(decls, default=default, show_default=True, help=help)


def repeatable(name: str, dest: str, help: str, *, required: bool = False) -> Decorator[Any]:
    """An option given once or more, collected in ``dest`` (a tuple)."""
    return click.option(name, dest, multiple=True, required=required, help=help)


def file(name: str, help: str, *, dest: str | None = None) -> Decorator[Any]:
    """A file path ``name`` (not a directory), unset by default."""
    return click.option(
        *_decls(name, dest), type=click.Path(dir_okay=False, path_type=str), help=help
    )


def directory(name: str, help: str, *, dest: str | None = None) -> Decorator[Any]:
    """A directory path ``name`` (not a file), unset by default."""
    return click.option(
        *_decls(name, dest), type=click.Path(file_okay=False, path_type=str), help=help
    )


def seed(help: str = SEED_HELP) -> Decorator[Any]:
    """``--seed``, an integer, unset by default (the library resolves ``$BORDIR_SEED``)."""
    return click.option("--seed", type=int, help=help)


def resamples(
    default: int,
    help: str | None = None,
    *,
    dest: str | None = None,
    minimum: int = 1,
    name: str = "--resamples",
) -> Decorator[Any]:
    """``--resamples`` (or ``name``): a :func:`count` of bootstrap resamples."""
    return count(name, default, help, dest=dest, minimum=minimum)


def count(
    name: str,
    default: int,
    help: str | None = None,
    *,
    dest: str | None = None,
    minimum: int = 1,
) -> Decorator[Any]:
    """A count ``name``: an integer >= ``minimum``, ``default`` shown."""
    return click.option(
        *_decls(name, dest),
        default=default,
        show_default=True,
        type=click.IntRange(min=minimum),
        help=help,
    )


def choice(
    name: str,
    choices: Sequence[str],
    default: str | None = None,
    help: str | None = None,
    *,
    dest: str | None = None,
) -> Decorator[Any]:
    """One of ``choices``; ``default`` shown when there is one."""
    return click.option(
        *_decls(name, dest), type=click.Choice(choices), help=help, **_shown(default)
    )


def registry(
    name: str,
    names: Callable[[], Iterable[str]],
    default: str | None = None,
    help: str | None = None,
    *,
    dest: str | None = None,
) -> Decorator[Any]:
    """One of a registry's ``names()`` (read when the command line is parsed); ``default`` shown."""
    return click.option(
        *_decls(name, dest), type=RegistryChoice(names), help=help, **_shown(default)
    )


def concurrency(help: str | None = None) -> Decorator[Any]:
    """``--concurrency``: calls in flight at most, an integer >= 1 (unset: the library's default)."""
    return click.option("--concurrency", type=click.IntRange(min=1), help=help)


def limit(help: str) -> Decorator[Any]:
    """``--limit``: an integer >= 1, unset by default."""
    return click.option("--limit", type=click.IntRange(min=1), help=help)


def dataset_path(help: str, *, path_type: type[str] | None = str) -> Decorator[Any]:
    """``--path``: a local directory of the dataset's files."""
    return click.option("--path", type=click.Path(file_okay=False, path_type=path_type), help=help)


def out_dir(
    help: str,
    *,
    dest: str = "out_dir",
    default: str | None = None,
    path_type: type[str] | None = str,
) -> Decorator[Any]:
    """``--out``, a directory: required, or ``default`` (shown)."""
    given = _shown(default) or {"required": True}
    return click.option(
        "--out", dest, type=click.Path(file_okay=False, path_type=path_type), help=help, **given
    )


def out_file(help: str, *, path_type: type[str] | None = str) -> Decorator[Any]:
    """``--out``, a file to write (required)."""
    return click.option(
        "--out", required=True, type=click.Path(dir_okay=False, path_type=path_type), help=help
    )
