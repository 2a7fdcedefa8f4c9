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
