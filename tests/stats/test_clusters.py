"""Per-cluster sums against pandas' groupby, and the ratio of sums."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from bordir.stats import cluster_sums, ratio


@given(st.lists(st.tuples(st.integers(-3, 40), st.integers(0, 9), st.integers(0, 9)), max_size=60))
def test_cluster_sums_match_groupby(rows):
    codes = np.array([r[0] for r in rows], dtype=np.int64)
    values = np.array([[r[1], r[2]] for r in rows], dtype=float).reshape(len(rows), 2)
    keys, sums = cluster_sums(codes, values)
    ref = pd.DataFrame(values, columns=["x", "y"]).groupby(codes).sum().sort_index()
    np.testing.assert_array_equal(keys, ref.index.to_numpy())
    np.testing.assert_array_equal(sums, ref.to_numpy())


def test_ratio_is_undefined_where_the_denominator_is_zero():
    r = ratio(np.array([1.0, 0.0, 3.0]), np.array([2.0, 0.0, -1.0]))
    assert r[0] == 0.5 and np.isnan(r[1:]).all()
