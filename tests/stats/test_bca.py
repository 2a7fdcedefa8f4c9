"""BCa bounds against scipy's BCa bootstrap (the same data, independent resamples)."""

from __future__ import annotations

import numpy as np
import pytest

from bordir.stats import bca_bounds, bootstrap_weights, percentile_bounds


def test_bca_matches_scipy_on_a_skewed_mean():
    stats = pytest.importorskip("scipy.stats")
    x = np.random.default_rng(11).lognormal(sigma=1.0, size=30)
    n = len(x)
    w = bootstrap_weights(n, 40_000, np.random.default_rng(1))
    jack = (x.sum() - x) / (n - 1)
    lo, hi = bca_bounds(w @ x / n, float(x.mean()), jack, 0.95)
    ref = stats.bootstrap(
        (x,), np.mean, n_resamples=40_000, method="BCa", random_state=np.random.default_rng(2)
    ).confidence_interval
    assert lo == pytest.approx(ref.low, rel=0.03) and hi == pytest.approx(ref.high, rel=0.03)
    p_lo, p_hi, _ = percentile_bounds(w @ x / n, 0.95)
    assert lo > p_lo and hi > p_hi  # a right-skewed mean: BCa moves both bounds up


def test_bca_without_bias_or_skew_is_the_percentile_interval():
    boot = np.linspace(0.0, 1.0, 1001)
    lo, hi = bca_bounds(boot, 0.5, np.array([0.4, 0.5, 0.6]))
    p_lo, p_hi, _ = percentile_bounds(boot, 0.95)
    assert (lo, hi) == pytest.approx((p_lo, p_hi))
    assert bca_bounds(np.array([np.nan]), 0.5, np.array([0.5])) == (None, None)
