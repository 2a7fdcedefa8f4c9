"""Exact tests of counts (``scipy``, the ``stats`` extra): McNemar, Fisher, the sign test.

* :func:`mcnemar_exact` — paired: two configurations on the **same** items; the
  two-sided exact binomial test on the discordant pairs (``b`` items only the
  first fails, ``c`` only the second): ``p = min(1, 2·P(X ≤ min(b, c)))``, ``X ~ Bin(b + c, ½)``;
* :func:`fisher_exact` — unpaired: two proportions from different item sets;
* :func:`sign_test` — wins against losses (ties left out by the caller), two-sided exact binomial.

Example:
    >>> round(mcnemar_exact(b=7, c=1), 4)
    0.0703
"""

from __future__ import annotations

from .._extras import require

__all__ = ["mcnemar_exact", "fisher_exact", "sign_test"]


def mcnemar_exact(*, b: int, c: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts ``b`` and ``c`` (1.0 when ``b + c = 0``)."""
    if b + c == 0:
        return 1.0
    stats = require("scipy.stats", "stats", purpose="exact McNemar tests")
    return float(stats.binomtest(min(b, c), b + c, 0.5, alternative="two-sided").pvalue)


def fisher_exact(k1: int, n1: int, k2: int, n2: int) -> float:
    """Two-sided Fisher exact p-value for ``k1/n1`` vs ``k2/n2`` (1.0 if a group is empty)."""
    if n1 == 0 or n2 == 0:
        return 1.0
    stats = require("scipy.stats", "stats", purpose="Fisher exact tests")
    return float(stats.fisher_exact([[k1, n1 - k1], [k2, n2 - k2]]).pvalue)


def sign_test(wins: int, losses: int) -> float:
    """Two-sided exact sign test p-value (ties excluded by the caller); 1.0 with no untied pair."""
    if wins + losses == 0:
        return 1.0
    stats = require("scipy.stats", "stats", purpose="sign tests")
    return float(stats.binomtest(wins, wins + losses, 0.5, alternative="two-sided").pvalue)
