"""Coverage of intervals over territories at small territory counts (fast version of
``benchmarks/coverage_bootstrap.py``).

On synthetic datasets with known population values (:mod:`benchmarks.simulate.intervals`), the small-sample interval
(``terr95``: cluster Wilson, MOVER for ΔCS) keeps its 95 % coverage at 12 and 30 territories, where the percentile
cluster bootstrap does not; every interval at 12 territories carries the few-territories warning.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchmarks.simulate.intervals import (
    _boot_values,
    coverage,
    population_values,
    synthetic_tables,
)
from bordir.metrics.cs.aggregate import METRICS
from bordir.metrics.intervals.bootstrap import cluster_bootstrap, refusal


@pytest.fixture(scope="module")
def truth():
    return population_values(n_territories=400_000)


@pytest.mark.slow
def test_coverage_at_12_territories(truth):
    c = coverage(
        np.random.default_rng(12), n_sets=800, n_territories=12, n_resamples=400, truth=truth
    )
    for m in METRICS:
        assert 0.89 <= c[m]["terr95"] <= 0.99, (m, c[m])
        assert c[m]["warned"] == 1.0, m  # every interval over 12 territories says so
    # the percentile bootstrap is what the warning is about: well below 95 % for the binary shares
    assert c["control_cs"]["boot95"] < 0.88 and c["kb_cs"]["boot95"] < 0.88
    # ~3 contributing territories: mostly no interval at all (fewer than MIN_INTERVAL_CLUSTERS = 5)
    assert c["cst_cs_unknown"]["boot95_given"] < 0.6 and c["cst_cs_unknown"]["terr95_given"] < 0.6


@pytest.mark.slow
def test_coverage_at_30_territories(truth):
    c = coverage(
        np.random.default_rng(30), n_sets=500, n_territories=30, n_resamples=400, truth=truth
    )
    for m in METRICS:
        assert 0.92 <= c[m]["terr95"] <= 0.985, (m, c[m])


@pytest.mark.slow
def test_small_non_control_delta_interval_covers(truth):
    low = population_values(n_territories=400_000, low_non_control=True)
    c = coverage(
        np.random.default_rng(3),
        n_sets=600,
        n_territories=30,
        n_resamples=300,
        truth=low,
        low_non_control=True,
        metrics=("delta_cs_norm", "delta_cs"),
    )
    assert c["delta_cs_norm"]["terr95"] >= 0.92 and c["delta_cs"]["terr95"] >= 0.92, c


def test_vectorised_bootstrap_is_the_library_bootstrap():
    """The simulation's resampled values are those of cluster_bootstrap (same weights, same definitions)."""
    cols = synthetic_tables(np.random.default_rng(4), n_sets=2, n_territories=15)
    for i in range(2):
        table = pd.DataFrame(
            {"territory": [f"t{j}" for j in range(15)], **{k: v[i] for k, v in cols.items()}}
        )
        rng = np.random.default_rng(99)
        idx = rng.integers(0, 15, size=(200, 15))
        w = np.stack([np.bincount(r, minlength=15) for r in idx]).astype(float)
        for m in METRICS:
            r = cluster_bootstrap(table, m, n_resamples=200, seed=99)
            mine = _boot_values({k: v[i : i + 1] for k, v in cols.items()}, m, w[None])[0]
            # too few contributing territories (MIN_INTERVAL_CLUSTERS): no interval at all
            if r.refused:
                assert refusal(mine, r.n_clusters) == r.refused and r.low is None, m
                continue
            mine = mine[~np.isnan(mine)]
            q = np.quantile(
                mine, [0.025, 0.975], method="inverted_cdf" if np.isinf(mine).any() else "linear"
            )
            assert (r.low, r.high) == pytest.approx(tuple(q)), m
