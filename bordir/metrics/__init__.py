"""BorderLines / BordIRLines concurrence scores, their breakdowns and their uncertainty.

* :mod:`~bordir.metrics.responses` — the per-item input (``responses`` table) and scoring policies;
* :mod:`~bordir.metrics.cs` — per-territory sufficient statistics and the CS aggregates;
* :mod:`~bordir.metrics.breakdown` — CS per query language, outcome rates;
* :mod:`~bordir.metrics.scoring` — tidy scores per (model, mode, run) and over runs;
* :mod:`~bordir.metrics.uncertainty` — t-intervals, cluster bootstrap, paired tests, Holm;
* :mod:`~bordir.metrics.legacy` — BorderLines ``response_table.csv`` files (``calculate_CS.py``);
* :mod:`~bordir.metrics.perlang` (measures in :mod:`~bordir.metrics.perlang_measures`) — per-language
  measures; :mod:`~bordir.metrics.perlang_compare` — mode / model comparisons per language;
* :mod:`~bordir.metrics.signature` — what produced a score.

``statsmodels`` and ``scipy`` (the ``stats`` extra) are imported only when a
t-interval or the Holm correction is computed.

Example:
    >>> from bordir.metrics import METRICS
    >>> METRICS[:3]
    ('kb_cs', 'control_cs', 'non_control_cs')
"""

from __future__ import annotations

from .breakdown import language_breakdown, outcome_rates
from .cs import (
    METRICS,
    Score,
    TerritoryStats,
    aggregate,
    fix_responses_d,
    metric_value,
    territory_stats,
    territory_tables,
)
from .legacy import read_response_table, score_legacy_tables
from .perlang import language_measures, perlang_items
from .perlang_compare import compare_by, compare_models_by
from .perlang_measures import PERLANG_MEASURES, get_measure
from .responses import OUTCOMES, POLICIES, RESPONSE_COLUMNS, TableKey, validate_responses
from .scoring import score_responses, summarize_runs
from .signature import Signature
from .uncertainty import (
    BootstrapResult,
    Interval,
    PairedComparison,
    cluster_bootstrap,
    holm,
    holm_adjust,
    paired_comparison,
    pool_runs,
    resolve_seed,
    sign_flip_test,
    t_interval,
)

__all__ = [
    "METRICS",
    "OUTCOMES",
    "POLICIES",
    "RESPONSE_COLUMNS",
    "Score",
    "TerritoryStats",
    "TableKey",
    "Signature",
    "Interval",
    "BootstrapResult",
    "PairedComparison",
    "validate_responses",
    "fix_responses_d",
    "territory_stats",
    "territory_tables",
    "metric_value",
    "aggregate",
    "language_breakdown",
    "outcome_rates",
    "score_responses",
    "summarize_runs",
    "read_response_table",
    "score_legacy_tables",
    "t_interval",
    "cluster_bootstrap",
    "pool_runs",
    "paired_comparison",
    "sign_flip_test",
    "holm",
    "holm_adjust",
    "resolve_seed",
    "PERLANG_MEASURES",
    "get_measure",
    "perlang_items",
    "language_measures",
    "compare_by",
    "compare_models_by",
]
