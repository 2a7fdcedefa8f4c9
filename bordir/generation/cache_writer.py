"""The response cache's claims and stores for calls on the event loop, grouped per loop iteration.

The executor's async lane (:func:`~bordir.generation.executor.execute` with a
backend that has ``agenerate_within``) runs every call as a task on bordir's
one event loop thread. Each call claims its key before it is made and stores
its result when it ends; done one by one, those are two SQLite commits per
call. A :class:`CacheWriter` does them in few transactions, on the loop thread
itself:

- **claims ahead.** The writer knows the keys the run will call, in order.
  The first claim claims that key and the next ones (up to ``group``, the
  run's concurrency) in one transaction
  (:meth:`~bordir.generation.cache.ResponseCache.claim_many`); the calls that
  follow find their claim made and start at once. Once fewer than half a group
  of those claims are left unused, the next group is claimed in the loop's next
  iteration, after the call that noticed it has sent its request. A key that
  turned out to be claimed by another live caller is waited for and claimed
  again later, as before; claims made ahead and never used (the run stopped
  early) are released when the writer closes.
- **stores per loop iteration.** A finished call hands its result to the
  writer (:meth:`CacheWriter.store`) and waits for its commit before it takes
  its next key. The results handed over while the loop runs one iteration's
  callbacks are stored, and their claims released, in one transaction at the
  start of the next iteration
  (:meth:`~bordir.generation.cache.ResponseCache.store_many`), and only then
  handed on (to the run's rows).

**Where it would block, a helper thread waits.** A transaction is begun on the loop
thread only when it need not wait (``wait=False`` of
:meth:`~bordir.generation.cache.ResponseCache.claim_many` and
:meth:`~bordir.generation.cache.ResponseCache.store_many`): when another process
holds the file's write lock, or the helper holds the cache, the transaction goes
to one helper thread (``bordir-cache``), which waits for the lock (the cache's
timeout) and hands the outcome back to the loop, while the loop goes on serving
the calls in flight. The calls that wait for those claims or commits wait as
before; the others are not held up. Transactions keep their order: once one
is with the helper, the next ones go there too until it is free.

Why on the loop thread (issue 30): an earlier writer thread did the same
transactions, but every hand-over between it and the loop thread waited for
the GIL, which the loop holds while it serves a wave of answers. The results
then piled up into large groups (up to 80 at c=128), their calls were released
together, sent together and answered together: the waves never spread out,
and each call waited about half a wave's service time. On the loop thread a
commit of the iteration's results costs about 0.25 ms (SQLite's WAL with
``synchronous=NORMAL`` writes no fsync on commit) and the groups stay small:
``execute()`` at c=32 and 100 ms went from 0.944-0.948 to 0.958-0.959 of the
ideal throughput, at c=128 and 1 s from 0.969 to 0.977
(``docs/design/throughput.md``).

Nothing about the claims changes between processes: every claim is committed
under SQLite's write lock before its call starts, exactly as
:meth:`~bordir.generation.cache.ResponseCache.claim` does, so two or three
processes sharing the file still pay for each key once
(``tests/generation/test_cache_concurrency.py``). A result is stored before it is handed
on, and a call counts as in flight until its result is committed: a crash
(kill -9) loses at most the calls in flight, at most one per task. About 1.5 × ``group``
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
    ...     writer.store(req, GenerationResult(text="A", model="mock/echo"), stored.set_result)
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
import concurrent.futures
import contextlib
from collections import deque
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from .types import GenerationRequest, GenerationResult

if TYPE_CHECKING:
    from .cache import ResponseCache

__all__ = ["CacheWriter"]

Stored = Callable[[BaseException | None], object]
"""Called on the loop thread once a result is committed (``None``) or could not be (the error)."""

Claimed = tuple[bool, GenerationResult | None]


class CacheWriter:
    """The claims and stores of an event loop's calls, committed in groups on the loop thread (see module docs).

    :meth:`claim`, :meth:`store` and :meth:`release` are called from the loop's tasks;
    :meth:`close` from any thread (it runs on the loop thread while the loop runs).

    Args:
        cache: the response cache.
        owner: the claim owner of the run (:func:`~bordir.generation.cache.new_owner`).
        loop: the event loop whose tasks call the writer.
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
        self._ahead = deque(ahead)
        self._grouped: set[str] = set()  # keys claimed (or being claimed) ahead
        self._ready: dict[str, Claimed] = {}  # claims made, not yet taken by a call
        self._pending: dict[str, asyncio.Future[None]] = {}  # claims the helper is making
        self._stores: list[tuple[GenerationRequest, GenerationResult, Stored]] = []
        self._releases: list[str] = []
        self._flush_due = False
        self._prefetch_due = False
        self._closed = False
        self._helper: concurrent.futures.ThreadPoolExecutor | None = None
        self.commits = 0
        """Transactions committed so far (for the benchmark's notes)."""
        self.claimed = 0
        self.stored = 0
        self.waited = 0
        """Transactions handed to the helper thread because the cache was locked."""

    # -- claims ----------------------------------------------------------------------------
    async def claim(self, key: str) -> Claimed:
        """Claim ``key`` and look it up; ``(claimed, stored result or None)``, committed."""
        got = self._ready.pop(key, None)
        if got is None:
            pending = self._pending.get(key)
            if pending is not None:  # its group is being claimed by the helper
                await pending
                got = self._ready.pop(key, None)
            if got is None:  # not claimed ahead (or that claim failed): claim it now, with a group
                await self._claim_group([key])
                got = self._ready.pop(key)
        self._want_prefetch()
        return got

    def _group_of(self, keys: list[str]) -> list[str]:
        """``keys`` and the next ones ahead, up to ``group``."""
        if self._closed:
            raise RuntimeError("the cache writer is closed")
        self._grouped.update(keys)
        while self._ahead and len(keys) < self.group:
            k = self._ahead.popleft()
            if k not in self._grouped:
                self._grouped.add(k)
                keys.append(k)
        return keys

    def _claimed(self, keys: list[str], got: dict[str, Claimed]) -> None:
        self.commits += 1
        self.claimed += len(keys)
        self._ready.update(got)

    async def _claim_group(self, keys: list[str]) -> None:
        """Claim ``keys`` and the next ones ahead in one transaction: here, or in the helper if locked."""
        keys = self._group_of(keys)
        got = self.cache.claim_many(keys, self.owner, wait=False)
        if got is None:
            await self._claim_in_helper(keys)
        else:
            self._claimed(keys, got)

    def _claim_in_helper(self, keys: list[str]) -> asyncio.Future[None]:
        """Claim ``keys`` in the helper thread (the cache is locked); calls asking for them wait."""
        self.waited += 1
        done: asyncio.Future[None] = self.loop.create_future()
        for k in keys:
            self._pending[k] = done
        work = self._helper_pool().submit(self.cache.claim_many, keys, self.owner)

        def settle(got: dict[str, Claimed] | None, error: BaseException | None) -> None:
            for k in keys:
                if self._pending.get(k) is done:
                    del self._pending[k]
            if error is None and got is not None and self._closed:  # made after the close
                mine = [k for k, (claimed, _) in got.items() if claimed]
                with contextlib.suppress(Exception):
                    self.cache.store_many([], self.owner, release=mine)
                done.set_exception(RuntimeError("the cache writer is closed"))
                done.exception()
            elif error is None and got is not None:
                self._claimed(keys, got)
                done.set_result(None)
            else:  # a later claim of these keys claims them (and raises) itself
                done.set_exception(error or RuntimeError("no claims"))
                done.exception()  # retrieved: a prefetch nobody awaits must not warn

        work.add_done_callback(lambda f: self._on_loop(settle, *_outcome(f)))
        return done

    def _want_prefetch(self) -> None:
        """Claim the next group in the next iteration once fewer than half a group of claims are left.

        The claims of the next calls are then committed while the current ones run, not when
        the next wave of calls starts and waits for them; the call that noticed sends its
        request first.
        """
        if self._prefetch_due or not self._ahead:
            return
        if sum(1 for c, _ in self._ready.values() if c) >= self.group // 2:
            return
        self._prefetch_due = True
        self.loop.call_soon(self._prefetch)

    def _prefetch(self) -> None:
        self._prefetch_due = False
        if self._closed:
            return
        while self._ahead and self._ahead[0] in self._grouped:
            self._ahead.popleft()
        if not self._ahead:
            return
        try:
            keys = self._group_of([self._ahead.popleft()])
            got = self.cache.claim_many(keys, self.owner, wait=False)
        except Exception:  # noqa: S110 - a later claim of these keys claims them (and raises) itself
            return
        if got is None:
            self._claim_in_helper(keys)
        else:
            self._claimed(keys, got)

    # -- stores ----------------------------------------------------------------------------
    def store(self, request: GenerationRequest, result: GenerationResult, then: Stored) -> None:
        """Store ``result`` (if it succeeded) and release the claim of its key; ``then`` after the commit."""
        self._stores.append((request, result, then))
        self._want_flush()

    def release(self, key: str) -> None:
        """Release the claim of ``key`` (a call interrupted before its result)."""
        self._releases.append(key)
        self._want_flush()

    def _want_flush(self) -> None:
        if self._closed:  # a call that ended after the run stopped: committed at once
            self._flush(wait=True)
        elif not self._flush_due:
            self._flush_due = True
            self.loop.call_soon(self._flush)

    def _flush(self, wait: bool = False) -> None:
        """Commit the stores and releases handed over since the last commit; then tell each caller.

        The commit is made here when the cache is free; when another process (or the helper)
        holds it, the helper thread waits for it instead, and the loop goes on serving calls.
        """
        self._flush_due = False
        stores, self._stores = self._stores, []
        releases, self._releases = self._releases, []
        if not stores and not releases:
            return
        done = [(r, res) for r, res, _ in stores]
        try:
            committed = self.cache.store_many(done, self.owner, release=releases, wait=wait)
        except BaseException as exc:  # handed to every waiting call: the run fails with it
            self._stored(stores, exc)
            return
        if committed:
            self._stored(stores, None)
            return
        self.waited += 1
        work = self._helper_pool().submit(self.cache.store_many, done, self.owner, release=releases)
        work.add_done_callback(
            lambda f: self._on_loop(lambda _, error: self._stored(stores, error), *_outcome(f))
        )

    def _stored(
        self,
        stores: list[tuple[GenerationRequest, GenerationResult, Stored]],
        error: BaseException | None,
    ) -> None:
        if error is None:
            self.commits += 1
            self.stored += len(stores)
        for _, _, then in stores:
            then(error)

    # -- the helper thread -----------------------------------------------------------------
    def _helper_pool(self) -> concurrent.futures.ThreadPoolExecutor:
        """The one thread that waits for a locked cache (made when first needed)."""
        if self._helper is None:
            self._helper = concurrent.futures.ThreadPoolExecutor(
                max_workers=1, thread_name_prefix="bordir-cache"
            )
        return self._helper

    def _on_loop(self, fn: Callable[[Any, BaseException | None], None], *args: Any) -> None:
        """Call ``fn(*args)`` on the loop thread (from the helper thread)."""
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
            self.loop.call_soon_threadsafe(fn, *args)

    # -- the end ---------------------------------------------------------------------------
    def close(self) -> None:
        """Commit what is handed over, release the claims made ahead and not used; no claims after.

        Call it once the loop's tasks are done (or the run was interrupted). From another
        thread it runs on the loop thread and waits for it there, while the loop runs.
        """
        if self.loop.is_running() and not _on_loop_thread(self.loop):
            done: concurrent.futures.Future[None] = concurrent.futures.Future()

            def close_here() -> None:
                try:
                    self._close()
                    done.set_result(None)
                except BaseException as exc:
                    done.set_exception(exc)

            try:
                self.loop.call_soon_threadsafe(close_here)
            except RuntimeError:  # the loop closed meanwhile
                self._close()
                return
            done.result()
            return
        self._close()

    def _close(self) -> None:
        if self._closed:
            return
        if self._helper is not None:  # what the helper holds is committed first
            self._helper.shutdown(wait=True)
        self._releases.extend(k for k, (claimed, _) in self._ready.items() if claimed)
        self._ready.clear()
        self._closed = True
        self._flush(wait=True)


def _outcome(future: concurrent.futures.Future[Any]) -> tuple[Any, BaseException | None]:
    """``(result, None)`` of a finished future, or ``(None, its exception)``."""
    error = future.exception()
    return (None, error) if error is not None else (future.result(), None)


def _on_loop_thread(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False
