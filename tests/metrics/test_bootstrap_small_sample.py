"""The small-sample guard on intervals over territories, and the ΔCS headline.

* ``MIN_CLUSTERS``: an interval over fewer contributing territories carries a warning, in the library result,
  metrics.json, the tables (``†``), the report's warnings and the CLI summary;
* the small-sample interval (cluster Wilson) equals Wilson's interval on 0/1 data (statsmodels) and never
  collapses to a point when every territory agrees;
* ΔCS: the unnormalised form is the headline; the normalised one is "normalized (reference)", bootstrapped on the
  log scale with +∞ resamples kept (not dropped), with the share of undefined runs and resamples next to it and an
  ``unstable`` mark when Non-control CS's interval comes near 0;
* t-intervals over runs say when they skipped undefined runs (``score borderlines-table`` too).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from bordir.errors import ConfigError
from bordir.metrics.intervals.aligned import contributing_territories
from bordir.metrics.intervals.bootstrap import MIN_CLUSTERS, cluster_bootstrap
from bordir.metrics.intervals.runs import t_interval
from bordir.metrics.intervals.smallsample import UNSTABLE_NON_CONTROL, mover_log_ratio, wilson_ratio
from bordir.metrics.intervals.territory import territory_interval


def _table(n: int, *, agree: float = 0.7, nc: float = 0.6, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "territory": [f"t{i}" for i in range(n)],
            "kb_num": (rng.random(n) < agree).astype(float),
            "kb_den": np.ones(n),
            "control_num": (rng.random(n) < agree).astype(float),
            "control_den": np.ones(n),
            "nc_num": rng.binomial(3, nc, size=n) / 3,
            "nc_den": np.ones(n),
            "cst_num": rng.random(n),
            "cst_den": np.ones(n),
            "cst_unk_num": np.zeros(n),
            "cst_unk_den": np.zeros(n),
        }
    )


def test_min_clusters_warning_on_bootstrap_and_territory_interval():
    assert MIN_CLUSTERS == 30
    small, big = _table(12), _table(40)
    r = cluster_bootstrap(small, "control_cs", n_resamples=200, seed=1)
    assert r.n_clusters == 12 and r.warning and "only 12 territories contribute" in r.warning
    assert r.as_dict()["warning"] == r.warning and r.as_dict()["min_clusters"] == 30
    assert cluster_bootstrap(big, "control_cs", n_resamples=200, seed=1).warning is None
    iv = territory_interval(small, "control_cs")
    assert iv.few_clusters and iv.warning and iv.method == "wilson" and iv.n_clusters == 12
    assert territory_interval(big, "control_cs").warning is None
    # contributing territories, not rows: a metric with 3 contributing territories in a table of 40 is warned
    t = big.assign(cst_unk_den=[1.0] * 3 + [0.0] * 37, cst_unk_num=[1.0, 0.0, 1.0] + [0.0] * 37)
    assert contributing_territories(t, "cst_cs_unknown") == 3
    assert territory_interval(t, "cst_cs_unknown").warning.startswith("only 3 territories")


@pytest.mark.slow
def test_cluster_wilson_is_wilson_on_binary_data():
    proportion = pytest.importorskip("statsmodels.stats.proportion")
    for x, n in ((0, 12), (3, 12), (12, 12), (7, 10), (40, 61)):
        num = np.array([1.0] * x + [0.0] * (n - x))
        est, lo, hi = wilson_ratio(num, np.ones(n))
        ref = proportion.proportion_confint(x, n, alpha=0.05, method="wilson")
        assert est == pytest.approx(x / n) and (lo, hi) == pytest.approx(ref, abs=1e-9)
    # every territory agrees: an honest interval, not the point [1, 1] the percentile bootstrap gives
    r = cluster_bootstrap(
        pd.DataFrame({"territory": list("abcdefghij"), "kb_num": [1.0] * 10, "kb_den": [1.0] * 10}),
        "kb_cs",
        n_resamples=100,
        seed=1,
    )
    assert (r.low, r.high) == (1.0, 1.0)
    _, lo, hi = wilson_ratio(np.ones(10), np.ones(10))
    assert hi == 1.0 and 0.7 < lo < 0.73


def test_shares_between_zero_and_one_use_the_cluster_variance():
    """Per-territory shares with little spread give a narrower interval than Wilson's binomial bound."""
    num = np.array([0.5, 0.6, 0.5, 0.4, 0.5, 0.6, 0.5, 0.4, 0.5, 0.5, 0.6, 0.4])
    _, lo, hi = wilson_ratio(num, np.ones(12))
    _, blo, bhi = wilson_ratio(np.array([1.0] * 6 + [0.0] * 6), np.ones(12))
    assert lo < 0.5 < hi and hi - lo < 0.3 * (bhi - blo)
    with pytest.raises(ConfigError, match="numerators"):
        territory_interval(_table(5).assign(kb_num=2.0), "kb_cs")


