"""How :func:`~bordir.generation.executor.execute` runs its calls: one small keyword-only settings object.

:class:`ExecutorOptions` holds the operational settings of a call to the
executor (concurrency, rate limits, retries, time limits) and the hooks tests
inject (the backoff's jitter seed, sleep and clock). None of them changes an
answer, so none enters a signature or the cache key. An experiment's
:class:`~bordir.experiment.config.Operational` builds one
(:meth:`~bordir.experiment.config.Operational.executor_options`); every other
caller builds its own.

Example:
    >>> ExecutorOptions(concurrency=4, timeout=30.0)
    ExecutorOptions(concurrency=4, timeout=30.0)
    >>> ExecutorOptions(request_deadline=None)
    ExecutorOptions(request_deadline=None)
    >>> ExecutorOptions(max_retries=-1)
    Traceback (most recent call last):
    ...
    bordir.errors.ConfigError: max_retries must be an integer >= 0, got -1
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .._net.ratelimit import RateLimiter
from .._repr import changed_fields_repr
from ._execute_parts import check_options

__all__ = [
    "ExecutorOptions",
    "DEFAULT_RETRIES",
    "DEFAULT_TIMEOUT",
    "DEFAULT_REQUEST_DEADLINE",
    "DEFAULT_MAX_CONSECUTIVE_FAILURES",
]

DEFAULT_RETRIES = 6
"""Retries of a transient failure when none is given (so at most 7 attempts)."""
DEFAULT_TIMEOUT = 60.0
"""Seconds ONE attempt may take when none is given (then it is cut and, as any timeout, retried).

One stalled attempt (the server accepts and never answers, or answers too late) costs its
request 60 s and a retry, not the request: the retry usually answers at once."""
DEFAULT_REQUEST_DEADLINE = 300.0
"""Seconds one request may take over all its attempts and backoff waits when none is given.

No retry starts once its backoff would end past it, and the attempt in progress is cut at what
is left; the request then fails with ``request deadline of 300 s reached after N attempts``.
Five stalled attempts of 60 s fit in it; a server that refuses or fails fast gets its 7 attempts
(about 30 s of backoff at most)."""
DEFAULT_MAX_CONSECUTIVE_FAILURES = 10
"""Failed requests, or attempts that timed out, in a row after which the executor stops when no limit is given.

A dead provider fails a whole grid within about two minutes at ``bordir run``'s concurrency
of 8: against a server that refuses connections, the requests in flight fail after their 7
attempts (about 30 s of backoff at most) and ten failed requests in a row take at most two such
waves; against one that stalls, every attempt times out after :data:`DEFAULT_TIMEOUT` and ten
timed-out attempts in a row take two waves of 8 attempts (2 × 60 s). The requests not attempted
yet then fail at once with ``not attempted: stopped after 10 consecutive failures``; a re-run
retries them. (At concurrency *c* a stalled server costs ``ceil(10 / c) × 60`` seconds.) An
attempt that gets any answer, even an HTTP error, resets the count of timed-out attempts."""


@dataclass(frozen=True, kw_only=True, repr=False)
class ExecutorOptions:
    """The operational settings of one :func:`~bordir.generation.executor.execute` call.

    Attributes:
        concurrency: calls in flight at most (default: ``backend.max_concurrency``). A value
            above the backend's default is used, and said so in a warning; a backend whose limit
            is hard (``max_concurrency_hard``, the in-process local model) caps it, also said.
        rpm: requests per minute (None: unlimited).
        tpm: tokens per minute (None: unlimited). Tokens are reserved before a call
            as characters / 4 + ``max_tokens`` and corrected by the reported usage.
        max_retries: retries of a :class:`~bordir.errors.TransientError` (so at most
            ``max_retries + 1`` attempts).
        timeout: seconds ONE attempt may take (HTTP backends pass it to their client, which
            cuts the attempt; a timeout is transient, so the request is retried). Default
            :data:`DEFAULT_TIMEOUT` (60 s); None: the backend's own limit.
        request_deadline: seconds one request may take over all its attempts and backoff
            waits; no retry starts once its wait would end past it, and the attempt in progress
            is cut at what is left. Default :data:`DEFAULT_REQUEST_DEADLINE` (300 s); None: no
            limit (``max_retries`` still bounds the attempts).
        deadline: seconds the whole call may take; once reached, no attempt starts and the
            requests not answered yet fail with ``deadline of … s reached``.
        max_consecutive_failures: after this many failed requests in a row, or attempts in a
            row that timed out (a stalled server), stop: the requests not answered yet fail
            with ``not attempted: stopped after N consecutive failures`` (a dead server costs N
            requests, not all of them). Default :data:`DEFAULT_MAX_CONSECUTIVE_FAILURES` (10);
            None: never stop.
        limiter: a :class:`~bordir._net.ratelimit.RateLimiter` shared between calls (instead of
            ``rpm`` / ``tpm``).
        jitter_seed: seed of the backoff jitter (for reproducible tests).
        sleep: how backoff waits (default: an interruptible wait; inject a fake in tests).
        clock: monotonic clock for ``request_deadline`` and ``deadline`` (inject a fake in tests).

    Raises:
        ConfigError: a value is out of range (the message names it).
    """

    concurrency: int | None = None
    rpm: float | None = None
    tpm: float | None = None
    max_retries: int = DEFAULT_RETRIES
    timeout: float | None = DEFAULT_TIMEOUT
    request_deadline: float | None = DEFAULT_REQUEST_DEADLINE
    deadline: float | None = None
    max_consecutive_failures: int | None = DEFAULT_MAX_CONSECUTIVE_FAILURES
    limiter: RateLimiter | None = None
    jitter_seed: int | None = None
    sleep: Callable[[float], object] | None = None
    clock: Callable[[], float] = time.monotonic

    def __post_init__(self) -> None:
        check_options(
            max_retries=self.max_retries,
            concurrency=self.concurrency,
            timeout=self.timeout,
            request_deadline=self.request_deadline,
            deadline=self.deadline,
            max_consecutive_failures=self.max_consecutive_failures,
        )

    @classmethod
    def given(cls, **values: Any) -> ExecutorOptions:
        """Options from ``values``; a value that is None keeps its default (an option not given).

        >>> ExecutorOptions.given(concurrency=4, timeout=None)
        ExecutorOptions(concurrency=4)
        """
        return cls(**{k: v for k, v in values.items() if v is not None})

    def rate_limiter(self) -> RateLimiter | None:
        """The limiter of the call: the shared one, else one for ``rpm`` / ``tpm`` (None: unlimited)."""
        if self.limiter is None and (self.rpm is not None or self.tpm is not None):
            return RateLimiter(self.rpm, self.tpm)
        return self.limiter

    def replace(self, **changes: Any) -> ExecutorOptions:
        """A copy with ``changes`` (checked again)."""
        return dataclasses.replace(self, **changes)

    def __repr__(self) -> str:
        return changed_fields_repr(self)
