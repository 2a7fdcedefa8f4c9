"""Plurality (majority) vote: the most frequent value, or no winner on a tie for first place.

Example:
    >>> plurality(["a", "b", "a"]), plurality(["a", "b"]), plurality([])
    (('a', 2), (None, 1), (None, 0))
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from typing import TypeVar

__all__ = ["plurality"]

V = TypeVar("V", bound=Hashable)


def plurality(votes: Sequence[V]) -> tuple[V | None, int]:
    """``(winner, its votes)``; the winner is None on a tie for first place (or with no votes: ``(None, 0)``)."""
    if not votes:
        return None, 0
    ranked = Counter(votes).most_common()
    if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
        return None, ranked[0][1]
    return ranked[0]
