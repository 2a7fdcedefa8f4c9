"""API etiquette for the Wikipedia fetcher: one request at a time, a rate limit, retries with backoff.

Both HTTP paths (``wikipedia-api`` for current pages, ``httpx`` for revisions)
go through one :class:`Throttle`, so they share its limit:

- **rate limit**: at most ``rpm`` requests per minute (a token bucket, bordir's
  :class:`~bordir.generation.ratelimit.RateLimiter`), requests made one after
  another (Wikimedia asks API clients not to make parallel requests);
- **retries**: HTTP 429, 5xx, timeouts and connection failures are retried up to
  ``max_retries`` times after a full-jitter exponential backoff
  (:func:`~bordir.generation.executor.backoff_delay`: base ``base`` seconds,
  ceiling ``cap``), never sooner than the server's ``Retry-After``;
- other 4xx answers are not retried; after the last retry a
  :class:`FetchError` names the URL, the status and the attempts.

The clock, the sleep and the jitter seed are injectable, so tests do not wait.

Example:
    >>> waits = []
    >>> th = Throttle(RetryPolicy(max_retries=2, rpm=None), sleep=waits.append)
    >>> answers = iter([TransientError("HTTP 429", status=429, retry_after=3.0), "ok"])
    >>> def call():
    ...     a = next(answers)
    ...     if isinstance(a, Exception):
    ...         raise a
    ...     return a
    >>> th.call(call, url="https://en.wikipedia.org/w/api.php"), waits, th.retries
    ('ok', [3.0], 1)
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from ..errors import BordirError

__all__ = ["RetryPolicy", "Throttle", "FetchError", "TransientError", "PermanentError"]

T = TypeVar("T")


class FetchError(BordirError):
    """A request to a MediaWiki API failed for good.

    Attributes:
        url: the endpoint.
        status: the last HTTP status, or None when no answer came (connection, timeout).
        attempts: how many attempts were made.
    """

    def __init__(
        self, message: str, *, url: str, status: int | None = None, attempts: int = 1
    ) -> None:
        self.url = url
        self.status = status
        self.attempts = attempts
        super().__init__(message)


class TransientError(Exception):
    """One attempt failed in a way worth retrying (429, 5xx, timeout, connection)."""

    def __init__(
        self, reason: str, *, status: int | None = None, retry_after: float | None = None
    ) -> None:
        self.reason = reason
        self.status = status
        self.retry_after = retry_after
        super().__init__(reason)


class PermanentError(Exception):
    """One attempt failed in a way that retrying will not fix (4xx, an API error, bad JSON)."""

    def __init__(self, reason: str, *, status: int | None = None) -> None:
        self.reason = reason
        self.status = status
        super().__init__(reason)


@dataclass(frozen=True, kw_only=True)
class RetryPolicy:
    """How the fetcher paces and retries its requests.

    Attributes:
        rpm: requests per minute at most (None: no limit beyond one at a time).
        max_retries: retries after the first attempt.
        base: seconds, the backoff ceiling before the first retry (doubling).
        cap: seconds, the largest backoff ceiling (a ``Retry-After`` may exceed it).
        timeout: seconds per request.
        seed: seed of the backoff jitter.
    """

    rpm: float | None = 200.0
    max_retries: int = 5
    base: float = 1.0
    cap: float = 60.0
    timeout: float = 30.0
    seed: int = 0

    def __post_init__(self) -> None:
        from ..errors import ConfigError

        if self.max_retries < 0:
            raise ConfigError(f"max_retries must be >= 0, got {self.max_retries}")
        if self.rpm is not None and not self.rpm > 0:
            raise ConfigError(
                f"rpm must be a positive number of requests per minute, got {self.rpm}"
            )


class Throttle:
    """Runs request attempts under a :class:`RetryPolicy` (see the module docstring).

    Attributes:
        requests: attempts made.
        retries: attempts that were retries.
        events: one ``(url, reason, waited_seconds)`` per retry.
    """

    def __init__(
        self,
        policy: RetryPolicy | None = None,
        *,
        sleep: Callable[[float], object] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        from ..generation.ratelimit import RateLimiter

        self.policy = policy or RetryPolicy()
        self._sleep = sleep
        self._limiter = (
            RateLimiter(rpm=self.policy.rpm, clock=clock, sleep=sleep) if self.policy.rpm else None
        )
        self._rng = random.Random(self.policy.seed)
        self.requests = 0
        self.retries = 0
        self.events: list[tuple[str, str, float]] = []

    def call(self, attempt: Callable[[], T], *, url: str) -> T:
        """Run ``attempt()`` until it returns, retrying :class:`TransientError`; raise :class:`FetchError`."""
        from ..generation.executor import backoff_delay

        last: TransientError | None = None
        for n in range(self.policy.max_retries + 1):
            if n:
                assert last is not None
                wait = backoff_delay(
                    n,
                    self._rng,
                    retry_after=last.retry_after,
                    base=self.policy.base,
                    cap=self.policy.cap,
                )
                self.retries += 1
                self.events.append((url, last.reason, wait))
                self._sleep(wait)
            if self._limiter is not None:
                self._limiter.acquire()
            self.requests += 1
            try:
                return attempt()
            except TransientError as exc:
                last = exc
            except PermanentError as exc:
                raise FetchError(
                    f"{url}: {exc.reason}", url=url, status=exc.status, attempts=n + 1
                ) from None
        assert last is not None
        attempts = self.policy.max_retries + 1
        if last.status is None:
            raise FetchError(
                f"cannot reach {url} ({last.reason}) after {attempts} attempt(s); check --endpoint and the network",
                url=url,
                attempts=attempts,
            )
        raise FetchError(
            f"{url}: {last.reason} after {attempts} attempt(s)",
            url=url,
            status=last.status,
            attempts=attempts,
        )
