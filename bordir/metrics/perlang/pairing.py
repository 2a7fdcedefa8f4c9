"""The pairing of a per-language comparison: each side's share per territory, the paired test, the row's columns.

:func:`paired_territories` gives, per (group, territory), each side's share of its defined items
(runs and languages pooled; NaN where a side has none); :func:`territory_test` is the paired
cluster-bootstrap interval of the mean per-territory difference and its sign-flip p-value, from one
random stream; :data:`COMPARE_COLUMNS` names the columns of every comparison row
(:mod:`bordir.metrics.perlang.compare`, and the CS metrics' :func:`bordir.metrics.summary.tidy.compare`).

Example:
    >>> lo, hi, p = territory_test(np.array([0.5, 0.25, 0.5, 0.75] * 3), 200, [1, 2])
    >>> lo < 0.5 < hi, p < 0.01
    (True, True)
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...stats import bootstrap_weights, flip_matrix, percentile_bounds, sign_flip_pvalue

__all__ = ["COMPARE_COLUMNS", "paired_territories", "territory_test"]

COMPARE_COLUMNS: tuple[str, ...] = (
    "factor", "model", "mode", "a", "b", "metric", "by", "group", "languages", "value_a", "value_b", "diff",
    "ci_low", "ci_high", "ci_refused", "p_value", "p_holm", "significant", "status", "n_territories", "n_territories_a",
    "n_territories_b", "n_items_a", "n_items_b", "n_runs_a", "n_runs_b", "power_10", "power_20",
    "power_alpha", "signature",
)  # fmt: skip
"""Columns of every comparison row (:func:`~bordir.metrics.perlang.compare.compare_by`,
:func:`~bordir.metrics.perlang.compare.compare_models_by`): one row per group.

``factor`` is ``mode`` (two modes of ``model``) or ``model`` (two models in
``mode``); ``a`` / ``b`` name the two sides and ``diff`` = b − a (from A to B).
``ci_low`` / ``ci_high``: the paired bootstrap interval, NaN below ``MIN_CLUSTERS`` paired
territories (``ci_refused`` says why); ``status``: one of
:data:`~bordir.metrics.intervals.paired_rule.STATUSES`. The CS-metric comparisons of
:func:`bordir.metrics.summary.tidy.compare` have the same columns (``by`` ``all``, group ``*``).
``power_10`` / ``power_20``: the power the group's test had against a true difference of 10 / 20
points (:data:`~bordir.metrics.perlang.compare.POWER_EFFECTS`), at the level ``power_alpha``.
"""
_CONF = 0.95


def _per_territory(items: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Per (group, territory): numerator, denominator, share; runs and languages pooled."""
    v = items[metric].to_numpy(dtype=float)
    ok = ~np.isnan(v)
    sub = items.loc[ok, ["_group", "territory"]].assign(_v=v[ok])
    g = sub.groupby(["_group", "territory"], sort=True)
    out = g["_v"].agg(num="sum", den="size")
    out["p"] = out["num"] / out["den"]
    return out.reset_index()


def paired_territories(items_a: pd.DataFrame, items_b: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Per (group, territory) shares of both sides, outer-joined (``p_a`` / ``p_b`` NaN where a side has none).

    ``items_*`` are :func:`~bordir.metrics.perlang.items.perlang_items` rows with a ``_group`` column.
    """
    a, b = _per_territory(items_a, metric), _per_territory(items_b, metric)
    return a.merge(b, on=["_group", "territory"], how="outer", suffixes=("_a", "_b"))


def territory_test(
    d: np.ndarray, resamples: int, rng_seed: list[int]
) -> tuple[float | None, float | None, float]:
    """Paired cluster-bootstrap percentile CI of mean(d) and the sign-flip p-value (one random stream)."""
    n = len(d)
    rng = np.random.default_rng(rng_seed)
    w = bootstrap_weights(n, resamples, rng)
    lo, hi, _ = percentile_bounds((w @ d) / n, _CONF)
    return lo, hi, sign_flip_pvalue(d, flip_matrix(resamples, n, rng))
