"""Nominal agreement statistics of confusion and coincidence matrices: accuracy, F1, Cohen's κ, Krippendorff's α.

With the confusion matrix ``M`` (rows: set A, the reference; columns: set B)
of ``n`` pairs and classes ``c``:

* accuracy ``= Σ_c M_cc / n``;
* per-class ``F1_c = 2·M_cc / (row_c + col_c)`` (A as reference: precision
  over B's labels, recall over A's); classes in neither set are left out;
* macro F1 = the unweighted mean of ``F1_c`` over the classes in A or B;
* Cohen's ``κ = (p_o − p_e) / (1 − p_e)`` with ``p_o`` the accuracy and
  ``p_e = Σ_c (row_c / n)(col_c / n)``; undefined when ``p_e = 1``.

For two or more annotators with missing values, Krippendorff's α (nominal):
each pair is a unit; a unit with ``m_u ≥ 2`` values adds ``(n_uc·n_uk − [c=k]·n_uc) / (m_u − 1)``
to the coincidence matrix ``o``; with ``n_c = Σ_k o_ck`` and ``n = Σ_c n_c``,
``α = 1 − (n − 1)·(n − Σ_c o_cc) / (n² − Σ_c n_c²)``.

The ``*_m`` / ``*_o`` functions take matrices with any leading axes (one per
bootstrap resample), so a resample is a re-weighting of per-cluster matrices.

Example:
    >>> a = ["r", "r", "r", "r", "p", "p", "p", "n", "n", "n"]
    >>> b = ["r", "r", "r", "p", "p", "p", "n", "n", "n", "p"]
    >>> accuracy(a, b), round(cohen_kappa(a, b), 4), round(macro_f1(a, b), 4)
    (0.7, 0.5522, 0.6984)
    >>> round(krippendorff_alpha([[x, y] for x, y in zip(a, b)]), 4)
    0.5714
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...errors import ConfigError

__all__ = [
    "accuracy",
    "f1_scores",
    "macro_f1",
    "cohen_kappa",
    "krippendorff_alpha",
    "confusion",
    "coincidence",
    "class_order",
]


def div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` where ``den > 0``, NaN elsewhere (no warnings)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def acc_m(m: np.ndarray) -> np.ndarray:
    return div(np.trace(m, axis1=-2, axis2=-1), m.sum(axis=(-2, -1)))


def f1_m(m: np.ndarray) -> np.ndarray:
    tp = np.diagonal(m, axis1=-2, axis2=-1)
    return div(2 * tp, m.sum(axis=-1) + m.sum(axis=-2))


def macro_m(m: np.ndarray) -> np.ndarray:
    f1 = f1_m(m)
    with np.errstate(invalid="ignore"):
        ok = ~np.isnan(f1)
        return np.where(
            ok.any(axis=-1), np.nansum(f1, axis=-1) / np.maximum(ok.sum(axis=-1), 1), np.nan
        )


def kappa_m(m: np.ndarray) -> np.ndarray:
    n = m.sum(axis=(-2, -1))
    po = acc_m(m)
    pe = div((m.sum(axis=-1) * m.sum(axis=-2)).sum(axis=-1), n * n)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(np.isclose(pe, 1.0) | np.isnan(pe), np.nan, (po - pe) / (1 - pe))


def alpha_o(o: np.ndarray) -> np.ndarray:
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


def class_order(*seqs: Sequence[Any]) -> list[Any]:
    """The classes present in the sequences (``None`` = missing), sorted by their string."""
    return sorted({x for s in seqs for x in s if x is not None}, key=str)


def confusion(
    a: Sequence[Any], b: Sequence[Any], classes: Sequence[Any] | None = None
) -> tuple[np.ndarray, list]:
    """The confusion matrix of two label sequences (rows: ``a``, columns: ``b``) and its class order."""
    if len(a) != len(b):
        raise ConfigError(f"label sequences differ in length: {len(a)} vs {len(b)}")
    classes = list(classes) if classes is not None else class_order(a, b)
    index = {c: i for i, c in enumerate(classes)}
    unknown = [x for x in (*a, *b) if x not in index]
    if unknown:
        raise ConfigError(
            f"label {unknown[0]!r} is not among the classes {', '.join(map(str, classes))}"
        )
    m = np.zeros((len(classes), len(classes)))
    for x, y in zip(a, b):
        m[index[x], index[y]] += 1
    return m, classes


def num(x: np.ndarray) -> float | None:
    """A float, or None for NaN."""
    v = float(x)
    return None if np.isnan(v) else v


def accuracy(a: Sequence[Any], b: Sequence[Any]) -> float | None:
    """Share of positions where ``a`` and ``b`` agree (None for empty input)."""
    return num(acc_m(confusion(a, b)[0]))


def f1_scores(a: Sequence[Any], b: Sequence[Any]) -> dict[Any, float]:
    """Per-class F1 with ``a`` as the reference (``2·TP / (2·TP + FP + FN)``), for the classes in a or b."""
    m, classes = confusion(a, b)
    return {c: float(v) for c, v in zip(classes, f1_m(m))}


def macro_f1(a: Sequence[Any], b: Sequence[Any]) -> float | None:
    """Unweighted mean of the per-class F1 over the classes in ``a`` or ``b``."""
    return num(macro_m(confusion(a, b)[0]))


def cohen_kappa(a: Sequence[Any], b: Sequence[Any]) -> float | None:
    """Cohen's κ; None when chance agreement is 1 (both raters used one and the same class)."""
    return num(kappa_m(confusion(a, b)[0]))


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


def krippendorff_alpha(units: Sequence[Sequence[Any]]) -> float | None:
    """Krippendorff's α for nominal labels: one row per unit, one value per coder (None = missing).

    Units with fewer than two values do not count. None when there is no
    variation at all (every value the same) or fewer than two paired values.
    """
    classes = class_order(*units)
    if not classes:
        return None
    return num(alpha_o(coincidence(units, classes).sum(axis=0)))
