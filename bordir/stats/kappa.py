"""Cohen's κ, plain and weighted (linear, quadratic), of confusion matrices and of two label sequences.

* Cohen's ``κ = (p_o − p_e) / (1 − p_e)`` with ``p_o`` the accuracy and
  ``p_e = Σ_c (row_c / n)(col_c / n)``; undefined when ``p_e = 1``.
* **Weighted κ** (Cohen 1968), with the confusion matrix ``M`` over ordered
  levels ``0 … K−1`` (all levels, present or not), ``n`` pairs, the expected
  matrix ``E_ij = row_i · col_j / n`` and disagreement weights ``w_ij = |i − j|``
  (``linear``) or ``(i − j)²`` (``quadratic``): ``κ_w = 1 − Σ w_ij M_ij / Σ w_ij E_ij``;
  undefined when ``Σ w_ij E_ij = 0``. This is scikit-learn's
  ``cohen_kappa_score(a, b, weights=…, labels=levels)``.

The ``*_m`` functions take matrices with leading (resample) axes.

Example:
    >>> a = ["r", "r", "r", "r", "p", "p", "p", "n", "n", "n"]
    >>> b = ["r", "r", "r", "p", "p", "p", "n", "n", "n", "p"]
    >>> round(cohen_kappa(a, b), 4)
    0.5522
    >>> round(weighted_kappa(a, b, ("n", "p", "r"), weights="linear"), 4), round(weighted_kappa(a, b, ("n", "p", "r")), 4)
    (0.6591, 0.7692)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from ..errors import ConfigError
from .clusters import ratio
from .confusion import acc_m, confusion, float_or_none

__all__ = [
    "WEIGHTS",
    "Weights",
    "kappa_m",
    "weight_matrix",
    "weighted_kappa_m",
    "cohen_kappa",
    "weighted_kappa",
    "ordered_levels",
]

WEIGHTS: tuple[str, ...] = ("linear", "quadratic")
Weights = Literal["linear", "quadratic"]


def kappa_m(m: np.ndarray) -> np.ndarray:
    """Cohen's κ of confusion matrices ``(…, K, K)`` (NaN when chance agreement is 1)."""
    n = m.sum(axis=(-2, -1))
    po = acc_m(m)
    pe = ratio((m.sum(axis=-1) * m.sum(axis=-2)).sum(axis=-1), n * n)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(np.isclose(pe, 1.0) | np.isnan(pe), np.nan, (po - pe) / (1 - pe))


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


def ordered_levels(levels: Sequence[Any]) -> list[Any]:
    """``levels`` as a list, checked: two or more distinct levels, lowest first."""
    out = list(levels)
    if len(out) < 2 or len(set(out)) != len(out):
        raise ConfigError(
            f"ordinal statistics need two or more distinct levels in order, got {out}"
        )
    return out


def cohen_kappa(a: Sequence[Any], b: Sequence[Any]) -> float | None:
    """Cohen's κ; None when chance agreement is 1 (both raters used one and the same class)."""
    return float_or_none(kappa_m(confusion(a, b)[0]))


def weighted_kappa(
    a: Sequence[Any], b: Sequence[Any], levels: Sequence[Any], *, weights: Weights = "quadratic"
) -> float | None:
    """Weighted Cohen's κ of two label sequences over ordered ``levels`` (lowest first).

    None when the expected weighted disagreement is 0 (e.g. both raters used one level).
    """
    lv = ordered_levels(levels)
    m, _ = confusion(a, b, lv)
    return float_or_none(weighted_kappa_m(m, weight_matrix(len(lv), weights)))
