"""The shape of the pooled per-territory differences, and what it does to the sign-flip test's power.

The analytic power of :mod:`~bordir.metrics.perlang.power` treats the pooled differences
``dₜ`` as normal. How the runs relate changes their shape, not only their SD: when the two modes
share a component within a run (the same sampled tokens, the same retrieval) or a share of the
territories repeats one answer in every run, a few territories carry the effect and the rest sit
at 0 — skewed, heavy-tailed differences. The test's statistic ``T = S/√Q`` (``S = Σ dₜ``,
``Q = Σ dₜ²``: the sign-flip test's null variance) then varies less than under normality (a data
set with more movers has both a larger S and a larger Q), and the test is more powerful than the
normal model says: 87–88 % at its MDE where 80 % was meant.

By the delta method, with raw moments ``m₂ = σ² + δ²``, ``m₃``, ``m₄`` of ``dₜ``,

``Var T ≈ σ²/m₂ − δ(m₃ − δm₂)/m₂² + δ²(m₄ − m₂²)/(4m₂³)``,

and :func:`spread_factor` is ``√(Var T(data's shape) / Var T(normal))``, by which the analytic
power's spread is scaled. The shape is the data's own: the skewness ``γ₁ = μ₃/σ³`` and kurtosis
``γ₂ = μ₄/σ⁴`` of the observed pooled differences (:func:`shape_of`), which carry their between-run
correlation; the assumption is that the differences keep that shape at other effects. Normal
data (γ₁ = 0, γ₂ = 3) give the factor 1: the model as before; so do fewer than
:data:`MIN_SHAPE_N` differences, whose shape is too noisy to use (the normal model's MDE is then
the larger, safer one).

Example:
    >>> round(spread_factor(0.2, 0.3, (0.0, 3.0)), 6)
    1.0
    >>> spread_factor(0.2, 0.3, (2.0, 9.0)) < 1.0
    True
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = ["MIN_SHAPE_N", "NORMAL", "Shape", "shape_of", "spread_factor"]

Shape = tuple[float, float]
"""(skewness γ₁, kurtosis γ₂) of the pooled differences."""
NORMAL: Shape = (0.0, 3.0)
"""The shape the analytic power model assumed before (normal differences)."""
MIN_SHAPE_N = 30
"""Fewer differences than this give too noisy a shape (at 20 territories an estimated shape made the
reported MDE too small: 66 % power in one design): the normal model is used, which errs large."""


def shape_of(differences: Sequence[float] | np.ndarray) -> Shape:
    """The skewness and kurtosis of ``differences`` (:data:`NORMAL` below :data:`MIN_SHAPE_N` values or with no spread)."""
    d = np.asarray(differences, dtype=float)
    d = d[np.isfinite(d)]
    if len(d) < MIN_SHAPE_N:
        return NORMAL
    e = d - d.mean()
    s2 = float((e * e).mean())
    if s2 <= 1e-12:
        return NORMAL
    return float((e**3).mean() / s2**1.5), float((e**4).mean() / s2**2)


def _var_t(delta: float, sd: float, shape: Shape) -> float:
    s2 = sd * sd
    g1, g2 = shape
    mu3, mu4 = g1 * sd**3, g2 * s2 * s2
    m2 = s2 + delta * delta
    m3 = delta**3 + 3 * delta * s2 + mu3
    m4 = delta**4 + 6 * delta * delta * s2 + 4 * delta * mu3 + mu4
    v = s2 / m2 - delta * (m3 - delta * m2) / m2**2 + delta * delta * (m4 - m2 * m2) / (4 * m2**3)
    return max(v, 1e-12)


def spread_factor(delta: float, sd: float, shape: Shape | None) -> float:
    """``√(Var T(shape) / Var T(normal))`` at effect ``delta`` and SD ``sd``, within [0.5, 1.5] (module docs)."""
    if shape is None or sd <= 0 or shape == NORMAL:
        return 1.0
    f = math.sqrt(_var_t(abs(delta), sd, shape) / _var_t(abs(delta), sd, NORMAL))
    return min(max(f, 0.5), 1.5)
