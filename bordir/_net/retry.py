"""Retrying one attempt after another: transient vs permanent failures, jittered backoff, Retry-After.

The one retry utility of bordir, used by the generation executor
(:mod:`bordir.generation.executor`) and the Wikipedia client
(:mod:`bordir.wiki.retry`):

- **classification**: an attempt fails with a
  :class:`~bordir.errors.TransientError` (retry) or a
  :class:`~bordir.errors.PermanentError` (do not); :func:`is_transient_status`
  says which an HTTP status is (429, 408, 409, 425 and 5xx are transient);
- **backoff**: :func:`backoff_delay` is full-jitter exponential backoff, uniform
  on ``[0, min(cap, base * 2 ** (retry - 1))]``, never shorter than the server's
  ``Retry-After`` (:func:`parse_retry_after`), which may exceed ``cap``;
  :class:`Backoff` holds the seeded jitter source (thread-safe);
- **the loop**: :func:`retry_call` runs an attempt until it returns, retrying
  transient failures up to ``max_retries`` times.

Example:
    >>> waits = []
    >>> answers = iter([TransientError("HTTP 503", status=503, retry_after=2.0), "ok"])
    >>> def attempt():
    ...     a = next(answers)
    ...     if isinstance(a, Exception):
    ...         raise a
    ...     return a
    >>> retry_call(attempt, max_retries=3, backoff=Backoff(seed=0), sleep=waits.append), waits
    ('ok', [2.0])
    >>> is_transient_status(429), is_transient_status(404), is_transient_status(503)
    (True, False, True)
"""

from __future__ import annotations

import email.utils
import random
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import TypeVar

from ..errors import PermanentError, TransientError

__all__ = [
    "BACKOFF_BASE",
    "BACKOFF_CAP",
    "TRANSIENT_STATUS",
    "Backoff",
    "backoff_delay",
    "is_transient_status",
    "parse_retry_after",
    "retry_call",
    "status_error",
    "TransientError",
    "PermanentError",
]

T = TypeVar("T")

BACKOFF_BASE = 0.5
"""Seconds: the backoff ceiling before the first retry (doubling with each retry)."""
BACKOFF_CAP = 30.0
"""Seconds: the largest backoff ceiling."""
TRANSIENT_STATUS = frozenset({408, 409, 425, 429})
"""HTTP statuses below 500 worth retrying (timeouts, conflicts, too early, rate limited)."""


def is_transient_status(status: int, *, also: Iterable[int] = ()) -> bool:
    """Whether an HTTP ``status`` is worth retrying: 5xx, :data:`TRANSIENT_STATUS`, or one of ``also``."""
    return status >= 500 or status in TRANSIENT_STATUS or status in set(also)


def backoff_delay(
    retry: int,
    rng: random.Random,
    *,
    retry_after: float | None = None,
    base: float = BACKOFF_BASE,
    cap: float = BACKOFF_CAP,
) -> float:
    """Seconds to wait before retry number ``retry`` (1-based): full jitter, at least ``retry_after``.

    The delay is uniform on ``[0, min(cap, base * 2 ** (retry - 1))]``; a server's
    ``retry_after`` is a floor, honoured even above ``cap``.

    Example:
        >>> rng = random.Random(0)
        >>> all(0 <= backoff_delay(n, rng) <= min(30, 0.5 * 2 ** (n - 1)) for n in range(1, 12))
        True
        >>> backoff_delay(1, rng, retry_after=7.0) >= 7.0
        True
    """
    ceiling = min(cap, base * 2 ** (retry - 1))
    delay = rng.uniform(0.0, ceiling)
    if retry_after is not None and retry_after > delay:
        delay = float(retry_after)
    return delay


