"""Score a responses table: one tidy row per (model, mode, run, metric), then over runs.

Example:
    >>> import pandas as pd
    >>> from bordir.loaders import load_demo
    >>> ds = load_demo()
    >>> rows = [{"query_id": q.query_id, "territory": q.territory, "query_lang": q.lang,
    ...          "is_control": q.is_control, "mode": "no_ir", "model": "mock/all-a", "run": r,
    ...          "outcome": "answered", "choice": 0} for q in ds.queries for r in (0, 1)]
    >>> scores = score_responses(pd.DataFrame(rows), ds)
    >>> scores.query("run == 0 and metric == 'cst_cs'")[["value", "denominator", "items"]].to_dict("records")
    [{'value': 1.0, 'denominator': 11, 'items': 13}]
    >>> s = summarize_runs(scores)
    >>> s.query("metric == 'cst_cs'")[["n_runs", "mean", "low", "high"]].to_dict("records")
    [{'n_runs': 2, 'mean': 1.0, 'low': 1.0, 'high': 1.0}]
    >>> s["signature"].iloc[0]
    'kb_cs|mode:no_ir|gen:mock/all-a|runs:2|ci:t95|policy:strict|version:0.1.0'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ...signature import Signature
from ..intervals.runs import CIVariant, t_interval
from ..registry import METRIC_REGISTRY, cs_metric_names, cs_metrics, metric_bounds
from ..responses import GROUP_KEYS, Policy
from .aggregate import aggregate_groups
from .tables import grouped_stats

if TYPE_CHECKING:  # pragma: no cover
    from ...dataset import BorderLines

__all__ = ["SCORE_COLUMNS", "score_responses", "summarize_runs"]

SCORE_COLUMNS: tuple[str, ...] = (
    *GROUP_KEYS, "metric", "value", "numerator", "denominator", "items", "skipped", "n_queries", "policy", "note",
)  # fmt: skip


def score_responses(
    responses: pd.DataFrame, dataset: BorderLines, *, policy: Policy = "strict"
) -> pd.DataFrame:
    """Every CS metric for every (model, mode, run), with the counts behind it.

    One vectorised pass computes the per-territory statistics of every group
    (:func:`~bordir.metrics.cs.tables.grouped_stats`); each group's scores are
    :func:`~bordir.metrics.cs.aggregate.aggregate_groups` of the long table.

    Returns:
        A tidy table with :data:`SCORE_COLUMNS`; ``value`` is NaN where a metric
        is undefined (``note`` says why).
    """
    grouped = grouped_stats(responses, dataset, policy=policy, items=False)
    n_queries: np.ndarray = (
        np.add.reduceat(grouped.table["n_queries"], grouped.starts[:-1])
        if grouped.keys
        else np.zeros(0, dtype=np.int64)
    )
    groups = aggregate_groups(grouped.table, grouped.starts, cs_metrics())
    # the table column by column (one list per column, not a dict per row)
    cols: dict[str, list[object]] = {c: [] for c in SCORE_COLUMNS}
    key_cols = [cols[f] for f in GROUP_KEYS]
    metric, value, numerator = cols["metric"], cols["value"], cols["numerator"]
    denominator, items, skipped = cols["denominator"], cols["items"], cols["skipped"]
    n_q_col, note = cols["n_queries"], cols["note"]
    nan = float("nan")
    for key, n_q, scores in zip(grouped.keys, n_queries.tolist(), groups):
        k = len(scores)
        for c, v in zip(key_cols, key):
            c.extend([v] * k)
        n_q_col.extend([n_q] * k)
        for m, sc in scores.items():
            metric.append(m)
            value.append(nan if sc.value is None else sc.value)
            numerator.append(sc.numerator)
            denominator.append(sc.denominator)
            items.append(sc.items)
            skipped.append(sc.skipped)
            note.append(sc.note)
    cols["policy"] = [policy] * len(metric)
    df = pd.DataFrame(cols, columns=list(SCORE_COLUMNS))
    for col in ("denominator", "items", "skipped", "n_queries"):
        df[col] = df[col].astype("Int64")
    return df


def _bounds(metric: str) -> tuple[float, float] | None:
    """The registered range of ``metric`` (None for a name the registry does not know)."""
    return metric_bounds(metric) if metric in METRIC_REGISTRY else None


def summarize_runs(scores: pd.DataFrame, *, ci: CIVariant = "t95") -> pd.DataFrame:
    """Mean and t-interval over runs per (model, mode, metric), with a signature each.

    Undefined run values are left out; ``n_runs`` counts the defined ones.
    """
    out = []
    order = {m: i for i, m in enumerate(cs_metric_names())}
    for (model, mode, metric), g in scores.groupby(["model", "mode", "metric"], sort=False):
        iv = t_interval(g["value"].tolist(), variant=ci, bounds=_bounds(metric))
        policy = str(g["policy"].iloc[0])
        sig = Signature.build(metric, mode=mode, gen=model, runs=iv.n, ci=ci, policy=policy)
        out.append(
            {
                "model": model,
                "mode": mode,
                "metric": metric,
                "n_runs": iv.n,
                "mean": iv.mean,
                "low": iv.low,
                "high": iv.high,
                "sd": iv.sd,
                "signature": str(sig),
            }
        )
    df = pd.DataFrame(
        out, columns=["model", "mode", "metric", "n_runs", "mean", "low", "high", "sd", "signature"]
    )
    return df.sort_values(
        ["model", "mode", "metric"],
        key=lambda s: s.map(order) if s.name == "metric" else s,
        ignore_index=True,
    )
