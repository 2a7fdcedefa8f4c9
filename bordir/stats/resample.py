"""Cluster resampling: bootstrap resamples as counts of how often each cluster (or cluster profile) is drawn.

A resample of ``n`` clusters drawn with replacement is a weight vector over
the clusters, so any statistic that is a function of per-cluster sums is one
weighted sum per resample (a matrix product over all resamples at once):

* :func:`bootstrap_weights` — ``n`` clusters, each drawn uniformly;
* :func:`multinomial_weights` — clusters stored as distinct profiles with
  multiplicities: the resample counts of each profile are one multinomial
  draw (exactly the same bootstrap, on a few rows).

Example:
    >>> bootstrap_weights(3, 2, np.random.default_rng(0)).sum(axis=1).tolist()
    [3, 3]
    >>> multinomial_weights(np.array([2.0, 1.0]), 2, np.random.default_rng(0)).sum(axis=1).tolist()
    [3.0, 3.0]
"""

from __future__ import annotations

import numpy as np

__all__ = ["DEFAULT_RESAMPLES", "bootstrap_weights", "multinomial_weights"]

DEFAULT_RESAMPLES = 2000
"""Bootstrap resamples (and random permutations) unless a caller asks for another number."""


def bootstrap_weights(n_clusters: int, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Resample counts, shape ``(n_resamples, n_clusters)``: how often each cluster is drawn."""
    idx = rng.integers(0, n_clusters, size=(n_resamples, n_clusters))
    flat = idx + (np.arange(n_resamples)[:, None] * n_clusters)
    return np.bincount(flat.ravel(), minlength=n_resamples * n_clusters).reshape(
        n_resamples, n_clusters
    )


def multinomial_weights(
    weight: np.ndarray, n_resamples: int, rng: np.random.Generator
) -> np.ndarray:
    """Resample counts of each profile, shape ``(n_resamples, K)``: n clusters drawn with replacement."""
    w = np.asarray(weight, dtype=np.float64)
    n = int(round(float(w.sum())))
    if len(w) == 0 or n == 0:
        return np.zeros((n_resamples, len(w)))
    p = w / w.sum()
    return rng.multinomial(n, p, size=n_resamples).astype(np.float64)
