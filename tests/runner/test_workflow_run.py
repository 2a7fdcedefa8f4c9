"""Issue 11.2/11.3: the in-memory Run: exact save/load round trip, scores and intervals with full signatures."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bordir
from bordir.signature import Signature

SIGNATURE_KEYS = (
    "mode",
    "ret",
    "k",
    "gen",
    "fmt",
    "temp",
    "runs",
    "policy",
    "data",
    "corpus",
    "version",
)


@pytest.fixture(scope="module")
def run(demo_run_mock):
    """The session's mock run of the demo (tests/conftest.py), read only."""
    return demo_run_mock


def test_save_and_load_round_trip_exactly(run, tmp_path):
    back = bordir.load_run(run.save(tmp_path / "r"))
    pd.testing.assert_frame_equal(back.responses, run.responses)
    pd.testing.assert_frame_equal(back.hits.hits, run.hits.hits)
    assert back.info == run.info and back.config == run.config
    assert back.hits.signature == run.hits.signature == run.info["hits"]["signature"]


def test_every_row_and_score_names_what_produced_it(run):
    for s in run.responses.loc[run.responses["mode"] != "no_ir", "signature"]:
        sig = Signature.parse(s)
        assert all(sig.get(k) for k in SIGNATURE_KEYS), s
        assert sig.get("fusion") and sig.get("depth")  # the retriever's parameters
    summary = run.summary(n_resamples=100, seed=3)
    for s in summary.loc[summary["mode"] == "qlang", "signature"]:
        sig = Signature.parse(s)
        assert all(sig.get(k) for k in SIGNATURE_KEYS) and (
            sig.get("ci"),
            sig.get("boot"),
            sig.get("seed"),
        ) == ("t95", "100", "3")
    scores = run.scores()
    assert len(scores) == 3 * 2 * 7 and scores["signature"].str.contains("corpus:sha256-").all()


def test_summary_intervals_and_comparisons(run):
    s = run.summary(n_resamples=200).set_index(["mode", "metric"])
    nc = s.loc[("rel_langs", "non_control_cs")]
    assert nc["low"] <= nc["mean"] <= nc["high"] and nc["boot_low"] <= nc["mean"] <= nc["boot_high"]
    cmp = run.compare("qlang", "rel_langs", metric="non_control_cs", n_resamples=200)
    row = cmp.iloc[0]  # diff = rel_langs − qlang (B − A)
    assert (row["a"], row["b"]) == ("qlang", "rel_langs") and row["diff"] > 0
    # the demo's 12 territories: tested (the permutation p is exact), no bootstrap interval below 30
    assert row["status"] == "judged" and 0 < row["p_value"] <= 1
    assert np.isnan(row["ci_low"]) and "needs 30" in row["ci_refused"]
    by = run.compare("qlang", "rel_langs", by="query_lang", n_resamples=100)
    assert len(by) and list(by.columns) == list(cmp.columns)  # one set of names for both kinds
    with pytest.raises(bordir.ConfigError, match="unknown retrieval mode"):
        run.compare("rel_langs", "nope")


@pytest.mark.slow
def test_report_from_memory(run, tmp_path):
    pytest.importorskip("matplotlib")
    html = run.report(tmp_path / "rep", n_resamples=50, plots=False)
    assert html.is_file() and (tmp_path / "rep" / "run.json").is_file()
    assert (
        'id="no-plots"' in html.read_text(encoding="utf-8")
        and not (tmp_path / "rep" / "plots").exists()
    )
