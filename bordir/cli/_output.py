"""Small output helpers shared by the subcommands (tables and JSON)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import click


def echo_json(obj: Any) -> None:
    click.echo(json.dumps(obj, ensure_ascii=False, indent=2, default=str))


def echo_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """Print a plain aligned text table (width by characters)."""
    cells = [[str(h) for h in headers]] + [["" if v is None else str(v) for v in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    for j, r in enumerate(cells):
        click.echo("  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip())
        if j == 0:
            click.echo("  ".join("-" * w for w in widths))
