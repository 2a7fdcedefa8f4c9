"""Token buckets for requests per minute (RPM) and tokens per minute (TPM).

A call reserves one request and an *estimated* number of tokens before it is
made (:func:`~bordir.generation.cost.estimate_call_tokens`: prompt characters / 4
plus ``max_tokens``); when the real usage is known, :meth:`RateLimiter.correct`
returns the unused tokens or charges the excess (the bucket may go into debt,
which later calls wait out). Both buckets start full and refill continuously
(``limit / 60`` per second). Thread-safe; the clock and the sleep are
injectable, so tests need not wait. Used by the generation executor
(``rpm`` / ``tpm``) and the Wikipedia client.

Example:
    >>> t = [0.0]
    >>> rl = RateLimiter(rpm=2, tpm=1000, clock=lambda: t[0], sleep=lambda s: t.__setitem__(0, t[0] + s))
    >>> rl.try_acquire(100), rl.try_acquire(100)   # two requests fit in the bucket
    (0.0, 0.0)
    >>> rl.try_acquire(100)                        # the third waits for 1/2 of a minute's refill
    30.0
    >>> rl.acquire(100)                            # blocks (here: advances the fake clock)
    True
    >>> t[0]
    30.0
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from ..errors import ConfigError

__all__ = ["RateLimiter"]


class _Bucket:
    """A token bucket of ``capacity`` refilled at ``capacity / 60`` per second."""

    __slots__ = ("capacity", "rate", "level", "stamp")

    def __init__(self, per_minute: float, now: float, *, name: str = "rpm") -> None:
        if (
            isinstance(per_minute, bool)
            or not isinstance(per_minute, (int, float))
            or not 0 < per_minute < float("inf")
        ):
            what = "requests" if name == "rpm" else "tokens"
            raise ConfigError(
                f"{name} must be a positive number of {what} per minute, got {per_minute!r}; "
                f"set it to e.g. {500 if name == 'rpm' else 200000}, or leave it out for no limit"
            )
        self.capacity = float(per_minute)
        self.rate = self.capacity / 60.0
        self.level = self.capacity
        self.stamp = now

    def refill(self, now: float) -> None:
        if now > self.stamp:
            self.level = min(self.capacity, self.level + (now - self.stamp) * self.rate)
            self.stamp = now

    def wait(self, amount: float) -> float:
        """Seconds until ``amount`` (capped at the capacity) is available; 0 if now."""
        need = min(amount, self.capacity)
        return 0.0 if self.level >= need else (need - self.level) / self.rate


class RateLimiter:
    """Limit requests and tokens per minute.

    Args:
        rpm: requests per minute, or None for no limit.
        tpm: tokens (input + output) per minute, or None for no limit.
        clock: monotonic clock in seconds (default :func:`time.monotonic`).
        sleep: how :meth:`acquire` waits (default :func:`time.sleep`).

    A single call larger than ``tpm`` is let through once the bucket is full
    (otherwise it could never run) and leaves the bucket in debt.

    Raises:
        ConfigError: ``rpm`` or ``tpm`` is not a positive finite number (the message names it).
    """

    def __init__(
        self,
        rpm: float | None = None,
        tpm: float | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], object] = time.sleep,
    ) -> None:
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        now = clock()
        self.rpm = rpm
        self.tpm = tpm
        self._requests = _Bucket(rpm, now, name="rpm") if rpm is not None else None
        self._tokens = _Bucket(tpm, now, name="tpm") if tpm is not None else None

    @property
    def enabled(self) -> bool:
        return self._requests is not None or self._tokens is not None

    def try_acquire(self, tokens: int = 0) -> float:
        """Reserve one request and ``tokens`` tokens if both are available now.

        Returns:
            0.0 if reserved, else the seconds to wait before trying again (nothing reserved).
        """
        with self._lock:
            now = self._clock()
            buckets = [
                (b, n)
                for b, n in ((self._requests, 1.0), (self._tokens, float(tokens)))
                if b is not None
            ]
            for bucket, _ in buckets:
                bucket.refill(now)
            wait = max((bucket.wait(n) for bucket, n in buckets), default=0.0)
            if wait > 0:
                return wait
            for bucket, n in buckets:
                bucket.level -= n
            return 0.0

    def acquire(self, tokens: int = 0, *, cancelled: Callable[[], bool] | None = None) -> bool:
        """Block until one request and ``tokens`` tokens are reserved.

        Args:
            tokens: the estimated tokens of the call.
            cancelled: checked before each wait; when it returns True, give up.

        Returns:
            True when reserved, False when cancelled.
        """
        while True:
            wait = self.try_acquire(tokens)
            if wait <= 0:
                return True
            if cancelled is not None and cancelled():
                return False
            self._sleep(wait)

    def correct(self, estimated: int, actual: int | None) -> None:
        """Replace a reservation of ``estimated`` tokens by the ``actual`` usage (None: keep the estimate)."""
        if self._tokens is None or actual is None:
            return
        with self._lock:
            self._tokens.refill(self._clock())
            self._tokens.level = min(self._tokens.capacity, self._tokens.level + estimated - actual)

    def __repr__(self) -> str:
        return f"RateLimiter(rpm={self.rpm!r}, tpm={self.tpm!r})"
