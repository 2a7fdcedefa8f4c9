"""The calls of one :func:`~bordir.generation.executor.execute`: attempts, retries, claims, the stop.

:class:`Calls` holds what every request of a run shares (the backend, the
cache and its claims, the rate limiter, the backoff, the timeouts, the streak
of failures) and answers one key at a time, in two ways:

- :meth:`Calls.call` in a worker thread of the executor's pool (any backend);
- :meth:`Calls.acall` as a task on bordir's shared event loop (a backend with an
  ``agenerate_within`` coroutine, such as the OpenAI one): no thread per call in flight.

Both run the same steps (:meth:`Calls.plan`, a generator that yields what to do
next: take a rate-limit token, make an attempt, wait), so retries, timeouts and
failures behave the same in both.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import sys
import threading
import time
from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any

from .._net.ratelimit import RateLimiter
from .._net.retry import Backoff
from ..errors import PermanentError, TransientError
from ._execute_parts import describe, scrub
from ._steps import Cancelled, Step, Steps, attempt_limit
from .backend import Backend
from .cache import new_owner
from .cost import estimate_call_tokens
from .types import GenerationRequest, GenerationResult

if TYPE_CHECKING:
    from .cache import ResponseCache
    from .cache_writer import CacheWriter
    from .call_limits import ExecutorOptions

__all__ = ["Calls", "Cancelled", "DEFERRED", "POLL", "INTERRUPT_GRACE"]

log = logging.getLogger("bordir.generation.executor")

DEFERRED = object()
"""A call's answer for a key another caller has claimed: try again later."""
POLL = 0.1
"""Seconds between looks at keys claimed by another caller (and at the stop, while waiting)."""
INTERRUPT_GRACE = 3.0
"""Seconds an interrupted run (Ctrl-C) waits for the requests in flight (:meth:`Calls.drain`): an
answer that arrives meanwhile is stored; no attempt starts after the interruption."""


def _settle(future: asyncio.Future[None]) -> None:
    """Mark ``future`` done (on its loop's thread), unless a cancellation got there first."""
    if not future.done():
        future.set_result(None)


