"""The CS metrics as pure functions of a per-territory table: names, ranges, values, :class:`Score`.

Every aggregate is a ratio of column sums of the per-territory table
(:data:`~bordir.metrics.cs_territory.TERRITORY_COLUMNS`), optionally weighted, so a
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
    >>> t = pd.DataFrame({"kb_num": [1.0, 0.0], "kb_den": [1.0, 1.0]})
    >>> float(metric_value(t, "kb_cs"))
    0.5
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..errors import ConfigError

__all__ = [
    "RATIO_METRICS",
    "DERIVED_METRICS",
    "METRICS",
    "METRIC_BOUNDS",
    "Score",
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

DERIVED_METRICS: tuple[str, ...] = ("delta_cs", "delta_cs_abs")
"""Metrics computed from Control CS and Non-control CS."""

METRICS: tuple[str, ...] = (
    "kb_cs",
    "control_cs",
    "non_control_cs",
    "delta_cs",
    "delta_cs_abs",
    "cst_cs",
    "cst_cs_unknown",
)
"""Every metric name, in reporting order."""

METRIC_BOUNDS: dict[str, tuple[float, float]] = {
    "kb_cs": (0.0, 1.0),
    "control_cs": (0.0, 1.0),
    "non_control_cs": (0.0, 1.0),
    "cst_cs": (0.0, 1.0),
    "cst_cs_unknown": (0.0, 1.0),
    "delta_cs_abs": (-1.0, 1.0),
    "delta_cs": (-1.0, math.inf),
}
"""The range of each metric; intervals over runs are clipped to it."""


@dataclass(frozen=True)
class Score:
    """One aggregate with the counts behind it.

    Attributes:
        metric: name (:data:`METRICS`).
        value: the score as a fraction, or ``None`` when undefined.
        numerator: Σ of per-territory values (agreements for KB/Control; sum of
            per-territory means for the macro averages); ``None`` for ΔCS.
        denominator: territories that contribute (``None`` for ΔCS).
        items: answers (KB, Control, Non-control) or answer pairs (Cst) behind it.
        skipped: answers or pairs skipped as missing (strict policy).
        note: why a value is undefined, when it is.
    """

    metric: str
    value: float | None
    numerator: float | None = None
    denominator: int | None = None
    items: int | None = None
    skipped: int = 0
    note: str = ""

    @property
    def frac(self) -> str | None:
        """``"128/161"`` (numerator/denominator, as BorderLines prints KB and Control)."""
        if self.numerator is None or self.denominator is None:
            return None
        num = (
            int(self.numerator) if float(self.numerator).is_integer() else round(self.numerator, 4)
        )
        return f"{num}/{self.denominator}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "value": self.value,
            "numerator": self.numerator,
            "denominator": self.denominator,
            "items": self.items,
            "skipped": self.skipped,
            "note": self.note,
        }


def _cols(
    table: pd.DataFrame | Mapping[str, np.ndarray], names: Iterable[str]
) -> dict[str, np.ndarray]:
    return {n: np.asarray(table[n], dtype=float) for n in names}


def _ratio(num: np.ndarray, den: np.ndarray, weights: np.ndarray | None) -> np.ndarray | float:
    if weights is None:
        s_num, s_den = num.sum(axis=-1), den.sum(axis=-1)
    else:
        s_num, s_den = (weights * num).sum(axis=-1), (weights * den).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(s_den > 0, s_num / np.where(s_den > 0, s_den, 1), np.nan)


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
        metric: a name in :data:`METRICS`.
        weights: optional territory weights, shape ``(T,)`` or ``(B, T)``
            (bootstrap resample counts); they broadcast against the columns.

    Returns:
        A float (no batch axis) or an array with one value per resample.

    >>> t = pd.DataFrame({"kb_num": [1.0, 0.0, 0.0], "kb_den": [1.0, 1.0, 0.0]})
    >>> float(metric_value(t, "kb_cs"))
    0.5
    >>> metric_value(t, "kb_cs", weights=np.array([[2, 1, 0], [0, 3, 0]])).tolist()
    [0.6666666666666666, 0.0]
    """
    if metric in RATIO_METRICS:
        num, den = RATIO_METRICS[metric]
        c = _cols(table, (num, den))
        out = _ratio(c[num], c[den], weights)
    elif metric in DERIVED_METRICS:
        ctl = metric_value(table, "control_cs", weights)
        non = metric_value(table, "non_control_cs", weights)
        with np.errstate(invalid="ignore", divide="ignore"):
            if metric == "delta_cs_abs":
                out = ctl - non
            else:
                out = np.where(non != 0, (ctl - non) / np.where(non != 0, non, 1), np.nan)
    else:
        raise ConfigError(f"unknown metric {metric!r}; known: {', '.join(METRICS)}")
    out = np.asarray(out, dtype=float)
    return float(out) if out.ndim == 0 else out


def _nan_to_none(x: float) -> float | None:
    return None if x is None or math.isnan(x) else float(x)


def aggregate(table: pd.DataFrame) -> dict[str, Score]:
    """Every metric of :data:`METRICS` on a per-territory table, with its counts.

    ΔCS is ``None`` when Control or Non-control CS is undefined, and also when
    Non-control CS is 0 (the normalised difference divides by it); the
    unnormalised ΔCS is still reported then.
    """
    return aggregate_columns({c: table[c].to_numpy() for c in _AGGREGATE_COLUMNS if c in table})


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
"""The column sums every score is a function of (``*_unk``: over Unknown-controller territories)."""


