"""Confusion matrices of two label sequences, and accuracy and F1 as functions of them.

With the confusion matrix ``M`` (rows: set A, the reference; columns: set B)
of ``n`` pairs and classes ``c``:

* accuracy ``= Σ_c M_cc / n``;
* per-class ``F1_c = 2·M_cc / (row_c + col_c)`` (A as reference: precision
  over B's labels, recall over A's); classes in neither set are left out;
* macro F1 = the unweighted mean of ``F1_c`` over the classes in A or B;
* balanced accuracy ``= mean_c M_cc / row_c`` over the classes of A (the reference) that occur:
  the mean recall, scikit-learn's ``balanced_accuracy_score(a, b)``; a rater that always says
  one class scores exactly ``1 / K`` (0.5 for two classes) whatever the class shares.

The ``*_m`` functions take matrices with any leading axes (one per bootstrap
resample), so a resample is a re-weighting of per-cluster matrices.

Example:
    >>> a = ["r", "r", "r", "r", "p", "p", "p", "n", "n", "n"]
    >>> b = ["r", "r", "r", "p", "p", "p", "n", "n", "n", "p"]
    >>> accuracy(a, b), round(macro_f1(a, b), 4), round(balanced_accuracy(a, b), 4)
    (0.7, 0.6984, 0.6944)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import ConfigError
from .clusters import ratio

__all__ = [
    "class_order",
    "confusion",
    "float_or_none",
    "acc_m",
    "f1_m",
    "macro_m",
    "accuracy",
    "f1_scores",
    "macro_f1",
    "recall_m",
    "balanced_m",
    "balanced_accuracy",
]


def class_order(*seqs: Sequence[Any]) -> list[Any]:
    """The classes present in the sequences (``None`` = missing), sorted by their string."""
    return sorted({x for s in seqs for x in s if x is not None}, key=str)


def confusion(
    a: Sequence[Any], b: Sequence[Any], classes: Sequence[Any] | None = None
) -> tuple[np.ndarray, list[Any]]:
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


def float_or_none(x: np.ndarray) -> float | None:
    """A float, or None for NaN."""
    v = float(x)
    return None if np.isnan(v) else v


def acc_m(m: np.ndarray) -> np.ndarray:
    """Accuracy of confusion matrices ``(…, K, K)``."""
    return ratio(np.trace(m, axis1=-2, axis2=-1), m.sum(axis=(-2, -1)))


def f1_m(m: np.ndarray) -> np.ndarray:
    """Per-class F1 of confusion matrices ``(…, K, K)``, shape ``(…, K)`` (NaN for absent classes)."""
    tp = np.diagonal(m, axis1=-2, axis2=-1)
    return ratio(2 * tp, m.sum(axis=-1) + m.sum(axis=-2))


def macro_m(m: np.ndarray) -> np.ndarray:
    """Macro F1 of confusion matrices ``(…, K, K)``: the mean F1 over the classes present."""
    f1 = f1_m(m)
    with np.errstate(invalid="ignore"):
        ok = ~np.isnan(f1)
        return np.where(
            ok.any(axis=-1), np.nansum(f1, axis=-1) / np.maximum(ok.sum(axis=-1), 1), np.nan
        )


def accuracy(a: Sequence[Any], b: Sequence[Any]) -> float | None:
    """Share of positions where ``a`` and ``b`` agree (None for empty input)."""
    return float_or_none(acc_m(confusion(a, b)[0]))


def f1_scores(a: Sequence[Any], b: Sequence[Any]) -> dict[Any, float]:
    """Per-class F1 with ``a`` as the reference (``2·TP / (2·TP + FP + FN)``), for the classes in a or b."""
    m, classes = confusion(a, b)
    return {c: float(v) for c, v in zip(classes, f1_m(m))}


def macro_f1(a: Sequence[Any], b: Sequence[Any]) -> float | None:
    """Unweighted mean of the per-class F1 over the classes in ``a`` or ``b``."""
    return float_or_none(macro_m(confusion(a, b)[0]))


def recall_m(m: np.ndarray) -> np.ndarray:
    """Per-class recall of confusion matrices ``(…, K, K)`` (rows: the reference), NaN for absent classes."""
    return ratio(np.diagonal(m, axis1=-2, axis2=-1), m.sum(axis=-1))


def balanced_m(m: np.ndarray) -> np.ndarray:
    """Balanced accuracy of confusion matrices ``(…, K, K)``: the mean recall over the reference classes present."""
    r = recall_m(m)
    with np.errstate(invalid="ignore"):
        ok = ~np.isnan(r)
        return np.where(
            ok.any(axis=-1), np.nansum(r, axis=-1) / np.maximum(ok.sum(axis=-1), 1), np.nan
        )


def balanced_accuracy(a: Sequence[Any], b: Sequence[Any]) -> float | None:
    """The mean per-class recall with ``a`` as the reference (None for empty input)."""
    return float_or_none(balanced_m(confusion(a, b)[0]))
