"""The cluster Wilson interval: plain Wilson for one binary item per cluster, wider under clustering."""

from __future__ import annotations

import numpy as np
import pytest

from bordir.stats import correlation, influence, wilson_ratio


@pytest.mark.parametrize("k,n", [(0, 10), (3, 10), (10, 10), (41, 120)])
@pytest.mark.parametrize("conf", [0.9, 0.95])
def test_binary_clusters_give_the_wilson_interval(k, n, conf):
    stats = pytest.importorskip("scipy.stats")
    num = np.r_[np.ones(k), np.zeros(n - k)]
    est, lo, hi = wilson_ratio(num, np.ones(n), conf)
    ref = stats.binomtest(k, n).proportion_ci(confidence_level=conf, method="wilson")
    assert est == pytest.approx(k / n)
    assert lo == pytest.approx(ref.low, abs=1e-9) and hi == pytest.approx(ref.high, abs=1e-9)


def test_clustered_shares_widen_the_interval_and_respect_the_range():
    rng = np.random.default_rng(2)
    den = rng.integers(1, 8, size=20).astype(float)
    num = np.where(
        rng.random(20) < 0.5, den, 0.0
    )  # every item of a cluster agrees: strong clustering
    est, lo, hi = wilson_ratio(num, den)
    items = np.r_[np.ones(int(num.sum())), np.zeros(int((den - num).sum()))]
    _, lo_items, hi_items = wilson_ratio(items, np.ones(len(items)))  # the same items, unclustered
    assert 0 <= lo < est < hi <= 1 and (hi - lo) > (hi_items - lo_items)
    assert np.isnan(wilson_ratio(np.zeros(3), np.zeros(3))[0])


def test_influence_is_the_linearisation_of_the_ratio():
    rng = np.random.default_rng(7)
    den = rng.integers(1, 6, size=500).astype(float)
    num = rng.binomial(den.astype(int), 0.3).astype(float)
    u = influence(num, den)
    assert u.sum() == pytest.approx(0.0, abs=1e-12)
    # the linearisation variance is the jackknife variance of the ratio, to first order
    g = len(den)
    jack = (num.sum() - num) / (den.sum() - den)
    v_jack = (g - 1) / g * ((jack - jack.mean()) ** 2).sum()
    assert (u * u).sum() * g / (g - 1) == pytest.approx(v_jack, rel=0.02)
    assert correlation(u, u) == pytest.approx(1.0) and correlation(u, -u) == pytest.approx(-1.0)
    assert correlation(u, np.zeros(g)) == 0.0
    assert (influence(np.zeros(2), np.zeros(2)) == 0).all()
