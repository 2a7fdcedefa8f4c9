"""Ordinal agreement: weighted Cohen's κ (linear, quadratic) and Krippendorff's α with the ordinal metric.

Relevance labels are ordered (``not_relevant`` < ``partially_relevant`` <
``relevant``): calling a relevant document "partially relevant" is a smaller
disagreement than calling it "not relevant". The nominal statistics count both
alike; these weigh a disagreement by its distance.

**Weighted κ** (Cohen 1968), with the confusion matrix ``M`` over the ordered
levels ``0 … K−1`` (all levels, present or not), ``n`` pairs, the expected
matrix ``E_ij = row_i · col_j / n`` and disagreement weights ``w_ij = |i − j|``
(``linear``) or ``(i − j)²`` (``quadratic``):
``κ_w = 1 − Σ w_ij M_ij / Σ w_ij E_ij``; undefined when ``Σ w_ij E_ij = 0``.
This is scikit-learn's ``cohen_kappa_score(a, b, weights=…, labels=levels)``.

**Ordinal α** (Krippendorff 2011): from the coincidence matrix ``o`` and its
margins ``n_c``, the squared ordinal distance of levels ``c ≤ k`` is
``δ²_ck = (Σ_{g=c}^{k} n_g − (n_c + n_k) / 2)²`` and
``α = 1 − (n − 1) · Σ_ck o_ck δ²_ck / Σ_ck n_c n_k δ²_ck``. Krippendorff's
published example (4 coders, 12 units, missing values) gives 0.815.

Both take matrices with leading (resample) axes, like the nominal statistics.

Example:
    >>> levels = ("n", "p", "r")
    >>> a = ["r", "r", "r", "r", "p", "p", "p", "n", "n", "n"]
    >>> b = ["r", "r", "r", "p", "p", "p", "n", "n", "n", "p"]
    >>> round(weighted_kappa(a, b, levels, weights="linear"), 4), round(weighted_kappa(a, b, levels), 4)
    (0.6591, 0.7692)
    >>> round(krippendorff_alpha_ordinal([[x, y] for x, y in zip(a, b)], levels), 4)
    0.7856
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from ...errors import ConfigError
from .statistics import coincidence, confusion, num

__all__ = [
    "ORDINAL_LEVELS",
    "WEIGHTS",
    "weighted_kappa",
    "krippendorff_alpha_ordinal",
    "weight_matrix",
]

ORDINAL_LEVELS: dict[str, tuple[str, ...]] = {
    "relevance": ("not_relevant", "partially_relevant", "relevant"),
    "relevance_binary": ("not_relevant", "relevant"),
}
"""The label dimensions whose values are ordered, lowest first (viewpoints are not ordered)."""

WEIGHTS: tuple[str, ...] = ("linear", "quadratic")
Weights = Literal["linear", "quadratic"]


def weight_matrix(k: int, weights: str) -> np.ndarray:
    """Disagreement weights ``|i − j|`` or ``(i − j)²`` of ``k`` ordered levels."""
    if weights not in WEIGHTS:
        raise ConfigError(f"unknown kappa weights {weights!r}; known: {', '.join(WEIGHTS)}")
    d = np.abs(np.subtract.outer(np.arange(k), np.arange(k))).astype(float)
    return d if weights == "linear" else d * d


def weighted_kappa_m(m: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Weighted κ of confusion matrices ``m`` (…, K, K) with weights ``w`` (K, K)."""
    n = m.sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = (
            m.sum(axis=-1)[..., :, None]
            * m.sum(axis=-2)[..., None, :]
            / np.where(n > 0, n, 1)[..., None, None]
        )
        observed_d = (w * m).sum(axis=(-2, -1))
        expected_d = (w * expected).sum(axis=(-2, -1))
        ok = (n > 0) & (expected_d > 0) & ~np.isclose(expected_d, 0.0)
        return np.where(ok, 1 - observed_d / np.where(ok, expected_d, 1), np.nan)


def alpha_ordinal_o(o: np.ndarray) -> np.ndarray:
    """Ordinal α of coincidence matrices ``o`` (…, K, K), levels in order."""
    nc = o.sum(axis=-1)
    n = nc.sum(axis=-1)
    k = nc.shape[-1]
    idx = np.arange(k)
    lo, hi = np.minimum.outer(idx, idx), np.maximum.outer(idx, idx)
    csum = np.cumsum(nc, axis=-1)
    between = csum[..., hi] - csum[..., lo] + nc[..., lo]  # Σ_{g=lo}^{hi} n_g
    delta2 = (between - (nc[..., :, None] + nc[..., None, :]) / 2) ** 2
    observed = (o * delta2).sum(axis=(-2, -1))
    expected = (nc[..., :, None] * nc[..., None, :] * delta2).sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        ok = (expected > 0) & (n > 1)
        return np.where(ok, 1 - (n - 1) * observed / np.where(ok, expected, 1), np.nan)


def _levels(levels: Sequence[Any]) -> list[Any]:
    out = list(levels)
    if len(out) < 2 or len(set(out)) != len(out):
        raise ConfigError(
            f"ordinal statistics need two or more distinct levels in order, got {out}"
        )
    return out


def weighted_kappa(
    a: Sequence[Any], b: Sequence[Any], levels: Sequence[Any], *, weights: Weights = "quadratic"
) -> float | None:
    """Weighted Cohen's κ of two label sequences over ordered ``levels`` (lowest first).

    None when the expected weighted disagreement is 0 (e.g. both raters used one level).
    """
    lv = _levels(levels)
    m, _ = confusion(a, b, lv)
    return num(weighted_kappa_m(m, weight_matrix(len(lv), weights)))


def krippendorff_alpha_ordinal(
    units: Sequence[Sequence[Any]], levels: Sequence[Any]
) -> float | None:
    """Krippendorff's α with the ordinal metric: one row per unit, one value per coder (None = missing)."""
    lv = _levels(levels)
    return num(alpha_ordinal_o(coincidence(units, lv).sum(axis=0)))
