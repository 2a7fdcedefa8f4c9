"""Run many requests through a backend: cache, concurrency, rate limits, retries, progress.

:func:`execute` is where the operational concerns live, so that a backend only
makes one attempt:

- **cache**: requests already in the :class:`~bordir.generation.cache.ResponseCache`
  are answered with zero calls; each successful call is stored the moment it
  finishes (from its worker thread), so Ctrl-C or ``SIGKILL`` loses only the
  calls in flight. Failed calls are not stored: a re-run retries them.
- **duplicates**: requests with the same cache key are called once.
- **concurrency**: a thread pool of ``min(concurrency, backend.max_concurrency)``.
- **rate limits**: optional requests / tokens per minute (:mod:`~bordir.generation.ratelimit`).
- **retries**: a :class:`~bordir.generation.backend.TransientError` is retried up to
  ``max_retries`` times after a full-jitter exponential backoff (base 0.5 s, cap
  30 s), waiting at least the error's ``retry_after``. After the last retry, on a
  :class:`~bordir.generation.backend.PermanentError` or on any other exception
  from the backend, the request's result is ``GenerationResult(text="",
  error=<reason>, attempts=n)`` and the run goes on.

Examples:
    >>> from bordir.generation.backend import get_backend
    >>> from bordir.generation.types import GenerationRequest, Message
    >>> reqs = [GenerationRequest(model="mock/echo", messages=(Message("user", q),)) for q in ("A) x", "B) y", "A) x")]
    >>> [r.text for r in execute(get_backend("mock/echo"), reqs, progress=False)]
    ['A) x', 'B) y', 'A) x']
"""

from __future__ import annotations

import dataclasses
import logging
import os
import random
import re
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from typing import TYPE_CHECKING

from ..errors import ConfigError
from .backend import Backend, PermanentError, TransientError
from .cost import estimate_call_tokens
from .ratelimit import RateLimiter
from .types import GenerationRequest, GenerationResult

if TYPE_CHECKING:
    from .cache import ResponseCache

__all__ = ["execute", "backoff_delay", "BACKOFF_BASE", "BACKOFF_CAP"]

log = logging.getLogger(__name__)

BACKOFF_BASE = 0.5
"""Seconds: the backoff ceiling before the first retry (doubling with each retry)."""
BACKOFF_CAP = 30.0
"""Seconds: the largest backoff ceiling."""

OnResult = Callable[[GenerationRequest, GenerationResult], object]


class _Cancelled(Exception):
    """Raised inside a worker when the run was interrupted."""


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


_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL", re.IGNORECASE)


def _redact(text: str) -> str:
    """Mask values of secret-looking environment variables that an exception message may echo."""
    for name, value in os.environ.items():
        if len(value) >= 8 and _SECRET_NAME.search(name) and value in text:
            text = text.replace(value, "***")
    return text


def _describe(exc: BaseException) -> str:
    status = getattr(exc, "status", None)
    return f"{exc}" + (f" (status {status})" if status is not None else "")