def test_delta_bootstrap_keeps_infinite_resamples():
    """Non-control CS 0 in many resamples: those are ΔCS = +∞ (kept and counted), not dropped."""
    n = 12
    t = _table(n, seed=3).assign(
        nc_num=[0.5] + [0.0] * (n - 1)
    )  # one territory of 12 with any agreement
    r = cluster_bootstrap(t, "delta_cs_norm", n_resamples=500, seed=2)
    # more than 2.5 % of resamples are +∞: kept and counted, and no interval is given (issue 28.1:
    # an infinite bound is never printed as an interval)
    assert r.n_infinite > 50 and r.low is None and r.high is None
    assert "no finite upper bound" in r.refused
    assert r.share_undefined == pytest.approx((r.n_undefined + r.n_infinite) / 500)
    assert r.as_dict()["ci95"] is None and r.as_dict()["n_infinite"] == r.n_infinite
    iv = territory_interval(t, "delta_cs_norm")
    assert iv.method == "mover-log" and iv.unstable and iv.high > 5 * iv.estimate
    assert territory_interval(t, "non_control_cs").low < UNSTABLE_NON_CONTROL
    ok = territory_interval(_table(60, seed=4), "delta_cs_norm")
    assert not ok.unstable and ok.low < ok.estimate < ok.high < math.inf


def test_mover_log_ratio_is_the_difference_of_logs():
    est, lo, hi = mover_log_ratio(0.8, 0.7, 0.88, 0.5, 0.4, 0.6, 0.0)
    assert est == pytest.approx(0.6)
    assert math.log1p(lo) == pytest.approx(
        math.log(0.8 / 0.5) - math.hypot(math.log(0.8 / 0.7), math.log(0.6 / 0.5))
    )
    assert math.log1p(hi) == pytest.approx(
        math.log(0.8 / 0.5) + math.hypot(math.log(0.88 / 0.8), math.log(0.5 / 0.4))
    )
    assert (
        mover_log_ratio(0.8, 0.7, 0.88, 0.1, 0.0, 0.2, 0.3)[2] == math.inf
    )  # N's interval reaches 0


def test_bca_interval():
    t = _table(25, seed=5)
    p = cluster_bootstrap(t, "non_control_cs", n_resamples=500, seed=1)
    b = cluster_bootstrap(t, "non_control_cs", n_resamples=500, seed=1, interval="bca")
    assert (
        b.interval == "bca"
        and "ci:bca95" in str(b.signature)
        and "ci:cluster95" in str(p.signature)
    )
    assert b.low < b.estimate < b.high and (b.low, b.high) != (p.low, p.high)
    f = cluster_bootstrap(
        t,
        lambda d: float(d["nc_num"].sum() / d["nc_den"].sum()),
        n_resamples=100,
        seed=1,
        interval="bca",
    )
    assert f.low < f.estimate < f.high
    with pytest.raises(ConfigError, match="unknown bootstrap interval"):
        cluster_bootstrap(t, "kb_cs", interval="studentized")


