"""Which page an output directory gets: the kind in its record → the module that renders it.

Every kind of run registers its page here, deferred (the module is imported when a directory
of that kind is viewed): :data:`VIEWS` maps a kind (``run``, ``testbed``, ``testrun``,
``audit``), or a kind with its flavour (``audit/blackbox``), to a :class:`ViewKind`. A
directory is looked up by its record (:func:`view_of`), never by its file names; a new kind's
page is one module with a ``VIEW`` and one line here.

Example:
    >>> VIEWS.names()
    ('run', 'testbed', 'testrun', 'audit', 'audit/blackbox')
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..registry import Registry
from ..runrecord.record import RunRecord

__all__ = ["ViewKind", "VIEWS", "view_of"]

PageData = tuple[dict[str, Any], dict[str, Any]]


def _no_rows(path: Path) -> int:
    return 0


@dataclass(frozen=True)
class ViewKind:
    """The page of one kind of output directory.

    Attributes:
        page: ``(meta, rows)`` of the static page of a directory.
        rows: the rows a static page of a directory would embed (a run's responses); the
            other kinds are small (0).
    """

    page: Callable[[Path], PageData]
    rows: Callable[[Path], int] = _no_rows


VIEWS: Registry[ViewKind] = Registry("kind of output directory")
"""Kind (or ``kind/flavour``) → :class:`ViewKind`; each module defines ``VIEW``."""

VIEWS.register("run", module="bordir.view.run_view:VIEW", description="a `bordir run` directory")
VIEWS.register(
    "testbed", module="bordir.view.testbed_view:VIEW", description="a `bordir testbed` directory"
)
VIEWS.register(
    "testrun",
    module="bordir.view.testgen_view:VIEW",
    description="a `bordir testrun` (and `bordir judge`) directory",
)
VIEWS.register(
    "audit", module="bordir.view.audit_view:VIEW", description="a `bordir audit` directory"
)
VIEWS.register(
    "audit/blackbox",
    module="bordir.view.blackbox_view:VIEW",
    description="a black-box `bordir audit` directory (answers and cited URLs)",
)


def view_of(record: RunRecord) -> ViewKind:
    """The page of a directory with ``record``: its ``kind/flavour`` entry, else its kind's."""
    for name in record.dispatch:
        if name in VIEWS:
            return VIEWS.get(name)
    return VIEWS.get(record.kind)
