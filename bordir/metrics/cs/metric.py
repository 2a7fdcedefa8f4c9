"""What a CS metric is: a pure function of the per-territory table's column sums (:class:`CSMetric`), and its :class:`Score`.

Every concurrence score is computed from the per-territory sufficient
statistics (:data:`~bordir.metrics.cs.territory.TERRITORY_COLUMNS`, built by
the vectorised engine :mod:`~bordir.metrics.cs.columnar`): sums of a few
columns, optionally weighted by territory (a bootstrap resample is a weight
vector). A :class:`CSMetric` carries that computation — its ``score`` (the
value with the counts behind it) and its ``value`` (on a table or under
resample weights) — with its labels and bounds, and is what the metric registry
(:data:`bordir.metrics.registry.METRIC_REGISTRY`) holds for a ``cs`` metric.
The built-ins are defined in :mod:`~bordir.metrics.cs.aggregate`; a plugin
defines one with :func:`bordir.metrics.registry.cs_metric`.

Example:
    >>> share = CSMetric.of_sums("kb_share", lambda s: s["kb_num"] / s["kb_den"], ("kb_num", "kb_den"))
    >>> cols = {"kb_num": np.array([1.0, 0.0, 1.0]), "kb_den": np.array([1.0, 1.0, 1.0])}
    >>> round(float(share.value(cols, None)), 4), share.value(cols, np.array([[1, 1, 0], [0, 0, 3]])).tolist()
    (0.6667, [0.5, 1.0])
    >>> share.to_score(share.score({"kb_num": 2.0, "kb_den": 3.0}, {})).value
    0.6666666666666666
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ...errors import ConfigError
from .territory import TERRITORY_COLUMNS

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Score", "CSMetric", "Sums", "column_sums"]

Sums = Mapping[str, Any]
"""Column sums by column name: floats, or arrays with one sum per resample."""


@dataclass(frozen=True)
class Score:
    """One aggregate with the counts behind it.

    Attributes:
        metric: name (a ``cs`` metric of the metric registry).
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
        """Every field by name, in declaration order."""
        return asdict(self)


def column_sums(
    table: pd.DataFrame | Mapping[str, np.ndarray],
    columns: tuple[str, ...],
    weights: np.ndarray | None,
) -> dict[str, Any]:
    """Σ of each of ``columns`` over territories (the last axis), weighted by ``weights`` if given."""
    out: dict[str, Any] = {}
    for c in columns:
        v = np.nan_to_num(np.asarray(table[c], dtype=float))
        out[c] = v.sum(axis=-1) if weights is None else (weights * v).sum(axis=-1)
    return out


@dataclass(frozen=True)
class CSMetric:
    """A CS metric: how it is computed from the per-territory table, and how it is shown.

    Attributes:
        name: the canonical name (``kb_cs``).
        columns: the per-territory columns it reads.
        score: ``score(sums, earlier) -> Score | float | None``: the value (with its counts)
            from the column sums of one table; ``earlier`` holds the scores of the metrics
            registered before it (ΔCS reads Control and Non-control CS).
        value: ``value(table, weights) -> float | array``: the value on a table's columns,
            under territory weights of shape ``(T,)`` or ``(B, T)`` (one value per resample);
            NaN where undefined.
        description: one line (``bordir list metrics``).
        label: the report's label; ``text_label`` plain ASCII for terminals; ``paper_label``
            the BorderLines paper's column (``bordir score``).
        bounds: the metric's range (intervals over runs are clipped to it).
    """

    name: str
    columns: tuple[str, ...]
    score: Callable[[Sums, Mapping[str, Score]], Score | float | None] = field(repr=False)
    value: Callable[[Any, np.ndarray | None], Any] = field(repr=False)
    description: str = ""
    label: str = ""
    text_label: str = ""
    paper_label: str = ""
    bounds: tuple[float, float] = (-math.inf, math.inf)

    def __post_init__(self) -> None:
        unknown = [c for c in self.columns if c not in TERRITORY_COLUMNS]
        if unknown:
            raise ConfigError(
                f"CS metric {self.name!r} reads unknown per-territory column(s) "
                f"{', '.join(unknown)}; known: {', '.join(TERRITORY_COLUMNS[4:])}"
            )

    @classmethod
    def of_sums(
        cls, name: str, fn: Callable[[Sums], Any], columns: tuple[str, ...], **shown: Any
    ) -> CSMetric:
        """A metric that is ``fn`` of the sums of ``columns`` (``fn`` must work on arrays too).

        Its score has no counts; its value under weights is ``fn`` of the weighted sums.
        """

        def score(sums: Sums, earlier: Mapping[str, Score]) -> float | None:
            with np.errstate(invalid="ignore", divide="ignore"):
                return cast("float | None", fn(sums))

        def value(table: Any, weights: np.ndarray | None) -> Any:
            with np.errstate(invalid="ignore", divide="ignore"):
                return fn(column_sums(table, columns, weights))

        return cls(name, tuple(columns), score, value, **shown)

    def on_table(self) -> Callable[[pd.DataFrame], float]:
        """The value as a function of one per-territory table, named like the metric (what :func:`~bordir.metrics.intervals.bootstrap.cluster_bootstrap` resamples)."""

        def value(table: pd.DataFrame) -> float:
            return float(self.value(table, None))

        value.__name__ = self.name
        return value

    def to_score(self, result: Score | float | None) -> Score:
        """``result`` of :attr:`score` as a :class:`Score` (a bare value: no counts)."""
        if isinstance(result, Score):
            return result
        value = None if result is None else float(result)
        if value is not None and not math.isfinite(value):
            value = None
        return Score(self.name, value, note="" if value is not None else "undefined")

    def meta(self) -> dict[str, Any]:
        """The registry metadata: ``kind``, labels, ``bounds``."""
        return {
            "kind": "cs",
            "label": self.label or self.name,
            "text_label": self.text_label or self.label or self.name,
            "paper_label": self.paper_label or self.label or self.name,
            "bounds": self.bounds,
        }
