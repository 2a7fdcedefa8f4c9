"""The difference of two failure (or success) rates with its interval: unpaired or paired, and which test goes with it.

* :func:`rate_difference` — two rates on **different** items (two test suites):
  ``k1/n1 − k2/n2`` with Newcombe's hybrid score interval (Newcombe 1998,
  *Statistics in Medicine* 17:873, method 10: the two Wilson intervals combined
  by MOVER), tested with Fisher's exact test;
* :func:`paired_rate_difference` — two rates on the **same** items (a 2 × 2
  table of paired outcomes): Newcombe's interval for paired data (Newcombe 1998,
  *Statistics in Medicine* 17:2635, method 10: MOVER with the φ correlation of
  the pairs, corrected as there), tested with the exact McNemar test.

Counts are compared as rates, never as raw counts: a suite with 40 failures out
of 200 fails *less often* than one with 30 out of 100.

Example:
    >>> d = rate_difference(40, 200, 30, 100)
    >>> round(d.diff, 3), round(d.low, 4), round(d.high, 4), d.test
    (-0.1, -0.2079, 0.0014, 'fisher_exact')
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError
from .exact import fisher_exact, mcnemar_exact
from .mover import mover_difference
from .proportion import proportion_ci

__all__ = ["RateDifference", "rate_difference", "paired_rate_difference"]


@dataclass(frozen=True)
class RateDifference:
    """``rate_1 − rate_2`` with its interval, the counts and the test.

    Attributes:
        k1, n1, k2, n2: events and items of each side (paired: ``n1 == n2``, the pairs).
        rate1, rate2: ``k1 / n1`` and ``k2 / n2`` (None for an empty side).
        diff: ``rate1 − rate2`` (None when a side is empty).
        low, high: its interval (None when a side is empty).
        test: ``fisher_exact`` (unpaired) or ``mcnemar_exact`` (paired).
        p_value: the test's two-sided p-value.
        interval: ``newcombe`` (unpaired) or ``newcombe-paired``.
        discordant: paired only: ``(only the first, only the second)`` event counts.
    """

    k1: int
    n1: int
    k2: int
    n2: int
    rate1: float | None
    rate2: float | None
    diff: float | None
    low: float | None
    high: float | None
    test: str
    p_value: float
    interval: str
    conf: float = 0.95
    discordant: tuple[int, int] | None = None

    def as_dict(self) -> dict[str, Any]:
        out = {
            "k1": self.k1,
            "n1": self.n1,
            "k2": self.k2,
            "n2": self.n2,
            "rate1": self.rate1,
            "rate2": self.rate2,
            "diff": self.diff,
            "ci95" if self.conf == 0.95 else f"ci{self.conf:g}": [self.low, self.high]
            if self.low is not None
            else None,
            "interval": self.interval,
            "test": self.test,
            "p_value": self.p_value,
        }
        if self.discordant is not None:
            out["discordant"] = list(self.discordant)
        return out


def _wilson(k: int, n: int, conf: float) -> tuple[float, float, float]:
    lo, hi = proportion_ci(k, n, method="wilson", conf=conf)
    assert lo is not None and hi is not None  # n > 0 here
    return k / n, lo, hi


def _check(k: int, n: int) -> None:
    if n < 0 or not 0 <= k <= max(n, 0):
        raise ConfigError(f"a rate needs 0 <= k <= n, found k={k}, n={n}")


def rate_difference(k1: int, n1: int, k2: int, n2: int, *, conf: float = 0.95) -> RateDifference:
    """``k1/n1 − k2/n2`` for two rates on different items: Newcombe's hybrid score interval and Fisher's test.

    >>> rate_difference(3, 10, 0, 0).diff is None
    True
    """
    _check(k1, n1)
    _check(k2, n2)
    p = fisher_exact(k1, n1, k2, n2)
    if n1 == 0 or n2 == 0:
        r1, r2 = (k1 / n1 if n1 else None), (k2 / n2 if n2 else None)
        return RateDifference(
            k1, n1, k2, n2, r1, r2, None, None, None, "fisher_exact", p, "newcombe", conf
        )
    w1, w2 = _wilson(k1, n1, conf), _wilson(k2, n2, conf)
    d, lo, hi = mover_difference(*w1, *w2, 0.0)
    return RateDifference(
        k1,
        n1,
        k2,
        n2,
        w1[0],
        w2[0],
        d,
        max(lo, -1.0),
        min(hi, 1.0),
        "fisher_exact",
        p,
        "newcombe",
        conf,
    )


def paired_rate_difference(
    both: int, only_first: int, only_second: int, neither: int, *, conf: float = 0.95
) -> RateDifference:
    """The rates of two outcomes on the same items (a paired 2 × 2 table): Newcombe's paired interval, exact McNemar.

    ``rate1 = (both + only_first) / n``, ``rate2 = (both + only_second) / n``.

    >>> d = paired_rate_difference(10, 8, 2, 30)
    >>> round(d.diff, 2), d.test, d.discordant
    (0.12, 'mcnemar_exact', (8, 2))
    """
    cells = (both, only_first, only_second, neither)
    if any(c < 0 for c in cells):
        raise ConfigError(f"a paired table needs counts >= 0, found {cells}")
    a, b, c, d_ = cells
    n = a + b + c + d_
    p = mcnemar_exact(b=b, c=c)
    k1, k2 = a + b, a + c
    if n == 0:
        return RateDifference(
            0,
            0,
            0,
            0,
            None,
            None,
            None,
            None,
            None,
            "mcnemar_exact",
            p,
            "newcombe-paired",
            conf,
            (b, c),
        )
    w1, w2 = _wilson(k1, n, conf), _wilson(k2, n, conf)
    denom = (a + b) * (c + d_) * (a + c) * (b + d_)
    num = a * d_ - b * c
    # Newcombe's correction of φ: a positive numerator is reduced by n / 2 (not below 0)
    corrected = max(num - n / 2, 0.0) if num > 0 else float(num)
    phi = corrected / math.sqrt(denom) if denom > 0 else 0.0
    diff, lo, hi = mover_difference(*w1, *w2, phi)
    return RateDifference(
        k1, n, k2, n, w1[0], w2[0], diff, max(lo, -1.0), min(hi, 1.0), "mcnemar_exact", p,
        "newcombe-paired", conf, (b, c),
    )  # fmt: skip
