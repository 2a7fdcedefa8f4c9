"""Choosing an option from per-option scores: the argmax, or a seeded softmax draw at a temperature.

A rank-classification backend (``local/…``) scores every option once per
(query, mode); each run then draws its answer with :func:`choose_option` and
its own seed. The row builder (:mod:`bordir.runner.rows`) and the calibrated
choices (:mod:`bordir.metrics.order.rules`) use the same function, so a choice
re-derived from stored scores is the one the run made.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import ConfigError

__all__ = ["choose_option"]


def choose_option(logprobs: Sequence[float], temperature: float, seed: int | None) -> int:
    """The index of the chosen option: argmax at ``temperature <= 0``, else a seeded softmax draw.

    The draw uses ``np.random.default_rng(seed)`` and one uniform number, so it
    is a pure function of its arguments (for an int seed) and can be repeated
    over many seeds on scores computed once.

    Args:
        logprobs: one (log-)score per option; ``-inf`` marks an impossible option.
        temperature: 0 for the argmax (first on ties); > 0 samples from
            ``softmax(logprobs / temperature)``.
        seed: the run's seed (None draws fresh entropy).

    Example:
        >>> choose_option([-3.0, -1.0, -2.0], 0.0, seed=1)
        1
        >>> choose_option([-3.0, -1.0, -2.0], 1.0, seed=7) == choose_option([-3.0, -1.0, -2.0], 1.0, seed=7)
        True
    """
    lp = np.asarray(logprobs, dtype=np.float64)
    if lp.ndim != 1 or lp.size == 0:
        raise ConfigError(
            f"choose_option needs a non-empty list of option scores, got shape {lp.shape}"
        )
    if np.isnan(lp).any():
        raise ConfigError(f"choose_option got NaN option scores: {lp.tolist()}")
    if not np.isfinite(lp).any():  # every option impossible: fall back to the first
        return 0
    if temperature is None or temperature <= 0:
        return int(np.argmax(lp))
    z = lp / float(temperature)
    z = z - z[np.isfinite(z)].max()
    p = np.exp(z)
    cdf = np.cumsum(p / p.sum())
    u = np.random.default_rng(seed).random()
    return min(int(np.searchsorted(cdf, u, side="right")), lp.size - 1)
