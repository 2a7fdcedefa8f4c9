"""Binomial intervals of a proportion: Wilson score, continuity-corrected Wilson, Clopper–Pearson exact.

``wilsoncc`` is :func:`bordir.stats.rate_interval`, the interval every rate bordir prints (it
covers ≥ 95 % from n = 5 and p = 0.01 up; plain Wilson dips to 91 % at n = 50, p = 0.01); ``wilson``
and ``beta`` (Clopper–Pearson) come from ``statsmodels`` (the ``stats`` extra). The method is named
in signatures (``ci:wilsoncc95``, ``ci:wilson95`` or ``ci:cp95``, :func:`ci_name`).

Example:
    >>> lo, hi = proportion_ci(3, 10)
    >>> round(lo, 4), round(hi, 4)
    (0.1078, 0.6032)
"""

from __future__ import annotations

from .._extras import require
from ..errors import ConfigError
from .rate import rate_interval

__all__ = ["PROPORTION_METHODS", "ci_name", "proportion_ci"]

PROPORTION_METHODS: dict[str, str] = {"wilsoncc": "wilsoncc", "wilson": "wilson", "beta": "cp"}
"""Interval methods (``statsmodels`` names) and their tag in signatures."""


def ci_name(method: str = "wilson", conf: float = 0.95) -> str:
    """The interval's name in signatures: ``wilson95`` or ``cp95``.

    >>> ci_name("beta", 0.9)
    'cp90'
    """
    tag = PROPORTION_METHODS.get(method)
    if tag is None:
        raise ConfigError(
            "interval method must be 'wilsoncc' (continuity-corrected Wilson), 'wilson' or 'beta' "
            f"(Clopper–Pearson), found {method!r}"
        )
    return f"{tag}{round(conf * 100):d}"


def proportion_ci(
    k: int, n: int, *, method: str = "wilson", conf: float = 0.95
) -> tuple[float | None, float | None]:
    """Two-sided ``conf`` interval for ``k / n``: ``wilsoncc`` (:func:`~bordir.stats.rate_interval`), ``wilson``, ``beta``.

    ``(None, None)`` for ``n = 0``; bounds within 1e-12 of 0 or 1 are snapped to them.
    """
    ci_name(method, conf)
    if n <= 0:
        return None, None
    if not 0 <= k <= n:
        raise ConfigError(f"proportion_ci: need 0 <= k <= n, found k={k}, n={n}")
    if method == "wilsoncc":
        r = rate_interval(k, n, conf=conf)
        return r.low, r.high
    proportion = require("statsmodels.stats.proportion", "stats", purpose="binomial intervals")
    lo, hi = proportion.proportion_confint(k, n, alpha=1 - conf, method=method)
    lo, hi = float(lo), float(hi)
    return (0.0 if lo < 1e-12 else lo), (1.0 if hi > 1 - 1e-12 else hi)
