"""Read the next blocks of a log in a thread while the current one is aggregated.

Parsing a block (pyarrow's JSON reader) and detecting languages (langdetect-rs's
batch call) both release the GIL, so reading ahead overlaps them. The blocks come
out in order; an error raised by the reader is raised again where the blocks are
consumed; stopping early (``--strict``, an interrupt) stops the thread.

Example:
    >>> list(prefetch(iter(range(5))))
    [0, 1, 2, 3, 4]
    >>> def broken():
    ...     yield 1
    ...     raise ValueError("bad block")
    >>> it = prefetch(broken())
    >>> next(it)
    1
    >>> next(it)
    Traceback (most recent call last):
    ...
    ValueError: bad block
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from typing import TypeVar

__all__ = ["prefetch"]

T = TypeVar("T")
_END = object()


def prefetch(items: Iterator[T], depth: int = 1) -> Iterator[T]:
    """``items`` in order, produced up to ``depth`` ahead by a background thread."""
    q: queue.Queue[tuple[object, BaseException | None]] = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def put(entry: tuple[object, BaseException | None]) -> bool:
        while not stop.is_set():
            try:
                q.put(entry, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def work() -> None:
        try:
            for item in items:
                if not put((item, None)):
                    return
            put((_END, None))
        except BaseException as exc:  # raised again in the consumer
            put((_END, exc))
        finally:
            close = getattr(items, "close", None)
            if close is not None:
                close()

    thread = threading.Thread(target=work, name="bordir-audit-reader", daemon=True)
    thread.start()
    try:
        while True:
            item, exc = q.get()
            if exc is not None:
                raise exc
            if item is _END:
                return
            yield item  # type: ignore[misc]
    finally:
        stop.set()
        thread.join()
