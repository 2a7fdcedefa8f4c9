"""The forced-vs-free gap: pairing, the per-language rows, Holm, too few to judge with power."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bordir.errors import DataError
from bordir.loaders import load_demo
from bordir.metrics.free import free_outcome_rates, language_gap, pair_items


def _rows(ds, outcome="answered", choice=0, runs=(0,)):
    return pd.DataFrame(
        [
            {"query_id": q.query_id, "territory": q.territory, "query_lang": q.lang,
             "is_control": q.is_control, "mode": "no_ir", "model": "m", "run": r,
             "outcome": outcome, "choice": choice}
            for q in ds.queries for r in runs
        ]
    )  # fmt: skip


def test_pairs_only_items_both_formats_answered_and_never_fills_option_a():
    ds = load_demo()
    forced = _rows(ds)
    free = _rows(ds, outcome="refusal", choice=-1)
    items = pair_items(forced, free, ds)
    assert len(items) == len(ds.queries)
    assert items["same"].isna().all() and items["free_agree"].isna().all()
    assert (items["free_named"] == 0).all()
    g = language_gap(items, resamples=100, seed=1)
    assert (g["n_switch_pairs"] == 0).all() and g["gap"].isna().all()


def test_switches_and_gap_on_paired_items():
    ds = load_demo()
    forced = _rows(ds, choice=0)
    free = _rows(ds, choice=1)
    items = pair_items(forced, free, ds)
    assert (items["same"] == 0).all()
    g = language_gap(items, resamples=200, seed=1).set_index("query_lang")
    assert g.loc["*", "switch_rate"] == 1.0
    crimea = items[items["territory"] == "Crimea"]  # controller Russia = option 0: 1 → 0
    assert (crimea["forced_agree"] == 1).all() and (crimea["free_agree"] == 0).all()
    assert g.loc["ru", "status"] == "too few to judge" and np.isnan(g.loc["ru", "gap_low"])
    assert 0 <= g.loc["ru", "power_20"] < 0.5  # stated with the power it had


def test_holm_over_languages_and_a_judged_pooled_row():
    rng = np.random.default_rng(3)
    rows = []
    for lang, shift in (("aa", -0.4), ("bb", 0.0), ("cc", -0.4)):
        for t in range(40):
            for run in range(2):
                rows.append({"model": "m", "mode": "qlang", "query_id": f"T{t}_{lang}",
                             "territory": f"T{t}", "query_lang": lang, "run": run, "same": 1.0,
                             "free_named": 1.0, "forced_agree": 1.0,
                             "free_agree": float(rng.random() < 1 + shift)})  # fmt: skip
    g = language_gap(pd.DataFrame(rows), resamples=2000, seed=5).set_index("query_lang")
    assert (g.loc[["aa", "bb", "cc"], "status"] == "judged").all()
    assert (
        g.loc["aa", "significant"] and g.loc["cc", "significant"] and not g.loc["bb", "significant"]
    )
    assert g.loc["aa", "p_holm"] >= g.loc["aa", "p_value"]
    assert g.loc["aa", "gap_low"] <= -0.4 <= g.loc["aa", "gap_high"]
    assert g.loc["*", "n_territories"] == 40 and g.loc["*", "signature"].startswith(
        "free_gap|lang:*"
    )


def test_a_repeated_answer_is_refused_naming_it():
    ds = load_demo()
    forced = pd.concat([_rows(ds), _rows(ds).head(1)])
    with pytest.raises(DataError, match=r"occurs twice"):
        pair_items(forced, _rows(ds), ds)


def test_outcome_rates_count_every_free_outcome():
    ds = load_demo()
    free = _rows(ds, outcome="controller_only", choice=-1)
    r = free_outcome_rates(free)
    assert (r["rate_controller_only"] == 1).all() and (r["rate_claimant"] == 0).all()
