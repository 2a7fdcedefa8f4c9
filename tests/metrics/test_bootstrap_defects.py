"""Issue 13, items 2 and 3: defects of the ΔCS and bootstrap outputs, through the public API only (each failed
before the fix)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from bordir.metrics.intervals.bootstrap import cluster_bootstrap
from bordir.metrics.intervals.runs import t_interval


def _small_non_control(n: int = 12) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "territory": [f"t{i}" for i in range(n)],
            "control_num": [1.0] * (n - 3) + [0.0] * 3,
            "control_den": [1.0] * n,
            "nc_num": [0.5] + [0.0] * (n - 1),
            "nc_den": [1.0] * n,
        }
    )


def test_normalised_delta_bootstrap_keeps_the_infinite_resamples():
    """Dropping the resamples where Non-control CS is 0 (ΔCS = +∞) biased the interval low; they are kept,
    and since their share exceeds the upper tail, no interval is given (never a bound of +∞)."""
    r = cluster_bootstrap(_small_non_control(), "delta_cs_norm", n_resamples=500, seed=2)
    assert r.n_infinite > 12 and (r.low, r.high) == (None, None) and r.refused


def test_bootstrap_over_few_territories_is_flagged():
    r = cluster_bootstrap(_small_non_control(), "control_cs", n_resamples=200, seed=2)
    assert "territories contribute" in r.as_dict().get("warning", "")


def test_mean_over_runs_says_it_skipped_undefined_runs():
    assert "skipped 1 undefined run" in t_interval([0.1, None, 0.3]).as_dict().get("note", "")


@pytest.fixture(scope="module")
def metrics(tmp_path_factory):
    from bordir.experiment.rundir import read_run_dir
    from bordir.metrics.summary.build import build_metrics

    from ..report.test_report import make_run_dir

    run_dir = make_run_dir(tmp_path_factory.mktemp("defects"))
    return json.loads(json.dumps(build_metrics(read_run_dir(run_dir), n_resamples=100, seed=3)))


def test_report_headline_is_the_unnormalised_delta(metrics):
    from bordir.metrics.registry import metric_label
    from bordir.metrics.summary.names import HEADLINE
    from bordir.report.tables import build_tables

    assert "delta_cs" in HEADLINE and "delta_cs_norm" not in HEADLINE
    assert metric_label("delta_cs_norm") == "ΔCS normalized (reference)"
    main = build_tables(metrics)[0]
    assert any(h.startswith("ΔCS ") for h in main.headers) and not any(
        "normalized" in h for h in main.headers
    )


def test_report_warns_about_few_territories_and_shows_undefined_shares(metrics):
    assert any("fewer than 30 territories" in w for w in metrics["warnings"])
    e = metrics["results"]["mock/noisy"]["qlang"]["metrics"]
    assert (
        set(e["delta_cs_norm"]["undefined"]) >= {"runs", "resamples"}
        and "unstable" in e["delta_cs_norm"]
    )
    assert e["control_cs"]["terr95"] is not None
    assert np.isfinite(e["control_cs"]["terr95"][0])


def test_the_weighted_sums_of_many_runs_have_the_bits_of_one_run_at_a_time(monkeypatch):
    """Blocks of runs and two threads give each run's (w * r).sum(axis=-1), bit for bit."""
    import numpy as np

    from bordir.metrics.intervals import bootstrap

    rng = np.random.default_rng(5)
    for cpus in ("1", "2"):
        monkeypatch.setenv("BORDIR_CPUS", cpus)
        for n, t, k in [(1, 5, 3), (3, 251, 1000), (17, 40, 200), (232, 251, 1000), (33, 7, 9)]:
            runs = rng.integers(0, 7, (n, t)) / rng.integers(1, 8, (n, t))
            w = rng.integers(0, 4, (k, t)).astype(float)
            expected = np.stack([(w * r).sum(axis=-1) for r in runs])
            assert np.array_equal(bootstrap._weighted_sums(runs, w), expected), (cpus, n, t, k)
