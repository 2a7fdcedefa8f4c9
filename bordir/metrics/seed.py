"""The random seed of every resampling in bordir: explicit, overridable by one environment variable.

Randomness comes from ``np.random.default_rng(seed)``; the seed defaults to
:data:`DEFAULT_SEED`, is overridden by the ``BORDIR_SEED`` environment variable,
and is recorded in every result's signature.

Example:
    >>> resolve_seed(7)
    7
"""

from __future__ import annotations

import os

from ..errors import ConfigError

__all__ = ["DEFAULT_SEED", "SEED_ENV", "resolve_seed"]

DEFAULT_SEED = 12345
SEED_ENV = "BORDIR_SEED"


def resolve_seed(seed: int | None = None) -> int:
    """``seed`` if given, else ``$BORDIR_SEED``, else :data:`DEFAULT_SEED`."""
    if seed is not None:
        return int(seed)
    env = os.environ.get(SEED_ENV)
    if env is None or env.strip() == "":
        return DEFAULT_SEED
    try:
        return int(env)
    except ValueError:
        raise ConfigError(
            f"{SEED_ENV}={env!r} is not an integer; set it to a seed such as {DEFAULT_SEED}"
        ) from None
