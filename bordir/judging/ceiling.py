"""The human ceiling: how well one annotator agrees with the others, where items have several annotators.

For every item with two or more annotators and every annotator *a* whose label is one of
the task's two labels, *a*'s label is compared with the plurality of the **other**
annotators' labels (a tie among them: that pair is left out). The pairs are pooled over
annotators and scored as the judge is (:func:`~bordir.judging.agreement.agreement`: the
others' plurality as the reference, *a* as the rater), with the same cluster bootstrap over
questions. A judge whose balanced accuracy reaches this ceiling agrees with the humans as
well as one of them does; note that the judge is compared with the plurality of *all*
annotators, one more than each leave-one-out reference, which favours the judge slightly.

Example:
    >>> from bordir.judging.items import JudgeItem
    >>> def it(i, labels):
    ...     return JudgeItem(str(i), "en", "q", ("c",), "t", None,
    ...                      tuple((f"a{k}", l) for k, l in enumerate(labels)), f"q{i}")
    >>> items = [it(0, ["S", "S", "S"]), it(1, ["S", "S", "N"]), it(2, ["N", "N", "N"])]
    >>> r = ceiling(items, labels=("S", "N"), n_resamples=0)
    >>> r["n_items"], r["annotators"], r.get("metrics").get("accuracy").get("value")
    (7, 3, 0.8571428571428571)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..stats import plurality
from .agreement import agreement
from .items import JudgeItem

__all__ = ["ceiling"]


def ceiling(
    items: Sequence[JudgeItem],
    *,
    labels: tuple[str, str],
    n_resamples: int = 2000,
    rng: np.random.Generator | None = None,
    conf: float = 0.95,
) -> dict[str, Any] | None:
    """The leave-one-out agreement of the annotators (None when no item has two annotators).

    Returns:
        :func:`~bordir.judging.agreement.agreement`'s result over the (annotator, item) pairs,
        with ``annotators``: the most annotators an item has.
    """
    ref: list[str] = []
    rater: list[str | None] = []
    clusters: list[str] = []
    most = 0
    for it in items:
        binary = [(a, l) for a, l in it.annotations if l in labels]
        if len(it.annotations) < 2 or len(binary) < 2:
            continue
        most = max(most, len(it.annotations))
        for k, (_, mine) in enumerate(binary):
            others, _ = plurality([l for i, (_, l) in enumerate(binary) if i != k])
            if others is None:
                continue
            ref.append(others)
            rater.append(mine)
            clusters.append(it.cluster)
    if not ref:
        return None
    out = agreement(
        ref, rater, clusters, labels=labels, n_resamples=n_resamples, rng=rng, conf=conf
    )
    out["annotators"] = most
    return out
