"""API etiquette for the Wikipedia fetcher: one request at a time, a rate limit, retries with backoff.

Both HTTP paths (``wikipedia-api`` for current pages, ``httpx`` for revisions)
go through one :class:`Throttle`, so they share its limit:

- **rate limit**: at most ``rpm`` requests per minute (a token bucket, bordir's
  :class:`~bordir._net.ratelimit.RateLimiter`), requests made one after
  another (Wikimedia asks API clients not to make parallel requests);
- **retries**: HTTP 429, 5xx, timeouts and connection failures are retried up to
  ``max_retries`` times after a full-jitter exponential backoff
  (:func:`bordir._net.retry.retry_call` and :class:`~bordir._net.retry.Backoff`: base ``base`` seconds,
  ceiling ``cap``), never sooner than the server's ``Retry-After``;
- other 4xx answers are not retried; after the last retry a
  :class:`FetchError` names the URL, the status and the attempts.

The clock, the sleep and the jitter seed are injectable, so tests do not wait.
:class:`TransientError`, :class:`PermanentError` and :class:`FetchError` are
bordir's own (:mod:`bordir.errors`), importable from here too.

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

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from .._net.ratelimit import RateLimiter
from .._net.retry import Backoff, retry_call
from ..errors import ConfigError, FetchError, PermanentError, TransientError

__all__ = ["RetryPolicy", "Throttle", "FetchError", "TransientError", "PermanentError"]

T = TypeVar("T")


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
        self.policy = policy or RetryPolicy()
        self._sleep = sleep
        self._limiter = (
            RateLimiter(rpm=self.policy.rpm, clock=clock, sleep=sleep) if self.policy.rpm else None
        )
        self._backoff = Backoff(self.policy.seed, base=self.policy.base, cap=self.policy.cap)
        self.requests = 0
        self.retries = 0
        self.events: list[tuple[str, str, float]] = []

    def call(self, attempt: Callable[[], T], *, url: str) -> T:
        """Run ``attempt()`` until it returns, retrying :class:`TransientError`; raise :class:`FetchError`."""

        def before() -> None:
            if self._limiter is not None:
                self._limiter.acquire()
            self.requests += 1

        def on_retry(exc: TransientError, wait: float) -> None:
            self.retries += 1
            self.events.append((url, exc.reason, wait))

        try:
            return retry_call(
                attempt,
                max_retries=self.policy.max_retries,
                backoff=self._backoff,
                sleep=self._sleep,
                before=before,
                on_retry=on_retry,
            )
        except PermanentError as exc:
            raise FetchError(
                f"{url}: {exc.reason}",
                url=url,
                status=exc.status,
                attempts=getattr(exc, "attempts", 1),
                provider=url,
            ) from None
        except TransientError as last:
            attempts = self.policy.max_retries + 1
            if last.status is None:
                raise FetchError(
                    f"cannot reach {url} ({last.reason}) after {attempts} attempt(s); "
                    "check --endpoint and the network",
                    url=url,
                    attempts=attempts,
                    provider=url,
                ) from None
            raise FetchError(
                f"{url}: {last.reason} after {attempts} attempt(s)",
                url=url,
                status=last.status,
                attempts=attempts,
                provider=url,
            ) from None
