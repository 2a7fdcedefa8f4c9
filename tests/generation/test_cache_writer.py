"""The cache writer claims the next calls' keys in the background while the current ones run."""

from __future__ import annotations

import asyncio
import time

from bordir.generation.cache import ResponseCache, new_owner
from bordir.generation.cache_writer import CacheWriter
from bordir.generation.types import GenerationRequest, GenerationResult, Message


def _requests(n: int) -> list[GenerationRequest]:
    return [
        GenerationRequest(model="mock/echo", messages=(Message("user", f"A) x {i}"),))
        for i in range(n)
    ]


def test_the_next_group_is_claimed_before_its_first_call_asks(tmp_path):
    cache = ResponseCache(tmp_path / "r.sqlite3")
    reqs = _requests(12)
    keys = [r.cache_key() for r in reqs]

    async def main() -> tuple[set[str], set[str], list[str]]:
        loop = asyncio.get_running_loop()
        writer = CacheWriter(cache, new_owner(), loop, ahead=keys, group=4)
        try:
            for key in keys[:3]:  # the first claim claims keys 0-3; 1 and 2 find theirs made
                assert await writer.claim(key) == (True, None)
            # one claimed key is left unused, fewer than half a group: keys 4-7 are claimed
            # in the background, though no call has asked for key 4 yet
            deadline = time.monotonic() + 10
            while writer.claimed < 8 and time.monotonic() < deadline:
                await asyncio.sleep(0.001)
            early = set(cache.claimed_keys())
            assert await writer.claim(keys[4]) == (True, None)  # made already: no round trip
            stored = []
            for req in reqs[:3]:
                done = loop.create_future()
                writer.store(
                    req,
                    GenerationResult(text="A", model="mock/echo"),
                    lambda err, done=done: loop.call_soon_threadsafe(done.set_result, err),
                )
                stored.append(done)
            assert await asyncio.gather(*stored) == [None, None, None]
            claimed_then = set(cache.claimed_keys())
        finally:
            writer.close()
        return early, claimed_then, cache.claimed_keys()

    early, claimed_then, after = asyncio.run(main())
    assert set(keys[:8]) <= early and not early & set(keys[8:])
    # the stored ones are released; at close the unused claims made ahead are released too,
    # and only the claim of the call still in flight (key 4: claimed, never stored) stays
    assert claimed_then == set(keys[3:8]) and after == [keys[4]]
    assert cache.get(reqs[0]).text == "A"


def test_stores_handed_over_in_one_iteration_are_one_commit_on_the_loop_thread(tmp_path):
    """No thread of its own: the commit and the callbacks run on the loop thread, once per iteration.

    A writer thread had to win the GIL from the loop to commit, so results piled up into large
    groups that released their calls together (the waves of a fixed-latency server never spread).
    """
    import threading

    cache = ResponseCache(tmp_path / "r.sqlite3")
    reqs = _requests(6)
    keys = [r.cache_key() for r in reqs]
    threads_before = set(threading.enumerate())

    async def main() -> tuple[list[int], set[int], int, set[threading.Thread]]:
        loop = asyncio.get_running_loop()
        writer = CacheWriter(cache, new_owner(), loop, ahead=keys, group=8)
        seen: set[int] = set()
        try:
            for key in keys:
                assert await writer.claim(key) == (True, None)
            started = set(threading.enumerate()) - threads_before
            commits = writer.commits
            futures = []
            for req in reqs[:4]:  # handed over in one iteration: one transaction
                done = loop.create_future()

                def then(err, done=done):
                    seen.add(threading.get_ident())
                    done.set_result(err)  # on the loop thread: no call_soon_threadsafe needed

                writer.store(req, GenerationResult(text="A", model="mock/echo"), then)
                futures.append(done)
            assert await asyncio.gather(*futures) == [None] * 4
            after_one = writer.commits - commits
            done = loop.create_future()
            writer.store(reqs[4], GenerationResult(text="B", model="mock/echo"), done.set_result)
            await done
            return [after_one, writer.commits - commits], seen, threading.get_ident(), started
        finally:
            writer.close()

    counts, seen, loop_thread, started = asyncio.run(main())
    assert counts == [1, 2]
    assert seen == {loop_thread}
    assert not started
    assert cache.get(reqs[3]).text == "A" and cache.get(reqs[4]).text == "B"
    assert cache.claimed_keys() == [keys[5]]  # claimed by a call, never stored: still in flight


