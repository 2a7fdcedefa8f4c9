"""Concurrence scores (CS): the public surface of the per-territory statistics and their aggregates.

CS is 1 when two answers name the same country. For one (model, mode, run),
each territory *t* has:

* ``Responses_d``: its claimant-language answers as English country names,
  keyed by query language. The control answer enters as ``en`` only when
  ``en`` is one of the territory's claimant languages (``fix_responses_d``).
* ``Response_en``: the control (English) answer; ``controller`` and its
  language ``controller_code``.

The concepts live in one module each, re-exported here:

* :mod:`~bordir.metrics.cs_territory` — one territory's sufficient statistics
  (:func:`territory_stats`, the row-by-row definition; :data:`TERRITORY_COLUMNS`);
* :mod:`~bordir.metrics.cs_aggregate` — the metrics as pure functions of the
  per-territory table (:data:`METRICS`, :func:`metric_value`, :func:`aggregate`, :class:`Score`);
* :mod:`~bordir.metrics.territory_table` — :class:`TerritoryStats` of one (model, mode, run);
* :mod:`~bordir.metrics.cs_tables` — :func:`territory_tables`: every (model, mode,
  run) of a responses table at once, with the vectorised engine
  (:mod:`~bordir.metrics.columnar`).

Example:
    >>> row, items = territory_stats("X", "A", "a", {"a": "A", "b": "B", "c": "A"}, "A")
    >>> row["kb_num"], row["control_num"], row["nc_agree"], row["nc_n"], row["cst_agree"], row["cst_pairs"]
    (1.0, 1.0, 1, 2, 1, 3)
    >>> table = pd.DataFrame([row])
    >>> s = aggregate(table)
    >>> s["non_control_cs"].value, s["delta_cs"].value, round(s["cst_cs"].value, 4)
    (0.5, 1.0, 0.3333)
    >>> s["kb_cs"].frac
    '1/1'
"""

from __future__ import annotations

import pandas as pd  # noqa: F401  (the examples use it)

from .cs_aggregate import (
    DERIVED_METRICS,
    METRIC_BOUNDS,
    METRICS,
    RATIO_METRICS,
    Score,
    aggregate,
    aggregate_columns,
    metric_value,
)
from .cs_tables import territory_tables
from .cs_territory import (
    ITEM_COLUMNS,
    TERRITORY_COLUMNS,
    fix_responses_d,
    is_missing,
    territory_stats,
)
from .responses import TableKey
from .territory_table import TerritoryStats, build_stats

__all__ = [
    "RATIO_METRICS",
    "DERIVED_METRICS",
    "METRICS",
    "METRIC_BOUNDS",
    "TERRITORY_COLUMNS",
    "ITEM_COLUMNS",
    "Score",
    "TerritoryStats",
    "TableKey",
    "is_missing",
    "fix_responses_d",
    "territory_stats",
    "build_stats",
    "territory_tables",
    "metric_value",
    "aggregate",
    "aggregate_columns",
]
