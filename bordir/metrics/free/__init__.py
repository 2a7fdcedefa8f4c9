"""Metrics on free answers (the open format) and the forced-vs-free gap.

* :mod:`~bordir.metrics.free.items` — forced and free answers paired, outcome rates, how each free
  outcome enters the CS metrics;
* :mod:`~bordir.metrics.free.gap` — the gap per query language and pooled (switch rate, agreement
  with the controller, cluster intervals, Holm over languages, power);
* :mod:`~bordir.metrics.free.summary` — :func:`free_summary`: the ``free`` section of
  ``metrics.json``.
"""

from __future__ import annotations

from .gap import GAP_COLUMNS, language_gap
from .items import ITEM_COLUMNS, free_outcome_rates, pair_items
from .summary import free_summary

__all__ = [
    "GAP_COLUMNS",
    "ITEM_COLUMNS",
    "language_gap",
    "pair_items",
    "free_outcome_rates",
    "free_summary",
]
