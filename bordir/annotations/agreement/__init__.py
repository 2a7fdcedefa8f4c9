"""Agreement between label sets: accuracy, per-class and macro F1, Cohen's κ (plain and weighted), Krippendorff's α
(nominal and ordinal), majority vote.

One concept per module:

* :mod:`~bordir.annotations.agreement.statistics` — the nominal statistics of
  confusion and coincidence matrices (accuracy, F1, κ, α);
* :mod:`~bordir.annotations.agreement.ordinal` — weighted κ (linear, quadratic)
  and ordinal α, for the ordered relevance levels;
* :mod:`~bordir.annotations.agreement.pairs` — label sets aligned by pair, dimensions, clusters;
* :mod:`~bordir.annotations.agreement.report` — :class:`AgreementReport` and the bootstrap rows;
* :mod:`~bordir.annotations.agreement.compare` — :func:`compare` and :func:`reliability`;
* :mod:`~bordir.annotations.agreement.majority` — :func:`majority_vote`.

Example:
    >>> a = ["r", "r", "r", "r", "p", "p", "p", "n", "n", "n"]
    >>> b = ["r", "r", "r", "p", "p", "p", "n", "n", "n", "p"]
    >>> accuracy(a, b), round(cohen_kappa(a, b), 4), round(macro_f1(a, b), 4)
    (0.7, 0.5522, 0.6984)
    >>> round(krippendorff_alpha([[x, y] for x, y in zip(a, b)]), 4)
    0.5714
    >>> round(weighted_kappa(a, b, ("n", "p", "r"), weights="linear"), 4)
    0.6591
"""

from __future__ import annotations

from .compare import compare, reliability
from .majority import majority_vote
from .ordinal import ORDINAL_LEVELS, WEIGHTS, krippendorff_alpha_ordinal, weighted_kappa
from .pairs import CLUSTERS, DIMENSIONS
from .report import AgreementReport
from .statistics import accuracy, cohen_kappa, confusion, f1_scores, krippendorff_alpha, macro_f1

__all__ = [
    "DIMENSIONS",
    "CLUSTERS",
    "ORDINAL_LEVELS",
    "WEIGHTS",
    "accuracy",
    "f1_scores",
    "macro_f1",
    "cohen_kappa",
    "weighted_kappa",
    "krippendorff_alpha",
    "krippendorff_alpha_ordinal",
    "confusion",
    "AgreementReport",
    "compare",
    "reliability",
    "majority_vote",
]
