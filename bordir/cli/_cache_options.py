"""The ``--cache`` / ``--no-cache`` options of the commands that call models, and the response cache they select."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    from ..generation.cache import ResponseCache

F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["CACHE_OPTIONS", "response_cache", "with_cache_options"]


def response_cache(path: str | None, no_cache: bool) -> ResponseCache | None:
    """The cache ``--cache`` names (default: the shared one), or None with ``--no-cache``."""
    from ..generation.cache import ResponseCache

    return None if no_cache else ResponseCache(path) if path else ResponseCache()


CACHE_OPTIONS = [
    click.option(
        "--cache",
        type=click.Path(dir_okay=False, path_type=str),
        help="Response cache file (default: $BORDIR_CACHE/responses.sqlite3).",
    ),
    click.option("--no-cache", is_flag=True, help="Do not read or write the response cache."),
]


def with_cache_options(f: F) -> F:
    """Add ``--cache`` and ``--no-cache`` to a click command."""
    for opt in reversed(CACHE_OPTIONS):
        f = opt(f)
    return f
