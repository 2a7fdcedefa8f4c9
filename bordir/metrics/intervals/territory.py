"""The small-sample interval over territories of a named metric, runs pooled per territory.

Cluster Wilson for the CS shares, MOVER for ΔCS unnormalised, log-MOVER for ΔCS
(:mod:`~bordir.metrics.intervals.smallsample`): it keeps its coverage at 12 territories,
where the percentile bootstrap does not.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd  # noqa: F401  (the examples use it)

from ...errors import ConfigError
from ..cs.aggregate import RATIO_METRICS
from .aligned import TableLike, aligned_columns, as_tables, metric_columns, territory_axis
from .bootstrap import MIN_CLUSTERS
from .smallsample import TerritoryInterval, territory_interval_from_arrays

__all__ = ["territory_interval"]


def territory_interval(
    tables: TableLike | Sequence[TableLike],
    metric: str,
    *,
    conf: float = 0.95,
    min_clusters: int = MIN_CLUSTERS,
) -> TerritoryInterval:
    """The small-sample interval over territories of a named metric (:mod:`~bordir.metrics.intervals.smallsample`), runs pooled per territory.

    Cluster Wilson for the CS shares, MOVER for ΔCS unnormalised, log-MOVER for ΔCS; ``warning`` when fewer than
    ``min_clusters`` territories contribute; ``unstable`` for ΔCS when Non-control CS's interval comes near 0.

    >>> t = pd.DataFrame({"territory": list("abcdefgh"), "kb_num": [1.0, 1, 0, 1] * 2, "kb_den": [1.0] * 8})
    >>> iv = territory_interval(t, "kb_cs")
    >>> iv.estimate, iv.method, round(iv.low, 3), round(iv.high, 3), iv.n_clusters
    (0.75, 'wilson', 0.409, 0.929, 8)
    >>> territory_interval(t.head(4), "kb_cs").refused[:32]   # fewer than MIN_INTERVAL_CLUSTERS
    'no interval: only 4 contributing'

    """
    dfs = as_tables(tables)
    terrs = territory_axis(dfs)
    arrays = aligned_columns(dfs, metric_columns(metric), terrs)
    cols = {k: np.mean([a[k] for a in arrays], axis=0) for k in arrays[0]}
    try:
        return territory_interval_from_arrays(
            cols, metric, conf=conf, min_clusters=min_clusters, ratio_columns=dict(RATIO_METRICS)
        )
    except ValueError as exc:
        raise ConfigError(f"no small-sample interval for {metric}: {exc}") from None
