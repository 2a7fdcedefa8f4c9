"""Intervals over runs: the mean of a metric over R runs and its t-interval (run-to-run noise only).

``t95`` uses the sample σ (ddof = 1); ``paper`` reproduces BordIRLines
(population σ, ddof = 0, with t(0.975, df = n − 1); the reference hard-codes
n = 10, here n is the actual number of runs, which is the same for 10 runs).
``statsmodels``/``scipy`` (the ``stats`` extra) are imported only when an
interval over at least two runs is computed.

Example:
    >>> iv = t_interval([0.70, 0.72, 0.74])
    >>> round(iv.mean, 2), [round(x, 4) for x in (iv.low, iv.high)]
    (0.72, [0.6703, 0.7697])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from ...errors import ConfigError
from ...stats import t_quantile

__all__ = ["CI_VARIANTS", "CIVariant", "Interval", "t_interval"]

CI_VARIANTS: tuple[str, ...] = ("t95", "paper")
CIVariant = Literal["t95", "paper"]


@dataclass(frozen=True)
class Interval:
    """Mean over runs and its confidence interval (``None`` bounds when n < 2).

    Attributes:
        mean: mean of the defined values.
        low, high: interval bounds.
        n: number of (defined) values.
        sd: the σ used (ddof per ``variant``).
        variant: ``t95`` or ``paper``.
        conf: confidence level.
        n_undefined: runs whose value was undefined (None/NaN) and left out.
    """

    mean: float | None
    low: float | None
    high: float | None
    n: int
    sd: float | None
    variant: str = "t95"
    conf: float = 0.95
    n_undefined: int = 0

    @property
    def note(self) -> str:
        """Says how many runs were skipped as undefined (empty when none was)."""
        if not self.n_undefined:
            return ""
        total = self.n + self.n_undefined
        if self.n == 0:
            return f"undefined in all {total} runs"
        return (
            f"skipped {self.n_undefined} undefined run{'s' if self.n_undefined > 1 else ''} of {total}: "
            f"mean and interval over the other {self.n}"
        )

    def as_dict(self) -> dict[str, Any]:
        """``mean``, ``ci95``, ``n_runs``; plus ``n_undefined`` and ``note`` when runs were skipped as undefined."""
        ci = None if self.low is None else [self.low, self.high]
        out: dict[str, Any] = {
            "mean": self.mean,
            "ci95" if self.conf == 0.95 else f"ci{self.conf:g}": ci,
            "n_runs": self.n,
        }
        if self.n_undefined:
            out.update(n_undefined=self.n_undefined, note=self.note)
        return out


def t_interval(
    values: Sequence[float | None],
    *,
    variant: CIVariant = "t95",
    conf: float = 0.95,
    bounds: tuple[float, float] | None = None,
) -> Interval:
    """Mean and t-interval over runs; ``None``/NaN values are left out (and not counted).

    ``t95``: mean ± t(1 − α/2, n − 1) · s / √n with s the sample σ (ddof = 1).
    ``paper``: the same with the population σ (ddof = 0), as BordIRLines.
    ``bounds``: clip the interval to the metric's range (e.g. ``(0, 1)`` for a
    share); with few runs the t-quantile is large (4.30 for 3 runs) and the
    unclipped interval can leave the range. Undefined runs are counted in
    ``n_undefined`` and named in ``note``.

    >>> t_interval([0.9, 1.0, 0.8], bounds=(0, 1)).high
    1.0
    >>> t_interval([0.2, None, 0.4]).note
    'skipped 1 undefined run of 3: mean and interval over the other 2'
    """
    if variant not in CI_VARIANTS:
        raise ConfigError(f"unknown interval variant {variant!r}; known: {', '.join(CI_VARIANTS)}")
    x = np.array([np.nan if v is None else v for v in values], dtype=float)
    undefined = int(np.isnan(x).sum())
    x = x[~np.isnan(x)]
    n = len(x)
    if n == 0:
        return Interval(None, None, None, 0, None, variant, conf, undefined)
    mean = float(x.mean())
    if n < 2:
        return Interval(mean, None, None, n, None, variant, conf, undefined)
    sd = float(np.std(x, ddof=1 if variant == "t95" else 0))
    half = t_quantile(conf, n - 1) * sd / math.sqrt(n)
    low, high = mean - half, mean + half
    if bounds is not None:
        low, high = float(max(low, bounds[0])), float(min(high, bounds[1]))
    return Interval(mean, low, high, n, sd, variant, conf, undefined)
