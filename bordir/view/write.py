"""Writing ``DIR/view.html`` for an output directory of any kind, all or nothing.

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

from .._atomic import atomic_write_text
from ..errors import ConfigError
from .kinds import Kind, view_kind
from .page import render_page

__all__ = ["STATIC_MAX_ROWS", "VIEW_FILE", "write_view", "page_data", "view_rows"]

STATIC_MAX_ROWS = 200_000
"""The most response rows a static ``view.html`` embeds; larger runs are served (``bordir view DIR --serve``)."""
VIEW_FILE = "view.html"


def view_rows(path: str | os.PathLike[str]) -> int:
    """The number of rows the view of ``path`` would hold (a run: the rows of ``responses.parquet``; else 0)."""
    p = Path(path)
    if view_kind(p) != "run":
        return 0
    from .files import parquet_schema

    parquet_schema(p / "responses.parquet", hint="re-run `bordir run` or restore the file")
    import pyarrow.parquet as pq

    return int(pq.ParquetFile(p / "responses.parquet").metadata.num_rows)


def page_data(
    path: str | os.PathLike[str], kind: Kind | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(meta, rows)`` of the static page of ``path``."""
    p = Path(path)
    kind = kind or view_kind(p)
    if kind == "run":
        from .run_data import load_run_data
        from .run_view import run_page

        return run_page(load_run_data(p))
    if kind == "testbed":
        from .testbed_view import testbed_page

        return testbed_page(p)
    if kind == "testgen":
        from .testgen_view import testgen_page

        return testgen_page(p)
    from .audit_view import audit_page

    return audit_page(p)


def write_view(
    path: str | os.PathLike[str],
    *,
    out: str | os.PathLike[str] | None = None,
    max_rows: int = STATIC_MAX_ROWS,
) -> Path:
    """Write the self-contained explorer of the output directory ``path``; returns the page's path.

    Args:
        path: a run, testbed, test-run (testgen + judge) or audit directory.
        out: where to write (default ``path/view.html``).
        max_rows: the most rows a static page embeds (:data:`STATIC_MAX_ROWS`).

    Raises:
        DataError: ``path`` is not such a directory, or one of its files is unreadable
            (nothing is written then).
        ConfigError: the run has more than ``max_rows`` rows (serve it: ``bordir view DIR --serve``).

    Example:
        >>> import tempfile
        >>> write_view(tempfile.mkdtemp())  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        bordir.errors.DataError: ...: not a bordir output directory; expected run.json and responses.parquet ...
    """
    p = Path(path)
    kind = view_kind(p)
    n = view_rows(p) if kind == "run" else 0
    if n > max_rows:
        raise ConfigError(
            f"{p}: {n:,} response rows, more than the {max_rows:,} a static view.html embeds; serve it "
            "instead: bordir view DIR --serve"
        )
    meta, rows = page_data(p, kind)
    target = Path(out) if out is not None else p / VIEW_FILE
    page = render_page(meta, rows)
    if kind == "run" and meta.get("response_format") == "open":  # free answers and their twins
        from .free_view import free_section

        page = page.replace("\n</main>\n", f"\n{free_section(p)}\n</main>\n", 1)
    return atomic_write_text(target, page)
