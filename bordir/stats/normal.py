"""Two-sided critical values: the standard normal's (the standard library's :class:`statistics.NormalDist`) and Student's t (scipy, remembered per level and degrees of freedom).

Example:
    >>> round(z_quantile(0.95), 4)
    1.96
"""

from __future__ import annotations

from functools import lru_cache
from statistics import NormalDist

from .._extras import require

__all__ = ["z_quantile", "t_quantile"]


def z_quantile(conf: float) -> float:
    """The two-sided critical value of a ``conf`` interval: the ``1 − (1 − conf) / 2`` normal quantile."""
    return NormalDist().inv_cdf(1 - (1 - conf) / 2)


@lru_cache(maxsize=1024)
def t_quantile(conf: float, df: int) -> float:
    """The ``1 − (1 − conf) / 2`` quantile of Student's t with ``df`` degrees of freedom (scipy).

    A report asks for the same few values hundreds of times; each is computed once.

    Raises:
        MissingExtraError: scipy is missing (``pip install 'bordir[stats]'``).
    """
    stats = require("scipy.stats", "stats", purpose="t-intervals")
    return float(stats.t.ppf(1 - (1 - conf) / 2, df))
