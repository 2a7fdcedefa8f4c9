"""Relevance and viewpoint annotations of (query, retrieved document) pairs.

BordIRLines labelled each pair for **relevance** (does the document bear on who
the territory belongs to?) and **viewpoint** (which claimant's position it
supports, if any), first by people on a small set, then by GPT-4o at scale.
This package makes that reusable:

* :mod:`~bordir.annotations.schema` — the labels (``annotations/schema.json``);
* :mod:`~bordir.annotations.io` — load and validate label files, the shipped gold labels;
* :mod:`~bordir.annotations.annotator` — label pairs with any LLM backend;
* :mod:`~bordir.annotations.agreement` — accuracy, F1, Cohen's κ (plain and weighted),
  Krippendorff's α (nominal and ordinal), majority vote, with bootstrap intervals;
* :mod:`~bordir.annotations.use` — the relevance filter, precision@k, viewpoint following.

The guidelines are ``annotations/guidelines.md``; ``docs/annotations.md`` explains it all.

Example:
    >>> gold = load_gold("demo")
    >>> sorted({l.relevance for l in gold})
    ['not_relevant', 'partially_relevant', 'relevant']
"""

from __future__ import annotations

from .agreement import CLUSTERS, DIMENSIONS, AgreementReport, compare, majority_vote, reliability
from .annotator import (
    AnnotationRun,
    ParsedLabel,
    annotate,
    annotation_pairs,
    build_annotation_request,
    parse_label,
)
from .io import GOLD_SETS, gold_path, load_gold, load_labels
from .labelset import LabelSet, write_labels
from .schema import NEUTRAL, NOT_APPLICABLE, OUTCOMES, RELEVANCE, Label, annotations_dir
from .use import (
    RELEVANCE_FILTERS,
    filter_hits,
    precision_at_k,
    viewpoint_following,
    viewpoint_summary,
)

__all__ = [
    "RELEVANCE",
    "NEUTRAL",
    "NOT_APPLICABLE",
    "OUTCOMES",
    "Label",
    "annotations_dir",
    "LabelSet",
    "load_labels",
    "write_labels",
    "gold_path",
    "load_gold",
    "GOLD_SETS",
    "ParsedLabel",
    "AnnotationRun",
    "annotation_pairs",
    "build_annotation_request",
    "parse_label",
    "annotate",
    "DIMENSIONS",
    "CLUSTERS",
    "AgreementReport",
    "compare",
    "reliability",
    "majority_vote",
    "RELEVANCE_FILTERS",
    "filter_hits",
    "precision_at_k",
    "viewpoint_following",
    "viewpoint_summary",
]
