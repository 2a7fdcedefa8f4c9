"""Run many requests through a backend: cache, concurrency, rate limits, retries, progress.

:func:`execute` is where the operational concerns live, so that a backend only
makes one attempt:

- **cache**: requests already in the :class:`~bordir.generation.cache.ResponseCache`
  are answered with zero calls; each successful call is stored the moment it
  finishes (from its worker thread), so Ctrl-C or ``SIGKILL`` loses only the
  calls in flight. Failed calls are not stored: a re-run retries them.
- **no double billing**: the cache is looked at again right before a key is called,
  and the key is claimed in the cache file (:meth:`~bordir.generation.cache.ResponseCache.claim`);
  a key another process (or another run sharing the cache) is calling is waited for,
  not paid again.
- **duplicates**: requests with the same cache key are called once.
- **concurrency**: a thread pool of ``concurrency`` threads (default ``backend.max_concurrency``;
  a value above it is used and said so in a warning, except for a backend whose limit is hard).
- **time limits**: ``timeout`` per request (over its attempts; the attempt in progress is
  bounded too), ``deadline`` for the whole call, and ``max_consecutive_failures`` to stop
  early when the server is down; the requests not attempted fail with the reason.
- **secrets**: the backend's key and secret environment values are masked in every text,
  error and metadata value before they are cached or returned.
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
import random
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor
from concurrent.futures import wait as futures_wait
from typing import TYPE_CHECKING

from ..errors import ConfigError, redactor
from .backend import Backend, PermanentError, TransientError
from .cache import new_owner
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


def _describe(exc: BaseException) -> str:
    status = getattr(exc, "status", None)
    return f"{exc}" + (f" (status {status})" if status is not None else "")


def _scrub(result: GenerationResult, mask: Callable[[str], str]) -> GenerationResult:
    """``result`` with every secret masked in its text, error and string metadata (see :func:`redactor`)."""
    text = mask(result.text)
    error = mask(result.error) if result.error else result.error
    meta = result.meta
    if meta:
        meta = {k: mask(v) if isinstance(v, str) else v for k, v in meta.items()}
    if text == result.text and error == result.error and meta == result.meta:
        return result
    return dataclasses.replace(result, text=text, error=error, meta=meta)


_DEFERRED = object()
"""A worker's answer for a key another caller has claimed: try again later."""
_POLL = 0.1  # seconds between looks at keys claimed by another caller
_noted_concurrency: set[tuple[str, int]] = set()


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
    deadline: float | None = None,
    max_consecutive_failures: int | None = None,
    progress: bool = True,
    desc: str | None = None,
    on_result: OnResult | None = None,
    label: Callable[[GenerationRequest], str] | None = None,
    jitter_seed: int | None = None,
    limiter: RateLimiter | None = None,
    sleep: Callable[[float], object] | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> list[GenerationResult]:
    """Answer ``requests`` with ``backend``; one result per request, in request order.

    Args:
        backend: the backend (one attempt per ``generate``).
        requests: the requests; their ``model`` must be the backend's.
        cache: a response cache: hits make no call, successes are stored as they finish,
            and each key is claimed before it is called, so two processes sharing the
            file never pay for the same call (the second waits for the first's result).
        concurrency: calls in flight at most (default: ``backend.max_concurrency``). A value
            above the backend's default is used, and said so in a warning; a backend whose limit
            is hard (``max_concurrency_hard``, the in-process local model) caps it, also said.
        rpm: requests per minute (None: unlimited).
        tpm: tokens per minute (None: unlimited). Tokens are reserved before a call
            as characters / 4 + ``max_tokens`` and corrected by the reported usage.
        max_retries: retries of a :class:`TransientError` (so at most ``max_retries + 1`` attempts).
        timeout: seconds one request may spend over all its attempts and backoff waits; no
            retry starts once it would be exceeded, and the attempt in progress is bounded by
            what is left (HTTP backends pass it to their client).
        deadline: seconds this whole call may take; once reached, no attempt starts and the
            requests not answered yet fail with ``deadline of … s reached``.
        max_consecutive_failures: after this many failed requests in a row, stop: the requests
            not answered yet fail with ``not attempted: stopped after N consecutive failures``
            (a dead server costs N requests, not all of them). None: never stop.
        progress: show a tqdm progress bar with ETA on stderr.
        desc: the progress bar's label (default: the backend's name).
        on_result: called as ``on_result(request, result)`` in the calling thread once per
            distinct request as soon as its result is known (cache hits first).
        label: names a request in warnings (default: its cache-key prefix).
        jitter_seed: seed of the backoff jitter (for reproducible tests).
        limiter: a :class:`RateLimiter` to share between runs (instead of ``rpm`` / ``tpm``).
        sleep: how backoff waits (default: an interruptible wait; inject a fake in tests).
        clock: monotonic clock for ``timeout`` and ``deadline`` (inject a fake in tests).

    Returns:
        The results; duplicates share one result. Failures have ``error`` set and ``text == ""``.
        Texts, errors and metadata have the backend's key and every secret environment value
        masked (:func:`bordir.errors.redact`) before they are cached or returned.

    Raises:
        ConfigError: a request is for another model than the backend's, or an argument is invalid.
        KeyboardInterrupt: re-raised after cancelling the calls not yet started.
    """
    requests = list(requests)
    if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
        raise ConfigError(f"max_retries must be an integer >= 0, got {max_retries!r}")
    if concurrency is not None and (
        isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1
    ):
        raise ConfigError(f"concurrency must be an integer >= 1, got {concurrency!r}")
    for name, value in (("timeout", timeout), ("deadline", deadline)):
        if value is not None and (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not 0 < value < float("inf")
        ):
            raise ConfigError(f"{name} must be a positive number of seconds, got {value!r}")
    if max_consecutive_failures is not None and (
        isinstance(max_consecutive_failures, bool)
        or not isinstance(max_consecutive_failures, int)
        or max_consecutive_failures < 1
    ):
        raise ConfigError(
            f"max_consecutive_failures must be an integer >= 1, got {max_consecutive_failures!r}"
        )
    for request in requests:
        if request.model != backend.name and request.model_name != backend.model:
            raise ConfigError(
                f"request for model {request.model!r} given to backend {backend.name!r}; "
                "group requests by model and run each group with get_backend(model)"
            )
    if limiter is None and (rpm is not None or tpm is not None):
        limiter = RateLimiter(rpm, tpm)
    mask = redactor(getattr(backend, "secrets", lambda: ())())  # the secrets, looked up once
    attempt_within = getattr(backend, "generate_within", None)
    t_start = clock()
    deadline_at = None if deadline is None else t_start + deadline

    keys = [r.cache_key() for r in requests]
    first: dict[str, int] = {}
    for i, key in enumerate(keys):
        first.setdefault(key, i)
    done: dict[str, GenerationResult] = {}

    if cache is not None:
        for key in cache.contains_keys(first):
            hit = cache.get_key(key)
            if hit is not None:  # another process may have deleted it meanwhile
                done[key] = _scrub(hit, mask)
    todo = [key for key in first if key not in done]
    log.info(
        "%s: %d requests, %d distinct, %d cached, %d to call",
        backend.name,
        len(requests),
        len(first),
        len(done),
        len(todo),
    )
    if on_result is not None:
        for key, hit in done.items():
            on_result(requests[first[key]], hit)

    stop = threading.Event()
    halted: list[str] = []  # the reason, once max_consecutive_failures stopped the run
    wait: Callable[[float], object] = sleep if sleep is not None else stop.wait
    rng = random.Random(jitter_seed)
    rng_lock = threading.Lock()
    owner = new_owner()
    bar = None

    def name_of(request: GenerationRequest) -> str:
        return label(request) if label is not None else f"request {request.cache_key()[:12]}…"

    def warn(message: str) -> None:
        if bar is not None:
            bar.write(message, file=sys.stderr)
        else:
            log.warning("%s", message)

    def fail(
        request: GenerationRequest, attempts: int, reason: str, *, quiet: bool = False
    ) -> GenerationResult:
        reason = mask(reason)
        if not quiet:
            warn(f"{backend.name}: {name_of(request)} failed: {reason}")
        return GenerationResult(text="", model=request.model, error=reason, attempts=attempts)

    def stopped() -> str | None:
        """Why no further attempt may start (None: go on); raises _Cancelled on interruption."""
        if stop.is_set():
            if halted:
                return halted[0]
            raise _Cancelled
        if deadline_at is not None and clock() >= deadline_at:
            return f"deadline of {deadline:g} s reached"
        return None

    def attempts_of(request: GenerationRequest) -> GenerationResult:
        reserve = estimate_call_tokens(request) if limiter is not None else 0
        attempts = 0
        started: float | None = None
        while True:
            why = stopped()
            if why is not None:
                return fail(
                    request,
                    attempts,
                    f"not attempted: {why}"
                    if attempts == 0
                    else f"{why} after {attempts} attempts",
                    quiet=attempts == 0,
                )
            if limiter is not None and not limiter.acquire(reserve, cancelled=stop.is_set):
                why = stopped()
                return fail(request, attempts, f"not attempted: {why}", quiet=True)
            attempts += 1
            t0 = clock()
            started = t0 if started is None else started
            left = [
                x
                for x in (
                    None if timeout is None else started + timeout - t0,
                    None if deadline_at is None else deadline_at - t0,
                )
                if x is not None
            ]
            try:
                if attempt_within is not None and left:
                    result = attempt_within(request, max(0.001, min(left)))
                else:
                    result = backend.generate(request)
            except TransientError as exc:
                if attempts > max_retries:
                    return fail(
                        request, attempts, f"gave up after {attempts} attempts: {_describe(exc)}"
                    )
                with rng_lock:
                    delay = backoff_delay(attempts, rng, retry_after=exc.retry_after)
                if timeout is not None and clock() + delay - started > timeout:
                    return fail(
                        request,
                        attempts,
                        f"timeout of {timeout:g} s reached after {attempts} attempts; "
                        f"last error: {_describe(exc)}",
                    )
                if deadline_at is not None and clock() + delay > deadline_at:
                    return fail(
                        request,
                        attempts,
                        f"deadline of {deadline:g} s reached after {attempts} attempts; "
                        f"last error: {_describe(exc)}",
                    )
                log.info(
                    "%s: attempt %d failed (%s); retrying in %.2f s",
                    backend.name,
                    attempts,
                    mask(_describe(exc)),
                    delay,
                )
                wait(delay)
                continue
            except PermanentError as exc:
                return fail(request, attempts, f"permanent error: {_describe(exc)}")
            except Exception as exc:  # a backend bug must not end the run
                return fail(
                    request, attempts, f"unexpected {type(exc).__name__} from {backend.name}: {exc}"
                )
            latency = clock() - t0
            if limiter is not None:
                used = None
                if result.input_tokens is not None or result.output_tokens is not None:
                    used = (result.input_tokens or 0) + (result.output_tokens or 0)
                limiter.correct(reserve, used)
            result = _scrub(
                dataclasses.replace(
                    result, attempts=attempts, latency_s=result.latency_s or latency, cached=False
                ),
                mask,
            )
            if cache is not None:
                cache.put(request, result)  # at once: an interrupted run keeps every finished call
            return result

    streak_lock = threading.Lock()
    streak = [
        0
    ]  # failed requests in a row, in the order they finish (counted in the workers, so that
    # no request starts after the one that reached max_consecutive_failures)

    def note(result: GenerationResult) -> GenerationResult:
        if max_consecutive_failures is None or result.attempts == 0:
            return result
        with streak_lock:
            streak[0] = 0 if result.ok else streak[0] + 1
            if streak[0] >= max_consecutive_failures and not halted:
                halted.append(
                    f"stopped after {streak[0]} consecutive failures of {desc or backend.name} "
                    f"(last: {result.error})"
                )
                warn(
                    f"{backend.name}: {halted[0]}; the other requests are not attempted (re-run to retry)"
                )
                stop.set()
        return result

    def call(key: str) -> GenerationResult | object:
        request = requests[first[key]]
        if cache is None:
            return note(attempts_of(request))
        why = stopped()
        if why is not None:
            return fail(request, 0, f"not attempted: {why}", quiet=True)
        claimed = cache.claim(key, owner)
        try:
            hit = cache.get_key(
                key
            )  # stored by another caller since the run started (or just now)?
            if hit is not None:
                return _scrub(hit, mask)
            if not claimed:  # another caller is paying for it: look again later
                return _DEFERRED
            return note(attempts_of(request))
        finally:
            if claimed:
                cache.release(key, owner)

    limit = int(backend.max_concurrency)
    workers = concurrency or limit
    if concurrency is not None and concurrency > limit:
        hard = bool(getattr(backend, "max_concurrency_hard", False))
        if (backend.name, concurrency) not in _noted_concurrency:
            _noted_concurrency.add((backend.name, concurrency))
            if hard:  # not a surprise worth a warning on every local run
                log.info(
                    "%s: concurrency %d requested, but this backend runs at most %d call(s) at a time",
                    backend.name,
                    concurrency,
                    limit,
                )
            else:
                log.warning(
                    "%s: concurrency %d is above this backend's default limit of %d; running %d calls "
                    "at a time (lower it if the provider answers 429)",
                    backend.name,
                    concurrency,
                    limit,
                    concurrency,
                )
        if hard:
            workers = limit
    workers = max(1, min(workers, len(todo) or 1))
    bar = _progress_bar(progress, total=len(first), initial=len(done), desc=desc or backend.name)
    failed = 0
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="bordir-generate")
    try:
        pending: dict[Future, str] = {pool.submit(call, key): key for key in todo}
        later: list[tuple[float, str]] = []  # (when, key): claimed by another caller
        while pending or later:
            now = time.monotonic()
            due = [k for t, k in later if t <= now or stop.is_set()]
            later = [(t, k) for t, k in later if not (t <= now or stop.is_set())]
            for key in due:
                pending[pool.submit(call, key)] = key
            if not pending:
                stop.wait(max(0.0, min(t for t, _ in later) - now))
                continue
            finished, _ = futures_wait(
                pending, timeout=_POLL if later else None, return_when=FIRST_COMPLETED
            )
            for future in finished:
                key = pending.pop(future)
                result = future.result()
                if result is _DEFERRED:
                    later.append((time.monotonic() + _POLL, key))
                    continue
                assert isinstance(result, GenerationResult)
                done[key] = result
                failed += 0 if result.ok else 1
                if bar is not None:
                    bar.update(1)
                    if failed:
                        bar.set_postfix(failed=failed, refresh=False)
                if on_result is not None:
                    on_result(requests[first[key]], result)
    except BaseException:
        halted.clear()
        stop.set()
        pool.shutdown(wait=False, cancel_futures=True)
        if cache is not None:
            cache.release_all(owner)
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
