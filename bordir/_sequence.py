"""The read-only sequence over a tuple that in-memory collections (a corpus, a label set) are built on.

Example:
    >>> class Letters(TupleSequence[str]):
    ...     pass
    >>> s = Letters("abc")
    >>> s[0], s[1:], len(s), list(s), "b" in s
    ('a', ('b', 'c'), 3, ['a', 'b', 'c'], True)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TypeVar, overload

__all__ = ["TupleSequence"]

T = TypeVar("T")


class TupleSequence(Sequence[T]):
    """An immutable, ordered collection over ``tuple(items)``: indexing (a slice gives a tuple), ``len``, iteration.

    Subclasses call ``super().__init__(items)`` and read the items as ``self._items``.
    """

    def __init__(self, items: Iterable[T]) -> None:
        self._items: tuple[T, ...] = tuple(items)

    @overload
    def __getitem__(self, i: int) -> T: ...
    @overload
    def __getitem__(self, i: slice) -> tuple[T, ...]: ...
    def __getitem__(self, i: int | slice) -> T | tuple[T, ...]:
        return self._items[i]

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[T]:
        return iter(self._items)
