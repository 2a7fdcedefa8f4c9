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
import weakref
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar, cast

__all__ = ["close_when_collected", "loop", "run"]

T = TypeVar("T")

_lock = threading.Lock()
_state: dict[str, Any] = {"loop": None, "pid": None}


def loop() -> asyncio.AbstractEventLoop:
    """The shared event loop (started in a daemon thread named ``bordir-aio`` on first use)."""
    with _lock:
        current = _state["loop"]
        if current is not None and _state["pid"] == os.getpid() and current.is_running():
            return cast("asyncio.AbstractEventLoop", current)
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


def close_when_collected(owner: object, release: Callable[[dict[str, Any]], None]) -> None:
    """Call ``release(owner.__dict__)`` when ``owner`` is garbage collected without being closed.

    A backend that nobody closed still owns open connections; without this their sockets are
    freed by the garbage collector, unclosed (a ``ResourceWarning`` each). ``release`` gets the
    instance's attribute dict (which does not keep the instance alive) and closes whatever clients
    it holds at that moment. Not run at interpreter exit, where the process closes every socket.
    """
    weakref.finalize(owner, release, owner.__dict__).atexit = False


def close_async_clients(clients: list[Any], pid: int | None) -> None:
    """Close async SDK clients on the shared loop (those of a parent process are not ours)."""
    if not clients or pid != os.getpid():
        return
    current = _state["loop"]
    if current is None or _state["pid"] != os.getpid() or not current.is_running():
        return  # no loop: the clients never connected
    futures = [asyncio.run_coroutine_threadsafe(c.close(), current) for c in clients]
    if threading.current_thread().name == "bordir-aio":
        return  # collected on the loop's own thread: the closes run after this
    concurrent.futures.wait(futures, timeout=5.0)
