"""What the commands that call models share: ``--timeout`` / ``--max-retries``, and their exit status.

The exit status follows ``bordir run``'s rule: 0 when every call was answered;
1 when some failed (``N of M calls failed (the first: …)`` on stderr; a re-run
retries exactly those, the others come from the cache); 2 when nothing could
be made, decided or read (one ``bordir: error:`` line).
"""

from __future__ import annotations

from typing import Any

import click

from ..errors import BordirError
from ._decorators import options

__all__ = ["with_call_options", "call_options", "exit_for_calls", "seconds", "NothingMade"]


class NothingMade(BordirError):
    """Nothing could be made, decided or read: the command exits with status 2."""


MAX_SECONDS = 86_400.0
"""The longest time option accepted (a day)."""


def seconds(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    """A click callback: ``value`` must be a finite number of seconds in (0, a day] (or unset)."""
    if value is None:
        return None
    if not (0 < value <= MAX_SECONDS):  # also false for nan
        raise click.BadParameter(
            f"expected a number of seconds > 0 and <= {MAX_SECONDS:g} (a day), got {value!r}"
        )
    return float(value)


CALL_OPTIONS = [
    click.option(
        "--timeout",
        type=float,
        callback=seconds,
        help="Seconds one attempt of a call may take (default 60); a hung attempt is retried, "
        "within 300 s per call.",
    ),
    click.option(
        "--max-retries",
        type=click.IntRange(min=0, max=100),
        help="Retries of a transient failure (429, 5xx, timeouts; default 6).",
    ),
]


with_call_options = options(*CALL_OPTIONS)
"""Add ``--timeout`` and ``--max-retries`` to a click command."""


def call_options(timeout: float | None, max_retries: int | None) -> dict[str, Any]:
    """The keyword arguments of the library call (unset options: the executor's defaults)."""
    return {"timeout": timeout, "max_retries": max_retries}


def exit_for_calls(failed: int, requests: int, first: str | None, *, what: str = "calls") -> None:
    """Exit 1 with ``N of M calls failed`` when a call failed (after the output is printed)."""
    if failed:
        click.echo(
            f"{failed} of {requests} {what} failed (the first: {first or '?'}); re-run the same "
            "command to retry them (the others come from the cache)",
            err=True,
        )
        raise click.exceptions.Exit(1)
