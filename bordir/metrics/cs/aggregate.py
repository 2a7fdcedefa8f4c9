"""The built-in CS metrics (:data:`CS_METRICS`) and the engine that scores any of them from a per-territory table.

Each metric is a :class:`~bordir.metrics.cs.metric.CSMetric` (its computation,
labels and bounds); the metric registry registers the built-ins, and
:func:`aggregate` / :func:`aggregate_groups` score any sequence of them
(a plugin's too) from the same column sums.

Every aggregate is a ratio of column sums of the per-territory table
(:data:`~bordir.metrics.cs.territory.TERRITORY_COLUMNS`), optionally weighted, so a
bootstrap resample is just a weight vector over territories:

* KB CS = Σ kb / #territories with a known controller (and, under the strict
  policy, an answered control query);
* Control CS = Σ control / #territories with a controller-language answer;
* Non-control CS = mean over territories of the per-territory mean agreement
  of the other claimant-language answers with the controller (macro);
* ΔCS = (Control − Non-control) / Non-control, undefined (``None``) when
  Non-control CS is 0; ΔCS unnormalised = Control − Non-control;
* Cst CS = mean over territories with ≥ 1 pair of the share of agreeing
  answer pairs; Cst CS unk: the same over Unknown-controller territories.

Example:
    >>> import pandas as pd
    >>> t = pd.DataFrame({"kb_num": [1.0, 0.0], "kb_den": [1.0, 1.0]})
    >>> float(metric_value(t, "kb_cs"))
    0.5
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ...errors import ConfigError
from ...stats.clusters import ratio
from .metric import CSMetric, Score, Sums

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "RATIO_METRICS",
    "DERIVED_METRICS",
    "CS_METRICS",
    "METRICS",
    "METRIC_BOUNDS",
    "metric_value",
    "aggregate",
    "aggregate_columns",
    "aggregate_groups",
]

RATIO_METRICS: Mapping[str, tuple[str, str]] = {
    "kb_cs": ("kb_num", "kb_den"),
    "control_cs": ("control_num", "control_den"),
    "non_control_cs": ("nc_num", "nc_den"),
    "cst_cs": ("cst_num", "cst_den"),
    "cst_cs_unknown": ("cst_unk_num", "cst_unk_den"),
}
"""Metrics that are Σ numerator / Σ denominator over territories (table columns)."""

DERIVED_METRICS: tuple[str, ...] = ("delta_cs_norm", "delta_cs")
"""Metrics computed from Control CS and Non-control CS."""


def _cols(
    table: pd.DataFrame | Mapping[str, np.ndarray], names: Iterable[str]
) -> dict[str, np.ndarray]:
    return {n: np.asarray(table[n], dtype=float) for n in names}


def _ratio(num: np.ndarray, den: np.ndarray, weights: np.ndarray | None) -> np.ndarray | float:
    if weights is None:
        s_num, s_den = num.sum(axis=-1), den.sum(axis=-1)
    else:
        s_num, s_den = (weights * num).sum(axis=-1), (weights * den).sum(axis=-1)
    return ratio(s_num, s_den)


def metric_value(
    table: pd.DataFrame | Mapping[str, np.ndarray],
    metric: str,
    weights: np.ndarray | None = None,
) -> Any:
    """The value of ``metric`` on a per-territory table (NaN when undefined).

    Args:
        table: the per-territory table, or a mapping of its columns to arrays
            of shape ``(T,)`` or ``(B, T)`` (B alternative tables, as in a
            permutation test).
        metric: a name in :data:`METRICS` (a registered metric of another module:
            its :class:`~bordir.metrics.cs.metric.CSMetric` ``value``).
        weights: optional territory weights, shape ``(T,)`` or ``(B, T)``
            (bootstrap resample counts); they broadcast against the columns.

    Returns:
        A float (no batch axis) or an array with one value per resample.

    >>> import pandas as pd
    >>> t = pd.DataFrame({"kb_num": [1.0, 0.0, 0.0], "kb_den": [1.0, 1.0, 0.0]})
    >>> float(metric_value(t, "kb_cs"))
    0.5
    >>> metric_value(t, "kb_cs", weights=np.array([[2, 1, 0], [0, 3, 0]])).tolist()
    [0.6666666666666666, 0.0]
    """
    spec = _BY_NAME.get(metric)
    if spec is None:
        raise ConfigError(f"unknown metric {metric!r}; known: {', '.join(METRICS)}")
    out = np.asarray(spec.value(table, weights), dtype=float)
    return float(out) if out.ndim == 0 else out


def nan_to_none(x: float) -> float | None:
    """``x`` as a float, or None when it is missing or NaN."""
    return None if x is None or math.isnan(x) else float(x)


def _ratio_metric(
    name: str,
    items: str,
    skipped: str,
    description: str,
    label: str,
    text: str,
    paper: str,
) -> CSMetric:
    """Σ numerator / Σ denominator over territories (:data:`RATIO_METRICS`), with its counts."""
    num, den = RATIO_METRICS[name]

    def score(sums: Sums, earlier: Mapping[str, Score]) -> Score:
        s_num, s_den = sums[num], sums[den]
        value = s_num / s_den if s_den > 0 else None
        note = "" if value is not None else "no territory contributes"
        return Score(name, value, s_num, int(s_den), int(sums[items]), int(sums[skipped]), note)

    def value(table: Any, weights: np.ndarray | None) -> Any:
        c = _cols(table, (num, den))
        return _ratio(c[num], c[den], weights)

    return CSMetric(name, (num, den), score, value, description, label, text, paper, (0.0, 1.0))


def _delta_metric(name: str, description: str, label: str, text: str, paper: str) -> CSMetric:
    """Control CS − Non-control CS (``delta_cs``), or that difference over Non-control CS."""
    normalized = name == "delta_cs_norm"

    def score(sums: Sums, earlier: Mapping[str, Score]) -> Score:
        ctl, non = earlier["control_cs"].value, earlier["non_control_cs"].value
        if ctl is None or non is None:
            return Score(name, None, note="Control CS or Non-control CS is undefined")
        if not normalized:
            return Score(name, ctl - non)
        note = "undefined: Non-control CS is 0" if non == 0 else ""
        return Score(name, None if non == 0 else (ctl - non) / non, note=note)

    def value(table: Any, weights: np.ndarray | None) -> Any:
        ctl = metric_value(table, "control_cs", weights)
        non = metric_value(table, "non_control_cs", weights)
        with np.errstate(invalid="ignore", divide="ignore"):
            if not normalized:
                return ctl - non
            return np.where(non != 0, (ctl - non) / np.where(non != 0, non, 1), np.nan)

    columns = (*RATIO_METRICS["control_cs"], *RATIO_METRICS["non_control_cs"])
    bounds = (-1.0, math.inf) if normalized else (-1.0, 1.0)
    return CSMetric(name, columns, score, value, description, label, text, paper, bounds)


CS_METRICS: tuple[CSMetric, ...] = (
    _ratio_metric(
        "kb_cs", "kb_den", "kb_skipped",
        "knowledge-base CS: English control answers that name the controller",
        "KB CS", "KB CS", "KB CS",
    ),
    _ratio_metric(
        "control_cs", "control_den", "control_skipped",
        "answers in the controller's language that name the controller",
        "Control CS", "Control CS", "Control CS",
    ),
    _ratio_metric(
        "non_control_cs", "nc_n", "nc_skipped",
        "answers in the other claimants' languages that name the controller",
        "Non-control CS", "Non-control CS", "Non-control CS",
    ),
    _delta_metric(
        "delta_cs_norm",
        "(Control CS - Non-control CS) / Non-control CS: the relative gap",
        "ΔCS normalized (reference)", "Delta CS norm. (ref.)", "Delta CS",
    ),
    _delta_metric(
        "delta_cs",
        "Control CS - Non-control CS (unnormalised)",
        "ΔCS", "Delta CS", "Delta CS (unnorm.)",
    ),
    _ratio_metric(
        "cst_cs", "cst_pairs", "cst_skipped",
        "consistency: pairs of a territory's answers (across languages) that agree",
        "Cst CS", "Cst CS", "Cst CS all",
    ),
    _ratio_metric(
        "cst_cs_unknown", "cst_pairs_unk", "cst_skipped_unk",
        "consistency CS on territories whose controller is Unknown",
        "Cst CS unk", "Cst CS unk", "Cst CS unk",
    ),
)  # fmt: skip
"""The built-in CS metrics, in reporting order (the metric registry registers them)."""

_BY_NAME: dict[str, CSMetric] = {m.name: m for m in CS_METRICS}

METRICS: tuple[str, ...] = tuple(m.name for m in CS_METRICS)
"""Every built-in CS metric name, in reporting order."""

METRIC_BOUNDS: dict[str, tuple[float, float]] = {m.name: m.bounds for m in CS_METRICS}
"""The range of each built-in metric; intervals over runs are clipped to it."""


def aggregate(
    table: pd.DataFrame | Mapping[str, np.ndarray], metrics: Sequence[CSMetric] = CS_METRICS
) -> dict[str, Score]:
    """Every metric of ``metrics`` (default: the built-ins) on a per-territory table, with its counts.

    ΔCS is ``None`` when Control or Non-control CS is undefined, and also when
    Non-control CS is 0 (the normalised difference divides by it); the
    unnormalised ΔCS is still reported then.
    """
    wanted = (*_AGGREGATE_COLUMNS, *_extra_columns(metrics))
    if isinstance(table, Mapping):  # columns as arrays (ColumnStats): the same arrays, summed alike
        return aggregate_columns({c: np.asarray(table[c]) for c in wanted if c in table}, metrics)
    return aggregate_columns({c: table[c].to_numpy() for c in wanted if c in table}, metrics)


_ITEM_COLS = {"kb_cs": "kb_den", "control_cs": "control_den", "non_control_cs": "nc_n"}
_SKIP_COLS = {
    "kb_cs": "kb_skipped",
    "control_cs": "control_skipped",
    "non_control_cs": "nc_skipped",
}


def _sum(x: np.ndarray) -> float:
    """Σ as ``pandas.Series.sum`` computes it (NaN skipped; numpy's pairwise summation)."""
    return float(np.nansum(np.asarray(x, dtype=float)))


_SUMS: tuple[str, ...] = (
    *(c for pair in RATIO_METRICS.values() for c in pair),
    *_ITEM_COLS.values(), *_SKIP_COLS.values(), "cst_pairs", "cst_skipped", "cst_pairs_unk",
    "cst_skipped_unk",
)  # fmt: skip
"""The column sums every built-in score is a function of (``*_unk``: over Unknown-controller territories)."""


_AGGREGATE_COLUMNS: tuple[str, ...] = (
    *(c for c in _SUMS if not c.endswith("_unk")), "controller_known",
)  # fmt: skip


def _extra_columns(metrics: Sequence[CSMetric]) -> tuple[str, ...]:
    """The columns ``metrics`` read beyond the built-ins' sums (a plugin metric's)."""
    return tuple(dict.fromkeys(c for m in metrics for c in m.columns if c not in _SUMS))


def _column_sums(cols: Mapping[str, np.ndarray], extra: Sequence[str] = ()) -> dict[str, float]:
    n = len(next(iter(cols.values()))) if cols else 0
    zeros = np.zeros(n)
    known = cols["controller_known"] if "controller_known" in cols else np.ones(n, bool)
    unknown = ~np.asarray(known, dtype=bool)
    out = {
        c: _sum(cols[c] if c in cols else zeros) for c in (*_SUMS, *extra) if not c.endswith("_unk")
    }
    for c in ("cst_pairs", "cst_skipped"):
        out[f"{c}_unk"] = _sum((cols[c] if c in cols else zeros)[unknown])
    return out


def _scores(sums: Mapping[str, float], metrics: Sequence[CSMetric]) -> dict[str, Score]:
    """Every metric of ``metrics`` from the column sums, in order (a metric sees the scores before it)."""
    out: dict[str, Score] = {}
    for m in metrics:
        out[m.name] = m.to_score(m.score(sums, out))
    return out


def aggregate_columns(
    cols: Mapping[str, np.ndarray], metrics: Sequence[CSMetric] = CS_METRICS
) -> dict[str, Score]:
    """:func:`aggregate` on the columns of one per-territory table, given as arrays.

    >>> s = aggregate_columns({"kb_num": np.array([1.0, 0.0]), "kb_den": np.array([1.0, 1.0])})
    >>> s["kb_cs"].value, s["kb_cs"].frac, s["cst_cs"].value
    (0.5, '1/2', None)
    """
    return _scores(_column_sums(cols, _extra_columns(metrics)), metrics)


_FRACTIONAL = ("nc_num", "cst_num", "cst_unk_num")
"""Columns whose sums depend on the order of summation (the others hold whole numbers)."""


def aggregate_groups(
    cols: Mapping[str, np.ndarray], starts: np.ndarray, metrics: Sequence[CSMetric] = CS_METRICS
) -> list[dict[str, Score]]:
    """:func:`aggregate_columns` of every slice ``starts[i]:starts[i + 1]`` of one long table.

    The whole-number columns are summed for all groups at once
    (``np.add.reduceat``: exact); the fractional ones (and those only a plugin
    metric reads) slice by slice, with the pairwise summation :func:`aggregate`
    uses, so each group's scores are the ones :func:`aggregate` gives on that
    group's table, bit for bit.

    >>> cols = {"kb_num": np.array([1.0, 0.0, 1.0]), "kb_den": np.array([1.0, 1.0, 1.0])}
    >>> " ".join(g["kb_cs"].frac for g in aggregate_groups(cols, np.array([0, 2, 3])))
    '1/2 1/1'
    """
    starts = np.asarray(starts, dtype=np.int64)
    n_groups = len(starts) - 1
    if n_groups <= 0:
        return []
    if (np.diff(starts) <= 0).any():  # reduceat needs non-empty slices
        return [
            aggregate_columns({c: v[starts[i] : starts[i + 1]] for c, v in cols.items()}, metrics)
            for i in range(n_groups)
        ]
    n = int(starts[-1])
    zeros = np.zeros(n)
    known = cols["controller_known"] if "controller_known" in cols else np.ones(n, bool)
    unknown = ~np.asarray(known, dtype=bool)[:n]

    def col(c: str) -> np.ndarray:
        return np.nan_to_num(np.asarray(cols[c], dtype=float)[:n]) if c in cols else zeros

    extra = _extra_columns(metrics)
    lo = starts[:-1]
    sizes = np.diff(starts)
    width = int(sizes[0])
    # slices of one length are the rows of a matrix: a row sum is numpy's pairwise summation of
    # that slice, so each sum is the one np.nansum gives on the slice alone
    square = bool((sizes == width).all())
    sums: dict[str, np.ndarray] = {}
    for c in (*_SUMS, *extra):
        if c.endswith("_unk"):
            sums[c] = np.add.reduceat(np.where(unknown, col(c[:-4]), 0.0), lo)
        elif (c in _FRACTIONAL or c in extra) and c in cols:
            v = np.asarray(cols[c], dtype=float)
            if square:
                sums[c] = np.where(np.isnan(v[:n]), 0.0, v[:n]).reshape(n_groups, width).sum(axis=1)
            else:
                sums[c] = np.array([_sum(v[a:b]) for a, b in zip(starts[:-1], starts[1:])])
        else:
            sums[c] = np.add.reduceat(col(c), lo)
    return [_scores({c: float(v[i]) for c, v in sums.items()}, metrics) for i in range(n_groups)]