class Backoff:
    """Backoff delays from one seeded jitter source, safe to share between threads.

    Args:
        seed: seed of the jitter (None: from the system).
        base: seconds, the ceiling before the first retry.
        cap: seconds, the largest ceiling.

    Example:
        >>> b = Backoff(seed=1, base=1.0, cap=4.0)
        >>> b.delay(1, retry_after=10.0), 0 <= b.delay(5) <= 4.0
        (10.0, True)
    """

    def __init__(
        self, seed: int | None = None, *, base: float = BACKOFF_BASE, cap: float = BACKOFF_CAP
    ) -> None:
        self.base = base
        self.cap = cap
        self._rng = random.Random(seed)
        self._lock = threading.Lock()

    def delay(self, retry: int, *, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number ``retry`` (see :func:`backoff_delay`)."""
        with self._lock:
            return backoff_delay(
                retry, self._rng, retry_after=retry_after, base=self.base, cap=self.cap
            )

    def __repr__(self) -> str:
        return f"Backoff(base={self.base!r}, cap={self.cap!r})"


def parse_retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` / ``Retry-After`` (seconds or an HTTP date), or None.

    Example:
        >>> parse_retry_after({"Retry-After": "2"}), parse_retry_after({"retry-after-ms": "1500"})
        (2.0, 1.5)
        >>> parse_retry_after({}), parse_retry_after({"Retry-After": "soon"})
        (None, None)
    """
    if not headers:
        return None
    lower = {str(k).lower(): str(v) for k, v in headers.items()}
    ms = lower.get("retry-after-ms")
    if ms is not None:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = lower.get("retry-after")
    if value is None:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    parsed = email.utils.parsedate_tz(value)
    if parsed is None:
        return None
    return max(0.0, email.utils.mktime_tz(parsed) - time.time())


def status_error(
    message: str,
    status: int,
    headers: Mapping[str, str] | None,
    *,
    transient: bool,
    fix: str = "",
    clean: Callable[[str], str] = str,
) -> TransientError | PermanentError:
    """The error of an HTTP reply with ``status``: transient (with its ``Retry-After``) or permanent.

    Args:
        message: what failed (``"openai/x: HTTP 429: …"``).
        status: the HTTP status.
        headers: the reply's headers (read for ``Retry-After`` when transient).
        transient: retry it (:func:`is_transient_status`, with a provider's own statuses).
        fix: what a permanent error's message ends with (how to fix it).
        clean: applied to the message (masks secrets).

    >>> e = status_error("x: HTTP 429: slow down", 429, {"Retry-After": "2"}, transient=True)
    >>> type(e).__name__, str(e), e.retry_after
    ('TransientError', 'x: HTTP 429: slow down; retry after 2s', 2.0)
    >>> str(status_error("x: HTTP 404: no", 404, None, transient=False, fix="; check the model"))
    'x: HTTP 404: no; check the model'
    """
    if transient:
        retry_after = parse_retry_after(headers)
        hint = f"; retry after {retry_after:g}s" if retry_after is not None else ""
        return TransientError(clean(message + hint), retry_after=retry_after, status=status)
    return PermanentError(clean(message + fix), status=status)


def retry_call(
    attempt: Callable[[], T],
    *,
    max_retries: int,
    backoff: Backoff,
    sleep: Callable[[float], object] = time.sleep,
    before: Callable[[], object] | None = None,
    on_retry: Callable[[TransientError, float], object] | None = None,
) -> T:
    """``attempt()`` until it returns; a :class:`TransientError` is retried up to ``max_retries`` times.

    Args:
        attempt: one attempt; raises :class:`TransientError` or :class:`PermanentError` on failure.
        max_retries: retries after the first attempt.
        backoff: the delays (:class:`Backoff`).
        sleep: how to wait.
        before: called before every attempt (e.g. to take a rate-limit token).
        on_retry: called as ``on_retry(error, delay)`` before each wait.

    Raises:
        PermanentError: at once, from the attempt.
        TransientError: the last one, when the retries are used up; ``attempts`` (an int) is
            set on it.
    """
    retry = 0
    while True:
        if before is not None:
            before()
        try:
            return attempt()
        except TransientError as exc:
            if retry >= max_retries:
                exc.attempts = retry + 1  # type: ignore[attr-defined]
                raise
            retry += 1
            wait = backoff.delay(retry, retry_after=exc.retry_after)
            if on_retry is not None:
                on_retry(exc, wait)
            sleep(wait)
        except PermanentError as exc:
            exc.attempts = retry + 1  # type: ignore[attr-defined]
            raise
