"""Citation flag rules: no flag from a zero-width interval, "too few to judge" below the minimum (shown, not
hidden), the score interval's properties, one Holm family per output."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bordir.citations import CellStats, assign_flags, summarize_cell
from bordir.citations.flags import MIN_CELL_CLUSTERS, TOO_FEW
from bordir.citations.ratio_test import ratio_score_test
from bordir.citations.tables import build_tables, flag_text


def _identical_clusters(n: int) -> CellStats:
    """``n`` clusters, each: 1 en + 1 sw document, one citation to en (ratio 2, no variation at all)."""
    return CellStats.from_answers(("en", "sw"), np.array([[1, 1]] * n), np.array([[1, 0]] * n))


def test_zero_width_interval_never_flags():
    rows = summarize_cell(_identical_clusters(12), n_resamples=200, seed=1)
    en = next(r for r in rows if r["doc_lang"] == "en" and r["rate"] == "pooled")
    assert (
        en["ratio"] == 2.0 and en["ratio_low"] == en["ratio_high"] == 2.0 and en["ratio_zero_width"]
    )
    assert (
        en["ratio_boot_low"] == en["ratio_boot_high"] == 2.0
    )  # the bootstrap cannot see any variation either
    t = assign_flags(pd.DataFrame(rows), min_clusters=5)
    assert (
        t["flag"].isna().all()
        and set(t["verdict"]) == {"zero-width interval"}
        and not t["tested"].any()
    )


def test_too_few_to_judge_is_reported_not_hidden():
    rng = np.random.default_rng(2)
    inc = rng.integers(1, 4, size=(6, 2))
    cit = np.stack(
        [inc[:, 0], np.zeros(6, int)], axis=1
    )  # every citation to en: a strong, but tiny, cell
    cells = {
        ("m", "sw"): CellStats.from_answers(("en", "sw"), inc, cit),
        ("m", "*"): CellStats.from_answers(("en", "sw"), inc, cit),
    }
    t = build_tables(cells, ("model", "query_lang"), n_resamples=100, seed=1)
    assert MIN_CELL_CLUSTERS == 10
    assert (
        len(t.rates) == 4 and (t.rates["verdict"] == TOO_FEW).all() and t.rates["flag"].isna().all()
    )
    assert not t.rates["tested"].any()
    md = t.to_markdown()
    assert (
        md.count(TOO_FEW) == 8
    )  # both tables, both rates, both languages: every cell shown with its verdict
    assert t.settings["flags"]["too_few_to_judge"] == {"rates": 4, "overall": 4}
    assert TOO_FEW in t.settings["flags"]["rule"]
    assert (
        flag_text({"flag": None, "verdict": TOO_FEW}) == TOO_FEW
        and flag_text({"flag": "over"}) == "over"
    )
    assert flag_text({"flag": None, "verdict": "not flagged"}) == ""


def test_minimum_counts_clusters_shown_the_language():
    """A language present in the prompts of 2 of 30 clusters is too few to judge, whatever the cell's size."""
    inc = np.array([[1, 0]] * 28 + [[1, 1]] * 2)
    cit = np.array([[1, 0]] * 28 + [[1, 0], [0, 1]])
    rows = summarize_cell(CellStats.from_answers(("en", "hy"), inc, cit), n_resamples=100, seed=1)
    t = assign_flags(pd.DataFrame(rows)).set_index(["doc_lang", "rate"])
    assert (
        t.loc[("hy", "pooled"), "n_clusters"] == 30
        and t.loc[("hy", "pooled"), "n_clusters_lang"] == 2
    )
    assert t.loc[("hy", "pooled"), "verdict"] == TOO_FEW
    assert t.loc[("en", "pooled"), "n_clusters_lang"] == 30


def test_score_interval_contains_the_estimate_and_matches_the_p_value():
    rng = np.random.default_rng(8)
    for _ in range(30):
        n = int(rng.integers(5, 60))
        inc = rng.integers(0, 4, size=(n, 3))
        cit = rng.binomial(inc, rng.uniform(0.2, 0.8, size=3))
        cell = CellStats.from_answers(("en", "sw", "fr"), inc, cit)
        for r in summarize_cell(cell, n_resamples=50, seed=1):
            if r["ratio"] is None:
                continue
            assert r["ratio_low"] <= r["ratio"] <= r["ratio_high"]
            excludes = r["ratio_low"] > 1 or r["ratio_high"] < 1
            if (
                not r["ratio_zero_width"]
                and r["p_value"] is not None
                and abs(r["p_value"] - 0.05) > 1e-6
            ):
                # test inversion: the 95% interval excludes 1 exactly when p < 0.05 (bounded intervals)
                if np.isfinite(r["ratio_high"]) and r["ratio_low"] > 0:
                    assert excludes == (r["p_value"] < 0.05), r


def test_few_clusters_cannot_reach_significance():
    """|T| ≤ √(clusters): with 3 clusters, even every citation on one language gives p ≥ 0.08."""
    x = np.array([[1.0], [2.0], [1.0]])
    t = ratio_score_test(x, x[:, 0], np.array([[1.0]] * 3), np.array([2.0, 3.0, 2.0]))
    assert float(t.ratio[0]) == pytest.approx(7 / 3)
    assert t.p_value[0] >= 0.0833  # 2 Φ(−√3)


def test_holm_is_one_family_per_output():
    """Two rows with p = 0.03: separate families per rate flag both; one family (the output's) flags neither."""
    t = pd.DataFrame(
        {
            "rate": ["pooled", "per_query"],
            "ratio": [1.5, 1.5],
            "ratio_low": [1.1, 1.1],
            "ratio_high": [1.9, 1.9],
            "p_value": [0.03, 0.03],
            "n_clusters": [50, 50],
        }
    )
    assert assign_flags(t, family=("rate",))["flag"].tolist() == ["over", "over"]
    assert assign_flags(t, family=())["flag"].tolist() == [None, None]
    with pytest.raises(Exception, match="min_clusters"):
        assign_flags(t, min_clusters=0)
