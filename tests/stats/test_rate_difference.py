"""The difference of two rates: Newcombe's unpaired interval (statsmodels ``newcomb``) and his paired one."""

from __future__ import annotations

import math

import pytest

from bordir.errors import ConfigError
from bordir.stats import paired_rate_difference, proportion_ci, rate_difference


@pytest.mark.parametrize(
    "k1,n1,k2,n2", [(40, 200, 30, 100), (56, 70, 48, 80), (0, 12, 5, 9), (10, 10, 10, 10)]
)
def test_unpaired_difference_is_newcombes_interval_with_fishers_test(k1, n1, k2, n2):
    prop = pytest.importorskip("statsmodels.stats.proportion")
    stats = pytest.importorskip("scipy.stats")
    d = rate_difference(k1, n1, k2, n2)
    lo, hi = prop.confint_proportions_2indep(k1, n1, k2, n2, method="newcomb", compare="diff")
    assert d.diff == pytest.approx(k1 / n1 - k2 / n2)
    assert d.low == pytest.approx(max(lo, -1), abs=1e-9) and d.high == pytest.approx(
        min(hi, 1), abs=1e-9
    )
    ref_p = stats.fisher_exact([[k1, n1 - k1], [k2, n2 - k2]]).pvalue
    assert d.test == "fisher_exact" and d.p_value == pytest.approx(ref_p)
    assert (d.k1, d.n1, d.k2, d.n2) == (k1, n1, k2, n2)


def _newcombe_paired(a: int, b: int, c: int, d: int) -> tuple[float, float]:
    """Newcombe (1998b) method 10, written out as in biostatUZH's ``confIntPairedProportion``."""
    n = a + b + c + d
    p1, p2 = (a + b) / n, (a + c) / n
    l1, u1 = proportion_ci(a + b, n)
    l2, u2 = proportion_ci(a + c, n)
    big_a = (a + b) * (c + d) * (a + c) * (b + d)
    big_b = a * d - b * c
    cc = big_b - n / 2 if big_b > n / 2 else (big_b if big_b < 0 else 0.0)
    phi = cc / math.sqrt(big_a) if big_a > 0 else 0.0
    lo = (p1 - p2) - math.sqrt((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2)
    hi = (p1 - p2) + math.sqrt((p2 - l2) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1) + (u1 - p1) ** 2)
    return lo, hi


@pytest.mark.parametrize("table", [(10, 8, 2, 30), (30, 1, 9, 10), (5, 0, 0, 5), (0, 3, 7, 0)])
def test_paired_difference_is_newcombes_paired_interval_with_mcnemar(table):
    stats = pytest.importorskip("scipy.stats")
    a, b, c, d = table
    r = paired_rate_difference(*table)
    lo, hi = _newcombe_paired(*table)
    assert r.diff == pytest.approx((b - c) / sum(table))
    assert r.low == pytest.approx(max(lo, -1), abs=1e-12) and r.high == pytest.approx(
        min(hi, 1), abs=1e-12
    )
    ref = 1.0 if b + c == 0 else stats.binomtest(min(b, c), b + c, 0.5).pvalue
    assert r.test == "mcnemar_exact" and r.p_value == pytest.approx(ref)
    assert r.discordant == (b, c) and r.n1 == r.n2 == sum(table)


def test_empty_sides_and_bad_counts():
    assert (
        rate_difference(0, 0, 1, 2).diff is None
        and rate_difference(0, 0, 1, 2).as_dict()["ci95"] is None
    )
    assert paired_rate_difference(0, 0, 0, 0).diff is None
    with pytest.raises(ConfigError, match="0 <= k <= n"):
        rate_difference(3, 2, 1, 2)
    with pytest.raises(ConfigError, match="counts >= 0"):
        paired_rate_difference(1, -1, 0, 0)
