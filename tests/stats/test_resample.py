"""Cluster-bootstrap resample counts against resampling indices and the multinomial law."""

from __future__ import annotations

import numpy as np
import pytest

from bordir.stats import bootstrap_weights, multinomial_weights


def test_bootstrap_weights_are_the_counts_of_the_drawn_indices():
    n, b = 7, 50
    w = bootstrap_weights(n, b, np.random.default_rng(3))
    idx = np.random.default_rng(3).integers(0, n, size=(b, n))  # the same draws, as indices
    expected = np.stack([np.bincount(row, minlength=n) for row in idx])
    assert w.shape == (b, n) and w.dtype.kind == "i"
    np.testing.assert_array_equal(w, expected)
    x = np.random.default_rng(0).normal(size=n)
    np.testing.assert_allclose(w @ x, x[idx].sum(axis=1))  # a weighted sum = the resample's sum


def test_multinomial_weights_resample_profiles_with_the_cluster_law():
    weight = np.array([5.0, 3.0, 2.0])  # 10 clusters in three profiles
    w = multinomial_weights(weight, 20_000, np.random.default_rng(1))
    assert (w.sum(axis=1) == 10).all()
    np.testing.assert_allclose(w.mean(axis=0), weight, rtol=0.03)  # E = n p
    cov = np.cov(w.T)
    p = weight / 10
    np.testing.assert_allclose(cov, 10 * (np.diag(p) - np.outer(p, p)), atol=0.08)
    assert multinomial_weights(np.zeros(0), 4, np.random.default_rng(0)).shape == (4, 0)


def test_percentile_bootstrap_of_a_mean_agrees_with_scipy():
    stats = pytest.importorskip("scipy.stats")
    from bordir.stats import percentile_bounds

    x = np.random.default_rng(5).exponential(size=40)
    w = bootstrap_weights(len(x), 20_000, np.random.default_rng(2))
    lo, hi, n_undefined = percentile_bounds(w @ x / len(x), 0.95)
    ref = stats.bootstrap(
        (x,),
        np.mean,
        n_resamples=20_000,
        method="percentile",
        random_state=np.random.default_rng(9),
    ).confidence_interval
    assert n_undefined == 0
    assert lo == pytest.approx(ref.low, abs=0.03) and hi == pytest.approx(ref.high, abs=0.03)
