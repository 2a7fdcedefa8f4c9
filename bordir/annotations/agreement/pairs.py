"""Label sets aligned by (query, document) pair: one row per pair, the value of each set on a dimension, clusters.

Example:
    >>> from bordir.annotations.schema import Label
    >>> from bordir.annotations.labelset import LabelSet
    >>> a = LabelSet([Label("Crimea_en", "en", "d1", "relevant", "Ukraine", "x")], name="x")
    >>> b = LabelSet([Label("Crimea_en", "en", "d1", "not_relevant", "not_applicable", "y")], name="y")
    >>> f = aligned([a, b])
    >>> [label_value(l, "relevance_binary") for l in f["labels"].iloc[0]]
    ['relevant', 'not_relevant']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np
import pandas as pd

from ...errors import ConfigError
from ..labelset import LabelSet, query_info
from ..schema import RELEVANT_LEVELS, Label

__all__ = [
    "DIMENSIONS",
    "CLUSTERS",
    "ORDINAL_LEVELS",
    "DEFAULT_DIMENSIONS",
    "label_value",
    "check_dimensions",
    "aligned",
    "cluster_ids",
    "group_frames",
]

DIMENSIONS: tuple[str, ...] = (
    "relevance",
    "relevance_binary",
    "viewpoint",
    "viewpoint_on_relevant",
)
CLUSTERS: tuple[str, ...] = ("territory", "query", "pair")
ORDINAL_LEVELS: dict[str, tuple[str, ...]] = {
    "relevance": ("not_relevant", "partially_relevant", "relevant"),
    "relevance_binary": ("not_relevant", "relevant"),
}
"""The label dimensions whose values are ordered, lowest first (viewpoints are not ordered): they also get the
weighted κ and the ordinal α (:mod:`bordir.stats.kappa`, :mod:`bordir.stats.alpha`)."""
DEFAULT_DIMENSIONS = ("relevance", "viewpoint")


def label_value(label: Label, dimension: str) -> str | None:
    """The value of ``label`` on a dimension (None when the label has no value there)."""
    if label.outcome != "labelled":
        return None
    if dimension == "relevance":
        return label.relevance
    if dimension == "relevance_binary":
        return "relevant" if label.relevance in RELEVANT_LEVELS else "not_relevant"
    if dimension == "viewpoint":
        return label.viewpoint
    if dimension == "viewpoint_on_relevant":
        return label.viewpoint if label.relevance in RELEVANT_LEVELS else None
    raise ConfigError(f"unknown label dimension {dimension!r}; known: {', '.join(DIMENSIONS)}")


def check_dimensions(dimensions: Sequence[str] | str) -> tuple[str, ...]:
    """Dimension names from a list or a comma-separated string; ConfigError for unknown ones."""
    dims = (
        tuple(d.strip() for d in dimensions.split(","))
        if isinstance(dimensions, str)
        else tuple(dimensions)
    )
    bad = [d for d in dims if d not in DIMENSIONS]
    if bad or not dims:
        raise ConfigError(
            f"unknown label dimension(s) {', '.join(bad) or '(none given)'}; known: {', '.join(DIMENSIONS)}"
        )
    return dims


def aligned(sets: Sequence[LabelSet]) -> pd.DataFrame:
    """One row per pair labelled (in any outcome) by any set: pair keys, territory, query_lang, one Label per set."""
    pairs: dict[tuple[str, str, str], list[Label | None]] = {}
    for i, s in enumerate(sets):
        s.single()
        for l in s:
            pairs.setdefault(l.pair, [None] * len(sets))[i] = l
    dataset = next((s.dataset for s in sets if s.dataset is not None), None)
    rows = []
    for (qid, lang, doc), labels in pairs.items():
        territory, qlang = query_info(qid, dataset)
        rows.append(
            {
                "query_id": qid,
                "doc_lang": lang,
                "doc_id": doc,
                "territory": territory,
                "query_lang": qlang,
                "labels": labels,
            }
        )
    return pd.DataFrame(
        rows, columns=["query_id", "doc_lang", "doc_id", "territory", "query_lang", "labels"]
    )


def cluster_ids(frame: pd.DataFrame, cluster: str) -> np.ndarray:
    """0-based cluster number of every row: its territory, its query, or itself (``pair``)."""
    if cluster == "territory":
        keys = frame["territory"]
    elif cluster == "query":
        keys = frame["query_id"]
    elif cluster == "pair":
        return np.arange(len(frame))
    else:
        raise ConfigError(f"unknown cluster {cluster!r}; use one of {', '.join(CLUSTERS)}")
    return cast("np.ndarray", pd.factorize(keys)[0])


def group_frames(frame: pd.DataFrame, by: str | None) -> list[tuple[str, pd.DataFrame]]:
    """``[("all", frame)]`` then one frame per ``query_lang`` or ``doc_lang`` value."""
    out = [("all", frame)]
    if by:
        if by not in ("query_lang", "doc_lang"):
            raise ConfigError(f"by must be 'query_lang', 'doc_lang' or None, not {by!r}")
        for g, sub in frame.groupby(by, sort=True):
            out.append((str(g), sub))
    return out