def execute(
    backend: Backend,
    requests: Sequence[GenerationRequest],
    *,
    cache: ResponseCache | None = None,
    concurrency: int | None = None,
    rpm: float | None = None,
    tpm: float | None = None,
    max_retries: int = 6,
    timeout: float | None = None,
    progress: bool = True,
    desc: str | None = None,
    on_result: OnResult | None = None,
    jitter_seed: int | None = None,
    limiter: RateLimiter | None = None,
    sleep: Callable[[float], object] | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> list[GenerationResult]:
    """Answer ``requests`` with ``backend``; one result per request, in request order.

    Args:
        backend: the backend (one attempt per ``generate``).
        requests: the requests; their ``model`` must be the backend's.
        cache: a response cache: hits make no call, successes are stored as they finish.
        concurrency: calls in flight at most (default and upper limit: ``backend.max_concurrency``).
        rpm: requests per minute (None: unlimited).
        tpm: tokens per minute (None: unlimited). Tokens are reserved before a call
            as characters / 4 + ``max_tokens`` and corrected by the reported usage.
        max_retries: retries of a :class:`TransientError` (so at most ``max_retries + 1`` attempts).
        timeout: seconds a request may spend from its first attempt over all attempts and
            backoff waits; no retry starts once it would be exceeded. An attempt in progress is
            not interrupted (a backend's own HTTP timeout bounds it).
        progress: show a tqdm progress bar with ETA on stderr.
        desc: the progress bar's label (default: the backend's name).
        on_result: called as ``on_result(request, result)`` in the calling thread once per
            distinct request as soon as its result is known (cache hits first).
        jitter_seed: seed of the backoff jitter (for reproducible tests).
        limiter: a :class:`RateLimiter` to share between runs (instead of ``rpm`` / ``tpm``).
        sleep: how backoff waits (default: an interruptible wait; inject a fake in tests).
        clock: monotonic clock for ``timeout`` (inject a fake in tests).

    Returns:
        The results; duplicates share one result. Failures have ``error`` set and ``text == ""``.

    Raises:
        ConfigError: a request is for another model than the backend's, or an argument is invalid.
        KeyboardInterrupt: re-raised after cancelling the calls not yet started.
    """
    requests = list(requests)
    if max_retries < 0:
        raise ConfigError(f"max_retries must be >= 0, got {max_retries}")
    if concurrency is not None and concurrency < 1:
        raise ConfigError(f"concurrency must be >= 1, got {concurrency}")
    if timeout is not None and not timeout > 0:
        raise ConfigError(f"timeout must be a positive number of seconds, got {timeout!r}")
    for request in requests:
        if request.model != backend.name and request.model_name != backend.model:
            raise ConfigError(
                f"request for model {request.model!r} given to backend {backend.name!r}; "
                "group requests by model and run each group with get_backend(model)"
            )
    if limiter is None and (rpm is not None or tpm is not None):
        limiter = RateLimiter(rpm, tpm)

    keys = [r.cache_key() for r in requests]
    first: dict[str, int] = {}
    for i, key in enumerate(keys):
        first.setdefault(key, i)
    done: dict[str, GenerationResult] = {}

    if cache is not None:
        for key in cache.contains_keys(first):
            hit = cache.get_key(key)
            if hit is not None:  # another process may have deleted it meanwhile
                done[key] = hit
    todo = [key for key in first if key not in done]
    log.info("%s: %d requests, %d distinct, %d cached, %d to call", backend.name, len(requests), len(first),
             len(done), len(todo))
    if on_result is not None:
        for key, hit in done.items():
            on_result(requests[first[key]], hit)

    stop = threading.Event()
    wait: Callable[[float], object] = sleep if sleep is not None else stop.wait
    rng = random.Random(jitter_seed)
    rng_lock = threading.Lock()

    def fail(request: GenerationRequest, attempts: int, reason: str) -> GenerationResult:
        reason = _redact(reason)
        log.warning("%s: request %s… failed: %s", backend.name, request.cache_key()[:12], reason)
        return GenerationResult(text="", model=request.model, error=reason, attempts=attempts)

    def call(request: GenerationRequest) -> GenerationResult:
        reserve = estimate_call_tokens(request) if limiter is not None else 0
        attempts = 0
        started: float | None = None
        while True:
            if stop.is_set():
                raise _Cancelled
            if limiter is not None and not limiter.acquire(reserve, cancelled=stop.is_set):
                raise _Cancelled
            attempts += 1
            t0 = clock()
            started = t0 if started is None else started
            try:
                result = backend.generate(request)
            except TransientError as exc:
                if attempts > max_retries:
                    return fail(request, attempts, f"gave up after {attempts} attempts: {_describe(exc)}")
                with rng_lock:
                    delay = backoff_delay(attempts, rng, retry_after=exc.retry_after)
                if timeout is not None and clock() + delay - started > timeout:
                    return fail(request, attempts, f"timeout of {timeout:g} s reached after {attempts} attempts; "
                                                   f"last error: {_describe(exc)}")
                log.info("%s: attempt %d failed (%s); retrying in %.2f s", backend.name, attempts,
                         _redact(_describe(exc)), delay)
                wait(delay)
                continue
            except PermanentError as exc:
                return fail(request, attempts, f"permanent error: {_describe(exc)}")
            except Exception as exc:  # a backend bug must not end the run
                return fail(request, attempts, f"unexpected {type(exc).__name__} from {backend.name}: {exc}")
            latency = clock() - t0
            if limiter is not None:
                used = None
                if result.input_tokens is not None or result.output_tokens is not None:
                    used = (result.input_tokens or 0) + (result.output_tokens or 0)
                limiter.correct(reserve, used)
            result = dataclasses.replace(result, attempts=attempts, latency_s=result.latency_s or latency,
                                         cached=False)
            if not result.ok:
                result = dataclasses.replace(result, error=_redact(result.error or ""))
            if cache is not None:
                cache.put(request, result)  # at once: an interrupted run keeps every finished call
            return result

    workers = max(1, min(concurrency or backend.max_concurrency, backend.max_concurrency, len(todo) or 1))
    bar = _progress_bar(progress, total=len(first), initial=len(done), desc=desc or backend.name)
    failed = 0
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="bordir-generate")
    try:
        futures: dict[Future[GenerationResult], str] = {
            pool.submit(call, requests[first[key]]): key for key in todo
        }
        for future in as_completed(futures):
            key = futures[future]
            result = future.result()
            done[key] = result
            failed += 0 if result.ok else 1
            if bar is not None:
                bar.update(1)
                if failed:
                    bar.set_postfix(failed=failed, refresh=False)
            if on_result is not None:
                on_result(requests[first[key]], result)
    except BaseException:
        stop.set()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    else:
        pool.shutdown(wait=True)
    finally:
        if bar is not None:
            bar.close()
    return [done[key] for key in keys]


def _progress_bar(enabled: bool, *, total: int, initial: int, desc: str):
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, initial=initial, desc=desc, unit="call", dynamic_ncols=True)
