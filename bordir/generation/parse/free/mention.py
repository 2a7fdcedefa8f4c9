"""A country named in a free answer, with the role its context gives it (:class:`Mention`)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Mention", "STRONG_ROLES"]

STRONG_ROLES = ("sovereign", "recognized", "bare", "demonym", "independent")
"""The roles that name a country as the owner."""


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