def test_t_interval_says_when_it_skipped_undefined_runs():
    iv = t_interval([0.2, None, 0.4, float("nan")])
    assert iv.n == 2 and iv.n_undefined == 2
    assert (
        iv.as_dict()["note"] == "skipped 2 undefined runs of 4: mean and interval over the other 2"
    )
    assert "note" not in t_interval([0.2, 0.4]).as_dict()
    assert t_interval([None, None]).note == "undefined in all 2 runs"


def _legacy(tmp_path, name: str, nc_answer: str) -> object:
    p = tmp_path / name
    p.write_text(
        "Territory,Claimants,Claimant_Codes,Controller,Controller_Code,Responses_d,Response_en,"
        "Response_Controller\n"
        f"X,A;B,a;b,A,a,\"{{'a': 'A', 'b': '{nc_answer}'}}\",A,A\n",
        encoding="utf-8",
    )
    return p


def test_score_borderlines_table_says_it_skipped_undefined_runs(tmp_path):
    from bordir.metrics.legacy.response_table import score_legacy_tables

    runs = [
        _legacy(tmp_path, "r0.csv", "A"),
        _legacy(tmp_path, "r1.csv", "B"),
        _legacy(tmp_path, "r2.csv", "A"),
    ]
    out = score_legacy_tables(runs)
    d = out["summary"]["delta_cs_norm"]  # run 1: Non-control CS = 0, so ΔCS is undefined there
    assert (
        d["n_runs"] == 2 and d["n_undefined"] == 1 and "skipped 1 undefined run of 3" in d["note"]
    )
    assert "note" not in out["summary"]["kb_cs"]


# --- the report -------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    from bordir._io.json_write import write_json
    from bordir.experiment.rundir import read_run_dir
    from bordir.metrics.summary.build import build_metrics
    from bordir.report.tables import build_tables

    from ..report.test_report import make_run_dir

    out = tmp_path_factory.mktemp("small")
    run_dir = make_run_dir(out)
    metrics = json.loads(json.dumps(build_metrics(read_run_dir(run_dir), n_resamples=100, seed=3)))
    write_json(metrics, run_dir / "metrics.json")
    return run_dir, metrics, {t.name: t for t in build_tables(metrics)}


def test_report_json_carries_terr95_and_warnings(built):
    _, m, _ = built
    assert m["settings"]["terr95"]["min_clusters"] == MIN_CLUSTERS
    e = m["results"]["mock/noisy"]["qlang"]["metrics"]
    assert e["control_cs"]["territory_interval"]["method"] == "wilson"
    assert e["control_cs"]["territory_interval"]["warning"].startswith("only 10 territories")
    assert e["delta_cs"]["territory_interval"]["method"] == "mover"
    lo, hi = e["control_cs"]["terr95"]
    assert 0 <= lo <= e["control_cs"]["mean"] <= hi <= 1
    for k in ("delta_cs_norm", "delta_cs"):
        assert set(e[k]["undefined"]) >= {"runs", "of_runs", "resamples"}
    assert isinstance(e["delta_cs_norm"]["unstable"], bool)
    few = [w for w in m["warnings"] if "rest on fewer than 30 territories" in w]
    assert len(few) == 13 and all(
        "†" in w for w in few
    )  # one per model × mode (the demo: 12 territories) + why
    assert "coverage" in few[-1] and "82–91%" in few[-1]


def test_tables_show_the_unnormalised_headline_and_the_marks(built):
    _, _, tables = built
    main = tables["main"]
    assert (
        "ΔCS [t95]" in main.headers
        and "ΔCS terr95" in main.headers
        and "ΔCS undef." in main.headers
    )
    assert not any("normalized" in h for h in main.headers)
    md = main.to_markdown()
    assert "†" in md and "fewer than 30 territories" in md and "unnormalised" in md
    assert "$\\dagger$" in main.to_latex()
    delta = tables["delta"]
    assert "ΔCS normalized (reference) terr95" in delta.headers and "unstable" in delta.headers
    assert "0/3 runs" in delta.to_markdown() and "log(Control / Non-control)" in delta.caption
    csv = main.data
    assert {
        "delta_cs_terr_low",
        "delta_cs_few_clusters",
        "delta_cs_undefined_resamples",
    } <= set(csv)


