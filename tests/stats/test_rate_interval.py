"""``bordir.stats.rate_interval``: the continuity-corrected Wilson interval, cluster-adjusted (issue 50.2)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bordir.errors import ConfigError
from bordir.stats import MIN_N, format_rate, rate_interval, wilson_ratio


def _newcombe4(x: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Newcombe (1998), method 4: the Wilson score interval with continuity correction (closed form)."""
    p, q = x / n, 1 - x / n
    lo = (2 * n * p + z * z - 1 - z * math.sqrt(z * z - 2 - 1 / n + 4 * p * (n * q + 1))) / (
        2 * (n + z * z)
    )
    hi = (2 * n * p + z * z + 1 + z * math.sqrt(z * z + 2 - 1 / n + 4 * p * (n * q - 1))) / (
        2 * (n + z * z)
    )
    return (0.0 if x == 0 else max(lo, 0.0)), (1.0 if x == n else min(hi, 1.0))


@pytest.mark.parametrize("n", [1, 2, 5, 20, 50, 250])
def test_independent_items_give_newcombes_method_4(n):
    for x in range(n + 1):
        r = rate_interval(x, n)
        lo, hi = _newcombe4(x, n)
        assert (r.low, r.high) == (pytest.approx(lo, abs=1e-12), pytest.approx(hi, abs=1e-12))
        assert r.method == "wilsoncc95" and r.too_few == (n < MIN_N)


def test_one_item_per_cluster_is_the_independent_interval():
    a = np.array([1.0] * 3 + [0.0] * 17)
    c, i = rate_interval(a, np.ones(20)), rate_interval(3, 20)
    assert (c.low, c.high) == (pytest.approx(i.low), pytest.approx(i.high))
    assert c.method == "cwilsoncc95"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(1, 3)), min_size=1, max_size=30))
def test_weights_are_repeated_clusters_and_no_interval_has_zero_width(clusters):
    num = np.array([min(a, b) for a, b in clusters], dtype=float)
    den = np.array([b for _, b in clusters], dtype=float)
    r = rate_interval(num, den)
    assert r.low < r.high and r.low <= r.value <= r.high
    w = np.arange(1, len(num) + 1)
    weighted = rate_interval(num, den, weights=w)
    expanded = rate_interval(np.repeat(num, w), np.repeat(den, w))
    assert weighted.low == pytest.approx(expanded.low) and weighted.high == pytest.approx(
        expanded.high
    )


def test_clusters_that_all_agree_are_wider_than_independent_items():
    # 10 clusters of 3 answers, every cluster all-or-nothing: the interval of 10 clusters, not 30 items
    r = rate_interval(np.array([3.0] * 2 + [0.0] * 8), np.full(10, 3.0))
    assert r.high - r.low > rate_interval(6, 30).high - rate_interval(6, 30).low
    # and the correction keeps it at least as wide as the cluster Wilson interval without it
    _, lo, hi = wilson_ratio(np.array([3.0] * 2 + [0.0] * 8), np.full(10, 3.0))
    assert r.low <= lo and r.high >= hi


def test_undefined_and_bad_input():
    assert rate_interval(0, 0).value is None and format_rate(None, None, None, 0, 0) == "– (0/0)"
    with pytest.raises(ConfigError, match="0 <= count <= n"):
        rate_interval(3, 2)
    with pytest.raises(ConfigError, match="differ in length"):
        rate_interval([1, 2], [3])