class Calls:
    """What the requests of one run share; see the module docstring."""

    def __init__(
        self,
        backend: Backend,
        requests: list[GenerationRequest],
        first: dict[str, int],
        opts: ExecutorOptions,
        *,
        cache: ResponseCache | None,
        limiter: RateLimiter | None,
        started_at: float,
        desc: str | None,
        label: Callable[[GenerationRequest], str] | None,
        mask: Callable[[str], str],
    ) -> None:
        """``opts``: the run's retries, timeouts, jitter seed, sleep and clock (``limiter``: the one in use)."""
        self.backend = backend
        self.requests = requests
        self.first = first
        self.cache = cache
        self.limiter = limiter
        self.max_retries = opts.max_retries
        self.timeout = opts.timeout
        self.request_deadline = opts.request_deadline
        self.deadline = opts.deadline
        self.max_consecutive_failures = opts.max_consecutive_failures
        self.desc = desc
        self.label = label
        self.sleep = opts.sleep
        self.clock = opts.clock
        self.mask = mask
        self.deadline_at = None if opts.deadline is None else started_at + opts.deadline
        self.stop = threading.Event()
        self.halted: list[str] = []  # the reason, once max_consecutive_failures stopped the run
        self.wait: Callable[[float], object] = (
            opts.sleep if opts.sleep is not None else self.stop.wait
        )
        self.backoff = Backoff(opts.jitter_seed)
        self.owner = new_owner()
        self.writer: CacheWriter | None = None
        """Set by the executor's async lane: claims and stores go through it (grouped per loop iteration)."""
        self.bar: Any = None
        self._attempt_within = getattr(backend, "generate_within", None)
        # failed requests in a row, in the order they finish (counted in the calls, so that
        # no request starts after the one that reached max_consecutive_failures)
        self._streak = 0
        self._stalls = 0  # attempts in a row that timed out (no answer at all), in finishing order
        self._streak_lock = threading.Lock()
        self.active = 0  # requests whose attempts are under way (see plan)
        self._active_lock = threading.Lock()

    # -- telling ---------------------------------------------------------------------------
    def name_of(self, request: GenerationRequest) -> str:
        if self.label is not None:
            return self.label(request)
        return f"request {request.cache_key()[:12]}…"

    def warn(self, message: str) -> None:
        if self.bar is not None:
            self.bar.write(message, file=sys.stderr)
        else:
            log.warning("%s", message)

    def fail(
        self, request: GenerationRequest, attempts: int, reason: str, *, quiet: bool = False
    ) -> GenerationResult:
        reason = self.mask(reason)
        if not quiet:
            self.warn(f"{self.backend.name}: {self.name_of(request)} failed: {reason}")
        return GenerationResult(text="", model=request.model, error=reason, attempts=attempts)

    def stopped(self) -> str | None:
        """Why no further attempt may start (None: go on); raises :class:`Cancelled` on interruption."""
        if self.stop.is_set():
            if self.halted:
                return self.halted[0]
            raise Cancelled
        if self.deadline_at is not None and self.clock() >= self.deadline_at:
            return f"deadline of {self.deadline:g} s reached"
        return None

    def note(self, result: GenerationResult) -> GenerationResult:
        """Count ``result`` in the streak of failures; stop the run when it reaches the limit."""
        if self.max_consecutive_failures is None or result.attempts == 0:
            return result
        with self._streak_lock:
            self._streak = 0 if result.ok else self._streak + 1
            self._halt(self._streak, f" (last: {result.error})")
        return result

    def attempted(self, stalled: bool, error: str = "") -> None:
        """Count an attempt that ``stalled`` (no answer within its whole timeout) or not; stop at the limit.

        Against a stalled server every attempt times out: that many timed-out attempts in a row
        stop the run as that many failed requests do (a dead provider is given up after
        ``ceil(N / concurrency)`` attempt timeouts). Any answer, even an HTTP error, resets it.
        """
        if self.max_consecutive_failures is None:
            return
        with self._streak_lock:
            self._stalls = self._stalls + 1 if stalled else 0
            self._halt(
                self._stalls,
                f": {self._stalls} attempts in a row got no answer within their time limit "
                f"(last: {error})",
            )

    def _halt(self, count: int, why: str) -> None:
        """Stop the run (called under the streak lock) once ``count`` reaches the limit."""
        limit = self.max_consecutive_failures
        if limit is None or count < limit or self.halted:
            return
        self.halted.append(
            f"stopped after {count} consecutive failures of {self.desc or self.backend.name}{why}"
        )
        self.warn(
            f"{self.backend.name}: {self.halted[0]}; the other requests are not attempted "
            "(re-run to retry)"
        )
        self.stop.set()

    def drain(self, grace: float = INTERRUPT_GRACE) -> None:
        """Stop (no attempt starts any more) and wait up to ``grace`` s for the requests in flight.

        Called when the run is interrupted: an answer that already arrived, or arrives within
        the grace, is stored in the cache instead of being lost with the call.
        """
        self.halted.clear()
        self.stop.set()
        end = time.monotonic() + grace
        while self.active > 0 and time.monotonic() < end:
            time.sleep(0.02)

    # -- the steps of one request ----------------------------------------------------------
    def plan(self, request: GenerationRequest) -> Generator[Step, Any, GenerationResult]:
        """:meth:`steps` of ``request``, counted in :attr:`active` while they run."""
        with self._active_lock:
            self.active += 1
        try:
            return (yield from self.steps(request))
        finally:
            with self._active_lock:
                self.active -= 1

    def steps(self, request: GenerationRequest) -> Generator[Step, Any, GenerationResult]:
        """The attempts of ``request`` as steps for a driver; returns its result.

        Yields ``("acquire", tokens)`` (send back True when reserved, False when cancelled),
        ``("attempt", seconds_or_None)`` (send back the result, or throw the attempt's
        exception in) and ``("sleep", seconds)``.
        """
        timeout, deadline_at, clock = self.timeout, self.deadline_at, self.clock
        request_deadline = self.request_deadline  # per request, from its first attempt on
        limiter = self.limiter
        reserve = estimate_call_tokens(request) if limiter is not None else 0
        attempts = 0
        ends_at: float | None = None
        while True:
            why = self.stopped()
            if why is not None:
                reason = (
                    f"not attempted: {why}" if attempts == 0 else f"{why} after {attempts} attempts"
                )
                return self.fail(request, attempts, reason, quiet=attempts == 0)
            if limiter is not None and not (yield ("acquire", reserve)):
                why = self.stopped()
                return self.fail(request, attempts, f"not attempted: {why}", quiet=True)
            attempts += 1
            t0 = clock()
            if ends_at is None and request_deadline is not None:
                ends_at = t0 + request_deadline
            limit = attempt_limit(timeout, t0, ends_at, deadline_at)
            try:
                result = yield ("attempt", limit)
            except TransientError as exc:
                took = clock() - t0
                # no answer within the whole attempt timeout: the server may be stalled
                self.attempted(
                    timeout is not None and limit == timeout and took >= 0.95 * timeout,
                    describe(exc),
                )
                if attempts > self.max_retries:
                    return self.fail(
                        request, attempts, f"gave up after {attempts} attempts: {describe(exc)}"
                    )
                if self.stop.is_set():
                    continue  # stopped meanwhile: the loop's first step says why
                delay = self.backoff.delay(attempts, retry_after=exc.retry_after)
                for limit_s, at, what in (
                    (request_deadline, ends_at, "request deadline"),
                    (self.deadline, deadline_at, "deadline"),
                ):
                    if at is not None and clock() + delay > at:
                        return self.fail(
                            request,
                            attempts,
                            f"{what} of {limit_s:g} s reached after {attempts} attempts; "
                            f"last error: {describe(exc)}",
                        )
                log.info(
                    "%s: attempt %d failed (%s); retrying in %.2f s",
                    self.backend.name,
                    attempts,
                    self.mask(describe(exc)),
                    delay,
                )
                yield ("sleep", delay)
                continue
            except PermanentError as exc:
                self.attempted(False)
                return self.fail(request, attempts, f"permanent error: {describe(exc)}")
            except Exception as exc:  # a backend bug must not end the run
                return self.fail(
                    request,
                    attempts,
                    f"unexpected {type(exc).__name__} from {self.backend.name}: {exc}",
                )
            self.attempted(False)
            latency = clock() - t0
            if limiter is not None:
                used = None
                if result.input_tokens is not None or result.output_tokens is not None:
                    used = (result.input_tokens or 0) + (result.output_tokens or 0)
                limiter.correct(reserve, used)
            result = scrub(
                dataclasses.replace(
                    result, attempts=attempts, latency_s=result.latency_s or latency, cached=False
                ),
                self.mask,
            )
            return result

    def attempts_of(self, request: GenerationRequest) -> GenerationResult:
        """Drive :meth:`plan` in this thread."""
        steps = Steps(self.plan(request))
        for kind, arg in steps:
            if kind == "acquire":
                assert self.limiter is not None
                steps.value = self.limiter.acquire(arg, cancelled=self.stop.is_set)
            elif kind == "sleep":
                self.wait(arg)
            else:
                try:
                    if self._attempt_within is not None and arg is not None:
                        steps.value = self._attempt_within(request, arg)
                    else:
                        steps.value = self.backend.generate(request)
                except Exception as exc:
                    steps.error = exc
        return steps.result

    async def aattempts_of(self, request: GenerationRequest) -> GenerationResult:
        """Drive :meth:`plan` on the event loop, with the backend's ``agenerate_within``."""
        attempt = self.backend.agenerate_within  # type: ignore[attr-defined]
        steps = Steps(self.plan(request))
        for kind, arg in steps:
            if kind == "acquire":
                assert self.limiter is not None
                while True:
                    pause = self.limiter.try_acquire(arg)
                    if pause <= 0 or self.stop.is_set():
                        steps.value = pause <= 0
                        break
                    await self._asleep(pause)
            elif kind == "sleep":
                if self.sleep is not None:
                    self.sleep(arg)
                else:
                    await self._asleep(arg)
            else:
                try:
                    steps.value = await attempt(request, arg)
                except Exception as exc:
                    steps.error = exc
        return steps.result

    async def _asleep(self, seconds: float) -> None:
        """Wait ``seconds`` on the event loop, or less when the run stops."""
        end = time.monotonic() + seconds
        while not self.stop.is_set():
            left = end - time.monotonic()
            if left <= 0:
                return
            await asyncio.sleep(min(left, POLL))

    # -- one key ---------------------------------------------------------------------------
    def call(self, key: str) -> GenerationResult | object:
        """Answer ``key`` in this thread: claim it, look in the cache, else attempt it and store it."""
        request = self.requests[self.first[key]]
        cache = self.cache
        if cache is None:
            return self.note(self.attempts_of(request))
        why = self.stopped()
        if why is not None:
            return self.fail(request, 0, f"not attempted: {why}", quiet=True)
        claimed = cache.claim(key, self.owner)
        try:
            hit = cache.get_key(key)  # stored by another caller since the run started?
            if hit is not None:
                return scrub(hit, self.mask)
            if not claimed:  # another caller is paying for it: look again later
                return DEFERRED
            result = self.note(self.attempts_of(request))
            self._store_and_release(request, result, key)  # at once (failures are not stored)
            claimed = False
            return result
        finally:
            if claimed:
                cache.release(key, self.owner)

    async def acall(
        self, key: str, deliver: Callable[[GenerationResult | BaseException], object]
    ) -> object:
        """:meth:`call` as a task on the event loop; the result goes to ``deliver`` (returns DEFERRED or None).

        With a :attr:`writer` (the executor's :class:`~bordir.generation.cache_writer.CacheWriter`),
        claims and stores are grouped by the writer: ``deliver`` gets the result (or the error of
        its commit) once it is committed, and only then does this task go on.
        """
        request = self.requests[self.first[key]]
        cache, writer = self.cache, self.writer
        if cache is None or writer is None:
            result = await self._acall_direct(key, request)
            if result is not DEFERRED:
                deliver(result)  # type: ignore[arg-type]
                return None
            return result
        why = self.stopped()
        if why is not None:
            deliver(self.fail(request, 0, f"not attempted: {why}", quiet=True))
            return None
        claimed, hit = await writer.claim(key)  # committed (by the writer, on this loop thread)
        if hit is not None:
            deliver(scrub(hit, self.mask))
            return None
        if not claimed:
            return DEFERRED
        try:
            result = self.note(await self.aattempts_of(request))
        except BaseException:
            writer.release(key)  # interrupted
            raise
        loop = asyncio.get_running_loop()
        committed: asyncio.Future[None] = loop.create_future()

        def then(error: BaseException | None) -> None:  # on the loop thread, after the commit
            deliver(result if error is None else error)
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
                _settle(committed)

        writer.store(request, result, then)
        await committed  # in flight until committed: a kill -9 loses at most one call per task
        return None

    async def _acall_direct(
        self, key: str, request: GenerationRequest
    ) -> GenerationResult | object:
        """:meth:`acall` without a cache writer: the cache (if any) used from the loop thread."""
        cache = self.cache
        if cache is None:
            return self.note(await self.aattempts_of(request))
        why = self.stopped()
        if why is not None:
            return self.fail(request, 0, f"not attempted: {why}", quiet=True)
        claimed, hit = cache.claim(key, self.owner), cache.get_key(key)
        try:
            if hit is not None:
                return scrub(hit, self.mask)
            if not claimed:
                return DEFERRED
            result = self.note(await self.aattempts_of(request))
            self._store_and_release(request, result, key)
            claimed = False
            return result
        finally:
            if claimed:  # a hit, or interrupted
                cache.release(key, self.owner)

    def _store_and_release(
        self, request: GenerationRequest, result: GenerationResult, key: str
    ) -> None:
        assert self.cache is not None
        self.cache.put_and_release(request, result, self.owner)  # one commit
