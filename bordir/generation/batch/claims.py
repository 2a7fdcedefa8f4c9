"""Requests held by a pending provider batch: recorded in the response cache, so no run on it pays twice.

A request submitted in a batch is billed when the batch runs, but its answer
reaches the response cache only when the batch is collected. Until then the
cache's ``batch_claims`` table holds its key
(:meth:`~bordir.generation.cache.ResponseCache.claim_for_batch`, written by
``--submit batch`` before the batch is created, with the batch id once it is
known), and the executor (:func:`~bordir.generation.executor.execute`) does not
call a key whose claim is in force (:func:`held_by_batches`): the request fails
"not called" with the batch, its run directory and how to collect it. Collecting
the batch releases its claims.

A claim is in force while the batch state of its run directory still lists
the batch (pending, or collected but its answer not yet written into the cache;
a request that failed in the batch is free again) or the upload it was made
from. A run directory whose ``batch/state.json`` was moved
away gave its batches up. A run directory that no longer exists (moved,
deleted), or whose state file cannot be read, holds its claims until the end
of the batch's window (24 h after the submission, plus an hour), after which
the provider has finished or expired it.

Example:
    >>> import tempfile, pathlib
    >>> from bordir.generation.cache import BatchClaim, ResponseCache
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> with ResponseCache(d / "c.sqlite3") as cache:
    ...     cache.claim_for_batch(["k1"], BatchClaim("batch_1", "file-1", str(d / "gone"), 2e9))
    ...     sorted(held_by_batches(cache, ["k1", "k2"], now=1e9))
    ['k1']
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import DataError
from .state import STATE_FILE, BatchState

if TYPE_CHECKING:
    from ..cache import BatchClaim, ResponseCache

__all__ = ["WINDOW", "held_by_batches", "describe_claim"]

WINDOW = 25 * 3600.0
"""Seconds a claim holds when its run directory is gone: the 24 h batch window and an hour."""


_UNREADABLE = object()


def _in_force(key: str, claim: BatchClaim, now: float, states: dict[str, Any]) -> bool:
    run_dir = Path(claim.run_dir)
    if claim.run_dir not in states:
        try:
            states[claim.run_dir] = (
                BatchState.load(run_dir) if (run_dir / STATE_FILE).is_file() else None
            )
        except DataError:  # a state file bordir cannot read: the batch may well be pending
            states[claim.run_dir] = _UNREADABLE
    state = states[claim.run_dir]
    if state is _UNREADABLE:
        return claim.expires > now
    if state is None:  # moved away (given up), or the whole directory is gone (not collectable)
        return not run_dir.is_dir() and claim.expires > now
    for rec in state.batches:
        if rec.id == claim.batch or (not claim.batch and rec.input_file_id == claim.file):
            # collected: its answers go into the cache; a request that failed is free again
            return not rec.collected or key not in rec.failed_keys
    return any(u.get("file_id") == claim.file for u in state.uploads)


def held_by_batches(
    cache: ResponseCache, keys: Iterable[str], *, now: float | None = None
) -> dict[str, BatchClaim]:
    """Those of ``keys`` that a pending batch holds (their claims in force; see the module docs)."""
    claims = cache.batch_claims(keys)
    if not claims:
        return {}
    now = time.time() if now is None else now
    states: dict[str, Any] = {}
    return {k: c for k, c in claims.items() if _in_force(k, c, now, states)}


def describe_claim(claim: BatchClaim) -> str:
    """Why a held request is not called, and what to do (one line).

    >>> from bordir.generation.cache import BatchClaim
    >>> describe_claim(BatchClaim("batch_1", "file-1", "runs/a", 0.0))  # doctest: +ELLIPSIS
    'held by the pending batch batch_1 of runs/a: collect it with `bordir run CONFIG --out runs/a --collect`, ...'
    """
    what = f"batch {claim.batch}" if claim.batch else f"batch of input file {claim.file}"
    return (
        f"held by the pending {what} of {claim.run_dir}: collect it with `bordir run CONFIG --out "
        f"{claim.run_dir} --collect`, then run again (an online call would pay for it twice)"
    )
