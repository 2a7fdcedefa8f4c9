"""Binomial intervals and exact tests for failure rates: Wilson, Clopper–Pearson, exact McNemar, Fisher, sign test.

Thin wrappers over ``statsmodels`` and ``scipy`` (extra ``stats``), so that
every testgen rate carries an interval whose method is named in its signature
(``ci:wilson95`` or ``ci:cp95``):

* :func:`proportion_ci` — Wilson score (``wilson``) or Clopper–Pearson exact
  (``beta``) interval of ``k`` successes in ``n`` trials; ``(None, None)`` for ``n = 0``;
* :func:`mcnemar_exact` — paired: two configurations on the **same** tests; the
  two-sided exact binomial test on the discordant pairs (``b`` tests only the
  first fails, ``c`` only the second): ``p = min(1, 2·P(X ≤ min(b, c)))``, ``X ~ Bin(b + c, ½)``;
* :func:`fisher_exact` — unpaired: two different test sets (strategy vs baseline suites);
* :func:`sign_test` — over configurations: in how many does one generator find
  more failures than the other (ties left out), two-sided exact binomial.

Example:
    >>> lo, hi = proportion_ci(3, 10)
    >>> round(lo, 4), round(hi, 4)
    (0.1078, 0.6032)
    >>> round(mcnemar_exact(b=7, c=1), 4)
    0.0703
"""

from __future__ import annotations

from .._extras import require

__all__ = ["proportion_ci", "ci_name", "mcnemar_exact", "fisher_exact", "sign_test"]


def ci_name(method: str = "wilson", conf: float = 0.95) -> str:
    """The interval's name in signatures: ``wilson95`` or ``cp95``.

    >>> ci_name("beta", 0.9)
    'cp90'
    """
    tag = {"wilson": "wilson", "beta": "cp"}.get(method)
    if tag is None:
        from ..errors import ConfigError

        raise ConfigError(
            f"interval method must be 'wilson' or 'beta' (Clopper–Pearson), found {method!r}"
        )
    return f"{tag}{round(conf * 100):d}"


def proportion_ci(
    k: int, n: int, *, method: str = "wilson", conf: float = 0.95
) -> tuple[float | None, float | None]:
    """Two-sided ``conf`` interval for the proportion ``k / n`` (see module docs)."""
    ci_name(method, conf)
    if n <= 0:
        return None, None
    if not 0 <= k <= n:
        from ..errors import ConfigError

        raise ConfigError(f"proportion_ci: need 0 <= k <= n, found k={k}, n={n}")
    proportion = require("statsmodels.stats.proportion", "stats", purpose="binomial intervals")
    lo, hi = proportion.proportion_confint(k, n, alpha=1 - conf, method=method)
    lo, hi = float(lo), float(hi)
    return (0.0 if lo < 1e-12 else lo), (1.0 if hi > 1 - 1e-12 else hi)


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
