"""The ``--cache`` / ``--no-cache`` options of the commands that call models, and the response cache they select."""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING

import click

from ._decorators import options

if TYPE_CHECKING:
    from ..generation.cache import ResponseCache

__all__ = ["CACHE_OPTIONS", "opened_cache", "response_cache", "with_cache_options"]


def response_cache(path: str | None, no_cache: bool) -> ResponseCache | None:
    """The cache ``--cache`` names (default: the shared one), or None with ``--no-cache``."""
    from ..generation.cache import ResponseCache

    return None if no_cache else ResponseCache(path) if path else ResponseCache()


def opened_cache(path: str | None, no_cache: bool) -> AbstractContextManager[ResponseCache | None]:
    """:func:`response_cache` as a ``with`` block that closes the cache at its end."""
    rc = response_cache(path, no_cache)
    return nullcontext() if rc is None else rc


CACHE_OPTIONS = [
    click.option(
        "--cache",
        type=click.Path(dir_okay=False, path_type=str),
        help="Response cache file (default: $BORDIR_CACHE/responses.sqlite3).",
    ),
    click.option("--no-cache", is_flag=True, help="Do not read or write the response cache."),
]


with_cache_options = options(*CACHE_OPTIONS)
"""Add ``--cache`` and ``--no-cache`` to a click command."""
