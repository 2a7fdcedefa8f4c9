"""The one progress-bar helper: tqdm on stderr with one set of defaults.

Every long loop (generation calls, retrieval, embedding, Wikipedia fetches,
audits, batches) shows its bar through :func:`progress_bar`, so they all
behave alike:

* ``enabled=False`` (``--no-progress``): no bar;
* ``enabled=True`` or ``None`` (the default): a bar when stderr is a terminal
  (or in a notebook), none in logs, pipes and tests;
* ``BORDIR_PROGRESS=0`` turns every bar off, ``BORDIR_PROGRESS=1`` shows them
  even when stderr is not a terminal.

The bar returned when disabled is a silent tqdm (``update`` / ``close`` /
``with`` work and do nothing), so callers never test for None.

Example:
    >>> with progress_bar(False, total=3, desc="demo", unit="item") as bar:
    ...     for _ in range(3):
    ...         bar.update(1)
    >>> bar.disable
    True
"""

from __future__ import annotations

import sys
from typing import Any

from .settings import PROGRESS

__all__ = ["progress_bar", "progress_disabled"]


def progress_disabled(enabled: bool | None) -> bool | None:
    """tqdm's ``disable`` for ``enabled``: True (off), or None (on when stderr is a terminal).

    ``$BORDIR_PROGRESS`` (:data:`bordir.settings.PROGRESS`) overrides: ``0`` gives True,
    ``1`` gives False (always on).

    Raises:
        ConfigError: ``$BORDIR_PROGRESS`` is neither a yes nor a no (``maybe``).
    """
    env = PROGRESS.get()
    if env is False:
        return True
    if enabled is False:
        return True
    if env is True:
        return False
    return None


def progress_bar(
    enabled: bool | None = None,
    *,
    total: int | None = None,
    initial: int = 0,
    desc: str = "",
    unit: str = "it",
    unit_scale: bool = False,
) -> Any:
    """A tqdm bar on stderr (see the module docs for when it is shown).

    Args:
        enabled: False: never; True / None: when stderr is a terminal.
        total: the number of steps, when known.
        initial: steps already done (a resumed run).
        desc: the bar's label.
        unit: what one step is (``call``, ``passage``, ``record`` …).
        unit_scale: show large counts as 1.2k, 3.4M.
    """
    from tqdm.auto import tqdm

    return tqdm(
        total=total,
        initial=initial,
        desc=desc,
        unit=unit,
        unit_scale=unit_scale,
        dynamic_ncols=True,
        file=sys.stderr,
        disable=progress_disabled(enabled),
    )
