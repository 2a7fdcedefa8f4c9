"""Run many requests through a backend: cache, concurrency, rate limits, retries, progress.

:func:`execute` is where the operational concerns live, so that a backend only
makes one attempt:

- **cache**: requests already in the :class:`~bordir.generation.cache.ResponseCache`
  are answered with zero calls; each successful call is stored the moment it
  finishes, so ``SIGKILL`` loses only the calls in flight. On Ctrl-C no attempt
  starts any more and the requests in flight get a grace of
  :data:`~bordir.generation._calls.INTERRUPT_GRACE` seconds (3): an answer that
  already arrived, or arrives meanwhile, is stored, not lost. Failed calls are
  not stored: a re-run retries them.
- **no double billing**: the cache is looked at again right before a key is called,
  and the key is claimed in the cache file (:meth:`~bordir.generation.cache.ResponseCache.claim`);
  a key another process (or another run sharing the cache) is calling is waited for,
  not paid again.
- **batches**: a key a pending provider batch holds (:mod:`bordir.generation.batch.claims`)
  is not called: it fails with the batch and how to collect it.
- **duplicates**: requests with the same cache key are called once.
- **concurrency**: ``concurrency`` calls in flight (default ``backend.max_concurrency``;
  a value above it is used and said so in a warning, except for a backend whose limit is hard).
  A backend with an ``agenerate_within`` coroutine (OpenAI) is called from that many tasks on
  bordir's shared event loop, any other from a pool of that many threads fed that many
  requests at a time; both run the same steps (:mod:`bordir.generation._calls`). The backend
  is told the number (:meth:`~bordir.generation.backend.Backend.reserve`: HTTP backends size
  their connection pools; see ``docs/design/throughput.md``).
- **time limits**: ``timeout`` per attempt (a stalled attempt is cut and retried),
  ``request_deadline`` per request over all its attempts and waits (the attempt in progress is
  cut at what is left), ``deadline`` for the whole call, and ``max_consecutive_failures`` to stop
  early when the server is down (that many failed requests, or timed-out attempts, in a row);
  the requests not attempted fail with the reason.
- **secrets**: the backend's key and secret environment values are masked in every text,
  error and metadata value before they are cached or returned.
- **rate limits**: optional requests / tokens per minute (:mod:`~bordir._net.ratelimit`).
- **retries**: a :class:`~bordir.errors.TransientError` is retried up to
  ``max_retries`` times after a full-jitter exponential backoff (base 0.5 s, cap
  30 s; :mod:`bordir._net.retry`), waiting at least the error's ``retry_after``. After the last retry, on a
  :class:`~bordir.errors.PermanentError` or on any other exception
  from the backend, the request's result is ``GenerationResult(text="",
  error=<reason>, attempts=n)`` and the run goes on.

Examples:
    >>> from bordir.generation.backend import get_backend
    >>> from bordir.generation.types import GenerationRequest, Message
    >>> reqs = [GenerationRequest(model="mock/echo", messages=(Message("user", q),)) for q in ("A) x", "B) y", "A) x")]
    >>> [r.text for r in execute(get_backend("mock/echo"), reqs, progress=False)]
    ['A) x', 'B) y', 'A) x']
    >>> opts = ExecutorOptions(concurrency=2, max_retries=1)
    >>> len(execute(get_backend("mock/echo"), reqs, options=opts, progress=False))
    3
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor
from concurrent.futures import wait as futures_wait
from queue import Empty, SimpleQueue
from typing import TYPE_CHECKING, Any

from .._gc import frozen_heap
from ..errors import ConfigError, redactor
from ._calls import DEFERRED, POLL, Calls
from ._execute_parts import progress_bar, scrub, worker_count
from .backend import Backend
from .call_limits import ExecutorOptions
from .types import GenerationRequest, GenerationResult

if TYPE_CHECKING:
    from .cache import ResponseCache

__all__ = ["execute"]

log = logging.getLogger(__name__)

OnResult = Callable[[GenerationRequest, GenerationResult], object]


def execute(
    backend: Backend,
    requests: Sequence[GenerationRequest],
    *,
    options: ExecutorOptions | None = None,
    cache: ResponseCache | None = None,
    progress: bool = True,
    desc: str | None = None,
    on_result: OnResult | None = None,
    label: Callable[[GenerationRequest], str] | None = None,
) -> list[GenerationResult]:
    """Answer ``requests`` with ``backend``; one result per request, in request order.

    Args:
        backend: the backend (one attempt per ``generate``).
        requests: the requests; their ``model`` must be the backend's.
        options: concurrency, rate limits, retries and time limits
            (:class:`~bordir.generation.call_limits.ExecutorOptions`; default: its defaults).
        cache: a response cache: hits make no call, successes are stored as they finish,
            and each key is claimed before it is called, so two processes sharing the
            file never pay for the same call (the second waits for the first's result).
        progress: show a tqdm progress bar with ETA on stderr.
        desc: the progress bar's label (default: the backend's name).
        on_result: called as ``on_result(request, result)`` in the calling thread once per
            distinct request as soon as its result is known (cache hits first).
        label: names a request in warnings (default: its cache-key prefix).

    Returns:
        The results; duplicates share one result. Failures have ``error`` set and ``text == ""``.
        Texts, errors and metadata have the backend's key and every secret environment value
        masked (:func:`bordir.errors.redact`) before they are cached or returned.

    Raises:
        ConfigError: a request is for another model than the backend's, or an argument is invalid.
        KeyboardInterrupt: re-raised after cancelling the calls not yet started.
    """
    requests = list(requests)
    opts = options if options is not None else ExecutorOptions()
    if getattr(backend, "answers_from_batches", False):  # no provider behind it: nothing to stop
        opts = opts.replace(max_consecutive_failures=None, timeout=None, request_deadline=None)
    for request in requests:
        if request.model != backend.name and request.model_name != backend.model:
            raise ConfigError(
                f"request for model {request.model!r} given to backend {backend.name!r}; "
                "group requests by model and run each group with get_backend(model)"
            )
    limiter = opts.rate_limiter()
    mask = redactor(getattr(backend, "secrets", lambda: ())())  # the secrets, looked up once
    t_start = opts.clock()

    keys = [r.cache_key() for r in requests]
    first: dict[str, int] = {}
    for i, key in enumerate(keys):
        first.setdefault(key, i)
    done: dict[str, GenerationResult] = {}

    if cache is not None:
        for key in cache.contains_keys(first):
            hit = cache.get_key(key)
            if hit is not None:  # another process may have deleted it meanwhile
                done[key] = scrub(hit, mask)
    todo = [key for key in first if key not in done]
    if cache is not None and todo and not getattr(backend, "answers_from_batches", False):
        _skip_batch_held(backend, requests, first, cache, todo, done, mask)
        todo = [key for key in todo if key not in done]
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

    calls = Calls(
        backend,
        requests,
        first,
        opts,
        cache=cache,
        limiter=limiter,
        started_at=t_start,
        desc=desc,
        label=label,
        mask=mask,
    )
    stop = calls.stop

    workers = worker_count(backend, opts.concurrency, len(todo))
    reserve = getattr(backend, "reserve", None)  # duck-typed backends (scorers) may not have it
    if todo and reserve is not None:
        reserve(workers)
    bar = progress_bar(progress, total=len(first), initial=len(done), desc=desc or backend.name)
    calls.bar = bar
    tally = [0]  # failed requests

    def finished(key: str, result: GenerationResult) -> None:
        done[key] = result
        tally[0] += 0 if result.ok else 1
        if bar is not None:
            bar.update(1)
            if tally[0]:
                bar.set_postfix(failed=tally[0], refresh=False)
        if on_result is not None:
            on_result(requests[first[key]], result)

    lane = _run_async if todo and hasattr(backend, "agenerate_within") else _run_threads
    try:
        with frozen_heap():  # the run's calls do not re-scan the heap they start with
            lane(calls, todo, workers, finished)
    except BaseException:
        calls.halted.clear()
        stop.set()
        if cache is not None:
            cache.release_all(calls.owner)
        raise
    finally:
        if bar is not None:
            bar.close()
    return [done[key] for key in keys]


def _skip_batch_held(
    backend: Backend,
    requests: Sequence[GenerationRequest],
    first: dict[str, int],
    cache: ResponseCache,
    todo: list[str],
    done: dict[str, GenerationResult],
    mask: Callable[[str], str],
) -> None:
    """Fail, without a call, the keys of ``todo`` that a pending provider batch holds (never pay twice)."""
    from .batch.claims import describe_claim, held_by_batches

    held = held_by_batches(cache, todo)
    for key, claim in held.items():
        reason = mask(f"{backend.name}: not called: {describe_claim(claim)}")
        done[key] = GenerationResult(text="", model=requests[first[key]].model, error=reason)
    if held:
        log.warning("%d requests not called: %s", len(held), done[next(iter(held))].error)


_GATHER = 0.005  # seconds the calling thread lets results gather before it takes them


def _run_threads(
    calls: Calls, todo: list[str], workers: int, finished: Callable[[str, GenerationResult], None]
) -> None:
    """Answer ``todo`` with a pool of ``workers`` threads; ``finished`` runs in this thread."""
    stop = calls.stop
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="bordir-generate")
    try:
        # at most `workers` requests are submitted at a time, so that each wait below
        # looks at a few futures, not at every request of the run
        queue = deque(todo)
        pending: dict[Future[Any], str] = {}
        later: list[tuple[float, str]] = []  # (when, key): claimed by another caller
        while pending or later or queue:
            now = time.monotonic()
            due = [k for t, k in later if t <= now or stop.is_set()]
            later = [(t, k) for t, k in later if not (t <= now or stop.is_set())]
            queue.extendleft(reversed(due))
            while queue and len(pending) < workers:
                key = queue.popleft()
                pending[pool.submit(calls.call, key)] = key
            if not pending:
                stop.wait(max(0.0, min(t for t, _ in later) - now))
                continue
            ready, _ = futures_wait(
                pending, timeout=POLL if later else None, return_when=FIRST_COMPLETED
            )
            for future in ready:
                key = pending.pop(future)
                result = future.result()
                if result is DEFERRED:
                    later.append((time.monotonic() + POLL, key))
                    continue
                assert isinstance(result, GenerationResult)
                finished(key, result)
    except BaseException:
        calls.drain()  # the requests in flight store the answers that arrive within the grace
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    else:
        pool.shutdown(wait=True)


def _run_async(
    calls: Calls, todo: list[str], workers: int, finished: Callable[[str, GenerationResult], None]
) -> None:
    """Answer ``todo`` as ``workers`` tasks on the shared event loop; ``finished`` runs in this thread."""
    from .backends import _aio
    from .cache_writer import CacheWriter

    out: SimpleQueue[tuple[str, GenerationResult | BaseException]] = SimpleQueue()
    queue = deque(todo)
    loop = _aio.loop()
    if calls.cache is not None:  # claims and stores: grouped per iteration of the loop
        calls.writer = CacheWriter(calls.cache, calls.owner, loop, ahead=todo, group=workers)

    async def worker() -> None:
        while queue:
            key = queue.popleft()
            deliver = functools.partial(_put, out, key)
            if await calls.acall(key, deliver) is DEFERRED:  # claimed by another caller
                await asyncio.sleep(POLL)
                queue.append(key)

    async def main() -> None:
        await asyncio.gather(*(worker() for _ in range(workers)))

    work = main()
    future = asyncio.run_coroutine_threadsafe(work, loop)
    try:
        received = 0
        while received < len(todo):
            try:
                key, result = out.get(timeout=POLL)
            except Empty:
                if future.done():
                    future.result()  # raises what ended the tasks early
                    if calls.writer is not None:  # the tasks are done: commit the last stores
                        calls.writer.close()
                        calls.writer = None
                        continue
                    if out.empty():
                        raise RuntimeError(
                            "the executor's tasks ended before every result"
                        ) from None
                continue
            batch = [(key, result)]
            while True:  # take what else is there: one wake-up of this thread for many results
                try:
                    batch.append(out.get_nowait())
                except Empty:
                    break
            for key, result in batch:
                if isinstance(result, BaseException):  # its store could not be committed
                    raise result
                received += 1
                finished(key, result)
            if received < len(todo):
                time.sleep(_GATHER)
        future.result()
    except BaseException:
        calls.drain()  # the requests in flight store the answers that arrive within the grace
        if future.cancel():  # cancelled before the loop started it: it never will
            work.close()
        raise
    finally:
        if calls.writer is not None:  # commit what was handed over, release the unused claims
            calls.writer.close()
            calls.writer = None


def _put(out: SimpleQueue[Any], key: str, result: GenerationResult | BaseException) -> None:
    out.put((key, result))
