"""A wall-clock limit on one blocking HTTP attempt: every read and write of its connection stops at it.

httpx's timeouts bound each network operation, not the request: a server that is alive but far
too slow — it sends the answer one byte at a time, each within the read timeout — keeps one
attempt going for minutes, past the attempt timeout and the request's deadline. A blocking SDK
client (Cohere's) sends its request in the calling thread, so :func:`attempt_deadline` marks that
thread with the attempt's end, and the connections of a transport made by :func:`deadline_transport`
give each read and write only what is left (an ``httpcore`` timeout when nothing is: the SDK
raises ``httpx.ReadTimeout``, which the backend reports as the attempt's timeout, and the
connection is closed). Outside :func:`attempt_deadline` the transport behaves as httpx's own.

Example:
    >>> import httpx
    >>> t = deadline_transport(httpx, limits=httpx.Limits(max_connections=2))
    >>> type(t).__name__
    'HTTPTransport'
    >>> with attempt_deadline(0.0):
    ...     try:
    ...         _left(1.0, TimeoutError)
    ...     except TimeoutError as exc:
    ...         print(exc)
    the attempt's time is up
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["attempt_deadline", "deadline_transport"]

_local = threading.local()


@contextmanager
def attempt_deadline(seconds: float) -> Iterator[None]:
    """Within the block, this thread's HTTP operations on a :func:`deadline_transport` end ``seconds`` from now."""
    before = getattr(_local, "at", None)
    _local.at = time.monotonic() + seconds
    try:
        yield
    finally:
        _local.at = before


def _left(timeout: float | None, error: type[Exception]) -> float | None:
    """The timeout of one operation: ``timeout`` cut at what is left of the attempt (none: ``error``)."""
    at: float | None = getattr(_local, "at", None)
    if at is None:
        return timeout
    left = at - time.monotonic()
    if left <= 0:
        raise error("the attempt's time is up")
    return left if timeout is None else min(timeout, left)


def deadline_transport(httpx: Any, **kwargs: Any) -> Any:
    """An ``httpx.HTTPTransport(**kwargs)`` whose connections stop at the thread's :func:`attempt_deadline`."""
    import httpcore

    class Stream(httpcore.NetworkStream):
        def __init__(self, inner: Any) -> None:
            self._inner = inner

        def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
            return bytes(self._inner.read(max_bytes, _left(timeout, httpcore.ReadTimeout)))

        def write(self, buffer: bytes, timeout: float | None = None) -> None:
            self._inner.write(buffer, _left(timeout, httpcore.WriteTimeout))

        def close(self) -> None:
            self._inner.close()

        def start_tls(
            self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
        ) -> Any:
            tls = self._inner.start_tls(
                ssl_context, server_hostname, _left(timeout, httpcore.ConnectTimeout)
            )
            return Stream(tls)

        def get_extra_info(self, info: str) -> Any:
            return self._inner.get_extra_info(info)

    class Backend(httpcore.NetworkBackend):
        def __init__(self, inner: Any) -> None:
            self._inner = inner

        def connect_tcp(
            self,
            host: str,
            port: int,
            timeout: float | None = None,
            local_address: str | None = None,
            socket_options: Any = None,
        ) -> Any:
            left = _left(timeout, httpcore.ConnectTimeout)
            return Stream(self._inner.connect_tcp(host, port, left, local_address, socket_options))

        def connect_unix_socket(
            self, path: str, timeout: float | None = None, socket_options: Any = None
        ) -> Any:
            left = _left(timeout, httpcore.ConnectTimeout)
            return Stream(self._inner.connect_unix_socket(path, left, socket_options))

        def sleep(self, seconds: float) -> None:
            self._inner.sleep(seconds)

    transport = httpx.HTTPTransport(**kwargs)
    # httpx builds its httpcore pool without a way to pass a network backend: wrap the pool's
    # (httpcore >= 1.0 keeps it in ``_network_backend``; the trickle tests fail if that changes)
    pool = transport._pool
    pool._network_backend = Backend(pool._network_backend)
    return transport
