"""Connecting to a Ray cluster: :func:`connect` and :func:`connected` (the ``ray`` extra).

Used by the Ray executor of the experiment runner (:mod:`bordir.runner.ray_executor`)
and by the corpus embedding on Ray Data (:mod:`bordir.retrieval.dense.ray_embed`):
``address`` is a cluster (``auto``, ``HOST:6379``, ``ray://HOST:10001``), else
``$RAY_ADDRESS``, else a new cluster on this machine listening on the loopback
interface only. An address where nothing accepts a connection is refused within a
few seconds (:func:`probe`), before Ray would retry it for minutes, and Ray's own
log lines stay off stderr (warnings and errors only).
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator
from typing import Any

from .._extras import require
from ..errors import ConfigError

__all__ = ["connect", "connected", "probe", "PROBE_TIMEOUT"]


def connect(address: str | None = None) -> tuple[Any, bool]:
    """``(ray, started)``: Ray connected to ``address`` (else ``$RAY_ADDRESS``, else a new local cluster).

    ``started`` says whether this call connected (and :func:`execute_on_ray` disconnects after).
    """
    ray = require("ray", "ray", purpose="--executor ray")
    if ray.is_initialized():
        return ray, False
    address = address or os.environ.get("RAY_ADDRESS") or "local"
    probe(address)
    try:
        if address == "local":
            ray.init(  # this machine only, listening on the loopback interface
                address="local",
                include_dashboard=False,
                log_to_driver=False,
                _node_ip_address="127.0.0.1",
                logging_level=logging.WARNING,  # no "Started a local Ray instance" lines
            )
        else:
            ray.init(address=address, log_to_driver=False, logging_level=logging.WARNING)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        why = " ".join(str(exc).split())[:300]
        raise ConfigError(
            f"cannot connect to the Ray cluster at {address!r}: {why}; "
            "start one with `ray start --head` or pass --address HOST:PORT / ray://HOST:10001"
        ) from None
    return ray, True


PROBE_TIMEOUT = 5.0
"""Seconds :func:`probe` waits for a cluster's port to accept a connection."""


def probe(address: str, *, timeout: float = PROBE_TIMEOUT) -> None:
    """Refuse, within ``timeout`` seconds, a cluster address where nothing accepts a connection.

    ``HOST:PORT`` (the cluster's GCS) and ``ray://HOST:PORT`` (its client server) are tried
    with one TCP connection; ``auto`` and ``local`` are left to Ray. Without this, Ray retries
    an unreachable address for many minutes, printing its own log lines.

    Raises:
        ConfigError: nothing answers at ``address`` (the message names it as given).

    >>> probe("auto")
    """
    import socket

    if address in ("auto", "local"):
        return
    where = address.removeprefix("ray://")
    host, sep, port = where.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise ConfigError(
            f"Ray address {address!r} is not HOST:PORT or ray://HOST:PORT (or auto); "
            "e.g. --address 127.0.0.1:6379 or ray://127.0.0.1:10001"
        )
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            pass
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        if isinstance(exc, TimeoutError) or "timed out" in str(exc):
            why = f"no answer within {timeout:g} s"
        raise ConfigError(
            f"cannot connect to the Ray cluster at {address!r}: nothing answers there ({why}); "
            "start one with `ray start --head` or pass the address it prints "
            "(--address HOST:6379 or ray://HOST:10001)"
        ) from None


@contextlib.contextmanager
def connected(address: str | None = None) -> Iterator[Any]:
    """Ray connected for the duration of the block (disconnected after, if this block connected it)."""
    ray, started = connect(address)
    try:
        yield ray
    finally:
        if started:
            ray.shutdown()
