"""The agreement report: a tidy table of (dimension, group, statistic) rows with bootstrap intervals.

**Intervals** are percentile bootstrap intervals. The per-cluster confusion
(or coincidence) matrices are the sufficient statistics, computed once; every
resample re-weights them (:func:`boot_rows`).

Example:
    >>> import numpy as np
    >>> from bordir.stats.confusion import acc_m
    >>> per_cluster = np.array([[[2.0, 0.0], [0.0, 1.0]], [[1.0, 1.0], [0.0, 1.0]]])
    >>> rows = boot_rows("relevance", "all", {"accuracy": acc_m}, per_cluster, 6, 0, 1, 0.95, None, "territory")
    >>> rows[0]["statistic"], round(rows[0]["estimate"], 4), rows[0]["n_clusters"]
    ('accuracy', 0.8333, 2)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import pandas as pd

from ...signature import Signature
from ...stats import bootstrap_weights
from ...stats.confusion import float_or_none
from ...stats.percentile import percentile_bounds

__all__ = ["AgreementReport", "boot_rows"]


@dataclass(frozen=True)
class AgreementReport:
    """Agreement statistics as a tidy table, with what produced them.

    Attributes:
        rows: one dict per (dimension, group, statistic): ``estimate``, ``low``,
            ``high`` (percentile interval), ``n_pairs``, ``n_clusters`` and ``resampled`` (the unit
            resampled: the requested cluster, or ``pair`` when the group has a single cluster),
            ``n_undefined`` (resamples where the statistic was undefined).
        counts: pair counts (labelled by each set, by all, missing outcomes).
        signature: what produced the numbers.
        names: the label sets' names, in order.
    """

    rows: list[dict[str, Any]]
    counts: dict[str, Any]
    signature: Signature
    names: tuple[str, ...]
    settings: dict[str, Any] = field(default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        cols = [
            "dimension",
            "group",
            "statistic",
            "estimate",
            "low",
            "high",
            "n_pairs",
            "n_clusters",
            "resampled",
            "n_undefined",
        ]
        return pd.DataFrame(self.rows, columns=cols)

    def value(self, dimension: str, statistic: str, group: str = "all") -> float | None:
        """The estimate of one statistic (``accuracy``, ``macro_f1``, ``kappa``, ``kappa_linear``, ``kappa_quadratic``, ``alpha``, ``alpha_ordinal``, ``f1[<class>]``)."""
        for r in self.rows:
            if (r["dimension"], r["group"], r["statistic"]) == (dimension, group, statistic):
                return cast("float | None", r["estimate"])
        raise KeyError((dimension, group, statistic))

    def as_dict(self) -> dict[str, Any]:
        return {
            "names": list(self.names),
            "counts": self.counts,
            "settings": self.settings,
            "rows": self.rows,
            "signature": str(self.signature),
        }


def boot_rows(
    dimension: str,
    group: str,
    stats: dict[str, Callable[[np.ndarray], np.ndarray]],
    per_cluster: np.ndarray,
    n_pairs: int,
    n_resamples: int,
    seed: int,
    conf: float,
    per_class: tuple[list[Any], Callable[[np.ndarray], np.ndarray]] | None,
    unit: str,
) -> list[dict[str, Any]]:
    """Report rows of every statistic on the summed per-cluster matrices, with percentile intervals."""
    total = per_cluster.sum(axis=0)
    boot = None
    if n_resamples > 0 and len(per_cluster) > 0:
        w = bootstrap_weights(len(per_cluster), n_resamples, np.random.default_rng(seed)).astype(
            float
        )
        boot = np.einsum("bg,gij->bij", w, per_cluster)
    rows = []

    def add(name: str, est: float | None, samples: np.ndarray | None) -> None:
        lo = hi = None
        n_undef = 0
        if samples is not None:
            lo, hi, n_undef = percentile_bounds(samples, conf)
        rows.append(
            {
                "dimension": dimension,
                "group": group,
                "statistic": name,
                "estimate": est,
                "low": lo,
                "high": hi,
                "n_pairs": n_pairs,
                "n_clusters": len(per_cluster),
                "resampled": unit,
                "n_undefined": n_undef,
            }
        )

    for name, fn in stats.items():
        add(
            name,
            float_or_none(fn(total)) if n_pairs else None,
            fn(boot) if boot is not None else None,
        )
    if per_class is not None:
        classes, fn = per_class
        est = fn(total)
        samples = fn(boot) if boot is not None else None
        for i, c in enumerate(classes):
            add(
                f"f1[{c}]",
                float_or_none(est[i]) if n_pairs else None,
                samples[:, i] if samples is not None else None,
            )
    return rows