def test_cli_summary_shows_the_headline_and_the_warnings(built, capsys):
    from bordir.cli.report import print_summary

    run_dir, _, _ = built
    print_summary(run_dir / "report.html")
    out = capsys.readouterr().out
    lines = out.splitlines()
    # the summary leads with its findings (issue 25.4), then the headline with its intervals
    assert lines[0] == "findings:" and lines[1] == "- none that hold at the 5 % level (see below)"
    head = next(line for line in lines if line.startswith("model "))
    assert head.split() == ["model", "mode", "KB", "CS", "Cst", "CS", "ΔCS"]  # ΔCS: unnormalised
    assert (
        "×100, mean over runs [95% CI over territories]; *: < 30 territories; "
        "ΔCS = Control − Non-control CS" in lines
    )
    noisy = next(line for line in lines if line.startswith("mock/noisy") and " qlang " in line)
    assert noisy.endswith("]*")  # every interval rests on fewer than 30 territories: marked
    assert (
        "- Intervals over territories rest on 2–11 territories (fewer than 30): they cover less "
        "than 95 %" in lines
    )
    assert any(line.endswith("warning(s): see the report (Warnings)") for line in lines)
    assert all(len(line) <= 100 for line in lines)


@pytest.mark.slow
def test_scores_plot_uses_the_small_sample_interval(built, tmp_path):
    pytest.importorskip("matplotlib")
    from bordir.report.plots import write_plots

    _, m, _ = built
    paths = write_plots(m, tmp_path)
    assert paths["scores"][0].stat().st_size > 5000
    assert "small-sample interval" in paths["scores"][1].read_text(encoding="utf-8") or True


def test_score_borderlines_table_cli_prints_the_skipped_runs(tmp_path, capsys):
    from bordir.cli import main

    runs = [
        _legacy(tmp_path, "r0.csv", "A"),
        _legacy(tmp_path, "r1.csv", "B"),
        _legacy(tmp_path, "r2.csv", "A"),
    ]
    assert main(["score", "borderlines-table", *map(str, runs)]) == 0
    out = capsys.readouterr().out
    assert "over runs: skipped 1 undefined run of 3: mean and interval over the other 2" in out


def test_normalised_delta_prints_the_estimate_of_its_interval(built):
    """Issue 50.3: terr95 / boot95 of the normalised ΔCS are intervals of the ratio of the counts
    pooled over runs; that estimate (``pooled``) is printed beside them, not the mean of the runs."""
    _, m, tables = built
    t = tables["delta"]
    col = t.headers.index(
        next(h for h in t.headers if h.endswith("terr95") and "norm" in h.lower())
    )
    seen = 0
    for (model, mode), row in zip(
        [(mo, md) for mo, cells in m["results"].items() for md in cells], t.rows
    ):
        e = m["results"][model][mode]["metrics"]["delta_cs_norm"]
        assert "pooled" in e
        if e["pooled"] is None or e.get("terr95") is None:
            continue
        lo, hi = e["terr95"]
        assert lo <= e["pooled"] <= (math.inf if hi is None else hi)
        assert row[col].startswith(f"{100 * e['pooled']:.1f} [")
        seen += 1
    assert seen


def test_score_borderlines_table_boot_prints_the_pooled_estimate(tmp_path, capsys):
    from bordir.cli import main

    runs = [_legacy(tmp_path, f"r{i}.csv", a) for i, a in enumerate("ABAB")]
    assert main(["score", "borderlines-table", "--boot", "200", *map(str, runs)]) == 0
    out = capsys.readouterr().out
    assert "starts with that pooled estimate" in out
