"""Token buckets for requests and tokens per minute: :class:`RateLimiter` (defined in ``bordir._ratelimit``).

It lives outside ``bordir.generation`` so that the Wikipedia client can use it
without importing the generation package; this module keeps the old import path.

Example:
    >>> RateLimiter(rpm=60).try_acquire()
    0.0
"""

from __future__ import annotations

from .._ratelimit import RateLimiter

__all__ = ["RateLimiter"]
