"""The ``bordir`` command line: a thin layer over the library.

Errors that bordir raises on purpose are printed as one line on stderr and the
command exits with status 2; usage errors are click's (also status 2).
"""

from __future__ import annotations

import sys

from .main import cli

__all__ = ["cli", "main"]


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``bordir`` script; returns the exit status."""
    import click

    from ..errors import BordirError

    try:
        cli.main(args=argv, prog_name="bordir", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("bordir: aborted", err=True)
        return 130
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except BordirError as exc:
        click.echo(f"bordir: error: {exc}", err=True)
        return 2
    except KeyboardInterrupt:
        click.echo("bordir: interrupted", err=True)
        return 130
    except BrokenPipeError:
        return 0
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
