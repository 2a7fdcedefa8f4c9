"""The per-territory and per-answer tables of one (model, mode, run): :class:`TerritoryStats`.

Example:
    >>> from bordir.metrics.cs.territory import territory_stats
    >>> stats = build_stats([territory_stats("X", "A", "a", {"a": "A", "b": "B"}, "A")], policy="strict")
    >>> stats
    TerritoryStats(policy='strict', territories=1)
    >>> stats.value("control_cs"), stats.n_queries
    (1.0, 3)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ...signature import Signature
from .aggregate import METRICS, aggregate, metric_value, nan_to_none
from .metric import Score
from .territory import ITEM_COLUMNS, TERRITORY_COLUMNS

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["TerritoryStats", "LazyItemsStats", "ColumnStats", "build_stats"]


@dataclass(frozen=True)
class TerritoryStats:
    """The per-territory and per-answer tables of one (model, mode, run).

    Attributes:
        table: one row per territory (:data:`TERRITORY_COLUMNS`).
        items: one row per claimant-language answer (:data:`ITEM_COLUMNS`).
        policy: the scoring policy that produced them.
        key: ``{"model": …, "mode": …, "run": …}`` (empty for a legacy table).
    """

    table: pd.DataFrame
    items: pd.DataFrame
    policy: str
    key: Mapping[str, Any] = field(default_factory=dict)

    def scores(self) -> dict[str, Score]:
        """Every registered CS metric on :attr:`table` (:func:`aggregate` of :func:`~bordir.metrics.registry.cs_metrics`)."""
        from ..registry import cs_metrics

        return aggregate(self.table, cs_metrics())

    def value(self, metric: str) -> float | None:
        """The value of the registered CS metric ``metric`` (None when undefined)."""
        from ..registry import METRIC_REGISTRY

        if metric in METRICS or metric not in METRIC_REGISTRY:
            return nan_to_none(metric_value(self.table, metric))
        return nan_to_none(float(METRIC_REGISTRY.get(metric).value(self.table, None)))

    @property
    def n_queries(self) -> int:
        return int(self.table["n_queries"].sum())

    @property
    def n_territories(self) -> int:
        """Rows of :attr:`table`."""
        return len(self.table)

    def column(self, name: str) -> np.ndarray:
        """One column of :attr:`table` as an array."""
        return np.asarray(self.table[name])

    def signature(self, metric: str = "cs", **extra: Any) -> Signature:
        """The signature of a score computed from these statistics."""
        return Signature.build(
            metric,
            mode=self.key.get("mode"),
            gen=self.key.get("model"),
            run=self.key.get("run"),
            policy=self.policy,
            **extra,
        )

    def __repr__(self) -> str:
        key = ", ".join(f"{k}={v!r}" for k, v in self.key.items())
        return f"TerritoryStats({key}{', ' if key else ''}policy={self.policy!r}, territories={len(self.table)})"


def build_stats(
    rows: Sequence[tuple[dict[str, Any], list[dict[str, Any]]]],
    *,
    policy: str,
    key: Mapping[str, Any] | None = None,
) -> TerritoryStats:
    """Assemble :class:`TerritoryStats` from :func:`territory_stats` results."""
    import pandas as pd

    table = pd.DataFrame([r for r, _ in rows], columns=list(TERRITORY_COLUMNS))
    items = pd.DataFrame([i for _, its in rows for i in its], columns=list(ITEM_COLUMNS))
    return TerritoryStats(table=table, items=items, policy=policy, key=dict(key or {}))


class LazyItemsStats(TerritoryStats):
    """:class:`TerritoryStats` whose per-answer :attr:`items` table is built on first use.

    Scoring needs only the per-territory table; building a DataFrame of every
    answer of a 100,000-territory table costs more than the scores. Equal in
    every other respect to the :class:`TerritoryStats` it stands for.
    """

    _items: pd.DataFrame | None
    _make_items: Callable[[], pd.DataFrame]

    def __init__(
        self,
        table: pd.DataFrame,
        items: Callable[[], pd.DataFrame],
        policy: str,
        key: Mapping[str, Any] | None = None,
    ) -> None:
        object.__setattr__(self, "table", table)
        self._lazy_items(items, policy, key)

    def _lazy_items(
        self, items: Callable[[], pd.DataFrame], policy: str, key: Mapping[str, Any] | None
    ) -> None:
        """Set the fields every lazy table has: ``policy``, ``key`` and the deferred ``items``."""
        object.__setattr__(self, "policy", policy)
        object.__setattr__(self, "key", dict(key or {}))
        object.__setattr__(self, "_make_items", items)
        object.__setattr__(self, "_items", None)

    @property
    def items(self) -> pd.DataFrame:
        if self._items is None:
            object.__setattr__(self, "_items", self._make_items())
        return self._items


class ColumnStats(LazyItemsStats):
    """:class:`LazyItemsStats` whose per-territory table is kept as numpy columns.

    The scores, :attr:`n_queries` and :meth:`column` read the columns; the
    :attr:`table` DataFrame (and pandas) is built only when asked for, so that
    scoring a legacy table needs no pandas (``bordir score borderlines-table``
    starts in a fraction of the time). The scores are those of the DataFrame,
    bit for bit: the same arrays are summed.
    """

    _columns: dict[str, np.ndarray]
    _order: tuple[str, ...]
    _n: int
    _table: pd.DataFrame | None

    def __init__(
        self,
        columns: Mapping[str, np.ndarray],
        order: Sequence[str],
        n: int,
        items: Callable[[], pd.DataFrame],
        policy: str,
        key: Mapping[str, Any] | None = None,
    ) -> None:
        object.__setattr__(self, "_columns", dict(columns))
        object.__setattr__(self, "_order", tuple(order))
        object.__setattr__(self, "_n", int(n))
        object.__setattr__(self, "_table", None)
        self._lazy_items(items, policy, key)

    @property
    def table(self) -> pd.DataFrame:
        if self._table is None:
            import pandas as pd

            frame = (
                pd.DataFrame({c: self._columns[c] for c in self._order})
                if self._n
                else pd.DataFrame([], columns=list(self._order))
            )
            object.__setattr__(self, "_table", frame)
        return self._table

    def scores(self) -> dict[str, Score]:
        from ..registry import cs_metrics

        return aggregate(self._columns, cs_metrics())

    def value(self, metric: str) -> float | None:
        if metric in METRICS:
            return nan_to_none(metric_value(self._columns, metric))
        return super().value(metric)

    @property
    def n_queries(self) -> int:
        return int(self._columns["n_queries"].sum()) if self._n else 0

    @property
    def n_territories(self) -> int:
        return self._n

    def column(self, name: str) -> np.ndarray:
        return np.asarray(self._columns[name]) if self._n else np.zeros(0)
