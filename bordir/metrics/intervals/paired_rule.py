"""When a paired comparison over territories is tested, and when it has an interval: one rule for all.

Every comparison of two modes (or two models) bordir prints — ``Run.compare`` for a
per-language measure or a CS metric, ``bordir compare``, the report's comparisons with
``no_ir`` and its per-language section — pairs the two sides by territory and follows this rule:

* **the test** is the two-sided sign-flip (swap) permutation test over the paired territories,
  ``p = (c + 1) / (n + 1)``. It is exact at any number of territories (under the null the two
  sides are exchangeable within a territory), but with *n* territories its smallest possible
  p-value is ``2 / 2^n``: below :func:`min_testable` (6 territories at α = 0.05) it cannot
  reach α at all, so the comparison is **too few to judge** (point estimate and count shown, no
  p-value, not in the Holm family);
* **the interval** is the paired percentile cluster bootstrap. It is not exact: it under-covers
  with few territories (82–91 % at 12, 92–94 % at 30; ``docs/metrics.md``), so it is given only
  from :data:`MIN_INTERVAL_TERRITORIES` (``MIN_CLUSTERS``, 30) paired territories. Between the two
  thresholds a comparison is judged by its p-value alone and ``ci_refused`` says why there is no
  interval.

Example:
    >>> min_testable(0.05), min_testable(0.01)
    (6, 8)
    >>> paired_status(12, DEFAULT_MIN_TERRITORIES), paired_status(3, DEFAULT_MIN_TERRITORIES)
    ('judged', 'too few to judge')
    >>> interval_refused(12)
    'no interval: 12 paired territories; the paired bootstrap interval needs 30 (it under-covers below)'
"""

from __future__ import annotations

from .bootstrap import MIN_CLUSTERS

__all__ = [
    "ALPHA",
    "DEFAULT_MIN_TERRITORIES",
    "MIN_INTERVAL_TERRITORIES",
    "STATUSES",
    "interval_refused",
    "min_testable",
    "paired_status",
    "resolve_min_territories",
]

ALPHA = 0.05
"""The default family-wise level of every paired comparison (Holm)."""
MIN_INTERVAL_TERRITORIES = MIN_CLUSTERS
"""Fewest paired territories for a paired cluster-bootstrap interval (``MIN_CLUSTERS``)."""
STATUSES: tuple[str, ...] = ("judged", "too few to judge", "undefined")
"""``judged``: tested (p-value; an interval too from :data:`MIN_INTERVAL_TERRITORIES`); ``too few to
judge``: fewer paired territories than the test needs; ``undefined``: no territory has the measure on
both sides."""


def min_testable(alpha: float = ALPHA) -> int:
    """The fewest paired territories at which the two-sided sign-flip test can reach ``alpha``: ``2 / 2^n ≤ alpha``.

    >>> [min_testable(a) for a in (0.5, 0.1, 0.05)]
    [2, 5, 6]
    """
    if not 0 < alpha < 1:
        from ...errors import ConfigError

        raise ConfigError(f"alpha must be in (0, 1), found {alpha}")
    n = 1
    while 2.0 / 2**n > alpha:
        n += 1
    return n


DEFAULT_MIN_TERRITORIES = min_testable(ALPHA)
"""Comparisons over fewer paired territories are ``too few to judge`` (6: :func:`min_testable` at α = 0.05)."""


def resolve_min_territories(min_territories: int | None, alpha: float = ALPHA) -> int:
    """``min_territories`` as given, or :func:`min_testable` of ``alpha`` when None."""
    return min_testable(alpha) if min_territories is None else int(min_territories)


def paired_status(n: int, min_territories: int) -> str:
    """The status of a comparison over ``n`` paired territories (:data:`STATUSES`)."""
    if n <= 0:
        return "undefined"
    return "judged" if n >= min_territories else "too few to judge"


def interval_refused(n: int) -> str | None:
    """Why a comparison over ``n`` paired territories has no interval, or None when it has one."""
    if n >= MIN_INTERVAL_TERRITORIES:
        return None
    return (
        f"no interval: {n} paired territories; the paired bootstrap interval needs "
        f"{MIN_INTERVAL_TERRITORIES} (it under-covers below)"
    )
