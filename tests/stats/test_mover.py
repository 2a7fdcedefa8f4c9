"""MOVER intervals: Newcombe's hybrid score interval of a difference (statsmodels ``newcomb``), and the ratio."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bordir.stats import mover_difference, mover_log_ratio, wilson_ratio


def _wilson(k: int, n: int) -> tuple[float, float, float]:
    return wilson_ratio(np.r_[np.ones(k), np.zeros(n - k)], np.ones(n))


@pytest.mark.parametrize(
    "k1,n1,k2,n2", [(56, 70, 48, 80), (9, 10, 3, 10), (5, 56, 0, 29), (10, 10, 10, 10)]
)
def test_independent_difference_is_newcombes_hybrid_score_interval(k1, n1, k2, n2):
    prop = pytest.importorskip("statsmodels.stats.proportion")
    d, lo, hi = mover_difference(*_wilson(k1, n1), *_wilson(k2, n2), 0.0)
    ref_lo, ref_hi = prop.confint_proportions_2indep(
        k1, n1, k2, n2, method="newcomb", compare="diff"
    )
    assert d == pytest.approx(k1 / n1 - k2 / n2)
    assert lo == pytest.approx(ref_lo, abs=1e-9) and hi == pytest.approx(ref_hi, abs=1e-9)


def test_newcombes_published_example():
    """Newcombe (1998), Statistics in Medicine 17, method 10, example (a): 56/70 − 48/80: (0.0524, 0.3339)."""
    _, lo, hi = mover_difference(*_wilson(56, 70), *_wilson(48, 80), 0.0)
    assert (round(lo, 4), round(hi, 4)) == (0.0524, 0.3339)


def test_positive_correlation_narrows_the_difference():
    one, two = _wilson(30, 50), _wilson(20, 50)
    _, lo0, hi0 = mover_difference(*one, *two, 0.0)
    _, lo5, hi5 = mover_difference(*one, *two, 0.5)
    assert lo5 > lo0 and hi5 < hi0


def test_log_ratio_is_mover_on_the_log_scale_back_transformed():
    (e1, l1, h1), (e2, l2, h2) = _wilson(30, 50), _wilson(20, 50)
    r, lo, hi = mover_log_ratio(e1, l1, h1, e2, l2, h2, 0.2)
    _, llo, lhi = mover_difference(
        math.log(e1), math.log(l1), math.log(h1), math.log(e2), math.log(l2), math.log(h2), 0.2
    )
    assert r == pytest.approx(e1 / e2 - 1)
    assert (lo, hi) == pytest.approx((math.expm1(llo), math.expm1(lhi)))
    assert math.isnan(mover_log_ratio(0.5, 0.2, 0.8, 0.0, 0.0, 0.1, 0.0)[0])  # undefined: e2 = 0
    assert (
        mover_log_ratio(0.3, 0.1, 0.5, 0.2, 0.0, 0.4, 0.0)[2] == math.inf
    )  # the denominator may be 0
    assert mover_log_ratio(0.0, 0.0, 0.2, 0.3, 0.1, 0.5, 0.0)[:2] == (-1.0, -1.0)
