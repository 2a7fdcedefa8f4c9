"""Connecting to a Ray cluster: :func:`connect` and :func:`connected` (the ``ray`` extra).

Used by the Ray executor of the experiment runner (:mod:`bordir.runner.ray_executor`)
and by the corpus embedding on Ray Data (:mod:`bordir.retrieval.dense.ray_embed`):
``address`` is a cluster (``auto``, ``HOST:6379``, ``ray://HOST:10001``), else
``$RAY_ADDRESS``, else a new cluster on this machine listening on the loopback
interface only.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

from ._extras import require
from .errors import ConfigError

__all__ = ["connect", "connected"]


def connect(address: str | None = None) -> tuple[Any, bool]:
    """``(ray, started)``: Ray connected to ``address`` (else ``$RAY_ADDRESS``, else a new local cluster).

    ``started`` says whether this call connected (and :func:`execute_on_ray` disconnects after).
    """
    ray = require("ray", "ray", purpose="--executor ray")
    if ray.is_initialized():
        return ray, False
    address = address or os.environ.get("RAY_ADDRESS") or "local"
    try:
        if address == "local":
            ray.init(  # this machine only, listening on the loopback interface
                address="local",
                include_dashboard=False,
                log_to_driver=False,
                _node_ip_address="127.0.0.1",
            )
        else:
            ray.init(address=address, log_to_driver=False)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        why = " ".join(str(exc).split())[:300]
        raise ConfigError(
            f"cannot connect to the Ray cluster at {address!r}: {why}; "
            "start one with `ray start --head` or pass --address HOST:PORT / ray://HOST:10001"
        ) from None
    return ray, True


@contextlib.contextmanager
def connected(address: str | None = None) -> Iterator[Any]:
    """Ray connected for the duration of the block (disconnected after, if this block connected it)."""
    ray, started = connect(address)
    try:
        yield ray
    finally:
        if started:
            ray.shutdown()
