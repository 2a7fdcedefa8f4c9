"""The response cache's claims and stores for calls on the event loop, grouped and off the loop thread.

The executor's async lane (:func:`~bordir.generation.executor.execute` with a
backend that has ``agenerate_within``) runs every call as a task on bordir's
one event loop thread. Each call claims its key before it is made and stores
its result when it ends; done one by one on the loop thread, those are two
SQLite commits per call that stop every other call while they run.

A :class:`CacheWriter` is one thread that does them instead, in few
transactions:

- **claims ahead.** The writer knows the keys the run will call, in order.
  The first claim claims that key and the next ones (up to ``group``, the
  run's concurrency) in one transaction
  (:meth:`~bordir.generation.cache.ResponseCache.claim_many`); the calls that
  follow find their claim made and start at once, without a round trip to the
  thread. Once fewer than half a group of those claims are left unused, the
  next group is claimed in the background, so that the next wave of calls
  does not wait for its claims' commit either (at c=32 and 100 ms, about 5
  points of the throughput of the ideal). A key that turned out to be claimed by another live caller is waited
  for and claimed again later, as before; claims made ahead and never used (the
  run stopped early) are released when the writer closes.
- **stores in groups.** A finished call hands its result to the writer
  (:meth:`CacheWriter.store`) and waits for its commit before it takes its
  next key. The writer commits what is queued at once: the results that arrive
  while a commit runs are stored, and their claims released, together in the
  next transaction (:meth:`~bordir.generation.cache.ResponseCache.store_many`),
  and only then handed on (to the run's rows). Results no longer wait for
  company: a window of 2 ms, waited by every call of a wave, cost c=32 at
  100 ms 3-7 points of the ideal throughput (``bordir run``, ``--quick``: 0.84
  with it, 0.92 without; c=128 at 1 s: 0.95 and 0.96).

Nothing about the claims changes between processes: every claim is committed
under SQLite's write lock before its call starts, exactly as
:meth:`~bordir.generation.cache.ResponseCache.claim` does, so two or three
processes sharing the file still pay for each key once
(``tests/generation/test_cache_concurrency.py``). A result is stored before it is handed
on, as before, and a call counts as in flight until its result is committed:
a crash (kill -9) loses at most the calls in flight, at most one per worker. About 1.5 × ``group``
keys at most are claimed and not yet called at any time (a process on the same cache
waits for them as for calls in flight).

Example:
    >>> import asyncio, tempfile, pathlib
    >>> from bordir.generation.cache import ResponseCache, new_owner
    >>> from bordir.generation.types import GenerationRequest, GenerationResult, Message
    >>> cache = ResponseCache(pathlib.Path(tempfile.mkdtemp()) / "r.sqlite3")
    >>> req = GenerationRequest(model="mock/echo", messages=(Message("user", "A) x"),))
    >>> async def one_call(writer):
    ...     claimed, hit = await writer.claim(req.cache_key())
    ...     stored = asyncio.get_running_loop().create_future()
    ...     loop = asyncio.get_running_loop()
    ...     writer.store(req, GenerationResult(text="A", model="mock/echo"),
    ...                  lambda err: loop.call_soon_threadsafe(stored.set_result, err))
    ...     return claimed, hit, await stored
    >>> async def main():
    ...     writer = CacheWriter(cache, new_owner(), asyncio.get_running_loop(), ahead=[req.cache_key()])
    ...     try:
    ...         return await one_call(writer)
    ...     finally:
    ...         writer.close()
    >>> asyncio.run(main())
    (True, None, None)
    >>> cache.get(req).text, cache.claimed_keys()
    ('A', [])
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from .types import GenerationRequest, GenerationResult

if TYPE_CHECKING:
    from .cache import ResponseCache

__all__ = ["CacheWriter"]

Stored = Callable[[BaseException | None], object]
"""Called in the writer thread once a result is committed (``None``) or could not be (the error)."""


class CacheWriter:
    """One thread that commits the claims and stores of an event loop's calls, grouped (see module docs).

    Args:
        cache: the response cache.
        owner: the claim owner of the run (:func:`~bordir.generation.cache.new_owner`).
        loop: the event loop whose tasks await :meth:`claim`.
        ahead: the keys the run will claim, in order: a claim also claims up to ``group - 1``
            of the next ones, so that most calls find their claim made.
        group: keys claimed per transaction at most.
    """

    def __init__(
        self,
        cache: ResponseCache,
        owner: str,
        loop: asyncio.AbstractEventLoop,
        *,
        ahead: Iterable[str] = (),
        group: int = 32,
    ) -> None:
        self.cache = cache
        self.owner = owner
        self.loop = loop
        self.group = max(1, int(group))
        self._cond = threading.Condition()
        self._claims: list[tuple[list[str], asyncio.Future[Any]]] = []
        self._stores: list[tuple[GenerationRequest, GenerationResult, Stored]] = []
        self._releases: list[str] = []
        self._closing = False
        # on the loop thread only: keys not yet claimed, claims made, claims being made
        self._ahead = deque(ahead)
        self._grouped: set[str] = set()
        self._ready: dict[str, tuple[bool, GenerationResult | None]] = {}
        self._inflight: dict[str, asyncio.Future[Any]] = {}
        self.commits = 0
        """Transactions committed so far (for the benchmark's notes)."""
        self.claimed = 0
        self.stored = 0
        self._thread = threading.Thread(target=self._serve, name="bordir-cache", daemon=True)
        self._thread.start()

    # -- the tasks' side (on the event loop) -------------------------------------------------
    async def claim(self, key: str) -> tuple[bool, GenerationResult | None]:
        """Claim ``key`` and look it up; ``(claimed, stored result or None)`` once committed."""
        got = self._ready.pop(key, None)
        if got is not None:
            self._prefetch()
            return got
        future = self._inflight.get(key)
        if future is None:
            future = self._request_claims([key])
        await future
        self._prefetch()
        return self._ready.pop(key)

    def _request_claims(self, keys: list[str]) -> asyncio.Future[Any]:
        """Ask the writer to claim ``keys`` and the next ones ahead, up to ``group``; the future of that."""
        self._grouped.update(keys)
        while self._ahead and len(keys) < self.group:
            k = self._ahead.popleft()
            if k not in self._grouped:
                self._grouped.add(k)
                keys.append(k)
        future = self.loop.create_future()
        for k in keys:
            self._inflight[k] = future
        with self._cond:
            if self._closing:
                raise RuntimeError("the cache writer is closed")
            self._claims.append((keys, future))
            self._cond.notify()
        return future

    def _prefetch(self) -> None:
        """Claim the next group ahead once fewer than half a group of claimed keys are left unused.

        The claims of the next calls are then committed while the current ones run, not when
        the next wave of calls starts and waits for them.
        """
        if not self._ahead or self._inflight:
            return
        if sum(1 for c, _ in self._ready.values() if c) >= self.group // 2:
            return
        while self._ahead and self._ahead[0] in self._grouped:
            self._ahead.popleft()
        if self._ahead:
            self._request_claims([self._ahead.popleft()])

    def store(self, request: GenerationRequest, result: GenerationResult, then: Stored) -> None:
        """Store ``result`` (if it succeeded) and release the claim of its key; ``then`` after the commit."""
        with self._cond:
            self._stores.append((request, result, then))
            self._cond.notify()

    def release(self, key: str) -> None:
        """Release the claim of ``key`` (a call interrupted before its result)."""
        with self._cond:
            self._releases.append(key)
            self._cond.notify()

    def close(self) -> None:
        """Release the claims made ahead and not used, commit what is queued, stop the thread.

        Call it once the loop's tasks are done (claims still being made fail).
        """
        unused = [k for k, (claimed, _) in list(self._ready.items()) if claimed]
        self._ready.clear()
        with self._cond:
            self._releases.extend(unused)
            self._closing = True
            self._cond.notify()
        self._thread.join()

    # -- the writer thread ---------------------------------------------------------------------
    def _serve(self) -> None:
        while True:
            with self._cond:
                while not (self._claims or self._stores or self._releases or self._closing):
                    self._cond.wait()
                claims, self._claims = self._claims, []
                stores, self._stores = self._stores, []
                releases, self._releases = self._releases, []
                closing = self._closing
            if stores or releases:
                self._commit_stores(stores, releases)
            for keys, future in claims:
                if closing:
                    self._settle(future, {}, RuntimeError("the cache writer is closed"))
                else:
                    self._commit_claims(keys, future)
            if closing:
                with self._cond:
                    if not (self._claims or self._stores or self._releases):
                        return

    def _commit_stores(
        self, stores: list[tuple[GenerationRequest, GenerationResult, Stored]], releases: list[str]
    ) -> None:
        error: BaseException | None = None
        try:
            self.cache.store_many([(r, res) for r, res, _ in stores], self.owner, release=releases)
            self.commits += 1
            self.stored += len(stores)
        except BaseException as exc:  # handed to every waiting call: the run fails with it
            error = exc
        for _, _, then in stores:
            then(error)

    def _commit_claims(self, keys: list[str], future: asyncio.Future[Any]) -> None:
        try:
            got = self.cache.claim_many(keys, self.owner)
            self.commits += 1
            self.claimed += len(keys)
        except BaseException as exc:
            self._settle(future, {}, exc)
            return
        self._settle(future, got, None)

    def _settle(
        self,
        future: asyncio.Future[Any],
        got: dict[str, tuple[bool, GenerationResult | None]],
        error: BaseException | None,
    ) -> None:
        def settle() -> None:  # on the loop thread
            for key, value in got.items():
                if self._inflight.get(key) is future:
                    del self._inflight[key]
                    self._ready[key] = value
            for key in [k for k, f in self._inflight.items() if f is future]:
                del self._inflight[key]  # failed: a later claim of the key tries again
            if not future.done():
                if error is None:
                    future.set_result(None)
                else:
                    future.set_exception(error)

        try:
            self.loop.call_soon_threadsafe(settle)
        except RuntimeError:  # the loop is closed: nobody waits any more
            pass
