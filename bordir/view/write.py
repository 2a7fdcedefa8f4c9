"""Writing ``DIR/view.html`` for an output directory of any kind, all or nothing.

The directory's record says its kind (:func:`~bordir.runrecord.record.read_record`), and the
kind's page is looked up in :data:`~bordir.view.dispatch.VIEWS`. The page is written through
the output protocol (:class:`~bordir.runrecord.outputs.OutputWriter`: the shared lock, a
temporary folder, renamed into place and listed in ``outputs.json`` with the record's digest).

The static page embeds every row. Up to :data:`STATIC_MAX_ROWS` response rows
(about 40 MB of page for rows with real prompts and replies; see
``docs/view.md``) it is written; above it, :func:`write_view` refuses with a
:class:`~bordir.errors.ConfigError` naming ``--serve`` (``bordir view`` then
serves the run instead and prints why).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .._io.atomic import atomic_write_text
from ..errors import ConfigError
from ..runrecord.lock import DirLock
from ..runrecord.record import RunRecord, read_record, require_complete
from .dispatch import ViewKind, view_of
from .page import render_page

__all__ = [
    "STATIC_MAX_ROWS",
    "VIEW_FILE",
    "write_view",
    "page_data",
    "view_rows",
    "viewed",
    "check_out",
]

STATIC_MAX_ROWS = 200_000
"""The most response rows a static ``view.html`` embeds; larger runs are served (``bordir view DIR --serve``)."""
VIEW_FILE = "view.html"


def viewed(path: str | os.PathLike[str]) -> tuple[RunRecord, ViewKind]:
    """The record of the directory ``path`` and its kind's page.

    A complete record's files are checked against their digests; an incomplete run (interrupted)
    is shown as far as it got, and its page says so.

    Raises:
        DataError: no record, or a file that changed since the run wrote it.
    """
    rec = read_record(path)
    if rec.complete:
        require_complete(path)
    return rec, view_of(rec)


def view_rows(path: str | os.PathLike[str]) -> int:
    """The number of rows the view of ``path`` would hold (a run: the rows of ``responses.parquet``; else 0)."""
    return viewed(path)[1].rows(Path(path))


def check_out(out: str | os.PathLike[str], *, label: str = "out") -> Path:
    """``out`` as a path the page can be written to; a :class:`ConfigError` naming it as given otherwise.

    >>> import tempfile
    >>> check_out(tempfile.gettempdir(), label="--out")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bordir.errors.ConfigError: --out ...: a directory; pass the file to write instead, e.g. --out .../view.html
    """
    target = Path(out)
    if target.is_dir():
        raise ConfigError(
            f"{label} {out}: a directory; pass the file to write instead, e.g. "
            f"{label} {target / VIEW_FILE}"
        )
    for parent in target.parents:
        if parent.exists():
            if not parent.is_dir():
                raise ConfigError(
                    f"{label} {out}: {parent} is a file, not a folder; pass a path in a folder"
                )
            break
    return target


def page_data(path: str | os.PathLike[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(meta, rows)`` of the static page of ``path``."""
    return viewed(path)[1].page(Path(path))


def write_view(
    path: str | os.PathLike[str],
    *,
    out: str | os.PathLike[str] | None = None,
    max_rows: int = STATIC_MAX_ROWS,
) -> Path:
    """Write the self-contained explorer of the output directory ``path``; returns the page's path.

    Args:
        path: a run, testbed, test-run (testgen + judge) or audit directory.
        out: where to write (default ``path/view.html``, through the output protocol).
        max_rows: the most rows a static page embeds (:data:`STATIC_MAX_ROWS`).

    Raises:
        DataError: ``path`` is not such a directory, or one of its files is unreadable
            (nothing is written then).
        ConfigError: the run has more than ``max_rows`` rows (serve it: ``bordir view DIR --serve``),
            or ``out`` is a directory.

    Example:
        >>> import tempfile
        >>> write_view(tempfile.mkdtemp())  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        bordir.errors.DataError: ...record.json: file not found; not a bordir output directory: ...
    """
    p = Path(path)
    target = check_out(out) if out is not None else None  # refused before anything is read
    with DirLock(p, shared=True):  # no run changes the directory while it is read
        rec, kind = viewed(p)
        n = kind.rows(p)
        if n > max_rows:
            raise ConfigError(
                f"{p}: {n:,} response rows, more than the {max_rows:,} a static view.html embeds; "
                "serve it instead: bordir view DIR --serve"
            )
        page = render_page(*kind.page(p))
        if rec.kind == "run" and rec.config.get("response_format") == "open":
            from .free_view import free_section  # free answers and their forced twins

            page = page.replace("\n</main>\n", f"\n{free_section(p)}\n</main>\n", 1)
        if target is not None:
            return atomic_write_text(target, page)
        from ..runrecord.outputs import OutputWriter

        with OutputWriter(p, by="bordir view", allow_incomplete=True) as w:
            atomic_write_text(w.stage / VIEW_FILE, page)
            w.commit()
    return p / VIEW_FILE
