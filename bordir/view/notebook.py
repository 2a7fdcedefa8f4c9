"""The explorer in a notebook: written to ``DIR/view.html``, shown inline in Jupyter.

:func:`show` writes the page (:func:`~bordir.view.write.write_view`) and, in a
Jupyter kernel, displays it inline in an ``<iframe srcdoc=…>`` (the page is
self-contained, so nothing is served); elsewhere it only returns the path.

Example:
    >>> in_jupyter()
    False
"""

from __future__ import annotations

import html
import os
from pathlib import Path

from .write import STATIC_MAX_ROWS, write_view

__all__ = ["show", "in_jupyter", "inline_html"]


def in_jupyter() -> bool:
    """True inside a Jupyter kernel (IPython's ``ZMQInteractiveShell``)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    ip = get_ipython()
    return ip is not None and type(ip).__name__ == "ZMQInteractiveShell"


def inline_html(page: str | Path, *, height: int = 820) -> str:
    """An ``<iframe>`` holding the page ``page`` (its path) inline."""
    text = Path(page).read_text(encoding="utf-8")
    return (
        f'<iframe srcdoc="{html.escape(text, quote=True)}" style="width: 100%; height: {height}px; '
        'border: 1px solid #ccc;" title="bordir view"></iframe>'
    )


def show(
    path: str | os.PathLike[str],
    *,
    inline: bool | None = None,
    height: int = 820,
    max_rows: int = STATIC_MAX_ROWS,
) -> Path:
    """Write ``path/view.html`` and show it inline in Jupyter (``inline``: force or suppress); returns its path."""
    page = write_view(path, max_rows=max_rows)
    if inline if inline is not None else in_jupyter():
        from IPython.display import HTML, display

        display(HTML(inline_html(page, height=height)))
    return page
