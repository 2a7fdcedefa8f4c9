"""How a request's steps are driven: :class:`Steps` feeds a plan the answer of each step; an attempt's time limit.

:meth:`bordir.generation._calls.Calls.plan` yields what to do next (take a rate-limit token,
make an attempt, wait); a driver in a worker thread or on the event loop does it and sends the
result back (or throws the attempt's exception in), so both lanes run the same steps.

Example:
    >>> def plan():
    ...     got = yield ("attempt", 1.0)
    ...     return got * 2
    >>> steps = Steps(plan())
    >>> for kind, arg in steps:
    ...     steps.value = 21
    >>> steps.result
    42
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from typing import Any, cast

from .types import GenerationResult

__all__ = ["Cancelled", "Step", "Steps", "attempt_limit"]

Step = tuple[str, Any]


class Steps:
    """Drives a :meth:`Calls.plan` generator: each step gets back the last ``value``, or ``error`` thrown in.

    Iterating yields the plan's steps; the caller sets :attr:`value` (or :attr:`error`) for the
    step it was given, and reads :attr:`result` once the iteration ends.
    """

    def __init__(self, steps: Generator[Step, Any, GenerationResult]) -> None:
        self.steps = steps
        self.value: Any = None
        self.error: Exception | None = None
        self._result: GenerationResult | None = None

    def __iter__(self) -> Iterator[Step]:
        while True:
            value, error = self.value, self.error
            self.value, self.error = None, None
            try:
                step = self.steps.throw(error) if error is not None else self.steps.send(value)
            except StopIteration as end:
                self._result = cast("GenerationResult", end.value)
                return
            yield step

    @property
    def result(self) -> GenerationResult:
        """What the plan returned (after the iteration)."""
        return cast("GenerationResult", self._result)


class Cancelled(Exception):
    """Raised inside a call when the run was interrupted."""


def attempt_limit(timeout: float | None, now: float, *ends: float | None) -> float | None:
    """One attempt's time limit: its own ``timeout``, cut at what is left before each of ``ends``.

    Example:
        >>> attempt_limit(60.0, 100.0, 130.0, None), attempt_limit(60.0, 100.0, None), attempt_limit(None, 0.0)
        (30.0, 60.0, None)
    """
    left = [x for x in (timeout, *(None if e is None else e - now for e in ends)) if x is not None]
    return max(0.001, min(left)) if left else None
