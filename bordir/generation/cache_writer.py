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
from collections import deque
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from .types import GenerationRequest, GenerationResult

if TYPE_CHECKING:
    from .cache import ResponseCache

__all__ = ["CacheWriter"]

Stored = Callable[[BaseException | None], object]
"""Called on the loop thread once a result is committed (``None``) or could not be (the error)."""

Claimed = tuple[bool, GenerationResult | None]


class CacheWriter:
    """The claims and stores of an event loop's calls, committed in groups on the loop thread.

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
        self._stores: list[tuple[GenerationRequest, GenerationResult, Stored]] = []
        self._releases: list[str] = []
        self._flush_due = False
        self._prefetch_due = False
        self._closed = False
        self.commits = 0
        """Transactions committed so far (for the benchmark's notes)."""
        self.claimed = 0
        self.stored = 0

    # -- claims ----------------------------------------------------------------------------
    async def claim(self, key: str) -> Claimed:
        """Claim ``key`` and look it up; ``(claimed, stored result or None)``, committed."""
        got = self._ready.pop(key, None)
        if got is None:  # not claimed ahead (or that claim failed): claim it now, with a group
            self._claim([key])
            got = self._ready.pop(key)
        self._want_prefetch()
        return got

    def _claim(self, keys: list[str]) -> None:
        """Claim ``keys`` and the next ones ahead, up to ``group``, in one transaction."""
        if self._closed:
            raise RuntimeError("the cache writer is closed")
        self._grouped.update(keys)
        while self._ahead and len(keys) < self.group:
            k = self._ahead.popleft()
            if k not in self._grouped:
                self._grouped.add(k)
                keys.append(k)
        got = self.cache.claim_many(keys, self.owner)
        self.commits += 1
        self.claimed += len(keys)
        self._ready.update(got)

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
            self._claim([self._ahead.popleft()])
        except Exception:  # noqa: S110 - a later claim of these keys claims them (and raises) itself
            pass

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
            self._flush()
        elif not self._flush_due:
            self._flush_due = True
            self.loop.call_soon(self._flush)

    def _flush(self) -> None:
        """Commit the stores and releases handed over since the last commit; then tell each caller."""
        self._flush_due = False
        stores, self._stores = self._stores, []
        releases, self._releases = self._releases, []
        if not stores and not releases:
            return
        error: BaseException | None = None
        try:
            self.cache.store_many([(r, res) for r, res, _ in stores], self.owner, release=releases)
            self.commits += 1
            self.stored += len(stores)
        except BaseException as exc:  # handed to every waiting call: the run fails with it
            error = exc
        for _, _, then in stores:
            then(error)

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
        self._releases.extend(k for k, (claimed, _) in self._ready.items() if claimed)
        self._ready.clear()
        self._flush()
        self._closed = True


def _on_loop_thread(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False