def test_close_from_another_thread_runs_on_the_loop_and_later_stores_commit_at_once(tmp_path):
    import threading

    cache = ResponseCache(tmp_path / "r.sqlite3")
    reqs = _requests(3)
    keys = [r.cache_key() for r in reqs]

    async def main() -> None:
        loop = asyncio.get_running_loop()
        writer = CacheWriter(cache, new_owner(), loop, ahead=keys, group=4)
        for key in keys[:2]:
            await writer.claim(key)
        closer = threading.Thread(target=writer.close)  # as the executor's main thread does
        closer.start()
        while closer.is_alive():
            await asyncio.sleep(0.001)
        assert cache.claimed_keys() == sorted(keys[:2])  # the one claimed ahead is released
        errors: list[BaseException | None] = []
        writer.store(reqs[0], GenerationResult(text="A", model="mock/echo"), errors.append)
        assert errors == [None]  # a call that ends after the close: committed at once
        assert cache.get(reqs[0]).text == "A"
        try:
            await writer.claim(keys[2])
        except RuntimeError as exc:
            assert "closed" in str(exc)
        else:
            raise AssertionError("a claim after close must fail")

    asyncio.run(main())


def test_a_cache_locked_by_another_process_is_waited_for_off_the_loop(tmp_path):
    """The loop keeps serving while another writer holds the file: the helper thread waits for it.

    Claims and stores are committed on the loop thread when the cache is free; a transaction that
    would wait (another process holds SQLite's write lock) goes to one helper thread, so the
    calls in flight are still answered meanwhile.
    """
    import sqlite3
    import threading

    path = tmp_path / "r.sqlite3"
    cache = ResponseCache(path)
    reqs = _requests(8)
    keys = [r.cache_key() for r in reqs]
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("PRAGMA busy_timeout = 10000")

    async def main() -> tuple[int, int, float, set[str]]:
        loop = asyncio.get_running_loop()
        writer = CacheWriter(cache, new_owner(), loop, ahead=keys[:4], group=4)
        try:
            for key in keys[:2]:
                assert await writer.claim(key) == (True, None)
            other.execute("BEGIN IMMEDIATE")  # another process takes the write lock
            t0 = loop.time()
            ticks = 0
            done = loop.create_future()
            writer.store(reqs[0], GenerationResult(text="A", model="mock/echo"), done.set_result)
            claim = asyncio.ensure_future(writer.claim(keys[5]))  # not claimed ahead: must wait
            release = threading.Timer(0.3, lambda: other.execute("COMMIT"))
            release.start()
            while not (done.done() and claim.done()):
                await asyncio.sleep(0.01)  # the loop is free: these ticks go on
                ticks += 1
            waited = loop.time() - t0
            assert done.result() is None and claim.result() == (True, None)
            threads = {t.name for t in threading.enumerate()}
            return ticks, writer.waited, waited, threads
        finally:
            writer.close()

    ticks, handed, waited, threads = asyncio.run(main())
    other.close()
    assert (
        waited >= 0.25 and ticks >= 10
    )  # the loop ticked about every 10 ms while the lock was held
    assert handed == 2  # the store and the claim, both waited for in the helper thread
    assert any(name.startswith("bordir-cache") for name in threads)
    assert cache.get(reqs[0]).text == "A"
    assert sorted(cache.claimed_keys()) == sorted([keys[1], keys[5]])  # in flight: still claimed


def test_claims_made_ahead_by_the_helper_after_the_close_are_released(tmp_path):
    """A group claimed ahead in the helper (the cache was locked) that lands after close is let go."""
    import sqlite3
    import threading

    path = tmp_path / "r.sqlite3"
    cache = ResponseCache(path)
    keys = [r.cache_key() for r in _requests(8)]
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("PRAGMA busy_timeout = 10000")

    async def main() -> int:
        writer = CacheWriter(cache, new_owner(), asyncio.get_running_loop(), ahead=keys, group=4)
        assert await writer.claim(keys[0]) == (True, None)  # claims keys 0-3 at once
        other.execute("BEGIN IMMEDIATE")
        await writer.claim(keys[1])
        await writer.claim(keys[2])  # one claim left, under half a group: keys 4-7 ahead …
        await asyncio.sleep(0.01)  # … claimed in the next iteration: locked, so in the helper
        threading.Timer(0.2, lambda: other.execute("COMMIT")).start()
        writer.close()  # waits for the helper, then releases key 3; 4-7 are claimed after
        await asyncio.sleep(0.05)  # the helper's outcome reaches the loop
        return writer.waited

    assert asyncio.run(main()) == 1
    other.close()
    assert sorted(cache.claimed_keys()) == sorted(keys[:3])  # the three calls in flight only
