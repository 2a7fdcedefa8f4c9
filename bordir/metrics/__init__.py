"""BorderLines / BordIRLines concurrence scores, their breakdowns and their uncertainty, one concept per subpackage.

* :mod:`~bordir.metrics.responses` — the per-item input (``responses`` table) and scoring policies;
* :mod:`~bordir.metrics.cs` — concurrence scores: per-territory sufficient statistics, the CS
  aggregates, tidy scores, breakdowns, Response Countries;
* :mod:`~bordir.metrics.intervals` — which variance each interval covers: t-intervals over runs, the
  cluster bootstrap, small-sample intervals over territories, paired comparisons, the variance decomposition
  (on the shared statistics of :mod:`bordir.stats`);
* :mod:`~bordir.metrics.perlang` — per-language measures, their comparisons and their power;
* :mod:`~bordir.metrics.order` — option-order metrics: position bias, pick rates, CS under order rules;
* :mod:`~bordir.metrics.legacy` — BorderLines ``response_table.csv`` files (``calculate_CS.py``);
* :mod:`~bordir.metrics.answer_lang` — right answer in the right language;
* :mod:`~bordir.metrics.summary` — the numbers of a run (``metrics.json``, ``Run.summary()``);
* :mod:`~bordir.metrics.registry` — every metric's name, labels and bounds.

``statsmodels`` and ``scipy`` (the ``stats`` extra) are imported only when a
t-interval or an exact test is computed.

Example:
    >>> from bordir.metrics import METRICS
    >>> METRICS[:3]
    ('kb_cs', 'control_cs', 'non_control_cs')
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..signature import Signature as Signature
    from .cs.aggregate import METRICS as METRICS
    from .cs.aggregate import aggregate as aggregate
    from .cs.aggregate import metric_value as metric_value
    from .cs.breakdown import language_breakdown as language_breakdown
    from .cs.breakdown import outcome_rates as outcome_rates
    from .cs.metric import Score as Score
    from .cs.scoring import score_responses as score_responses
    from .cs.scoring import summarize_runs as summarize_runs
    from .cs.table import TerritoryStats as TerritoryStats
    from .cs.tables import territory_tables as territory_tables
    from .cs.territory import fix_responses_d as fix_responses_d
    from .cs.territory import territory_stats as territory_stats
    from .intervals.aligned import pool_runs as pool_runs
    from .intervals.bootstrap import BootstrapResult as BootstrapResult
    from .intervals.bootstrap import cluster_bootstrap as cluster_bootstrap
    from .intervals.paired import PairedComparison as PairedComparison
    from .intervals.paired import paired_comparison as paired_comparison
    from .intervals.runs import Interval as Interval
    from .intervals.runs import t_interval as t_interval
    from .legacy.response_table import read_response_table as read_response_table
    from .legacy.response_table import score_legacy_tables as score_legacy_tables
    from .perlang.compare import compare_by as compare_by
    from .perlang.compare import compare_models_by as compare_models_by
    from .perlang.items import language_measures as language_measures
    from .perlang.items import perlang_items as perlang_items
    from .perlang.measures import PERLANG_MEASURES as PERLANG_MEASURES
    from .perlang.measures import get_measure as get_measure
    from .read import read_responses as read_responses
    from .responses import OUTCOMES as OUTCOMES
    from .responses import POLICIES as POLICIES
    from .responses import SCORING_COLUMNS as SCORING_COLUMNS
    from .responses import TableKey as TableKey
    from .responses import validate_responses as validate_responses

# name -> the module that defines it: imported on first use, so that a part of the package
# (the legacy-table scorer of `bordir score borderlines-table`) does not load all of it (pandas …)
_LAZY = {
    "Signature": "..signature",
    **dict.fromkeys(["METRICS", "aggregate", "metric_value"], ".cs.aggregate"),
    **dict.fromkeys(["language_breakdown", "outcome_rates"], ".cs.breakdown"),
    "Score": ".cs.metric",
    **dict.fromkeys(["score_responses", "summarize_runs"], ".cs.scoring"),
    "TerritoryStats": ".cs.table",
    "territory_tables": ".cs.tables",
    **dict.fromkeys(["fix_responses_d", "territory_stats"], ".cs.territory"),
    "pool_runs": ".intervals.aligned",
    **dict.fromkeys(["BootstrapResult", "cluster_bootstrap"], ".intervals.bootstrap"),
    **dict.fromkeys(["PairedComparison", "paired_comparison"], ".intervals.paired"),
    **dict.fromkeys(["Interval", "t_interval"], ".intervals.runs"),
    **dict.fromkeys(["read_response_table", "score_legacy_tables"], ".legacy.response_table"),
    **dict.fromkeys(["compare_by", "compare_models_by"], ".perlang.compare"),
    **dict.fromkeys(["language_measures", "perlang_items"], ".perlang.items"),
    **dict.fromkeys(["PERLANG_MEASURES", "get_measure"], ".perlang.measures"),
    **dict.fromkeys(
        [
            "OUTCOMES",
            "POLICIES",
            "SCORING_COLUMNS",
            "TableKey",
            "validate_responses",
        ],
        ".responses",
    ),
    "read_responses": ".read",
}


__all__ = list(_LAZY)
"""Every name of the package: the keys of ``_LAZY``, each imported on first use."""


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
