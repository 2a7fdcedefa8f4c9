"""Agreement between label sets: per dimension and query language, with cluster-bootstrap intervals; majority vote.

The statistics themselves (accuracy, F1, Cohen's κ plain and weighted, Krippendorff's α nominal and ordinal) are
:mod:`bordir.stats` functions of confusion and coincidence matrices; this package applies them to label sets:

* :mod:`~bordir.annotations.agreement.pairs` — label sets aligned by pair, dimensions, clusters, ordered levels;
* :mod:`~bordir.annotations.agreement.report` — :class:`AgreementReport` and the bootstrap rows;
* :mod:`~bordir.annotations.agreement.compare` — :func:`compare` and :func:`reliability`;
* :mod:`~bordir.annotations.agreement.majority` — :func:`majority_vote`.

Example:
    >>> from bordir.annotations.schema import Label
    >>> from bordir.annotations.labelset import LabelSet
    >>> a = LabelSet([Label("Crimea_en", "en", f"d{i}", "relevant", "neutral", "a") for i in range(3)], name="a")
    >>> compare(a, a, dimensions="relevance", n_resamples=0).value("relevance", "accuracy")
    1.0
"""

from __future__ import annotations

from .compare import compare, reliability
from .majority import majority_vote
from .pairs import CLUSTERS, DIMENSIONS, ORDINAL_LEVELS
from .report import AgreementReport

__all__ = [
    "DIMENSIONS",
    "CLUSTERS",
    "ORDINAL_LEVELS",
    "AgreementReport",
    "compare",
    "reliability",
    "majority_vote",
]
