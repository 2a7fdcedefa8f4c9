"""Response Countries: how many different countries a territory's answers name (BorderLines Table 2).

``calculate_CS.py`` prints, per run, ``Mean # Response Countries: 1.29
(0.47)`` and the same "+ en". Per territory (columns ``rc_n`` / ``rc_en_n``
of the per-territory table, :func:`~bordir.metrics.cs.territory.territory_stats`):

* ``rc_n``: the number of distinct answers among the claimant-language
  responses (``Responses_d`` after ``fix_responses_d``);
* ``rc_en_n``: the same with the control answer set as ``en``
  (``Responses_d_en``), so the control answer always counts.

Answers are compared literally under the reference policy (``"None"`` is one
more "country", as in the reference); under the strict policy missing answers
are left out. Per run, the mean and σ (pandas ``std``, ddof = 1) are taken over
**all** territories of the table, a territory without responses counting 0, as
the reference does. 1.0 means every territory got the same answer in all its
languages; the number of claimants bounds it.

Example:
    >>> from bordir.metrics.cs.table import build_stats
    >>> from bordir.metrics.cs.territory import territory_stats
    >>> rows = [territory_stats("X", "A", "a", {"a": "A", "b": "B"}, "A"),
    ...         territory_stats("Y", "A", "a", {"a": "A", "b": "A"}, "B")]
    >>> rc = response_countries(build_stats(rows, policy="reference"))
    >>> rc.mean, rc.mean_en, round(rc.sd, 4)
    (1.5, 2.0, 0.7071)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ..intervals.runs import t_interval
from .table import TerritoryStats

__all__ = ["ResponseCountries", "response_countries", "summarize_response_countries"]


@dataclass(frozen=True)
class ResponseCountries:
    """Mean and σ of the number of distinct answers per territory, without and with ``en``.

    Attributes:
        mean: mean of ``rc_n`` over the territories (None without territories).
        sd: its sample σ (ddof = 1; None with fewer than two territories).
        mean_en: mean of ``rc_en_n`` (the control answer added as ``en``).
        sd_en: its sample σ.
        n_territories: territories behind the means.
        signature: what produced the numbers.
    """

    mean: float | None
    sd: float | None
    mean_en: float | None
    sd_en: float | None
    n_territories: int
    signature: str = ""

    def as_dict(self) -> dict[str, Any]:
        """Every field by name, in declaration order."""
        return asdict(self)


def _mean_sd(x: np.ndarray) -> tuple[float | None, float | None]:
    if len(x) == 0:
        return None, None
    sd = float(np.std(x, ddof=1)) if len(x) > 1 else None
    return float(x.mean()), sd


def response_countries(stats: TerritoryStats) -> ResponseCountries:
    """Response Countries of one (model, mode, run) or one legacy table."""
    n = stats.n_territories
    mean, sd = _mean_sd(np.asarray(stats.column("rc_n"), dtype=float) if n else np.zeros(0))
    mean_en, sd_en = _mean_sd(
        np.asarray(stats.column("rc_en_n"), dtype=float) if n else np.zeros(0)
    )
    return ResponseCountries(
        mean, sd, mean_en, sd_en, n, str(stats.signature("response_countries", ddof=1))
    )


def summarize_response_countries(
    per_run: Sequence[ResponseCountries], *, variant: str = "t95"
) -> dict[str, Any]:
    """Over runs: the mean of the per-run means with its t-interval, and the mean per-run σ, both variants.

    Returns ``{"mean", "ci95", "sd", "n_runs", "mean_en", "ci95_en", "sd_en"}`` (σ: the mean of the runs' σ).
    """
    out: dict[str, Any] = {}
    for suffix, attr, sd_attr in (("", "mean", "sd"), ("_en", "mean_en", "sd_en")):
        iv = t_interval(
            [getattr(r, attr) for r in per_run],
            variant=variant,  # type: ignore[arg-type]
            bounds=(0.0, math.inf),
        )
        sds = [getattr(r, sd_attr) for r in per_run if getattr(r, sd_attr) is not None]
        out[f"mean{suffix}"] = iv.mean
        out[f"ci95{suffix}"] = None if iv.low is None else [iv.low, iv.high]
        out[f"sd{suffix}"] = float(np.mean(sds)) if sds else None
    out["n_runs"] = len(per_run)
    return out
