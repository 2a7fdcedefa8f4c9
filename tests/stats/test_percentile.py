"""Percentile intervals of resamples against numpy's percentile and order statistics."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bordir.stats import percentile_bounds, percentile_columns, quantiles


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=60),
    st.sampled_from([0.5, 0.8, 0.9, 0.95, 0.99]),
    st.integers(0, 5),
)
def test_bounds_are_the_percentiles_of_the_defined_values(values, conf, n_nan):
    v = np.array(values + [np.nan] * n_nan)
    lo, hi, undefined = percentile_bounds(v, conf)
    a = 100 * (1 - conf) / 2
    ref_lo, ref_hi = np.nanpercentile(v, [a, 100 - a])
    assert undefined == n_nan
    assert lo == pytest.approx(ref_lo, rel=1e-9, abs=1e-9)
    assert hi == pytest.approx(ref_hi, rel=1e-9, abs=1e-9)


def test_infinite_resamples_give_order_statistics_not_interpolations():
    v = np.array([0.0, 1.0, 2.0, 3.0, np.inf])
    assert quantiles(v, [0.5, 0.9]) == [2.0, np.inf]
    lo, hi, _ = percentile_bounds(np.r_[np.arange(97.0), [np.inf] * 3], 0.95)
    assert (lo, hi) == (2.0, np.inf)  # the 97.5 % order statistic is infinite: no finite bound


def test_no_defined_resample_gives_no_interval():
    assert percentile_bounds(np.array([np.nan, np.nan]), 0.95) == (None, None, 2)
    assert percentile_bounds(np.array([]), 0.95) == (None, None, 0)


def test_columns_are_bounded_one_by_one():
    rng = np.random.default_rng(0)
    b = rng.normal(size=(500, 3))
    b[::7, 1] = np.nan
    b[:, 2] = np.nan
    lo, hi = percentile_columns(b, 0.9)
    for j in range(2):
        r_lo, r_hi, _ = percentile_bounds(b[:, j], 0.9)
        assert (lo[j], hi[j]) == pytest.approx((r_lo, r_hi))
    assert np.isnan(lo[2]) and np.isnan(hi[2])
