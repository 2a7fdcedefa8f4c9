"""Normal quantiles against scipy."""

from __future__ import annotations

import pytest

from bordir.stats import z_quantile


@pytest.mark.parametrize("conf", [0.5, 0.8, 0.9, 0.95, 0.99, 0.999])
def test_z_quantile_matches_scipy(conf):
    stats = pytest.importorskip("scipy.stats")
    assert z_quantile(conf) == pytest.approx(stats.norm.ppf(1 - (1 - conf) / 2), rel=1e-12)
    assert z_quantile(conf) == pytest.approx(stats.norm.ppf(0.5 + conf / 2), rel=1e-12)


@pytest.mark.parametrize("conf", [0.8, 0.9, 0.95, 0.99])
@pytest.mark.parametrize("df", [1, 2, 4, 29, 1000])
def test_t_quantile_matches_scipy(conf, df):
    from bordir.stats import t_quantile

    stats = pytest.importorskip("scipy.stats")
    assert t_quantile(conf, df) == stats.t.ppf(1 - (1 - conf) / 2, df)
    assert t_quantile(conf, df) == t_quantile(conf, df)  # remembered: the same float


def test_a_t_quantile_does_not_import_scipy_stats():
    """scipy.stats takes about 1 s to import on a 2-core machine; the t quantile needs scipy.special only."""
    import subprocess
    import sys

    pytest.importorskip("scipy.special")
    code = (
        "import sys; from bordir.stats import t_quantile; q = t_quantile(0.95, 4); "
        "print(round(q, 4), 'scipy.stats' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["2.7764", "False"]
