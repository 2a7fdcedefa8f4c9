"""Sign-flip tests against the exact permutation distribution (all 2^n flips) and scipy's permutation test."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from bordir.stats import flip_matrix, permutation_pvalue, sign_flip_pvalue, sign_flip_test


def _exact(d: np.ndarray) -> float:
    obs = abs(d.mean())
    flips = np.array(list(itertools.product([False, True], repeat=len(d))))
    perm = np.abs(np.where(flips, -d, d).mean(axis=1))
    return float((perm >= obs - 1e-12).mean())


@pytest.mark.parametrize("seed", range(4))
def test_sign_flip_test_estimates_the_exact_p_value(seed):
    d = np.random.default_rng(seed).normal(0.3, 1.0, size=10)
    exact = _exact(d)
    p = sign_flip_test(d, n_permutations=20_000, seed=seed)
    assert abs(p - exact) < 4 * np.sqrt(exact * (1 - exact) / 20_000) + 1e-4


def test_exact_p_value_is_scipys_exact_paired_permutation_test():
    stats = pytest.importorskip("scipy.stats")
    d = np.array([0.4, -0.1, 0.3, 0.25, 0.5, -0.2, 0.35, 0.1])
    ref = stats.permutation_test(
        (d,), np.mean, permutation_type="samples", n_resamples=np.inf, alternative="two-sided"
    )
    assert _exact(d) == pytest.approx(ref.pvalue)


def test_p_value_is_c_plus_one_over_n_plus_one():
    d = np.array([0.2, 0.1, 0.3, 0.25, 0.15] * 4)
    flips = flip_matrix(999, len(d), np.random.default_rng(3))
    perm = np.abs(np.where(flips, -d, d).mean(axis=1))
    c = int((perm >= abs(d.mean()) - 1e-12).sum())
    assert sign_flip_pvalue(d, flips) == (c + 1) / 1000
    assert sign_flip_test(d, n_permutations=999, seed=3) == (c + 1) / 1000 == 1 / 1000  # never 0
    assert sign_flip_test([0.0, 0.0], n_permutations=99, seed=1) == 1.0
    assert sign_flip_test([np.nan, 0.5, np.nan], n_permutations=9, seed=1) == 1.0  # NaN left out
    assert (
        permutation_pvalue(0.5, np.array([0.1, 0.6, np.nan, -0.7])) == 0.75
    )  # undefined ones not counted


def test_the_null_distribution_is_uniform_enough():
    """Under H0 the level of the test is at most alpha (Phipson & Smyth)."""
    rng = np.random.default_rng(0)
    ps = [sign_flip_test(rng.normal(size=12), n_permutations=199, seed=i) for i in range(400)]
    assert np.mean(np.array(ps) <= 0.05) <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 400)
