"""The cluster Wilson interval: plain Wilson for one binary item per cluster, wider under clustering."""

from __future__ import annotations

import numpy as np
import pytest

from bordir.stats import correlation, influence, wilson_ratio
from bordir.stats.cluster_wilson import wilson_from_sums


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


def test_clusters_that_all_hold_the_same_interior_mix_get_the_plain_wilson_interval_of_the_units():
    """12 answers, each citing one Russian source of two: no spread between clusters, yet 24 units."""
    stats = pytest.importorskip("scipy.stats")
    one = np.ones(12)
    est, lo, hi = wilson_ratio(one, 2 * one)
    ref = stats.binomtest(12, 24).proportion_ci(method="wilson")
    assert est == 0.5 and lo < 0.5 < hi  # not the point [0.5, 0.5]
    assert (lo, hi) == pytest.approx((ref.low, ref.high), abs=1e-12)


@pytest.mark.parametrize("seed", range(30))
def test_counts_never_get_an_interval_narrower_than_the_units_counted_as_independent(seed):
    rng = np.random.default_rng(seed)
    g = int(rng.integers(1, 40))
    den = rng.integers(1, 8, g).astype(float)
    num = (
        np.floor(den * rng.random())
        if seed % 2
        else rng.binomial(den.astype(int), 0.3).astype(float)
    )
    _, lo, hi = wilson_ratio(num, den)
    k, n = int(num.sum()), int(den.sum())
    _, plo, phi = wilson_ratio(np.r_[np.ones(k), np.zeros(n - k)], np.ones(n))
    assert lo <= plo + 1e-12 and hi >= phi - 1e-12
    # the same interval from the sums (as an audit computes hundreds at once)
    sums = [
        np.array([v])
        for v in (num.sum(), (num**2).sum(), (num * den).sum(), den.sum(), (den**2).sum(), g)
    ]
    _, slo, shi = wilson_from_sums(*sums)
    assert (slo[0], shi[0]) == pytest.approx((lo, hi), abs=1e-9)


def test_shares_that_are_not_counts_keep_their_cluster_variance():
    """A territory's share averaged over runs may vary less than a binomial: no floor (unless asked)."""
    num = np.array([0.5, 0.6, 0.5, 0.4] * 3)
    _, lo, hi = wilson_ratio(num, np.ones(12))
    _, flo, fhi = wilson_ratio(num, np.ones(12), floor=True)
    assert hi - lo < 0.5 * (fhi - flo)
