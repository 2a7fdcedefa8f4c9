"""Cross-language score fusion: how scores of different document languages are made comparable.

:func:`bordir.retrieval.run.retrieve` scores each document language of a mode
separately, then fuses each language's scores with one of :data:`FUSIONS`
before ranking all documents together. A fusion is a function
``scores -> fused scores`` (higher is better) registered by name.

Example:
    >>> import numpy as np
    >>> FUSIONS.names()
    ('raw', 'minmax', 'rrf')
    >>> fuse(np.array([3.0, 1.0, 2.0]), "minmax").tolist()
    [1.0, 0.0, 0.5]
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..registry import Registry

__all__ = ["FUSIONS", "RRF_K", "fuse"]

Fusion = Callable[[np.ndarray], np.ndarray]
FUSIONS: Registry[Fusion] = Registry("fusion")
"""Fusions by name."""
RRF_K = 60


@FUSIONS.register(
    "raw", description="the retriever's scores as they are (one multilingual embedder's cosines)"
)
def _raw(scores: np.ndarray) -> np.ndarray:
    return scores.astype(float)


@FUSIONS.register(
    "minmax", description="per document language, scores rescaled to [0, 1] (best = 1)"
)
def _minmax(scores: np.ndarray) -> np.ndarray:
    lo, hi = float(scores.min()), float(scores.max())
    if hi == lo:
        return np.full(len(scores), 1.0 if hi > 0 else 0.0)
    return (scores - lo) / (hi - lo)


@FUSIONS.register(
    "rrf", description=f"reciprocal rank within each document language, 1 / ({RRF_K} + rank)"
)
def _rrf(scores: np.ndarray) -> np.ndarray:
    order = np.argsort(-scores, kind="stable")
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    return 1.0 / (RRF_K + ranks)


def fuse(scores: np.ndarray, fusion: str) -> np.ndarray:
    """``scores`` of one document language fused by ``fusion`` (an empty array stays empty).

    Raises:
        ConfigError: ``fusion`` is not registered.
    """
    f = FUSIONS.get(fusion)
    if len(scores) == 0:
        return scores.astype(float)
    return f(scores)
