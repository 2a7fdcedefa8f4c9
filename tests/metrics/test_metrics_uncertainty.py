"""Intervals, cluster bootstrap (with a coverage check), paired tests, Holm, seeds, signatures."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from bordir import __version__
from bordir.errors import ConfigError
from bordir.metrics import Signature
from bordir.metrics.intervals.aligned import pool_runs
from bordir.metrics.intervals.bootstrap import cluster_bootstrap
from bordir.metrics.intervals.paired import paired_comparison
from bordir.metrics.intervals.runs import t_interval
from bordir.settings import DEFAULT_SEED
from bordir.stats import (
    bootstrap_weights,
    flip_matrix,
    holm,
    holm_adjust,
    resolve_seed,
    sign_flip_test,
)


def nc_table(per_territory_means: np.ndarray, n_answers: np.ndarray | None = None) -> pd.DataFrame:
    """A per-territory table carrying only Non-control statistics."""
    t = len(per_territory_means)
    n = np.ones(t, int) if n_answers is None else n_answers
    return pd.DataFrame(
        {
            "territory": [f"t{i}" for i in range(t)],
            "nc_num": per_territory_means,
            "nc_den": (n > 0).astype(float),
            "control_num": np.ones(t),
            "control_den": np.ones(t),
        }
    )


# --- t-intervals ----------------------------------------------------------------


def test_t_interval_variants():
    t = pytest.importorskip("scipy.stats").t
    x = np.array([0.61, 0.64, 0.66, 0.63, 0.70, 0.62, 0.65, 0.67, 0.60, 0.68])
    iv = t_interval(x)
    half = t.ppf(0.975, 9) * x.std(ddof=1) / math.sqrt(10)
    assert iv.mean == pytest.approx(x.mean()) and iv.n == 10
    assert (iv.low, iv.high) == pytest.approx((x.mean() - half, x.mean() + half))
    paper = t_interval(x, variant="paper")
    # BordIRLines: population sd with t(0.975, 9) / sqrt(10) ~= 0.715 sd
    assert paper.high - paper.mean == pytest.approx(0.7154 * x.std(ddof=0), rel=1e-3)
    assert paper.high - paper.low < iv.high - iv.low
    assert t_interval([0.5]).low is None and t_interval([None, 0.5, float("nan")]).n == 1
    assert t_interval([]).mean is None
    with pytest.raises(ConfigError, match="unknown interval variant"):
        t_interval(x, variant="z95")  # type: ignore[arg-type]


# --- bootstrap ------------------------------------------------------------------


def test_bootstrap_weights_are_counts():
    w = bootstrap_weights(7, 50, np.random.default_rng(0))
    assert w.shape == (50, 7) and (w.sum(axis=1) == 7).all() and (w >= 0).all()


def test_cluster_bootstrap_is_seeded_and_signed(monkeypatch):
    table = nc_table(np.random.default_rng(1).random(30))
    a = cluster_bootstrap(table, "non_control_cs", n_resamples=300, seed=5)
    b = cluster_bootstrap(table, "non_control_cs", n_resamples=300, seed=5)
    assert (a.low, a.high) == (b.low, b.high) and a.low < a.estimate < a.high
    assert (
        str(a.signature)
        == f"non_control_cs|runs:1|boot:300|seed:5|ci:cluster95|version:{__version__}"
    )
    monkeypatch.setenv("BORDIR_SEED", "77")
    assert (
        resolve_seed() == 77
        and cluster_bootstrap(table, "non_control_cs", n_resamples=10).seed == 77
    )
    monkeypatch.setenv("BORDIR_SEED", "x")
    with pytest.raises(ConfigError, match="BORDIR_SEED='x' is not valid: expected an integer >= 0"):
        resolve_seed()
    monkeypatch.delenv("BORDIR_SEED")
    assert resolve_seed() == DEFAULT_SEED


def test_cluster_bootstrap_callable_matches_named_metric():
    table = nc_table(np.random.default_rng(2).random(12))

    def mean_nc(t: pd.DataFrame) -> float:
        return float(t["nc_num"].sum() / t["nc_den"].sum())

    named = cluster_bootstrap(table, "non_control_cs", n_resamples=200, seed=9)
    fn = cluster_bootstrap(table, mean_nc, n_resamples=200, seed=9)
    assert (fn.estimate, fn.low, fn.high) == pytest.approx((named.estimate, named.low, named.high))


def test_runs_move_together():
    rng = np.random.default_rng(3)
    runs = [nc_table(rng.random(20)) for _ in range(3)]
    r = cluster_bootstrap(runs, "non_control_cs", n_resamples=200, seed=1)
    assert r.n_runs == 3 and r.n_territories == 20
    assert r.estimate == pytest.approx(np.mean([t["nc_num"].mean() for t in runs]))
    pooled = pool_runs(runs)
    assert pooled["nc_num"].tolist() == pytest.approx(np.mean([t["nc_num"] for t in runs], axis=0))


@pytest.mark.slow
def test_cluster_bootstrap_coverage():
    """On 400 synthetic datasets with a known true value, the 95% interval covers it 93-97% of the time.

    Each dataset has 150 territories; territory t has p_t ~ Beta(2, 1) and 1-4
    non-control answers, each agreeing with probability p_t (answers of a
    territory are correlated through p_t). Non-control CS is the mean over
    territories of the per-territory share, so its true value is E[p_t] = 2/3.
    """
    true = 2 / 3
    rng = np.random.default_rng(20240611)
    n_sim, n_terr, covered = 400, 150, 0
    for i in range(n_sim):
        p = rng.beta(2.0, 1.0, size=n_terr)
        m = rng.integers(1, 5, size=n_terr)
        share = rng.binomial(m, p) / m
        r = cluster_bootstrap(nc_table(share, m), "non_control_cs", n_resamples=500, seed=i)
        covered += r.low <= true <= r.high
    rate = covered / n_sim
    assert 0.93 <= rate <= 0.97, rate  # (its speed: benchmarks/, not a test's wall clock)


# --- paired tests ---------------------------------------------------------------


def test_sign_flip_pvalue_formula():
    d = np.array([0.3, -0.1, 0.2, 0.05, 0.4, -0.2, 0.1, 0.0])
    n = 499
    p = sign_flip_test(d, n_permutations=n, seed=4)
    # by hand: the same flips, c = #{|mean(flipped)| >= |mean(d)|}, p = (c + 1) / (n + 1)
    flips = flip_matrix(n, len(d), np.random.default_rng(4))
    c = int((np.abs(np.where(flips, -d, d).mean(axis=1)) >= abs(d.mean()) - 1e-12).sum())
    assert p == (c + 1) / (n + 1)
    assert (p * (n + 1)) == pytest.approx(round(p * (n + 1)))
    assert sign_flip_test(np.full(30, 0.5), n_permutations=n, seed=1) == 1 / (n + 1)  # never 0
    assert sign_flip_test(np.zeros(5), n_permutations=n, seed=1) == 1.0


def test_paired_comparison_equals_sign_flip_on_per_territory_differences():
    rng = np.random.default_rng(8)
    a_vals, b_vals = rng.random(40), rng.random(40) * 0.8
    a, b = nc_table(a_vals), nc_table(b_vals)
    cmp = paired_comparison(
        a,
        b,
        "non_control_cs",
        label_a="rel_langs",
        label_b="no_ir",
        n_resamples=500,
        n_permutations=999,
        seed=11,
    )
    d = a_vals - b_vals
    assert cmp.diff == pytest.approx(d.mean())
    assert cmp.p_value == sign_flip_test(d, n_permutations=999, seed=11)
    assert cmp.low < cmp.diff < cmp.high and cmp.n_territories == 40
    assert "cmp:no_ir-vs-rel_langs" in str(cmp.signature)  # from no_ir to rel_langs
    # only common territories are paired
    cmp2 = paired_comparison(
        a, b.iloc[:10], "non_control_cs", n_resamples=50, n_permutations=50, seed=1
    )
    assert cmp2.n_territories == 10 and cmp2.diff == pytest.approx(d[:10].mean())
    # a derived metric works too (permutation swaps whole territories)
    assert (
        0
        < paired_comparison(
            a, b, "delta_cs_norm", n_resamples=50, n_permutations=50, seed=1
        ).p_value
        <= 1
    )


def test_holm_matches_statsmodels_and_by_hand():
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    p = [0.01, 0.04, 0.03, 0.20, 0.005]
    adj, rej = holm(p)
    ref_rej, ref_adj, _, _ = multitest.multipletests(p, alpha=0.05, method="holm")
    assert adj == pytest.approx(ref_adj) and (rej == ref_rej).all()
    # by hand: sorted 0.005, 0.01, 0.03, 0.04, 0.20 times 5, 4, 3, 2, 1 -> 0.025, 0.04, 0.09, 0.08, 0.20,
    # then the running maximum -> 0.025, 0.04, 0.09, 0.09, 0.20
    assert adj == pytest.approx([0.04, 0.09, 0.09, 0.20, 0.025])
    rng = np.random.default_rng(0)
    cmps = [
        paired_comparison(
            nc_table(rng.random(20)),
            nc_table(rng.random(20)),
            "non_control_cs",
            n_resamples=20,
            n_permutations=99,
            seed=i,
        )
        for i in range(3)
    ]
    adjusted = holm_adjust(cmps)
    assert [c.p_holm for c in adjusted] == pytest.approx(
        holm([c.p_value for c in cmps])[0].tolist()
    )
    assert "|holm:yes|" in str(adjusted[0].signature)


# --- signatures -----------------------------------------------------------------


def test_signature_forms():
    s = Signature.build(
        "kb_cs",
        mode="rel_langs",
        gen="openai/gpt-4o-mini",
        runs=10,
        ci="t95",
        policy="strict",
        boot=2000,
        seed=12345,
        temp=None,
    )
    assert str(s) == (
        "kb_cs|mode:rel_langs|gen:openai/gpt-4o-mini|runs:10|ci:t95|policy:strict|boot:2000|"
        f"seed:12345|version:{__version__}"
    )
    assert s.short().startswith("kb_cs|m:rel_langs|g:openai/gpt-4o-mini|n:10")
    assert Signature.parse(str(s)) == s and s.get("boot") == "2000"
    assert s.as_dict()["name"] == "kb_cs"
    with pytest.raises(ConfigError, match="contains '\\|'"):
        Signature.build("x", mode="a|b")
