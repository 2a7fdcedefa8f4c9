"""Krippendorff's α, nominal and ordinal, of coincidence matrices and of coded units (missing values allowed).

Each unit (an item coded by two or more coders) with ``m_u ≥ 2`` values adds
``(n_uc·n_uk − [c=k]·n_uc) / (m_u − 1)`` to the coincidence matrix ``o``; with
``n_c = Σ_k o_ck`` and ``n = Σ_c n_c``:

* nominal: ``α = 1 − (n − 1)·(n − Σ_c o_cc) / (n² − Σ_c n_c²)``;
* ordinal (Krippendorff 2011): the squared distance of levels ``c ≤ k`` is
  ``δ²_ck = (Σ_{g=c}^{k} n_g − (n_c + n_k) / 2)²`` and
  ``α = 1 − (n − 1) · Σ_ck o_ck δ²_ck / Σ_ck n_c n_k δ²_ck``. Krippendorff's
  published example (4 coders, 12 units, missing values) gives 0.815.

The ``*_o`` functions take coincidence matrices with leading (resample) axes.

Example:
    >>> a = ["r", "r", "r", "r", "p", "p", "p", "n", "n", "n"]
    >>> b = ["r", "r", "r", "p", "p", "p", "n", "n", "n", "p"]
    >>> round(krippendorff_alpha([[x, y] for x, y in zip(a, b)]), 4)
    0.5714
    >>> round(krippendorff_alpha_ordinal([[x, y] for x, y in zip(a, b)], ("n", "p", "r")), 4)
    0.7856
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import ConfigError
from .confusion import class_order, float_or_none
from .kappa import ordered_levels

__all__ = [
    "coincidence",
    "alpha_o",
    "alpha_ordinal_o",
    "krippendorff_alpha",
    "krippendorff_alpha_ordinal",
]


def coincidence(units: Sequence[Sequence[Any]], classes: Sequence[Any]) -> np.ndarray:
    """Per-unit coincidence matrices, shape (units, C, C) (zeros for units with fewer than two values)."""
    index = {c: i for i, c in enumerate(classes)}
    counts = np.zeros((len(units), len(classes)))
    for u, values in enumerate(units):
        for v in values:
            if v is not None:
                if v not in index:
                    raise ConfigError(
                        f"label {v!r} is not among the classes {', '.join(map(str, classes))}"
                    )
                counts[u, index[v]] += 1
    m = counts.sum(axis=1)
    outer = counts[:, :, None] * counts[:, None, :]
    outer -= np.einsum("uc,cd->ucd", counts, np.eye(len(classes)))
    scale = np.where(m >= 2, 1.0 / np.maximum(m - 1, 1), 0.0)
    return outer * scale[:, None, None]


def alpha_o(o: np.ndarray) -> np.ndarray:
    """Nominal α of coincidence matrices ``o`` (…, K, K)."""
    nc = o.sum(axis=-1)
    n = nc.sum(axis=-1)
    disagree = n - np.trace(o, axis1=-2, axis2=-1)
    expected = n * n - (nc * nc).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(
            (expected > 0) & (n > 1),
            1 - (n - 1) * disagree / np.where(expected > 0, expected, 1),
            np.nan,
        )


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


def krippendorff_alpha(units: Sequence[Sequence[Any]]) -> float | None:
    """Krippendorff's α for nominal labels: one row per unit, one value per coder (None = missing).

    Units with fewer than two values do not count. None when there is no
    variation at all (every value the same) or fewer than two paired values.
    """
    classes = class_order(*units)
    if not classes:
        return None
    return float_or_none(alpha_o(coincidence(units, classes).sum(axis=0)))


def krippendorff_alpha_ordinal(
    units: Sequence[Sequence[Any]], levels: Sequence[Any]
) -> float | None:
    """Krippendorff's α with the ordinal metric: one row per unit, one value per coder (None = missing)."""
    lv = ordered_levels(levels)
    return float_or_none(alpha_ordinal_o(coincidence(units, lv).sum(axis=0)))
