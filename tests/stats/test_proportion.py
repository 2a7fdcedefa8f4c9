"""Wilson and Clopper–Pearson intervals against scipy's ``binomtest`` (an implementation independent of statsmodels)."""

from __future__ import annotations

import pytest

from bordir.errors import ConfigError
from bordir.stats import ci_name, proportion_ci


@pytest.mark.parametrize("k,n", [(0, 5), (3, 10), (7, 7), (1, 200), (117, 382)])
@pytest.mark.parametrize("conf", [0.9, 0.95, 0.99])
def test_intervals_match_scipy(k, n, conf):
    stats = pytest.importorskip("scipy.stats")
    test = stats.binomtest(k, n)
    for method, ref_method in (("wilson", "wilson"), ("beta", "exact")):
        ref = test.proportion_ci(confidence_level=conf, method=ref_method)
        lo, hi = proportion_ci(k, n, method=method, conf=conf)
        assert lo == pytest.approx(ref.low, abs=1e-9) and hi == pytest.approx(ref.high, abs=1e-9)


def test_names_and_bad_input():
    assert (ci_name(), ci_name("beta", 0.9)) == ("wilson95", "cp90")
    assert proportion_ci(0, 0) == (None, None)
    with pytest.raises(ConfigError, match="0 <= k <= n"):
        proportion_ci(3, 2)
    with pytest.raises(ConfigError, match="'wilson' or 'beta'"):
        ci_name("agresti")
