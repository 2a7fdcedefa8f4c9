"""The random seed of every resampling in bordir: explicit, overridable by one environment variable.

Randomness comes from ``np.random.default_rng(seed)``; the seed defaults to
:data:`bordir.settings.DEFAULT_SEED`, is overridden by the ``BORDIR_SEED`` environment variable,
and is recorded in every result's signature. :func:`named_rng` derives an
independent stream per name (a cell, a group) from one seed, so a result does
not depend on which other results were computed before it.

Example:
    >>> resolve_seed(7)
    7
    >>> int(named_rng(1, "a").integers(1000)) == int(named_rng(1, "a").integers(1000))
    True
"""

from __future__ import annotations

import hashlib

import numpy as np

from ..settings import SEED

__all__ = ["resolve_seed", "named_rng"]


def resolve_seed(seed: int | None = None) -> int:
    """``seed`` if given, else ``$BORDIR_SEED`` (:data:`bordir.settings.SEED`), else :data:`bordir.settings.DEFAULT_SEED`.

    Raises:
        ConfigError: ``$BORDIR_SEED`` is set but is not an integer >= 0.
    """
    if seed is not None:
        return int(seed)
    return SEED.get()


def named_rng(seed: int, name: str) -> np.random.Generator:
    """The random stream of ``name`` under ``seed``: the seed and a stable hash of the name."""
    h = int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:8], "little")
    return np.random.default_rng(np.random.SeedSequence(entropy=int(seed), spawn_key=(h,)))
