"""Paired randomization tests: random swaps / sign flips within clusters and the (c + 1) / (n + 1) p-value.

Two configurations measured on the same clusters are exchangeable under the
null: swapping them within a random subset of clusters (for a mean of
per-cluster differences: flipping the signs of those differences) gives the
null distribution. With ``c`` of the ``n`` random permutations at least as
extreme as the observed statistic, ``p = (c + 1) / (n + 1)``: never 0, and
exact in level (Phipson & Smyth 2010).

Example:
    >>> sign_flip_test([0.0, 0.0, 0.0], n_permutations=99, seed=1)
    1.0
    >>> permutation_pvalue(0.5, np.array([0.1, 0.6, np.nan, -0.7]))
    0.75
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .resample import DEFAULT_RESAMPLES
from .seeds import resolve_seed

__all__ = ["EPS", "flip_matrix", "permutation_pvalue", "sign_flip_pvalue", "sign_flip_test"]

EPS = 1e-12
"""Permuted statistics within this of the observed one count as extreme (float noise is not evidence)."""


def flip_matrix(n_permutations: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """Random swaps / sign flips, shape ``(n_permutations, n)``, True = flipped."""
    return rng.random((n_permutations, n)) < 0.5


def permutation_pvalue(observed: float, permuted: np.ndarray) -> float:
    """Two-sided ``(c + 1) / (n + 1)``: ``c`` of the ``n`` defined permuted values with ``|x| ≥ |observed|``."""
    perm = np.asarray(permuted, dtype=float)
    perm = perm[~np.isnan(perm)]  # permutations where the statistic is undefined do not count
    c = int(np.sum(np.abs(perm) >= abs(observed) - EPS))
    return (c + 1) / (len(perm) + 1)


def sign_flip_pvalue(differences: np.ndarray, flips: np.ndarray) -> float:
    """The sign-flip p-value of the mean of ``differences`` (no NaN) under the given ``flips``."""
    d = np.asarray(differences, dtype=float)
    if not len(d):
        return permutation_pvalue(0.0, np.zeros(len(flips)))
    return permutation_pvalue(abs(d.mean()), np.abs(np.where(flips, -d, d).mean(axis=1)))


def sign_flip_test(
    differences: Sequence[float],
    *,
    n_permutations: int = DEFAULT_RESAMPLES,
    seed: int | None = None,
) -> float:
    """Two-sided sign-flip permutation test of paired differences (mean 0 under H0); NaN differences left out.

    p = (c + 1) / (n + 1), where c counts the n random sign flips whose
    |mean| is at least the observed |mean|. It is never 0.

    >>> p = sign_flip_test([0.2, 0.1, 0.3, 0.25, 0.15] * 4, n_permutations=999, seed=3)
    >>> p == 1 / 1000
    True
    """
    d = np.asarray(differences, dtype=float)
    d = d[~np.isnan(d)]
    rng = np.random.default_rng(resolve_seed(seed))
    return sign_flip_pvalue(d, flip_matrix(n_permutations, len(d), rng))
