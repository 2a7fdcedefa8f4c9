"""Two-sided critical values: the standard normal's (the standard library's :class:`statistics.NormalDist`) and Student's t (scipy.special, remembered per level and degrees of freedom).

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

    ``scipy.special.stdtrit``, which ``scipy.stats.t.ppf`` calls: the same float, without importing
    ``scipy.stats`` (about 1 s of a report's start on a 2-core machine, against 0.3–0.5 s for
    ``scipy.special``). A report asks for the same few values hundreds of times; each is computed once.

    Raises:
        MissingExtraError: scipy is missing (``pip install 'bordir[stats]'``).
    """
    special = require("scipy.special", "stats", purpose="t-intervals")
    return float(special.stdtrit(df, 1 - (1 - conf) / 2))
