"""Per-territory tables of several runs, aligned by territory: the input of every interval over territories.

A bootstrap or a small-sample interval over territories takes one per-territory
table (:class:`~bordir.metrics.cs.table.TerritoryStats` or a DataFrame)
or one per run; :func:`aligned_columns` puts each table's columns on the same territory
axis (0 where a run lacks a territory), :func:`mean_over_runs` averages a
statistic over runs, :func:`contributing_territories` counts the clusters a
metric rests on and :func:`pool_runs` averages the runs per territory.

Example:
    >>> a = pd.DataFrame({"territory": ["x", "y"], "kb_num": [1.0, 0.0], "kb_den": [1.0, 1.0]})
    >>> b = pd.DataFrame({"territory": ["y"], "kb_num": [1.0], "kb_den": [1.0]})
    >>> contributing_territories([a, b], "kb_cs"), pool_runs([a, b])["kb_num"].tolist()
    (2, [0.5, 0.5])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import chain
from typing import TypeAlias

import numpy as np
import pandas as pd

from ...errors import ConfigError
from ..cs.aggregate import DERIVED_METRICS, RATIO_METRICS
from ..cs.table import TerritoryStats

__all__ = [
    "TableLike",
    "MetricLike",
    "as_table",
    "as_tables",
    "metric_columns",
    "aligned_columns",
    "territory_axis",
    "mean_over_runs",
    "contributing_territories",
    "pool_runs",
]

TableLike: TypeAlias = "pd.DataFrame | TerritoryStats"
"""A per-territory table: a DataFrame with the columns the metric reads, or :class:`TerritoryStats`."""
MetricLike: TypeAlias = "str | Callable[[pd.DataFrame], float]"
"""A metric name (:data:`~bordir.metrics.cs.aggregate.METRICS`) or a function of a per-territory table."""


def as_table(t: TableLike) -> pd.DataFrame:
    """The DataFrame of a per-territory table."""
    return t.table if isinstance(t, TerritoryStats) else t


def as_tables(tables: TableLike | Sequence[TableLike]) -> list[pd.DataFrame]:
    """One table, or one per run, as a list of DataFrames (ConfigError for none)."""
    if isinstance(tables, (pd.DataFrame, TerritoryStats)):
        return [as_table(tables)]
    out = [as_table(t) for t in tables]
    if not out:
        raise ConfigError("no tables to score")
    return out


def metric_columns(metric: str) -> tuple[str, ...]:
    """The per-territory columns a metric reads (ConfigError for an unknown metric)."""
    if metric in RATIO_METRICS:
        return RATIO_METRICS[metric]
    if metric in DERIVED_METRICS:
        return (*RATIO_METRICS["control_cs"], *RATIO_METRICS["non_control_cs"])
    raise ConfigError(
        f"unknown metric {metric!r}; known: {', '.join([*RATIO_METRICS, *DERIVED_METRICS])}"
    )


def aligned_columns(
    tables: list[pd.DataFrame], cols: Sequence[str], territories: Sequence[str]
) -> list[dict[str, np.ndarray]]:
    """Each table's ``cols`` as arrays over ``territories`` (0 where a territory is absent)."""
    out = []
    wanted = list(territories)
    for t in tables:
        if "territory" in t.columns and t["territory"].tolist() != wanted:
            if t["territory"].duplicated().any():
                raise ConfigError(
                    "a per-territory table has a territory twice; pass one table per run"
                )
            t = t.set_index("territory").reindex(wanted)
        out.append({c: np.nan_to_num(t[c].to_numpy(dtype=float), nan=0.0) for c in cols})
    return out


def territory_axis(tables: list[pd.DataFrame]) -> list[str]:
    """The territories of all tables, in order of appearance (positions when tables have no territory column)."""
    if all("territory" in t.columns for t in tables):
        return list(dict.fromkeys(chain.from_iterable(t["territory"].tolist() for t in tables)))
    n = {len(t) for t in tables}
    if len(n) != 1:
        raise ConfigError("tables without a 'territory' column must have the same length")
    return [str(i) for i in range(n.pop())]


def mean_over_runs(values: list[np.ndarray]) -> np.ndarray:
    """The mean over runs (the first axis of the stacked values), NaN runs left out; NaN where all are."""
    stack = np.stack([np.asarray(v, dtype=float) for v in values])
    with np.errstate(invalid="ignore"):
        ok = ~np.isnan(stack)
        return np.where(
            ok.any(axis=0), np.nansum(stack, axis=0) / np.maximum(ok.sum(axis=0), 1), np.nan
        )


def contributing_territories(tables: TableLike | Sequence[TableLike], metric: str) -> int:
    """Territories with a nonzero denominator of ``metric`` in at least one run (ΔCS: the fewer of C and N)."""
    dfs = as_tables(tables)
    terrs = territory_axis(dfs)
    names = [metric] if metric in RATIO_METRICS else ["control_cs", "non_control_cs"]
    counts = []
    for name in names:
        den = RATIO_METRICS[name][1]
        arrays = aligned_columns(dfs, (den,), terrs)
        counts.append(int((np.sum([a[den] for a in arrays], axis=0) > 0).sum()))
    return min(counts)


def pool_runs(tables: Sequence[TableLike]) -> pd.DataFrame:
    """One per-territory table from several runs: numeric columns averaged per territory.

    Useful before :func:`paired_comparison` when each side has several runs.
    Ratio metrics on the pooled table weight runs by their denominators.
    """
    dfs = as_tables(tables)
    terrs = territory_axis(dfs)
    num_cols = [
        c for c in dfs[0].columns if c != "territory" and pd.api.types.is_numeric_dtype(dfs[0][c])
    ]
    arrays = aligned_columns(dfs, num_cols, terrs)
    pooled = {c: np.mean([a[c] for a in arrays], axis=0) for c in num_cols}
    return pd.DataFrame({"territory": terrs, **pooled})
