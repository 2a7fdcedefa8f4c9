"""The heap a run of calls starts with is frozen out of garbage collection while the calls run."""

from __future__ import annotations

import gc
import threading

from bordir._gc import frozen_heap
from bordir.generation.backends.mock import MockBackend
from bordir.generation.executor import execute
from bordir.generation.types import GenerationRequest, GenerationResult, Message


def _unfrozen() -> int:
    """Hand the heap back (the suite's conftest froze it after collection); the count before."""
    before = gc.get_freeze_count()
    gc.unfreeze()
    return before


def test_nested_and_concurrent_blocks_share_one_freeze():
    before = _unfrozen()
    try:
        _nested_and_concurrent()
    finally:
        if before:
            gc.freeze()


def test_a_heap_someone_else_froze_stays_frozen():
    before = _unfrozen()
    try:
        gc.freeze()
        theirs = gc.get_freeze_count()
        with frozen_heap():
            extra = [object() for _ in range(10)]  # noqa: F841 - made while the block runs
        # objects other threads free leave the permanent generation (the count drops by a few);
        # a block that unfroze at its end would leave none of theirs
        assert gc.get_freeze_count() >= 0.9 * theirs
    finally:
        gc.unfreeze()
        if before:
            gc.freeze()


def _nested_and_concurrent() -> None:
    assert gc.get_freeze_count() == 0
    keep = [object() for _ in range(100)]
    inner_done = threading.Event()
    with frozen_heap():
        frozen = gc.get_freeze_count()
        assert frozen >= len(keep)

        def other() -> None:
            with frozen_heap():
                pass
            inner_done.set()

        t = threading.Thread(target=other)
        t.start()
        t.join()
        assert inner_done.is_set()
        assert gc.get_freeze_count() >= frozen  # the other block's end did not unfreeze
    assert gc.get_freeze_count() == 0


def test_execute_runs_its_calls_with_the_heap_frozen_and_hands_it_back():
    before = _unfrozen()
    try:
        _execute_frozen()
    finally:
        if before:
            gc.freeze()


def _execute_frozen() -> None:
    counts: list[int] = []

    class Counting(MockBackend):
        def generate(self, request: GenerationRequest) -> GenerationResult:
            counts.append(gc.get_freeze_count())
            return super().generate(request)

    backend = Counting("first")
    reqs = [
        GenerationRequest(model="mock/first", messages=(Message("user", f"A) x {i}"),))
        for i in range(5)
    ]
    assert gc.get_freeze_count() == 0
    out = execute(backend, reqs, progress=False)
    assert all(r.ok for r in out) and len(counts) == 5
    assert min(counts) > 0
    assert gc.get_freeze_count() == 0
