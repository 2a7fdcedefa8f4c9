"""The one interval of every rate bordir prints: a continuity-corrected score interval, cluster-adjusted.

:func:`rate_interval` takes a count out of ``n`` (independent items) or per-cluster
sums (``num_g`` of ``den_g`` items of cluster ``g``, items of one cluster
correlated) and returns a :class:`RateInterval`: the rate ``Σnum / Σden`` and the
set of ``r`` with

``(|Σnum − r·Σden| − c)₊² ≤ z² · κ · r(1 − r) · Σden_g²``,

the Wilson score interval with Yates' continuity correction (Newcombe 1998,
method 4) whose binomial variance is scaled by the cluster design factor
``κ = min(1, V̂ / (p̂(1 − p̂) Σden_g²))`` of :func:`~bordir.stats.wilson_ratio`
(``V̂`` the linearisation variance over clusters) and the continuity correction ``c`` half a
step of the count in effective units, ``½ · max(1, κ · Σden_g² / Σden)`` (½ × the design
effect: one all-or-nothing cluster of three moves the count by three). With one item per cluster,
``κ = 1`` and it is exactly the continuity-corrected Wilson interval of
``k / n``. It never has zero width (``0/n`` gives ``[0, hi > 0]``; ``n/n`` gives
``[lo < 1, 1]``), and it is undefined (None) when ``n = 0``.

Why the correction: plain Wilson covers 91 % at n = 50 and p = 0.01 and 92.5 % at
n = 20 and p = 0.05 (its lower bound at one or two events); mid-p and Jeffreys dip
to 88–92 %. With the correction the exact coverage is ≥ 95 % at every n ≥ 5 and
0.01 ≤ p ≤ 0.99 (mean 97.6 % at n = 20, 96.4 % at n = 100, 95.5 % at n = 1000):
it over-covers where events are rare (at n·p < 1 only 0 or 1 event occur, and
any interval that contains p at 0 and at 1 event covers ≥ 98 %), never under.
``benchmarks/coverage_rates.py`` measures it, independent and clustered
(docs/methodology.md gives the figures).

Below :data:`MIN_N` items (or clusters) a rate still gets its interval, but
:attr:`RateInterval.too_few` is set and the printed form is "too few to judge".

Example:
    >>> r = rate_interval(0, 20)
    >>> r.value, r.low, round(r.high, 3), r.method
    (0.0, 0.0, 0.2, 'wilsoncc95')
    >>> r = rate_interval(1, 1)
    >>> r.too_few, r.format()
    (True, '100.0 (1/1, too few to judge)')
    >>> rate_interval(3, 10).format()
    '30.0 [8.1, 64.6] (3/10)'
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ConfigError
from .normal import z_quantile

__all__ = [
    "MIN_N",
    "TOO_FEW",
    "RateInterval",
    "format_rate",
    "format_rate_dict",
    "rate_interval",
    "rate_method",
]

MIN_N = 10
"""Below this many items (or clusters, for clustered rates) a rate is printed as "too few to judge"."""
TOO_FEW = "too few to judge"


def format_rate(
    value: float | None,
    low: float | None,
    high: float | None,
    count: float | None = None,
    n: float | None = None,
    *,
    too_few: bool = False,
    scale: float = 100.0,
    digits: int = 1,
) -> str:
    """The printed form of every rate: ``30.0 [8.1, 64.6] (3/10)``, ``100.0 (1/1, too few to judge)``, ``–``.

    A rate without an interval (``low`` None) prints its value and count only.

    >>> format_rate(1.0, 0.05, 1.0, 1, 1, too_few=True)
    '100.0 (1/1, too few to judge)'
    >>> format_rate(None, None, None, 0, 0)
    '– (0/0)'
    """
    c = "" if count is None or n is None else f"{float(count):g}/{float(n):g}"
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return f"– ({c})" if c else "–"
    v = f"{scale * value:.{digits}f}"
    if too_few:
        return f"{v} ({c + ', ' if c else ''}{TOO_FEW})"
    ci = (
        ""
        if low is None or high is None
        else f" [{scale * low:.{digits}f}, {scale * high:.{digits}f}]"
    )
    return f"{v}{ci}" + (f" ({c})" if c else "")


def format_rate_dict(m: dict[str, Any] | None, *, scale: float = 100.0, digits: int = 1) -> str:
    """:func:`format_rate` of a JSON rate (``value``, ``ci95``, ``count``, ``n``, ``too_few``); ``–`` for None."""
    if not m:
        return "–"
    lo, hi = m.get("ci95") or (None, None)
    return format_rate(
        m.get("value"),
        lo,
        hi,
        m.get("count"),
        m.get("n"),
        too_few=bool(m.get("too_few")),
        scale=scale,
        digits=digits,
    )


def rate_method(conf: float = 0.95, *, clustered: bool = False) -> str:
    """The interval's name in signatures: ``wilsoncc95`` (independent) or ``cwilsoncc95`` (clustered).

    >>> rate_method(0.9, clustered=True)
    'cwilsoncc90'
    """
    return f"{'c' if clustered else ''}wilsoncc{round(conf * 100):d}"


@dataclass(frozen=True)
class RateInterval:
    """A rate with its score interval.

    Attributes:
        value: ``count / n`` (None when ``n = 0``).
        count, n: the numerator and denominator (sums over clusters; items).
        low, high: the interval (None when ``n = 0``).
        n_clusters: clusters with items (``n`` for independent items).
        method: :func:`rate_method` (``wilsoncc95`` / ``cwilsoncc95``).
        too_few: fewer than :data:`MIN_N` items or clusters: print "too few to judge".
    """

    value: float | None
    count: float
    n: float
    low: float | None
    high: float | None
    n_clusters: int
    method: str
    too_few: bool

    @property
    def width(self) -> float | None:
        """``high − low`` (None when undefined)."""
        return None if self.low is None or self.high is None else self.high - self.low

    def format(self, scale: float = 100.0, digits: int = 1) -> str:
        """``30.0 [8.1, 64.6] (3/10)``; ``… (1/1, too few to judge)``; ``– (0/0)`` when undefined."""
        return format_rate(
            self.value,
            self.low,
            self.high,
            self.count,
            self.n,
            too_few=self.too_few,
            scale=scale,
            digits=digits,
        )

    def as_dict(self) -> dict[str, Any]:
        """JSON fields: ``value``, ``count``, ``n``, ``ci95`` ([low, high]), ``ci_method``, ``too_few``."""
        return {
            "value": self.value,
            "count": _num(self.count),
            "n": _num(self.n),
            "ci95": [self.low, self.high],
            "ci_method": self.method,
            "too_few": self.too_few,
        }


def _num(x: float) -> int | float:
    return int(x) if float(x).is_integer() else float(x)


def _roots(x: float, n: float, k: float, s2: float) -> tuple[float, float]:
    """The two roots in ``r`` of ``(x − n·r)² = k·r(1 − r)·s2``."""
    a2, a1, a0 = n * n + k * s2, -(2 * x * n + k * s2), x * x
    root = math.sqrt(max(a1 * a1 - 4 * a2 * a0, 0.0))
    return (-a1 - root) / (2 * a2), (-a1 + root) / (2 * a2)


def rate_interval(
    num: int | float | Sequence[float] | np.ndarray,
    den: int | float | Sequence[float] | np.ndarray,
    *,
    weights: Sequence[float] | np.ndarray | None = None,
    conf: float = 0.95,
) -> RateInterval:
    """The rate ``Σnum / Σden`` with its continuity-corrected (cluster) Wilson interval (module docs).

    Args:
        num: a count (independent items), or per-cluster sums of the numerator (an array).
        den: its denominator, or per-cluster sums of the denominator (an array of the same
            length, ``0 ≤ num_g ≤ den_g``); clusters with ``den_g = 0`` are left out.
        weights: with per-cluster arrays, how many clusters have each (num, den) profile
            (citation cells store identical clusters once); default 1 each.
        conf: confidence level.

    Raises:
        ConfigError: a count outside ``[0, den]`` or arrays of different lengths.
    """
    clustered = np.ndim(num) > 0 or np.ndim(den) > 0
    method = rate_method(conf, clustered=clustered)
    if not clustered:
        x, n = float(num), float(den)  # type: ignore[arg-type]
        if not (0 <= x <= n):
            raise ConfigError(f"rate_interval: need 0 <= count <= n, found {x:g} of {n:g}")
        a, b = np.full(1, x), np.full(1, n)
        k = z_quantile(conf) ** 2
        s2, g = n, int(n)
    else:
        a, b = np.asarray(num, dtype=float).ravel(), np.asarray(den, dtype=float).ravel()
        if a.shape != b.shape:
            raise ConfigError(f"rate_interval: num and den differ in length ({a.size} vs {b.size})")
        if ((a < 0) | (a > b + 1e-9)).any():
            raise ConfigError("rate_interval: every cluster needs 0 <= num <= den")
        w = np.ones_like(b) if weights is None else np.asarray(weights, dtype=float).ravel()
        if w.shape != b.shape:
            raise ConfigError(
                f"rate_interval: weights and den differ in length ({w.size} vs {b.size})"
            )
        keep = (b > 0) & (w > 0)
        a, b, w = a[keep], b[keep], w[keep]
        n, x = float(w @ b), float(w @ a)
        g = int(round(float(w.sum())))
    if n <= 0:
        return RateInterval(None, x, 0.0, None, None, 0, method, True)
    p = x / n
    if clustered:
        s2 = float(w @ (b * b))
        v = float(w @ ((a - p * b) ** 2)) * (g / (g - 1) if g > 1 else 1.0)
        vbin = p * (1 - p) * s2
        kappa = min(1.0, v / vbin) if vbin > 1e-15 else 1.0
        k = z_quantile(conf) ** 2 * kappa
    # the correction is half a step of the count's lattice in effective units: ½ × the design effect
    c = 0.5 * max(1.0, k / z_quantile(conf) ** 2 * s2 / n)
    lo = 0.0 if x <= c else _roots(x - c, n, k, s2)[0]
    hi = 1.0 if x >= n - c else _roots(x + c, n, k, s2)[1]
    lo, hi = max(0.0, min(lo, p)), min(1.0, max(hi, p))
    return RateInterval(p, x, n, lo, hi, g, method, g < MIN_N)
