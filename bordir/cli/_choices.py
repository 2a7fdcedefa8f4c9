"""``click`` choices read from a registry when a command line is parsed, not when bordir is imported.

So a backend, fusion or policy registered by a plugin module (``BORDIR_PLUGINS``,
loaded by the top-level group before a subcommand parses its options) is a
valid choice too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import click

__all__ = ["RegistryChoice"]


class RegistryChoice(click.Choice[str]):
    """A :class:`click.Choice` whose choices are ``names()`` at the time they are checked.

    Example:
        >>> from bordir.retrieval.fusion import FUSIONS
        >>> list(RegistryChoice(FUSIONS.names).choices)
        ['raw', 'minmax', 'rrf']
    """

    def __init__(self, names: Callable[[], Iterable[str]], case_sensitive: bool = True) -> None:
        self._names = names
        super().__init__((), case_sensitive=case_sensitive)

    @property  # type: ignore[override]
    def choices(self) -> Sequence[Any]:
        return tuple(self._names())

    @choices.setter
    def choices(self, value: Sequence[Any]) -> None:  # click.Choice.__init__ assigns it
        pass
