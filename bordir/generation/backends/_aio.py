"""One asyncio event loop in a daemon thread, shared by the HTTP backends' async SDK clients.

The executor's worker threads make blocking calls; an HTTP backend turns each
into a coroutine of its one async client (``openai.AsyncOpenAI``) and waits for
it with :func:`run`. All HTTP work then happens in this one thread, so the
worker threads only sleep on a future instead of fighting over the GIL inside
``httpx`` (see ``docs/design/throughput.md``). The loop starts on first use and
is started again in a child process after a ``fork``.

Example:
    >>> async def add(a, b):
    ...     return a + b
    >>> run(add(2, 3))
    5
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["loop", "run"]

T = TypeVar("T")

_lock = threading.Lock()
_state: dict[str, Any] = {"loop": None, "pid": None}


def loop() -> asyncio.AbstractEventLoop:
    """The shared event loop (started in a daemon thread named ``bordir-aio`` on first use)."""
    with _lock:
        current = _state["loop"]
        if current is not None and _state["pid"] == os.getpid() and current.is_running():
            return current
        new = asyncio.new_event_loop()
        started = threading.Event()

        def serve() -> None:
            asyncio.set_event_loop(new)
            new.call_soon(started.set)
            new.run_forever()

        threading.Thread(target=serve, name="bordir-aio", daemon=True).start()
        started.wait()
        _state["loop"], _state["pid"] = new, os.getpid()
        return new


def run(coro: Coroutine[Any, Any, T], *, timeout: float | None = None) -> T:
    """Run ``coro`` on the shared loop and wait for its result (its exception is re-raised here).

    Args:
        coro: the coroutine.
        timeout: seconds to wait at most (None: no limit); on expiry the coroutine is
            cancelled and :class:`TimeoutError` is raised.
    """
    future = asyncio.run_coroutine_threadsafe(coro, loop())
    try:
        return future.result(timeout)
    except concurrent.futures.TimeoutError:
        future.cancel()
        raise TimeoutError(f"no result within {timeout:g} s") from None
