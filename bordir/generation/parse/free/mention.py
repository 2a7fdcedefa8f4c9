"""A country named in a free answer, with the role its context gives it.

:mod:`~bordir.generation.parse.free.analyze` gives the roles.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["STRONG_ROLES", "Mention"]

STRONG_ROLES = ("sovereign", "recognized", "bare", "demonym", "independent")
"""The roles that say whose the territory is (the others only mention a country)."""


@dataclass(slots=True)
class Mention:
    """A country named in the answer, with the role its context gives it."""

    start: int
    end: int
    code: str
    kind: str
    role: str = "mentioned"
    sentence: int = 0
    seg_start: int = 0
    seg_end: int = 0
    cue: str = ""
    clause: tuple[int, int] = (0, 0)
    conclusion: bool = False
    both: bool = False

    @property
    def strong(self) -> bool:
        return self.role in STRONG_ROLES
