"""The ``bordir`` command line: a thin layer over the library.

Errors that bordir raises on purpose are printed as one line on stderr and the
command exits with status 2; so are usage errors (click's message on one line,
with a pointer to ``-h``). An
:class:`OSError` (a file that cannot be read or written) is one line too,
``bordir: error: PATH: reason``, status 2. Anything else is a bug: one line
``bordir: internal error: …``, status 1 (``BORDIR_DEBUG=1`` shows the
traceback). Every line printed here goes through :func:`bordir.errors.redact`.
"""

from __future__ import annotations

import csv
import io
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

import click

from .main import cli

__all__ = ["cli", "main"]

# click >= 8.2 raises this for `bordir` / a group without a subcommand; its message is the help text
_NO_ARGS_IS_HELP: type[click.UsageError] = getattr(
    click.exceptions, "NoArgsIsHelpError", type("_NeverRaised", (click.UsageError,), {})
)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``bordir`` script; returns the exit status.

    A :class:`~bordir.errors.BordirNote` (input read in a way the user may not have meant, such
    as the country code ``ua`` for Ukrainian) is printed once as ``bordir: note: …`` on stderr.
    """
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("once", _note_category())
        previous = warnings.showwarning
        warnings.showwarning = _show_note(previous)
        try:
            return _main(argv)
        finally:
            warnings.showwarning = previous


def _note_category() -> type[Warning]:
    from ..errors import BordirNote

    return BordirNote


def _show_note(previous: Callable[..., None]) -> Callable[..., None]:
    def show(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        if issubclass(category, _note_category()):
            _error_line(f"bordir: note: {message}")
        else:
            previous(message, category, filename, lineno, file, line)

    return show


def _main(argv: list[str] | None) -> int:
    from ..errors import BordirError

    try:
        # without standalone mode click *returns* the status of ctx.exit(n) / raise Exit(n)
        status = cli.main(args=argv, prog_name="bordir", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("bordir: aborted", err=True)
        return 130
    except (
        _NO_ARGS_IS_HELP
    ) as exc:  # `bordir` or a group without a subcommand: the help, as click prints it
        exc.show()
        return exc.exit_code
    except click.UsageError as exc:
        cmd = exc.ctx.command_path if exc.ctx is not None else "bordir"
        _error_line(f"bordir: error: {exc.format_message()} (see '{cmd} -h')")
        return exc.exit_code
    except click.ClickException as exc:
        _error_line(f"bordir: error: {exc.format_message()}")
        return exc.exit_code
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except BordirError as exc:
        _error_line(f"bordir: error: {exc}")
        return 2
    except KeyboardInterrupt:
        click.echo("bordir: interrupted", err=True)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:
        _error_line(f"bordir: error: {describe_os_error(exc)}")
        return 2
    except UnicodeDecodeError as exc:  # a reader that did not say which file: find it
        path = _file_in_traceback(exc)
        if path is None:
            _error_line(
                f"bordir: error: an input is not valid UTF-8 text ({exc.reason} at byte {exc.start})"
            )
        else:
            from ..errors import undecodable

            _error_line(f"bordir: error: {undecodable(path)}")
        return 2
    except csv.Error as exc:
        path = _file_in_traceback(exc)
        _error_line(f"bordir: error: {path + ': ' if path else ''}malformed CSV: {exc}")
        return 2
    except Exception as exc:
        if _debug():
            raise
        _error_line(
            f"bordir: internal error: {type(exc).__name__}: {exc} "
            "(this is a bug; BORDIR_DEBUG=1 shows the traceback)"
        )
        return 1
    return status if isinstance(status, int) and not isinstance(status, bool) else 0


def _debug() -> bool:
    """``$BORDIR_DEBUG`` (:data:`bordir.settings.DEBUG`); an invalid value (checked at start) reads as off."""
    from ..errors import ConfigError
    from ..settings import DEBUG

    try:
        return DEBUG.get()
    except ConfigError:
        return False


def describe_os_error(exc: OSError) -> str:
    """``PATH: reason`` for a failed file operation (``reason`` alone when no file is known).

    Example:
        >>> describe_os_error(PermissionError(13, "Permission denied", "/out/hits.parquet"))
        '/out/hits.parquet: Permission denied'
    """
    reason = exc.strerror or str(exc) or type(exc).__name__
    names = [str(n) for n in (exc.filename, exc.filename2) if n is not None]
    return f"{' -> '.join(names)}: {reason}" if names else reason


def _file_in_traceback(exc: BaseException) -> str | None:
    """The file being read where ``exc`` was raised: an open text file or a ``path`` local, innermost first."""
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    for frame in reversed(frames):
        local = frame.f_locals
        for value in local.values():
            if isinstance(value, (io.TextIOWrapper, io.BufferedReader)) and isinstance(
                value.name, str
            ):
                return value.name
        for name in ("path", "file", "filename", "p", "fp"):
            value = local.get(name)
            if isinstance(value, (str, Path)) and os.path.isfile(value):
                return str(value)
    return None


def _error_line(text: str) -> None:
    """One line on stderr, secrets masked (a message must not spill over several lines)."""
    from ..errors import redact

    text = " ".join(redact(text).split())
    click.echo(text, err=True)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
