"""The objects that exist when a long run of calls starts are left out of garbage collection while it runs.

A ``bordir run`` process holds hundreds of thousands of long-lived objects
(pandas, pyarrow, the SDKs' pydantic models, the dataset and its prompts)
before its first call. Python's collector scans them again at each
collection of the older generations: in a 1,020-call run at c=32 the
collections took about 190 ms, a third of the event loop's CPU per call, and
each full one stalled every call in flight for 15-47 ms. :func:`frozen_heap`
moves what exists into the collector's permanent generation (:func:`gc.freeze`)
for the duration of a block, so a collection looks only at the objects the calls
make; at the end they are handed back (:func:`gc.unfreeze`) and collected as before.
Nested and concurrent blocks share one freeze: the heap is handed back when the
last one ends. A heap that someone else froze before (an application, a test
runner) is never handed back here: :func:`gc.unfreeze` cannot tell their objects
from the run's, so what the block froze stays frozen with theirs.

Example:
    >>> import gc
    >>> with frozen_heap():
    ...     gc.get_freeze_count() > 0
    True
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["frozen_heap"]

_lock = threading.Lock()
_depth = [0]
_owned = [False]  # whether the outermost block froze a heap nobody had frozen


@contextmanager
def frozen_heap() -> Iterator[None]:
    """Leave the objects that exist now out of garbage collection until the block ends."""
    with _lock:
        _depth[0] += 1
        if _depth[0] == 1:
            _owned[0] = gc.get_freeze_count() == 0
            gc.freeze()
    try:
        yield
    finally:
        with _lock:
            _depth[0] -= 1
            if _depth[0] == 0 and _owned[0]:
                gc.unfreeze()