_AGGREGATE_COLUMNS: tuple[str, ...] = (
    *(c for c in _SUMS if not c.endswith("_unk")), "controller_known",
)  # fmt: skip


def _column_sums(cols: Mapping[str, np.ndarray]) -> dict[str, float]:
    n = len(next(iter(cols.values()))) if cols else 0
    zeros = np.zeros(n)
    known = cols["controller_known"] if "controller_known" in cols else np.ones(n, bool)
    unknown = ~np.asarray(known, dtype=bool)
    out = {c: _sum(cols[c] if c in cols else zeros) for c in _SUMS if not c.endswith("_unk")}
    for c in ("cst_pairs", "cst_skipped"):
        out[f"{c}_unk"] = _sum((cols[c] if c in cols else zeros)[unknown])
    return out


def _scores(sums: Mapping[str, float]) -> dict[str, Score]:
    """Every metric of :data:`METRICS` from the column sums (:data:`_SUMS`)."""
    out: dict[str, Score] = {}
    for name, (num, den) in RATIO_METRICS.items():
        s_num, s_den = sums[num], sums[den]
        value = s_num / s_den if s_den > 0 else None
        if name.startswith("cst"):
            unk = "_unk" if name == "cst_cs_unknown" else ""
            items, skipped = int(sums[f"cst_pairs{unk}"]), int(sums[f"cst_skipped{unk}"])
        else:
            items, skipped = int(sums[_ITEM_COLS[name]]), int(sums[_SKIP_COLS[name]])
        note = "" if value is not None else "no territory contributes"
        out[name] = Score(name, value, s_num, int(s_den), items, skipped, note)
    ctl, non = out["control_cs"].value, out["non_control_cs"].value
    if ctl is None or non is None:
        why = "Control CS or Non-control CS is undefined"
        out["delta_cs"] = Score("delta_cs", None, note=why)
        out["delta_cs_abs"] = Score("delta_cs_abs", None, note=why)
    else:
        note = "undefined: Non-control CS is 0" if non == 0 else ""
        out["delta_cs"] = Score("delta_cs", None if non == 0 else (ctl - non) / non, note=note)
        out["delta_cs_abs"] = Score("delta_cs_abs", ctl - non)
    return {m: out[m] for m in METRICS}


def aggregate_columns(cols: Mapping[str, np.ndarray]) -> dict[str, Score]:
    """:func:`aggregate` on the columns of one per-territory table, given as arrays.

    >>> s = aggregate_columns({"kb_num": np.array([1.0, 0.0]), "kb_den": np.array([1.0, 1.0])})
    >>> s["kb_cs"].value, s["kb_cs"].frac, s["cst_cs"].value
    (0.5, '1/2', None)
    """
    return _scores(_column_sums(cols))


_FRACTIONAL = ("nc_num", "cst_num", "cst_unk_num")
"""Columns whose sums depend on the order of summation (the others hold whole numbers)."""


def aggregate_groups(cols: Mapping[str, np.ndarray], starts: np.ndarray) -> list[dict[str, Score]]:
    """:func:`aggregate_columns` of every slice ``starts[i]:starts[i + 1]`` of one long table.

    The whole-number columns are summed for all groups at once
    (``np.add.reduceat``: exact); the fractional ones slice by slice, with the
    pairwise summation :func:`aggregate` uses, so each group's scores are the
    ones :func:`aggregate` gives on that group's table, bit for bit.

    >>> cols = {"kb_num": np.array([1.0, 0.0, 1.0]), "kb_den": np.array([1.0, 1.0, 1.0])}
    >>> [g["kb_cs"].frac for g in aggregate_groups(cols, np.array([0, 2, 3]))]
    ['1/2', '1/1']
    """
    starts = np.asarray(starts, dtype=np.int64)
    n_groups = len(starts) - 1
    if n_groups <= 0:
        return []
    if (np.diff(starts) <= 0).any():  # reduceat needs non-empty slices
        return [
            aggregate_columns({c: v[starts[i] : starts[i + 1]] for c, v in cols.items()})
            for i in range(n_groups)
        ]
    n = int(starts[-1])
    zeros = np.zeros(n)
    known = cols["controller_known"] if "controller_known" in cols else np.ones(n, bool)
    unknown = ~np.asarray(known, dtype=bool)[:n]

    def col(c: str) -> np.ndarray:
        return np.nan_to_num(np.asarray(cols[c], dtype=float)[:n]) if c in cols else zeros

    lo = starts[:-1]
    sums: dict[str, np.ndarray] = {}
    for c in _SUMS:
        if c.endswith("_unk"):
            sums[c] = np.add.reduceat(np.where(unknown, col(c[:-4]), 0.0), lo)
        elif c in _FRACTIONAL and c in cols:
            v = np.asarray(cols[c], dtype=float)
            sums[c] = np.array([_sum(v[a:b]) for a, b in zip(starts[:-1], starts[1:])])
        else:
            sums[c] = np.add.reduceat(col(c), lo)
    return [_scores({c: float(v[i]) for c, v in sums.items()}) for i in range(n_groups)]
