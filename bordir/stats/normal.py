"""Quantiles of the standard normal distribution (the standard library's :class:`statistics.NormalDist`).

Example:
    >>> round(z_quantile(0.95), 4)
    1.96
"""

from __future__ import annotations

from statistics import NormalDist

__all__ = ["z_quantile"]


def z_quantile(conf: float) -> float:
    """The two-sided critical value of a ``conf`` interval: the ``1 − (1 − conf) / 2`` normal quantile."""
    return NormalDist().inv_cdf(1 - (1 - conf) / 2)
