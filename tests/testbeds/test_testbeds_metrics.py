"""Testbed rates: pure functions of the item table (row order, clusters), intervals, paired tests."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bordir.testbeds.metrics import METRICS, paired_rate, rate, summarize

ROW = st.fixed_dictionaries(
    {
        "cluster": st.sampled_from(list("abcdef")),
        "noise_rate": st.sampled_from([0.0, 0.4, 1.0]),
        "failed": st.booleans(),
        "n_pos": st.integers(0, 5),
        "outcome": st.sampled_from(["correct", "wrong", "rejected", "partial"]),
        "fact": st.booleans(),
    }
)


def _table(rows: list[dict]) -> pd.DataFrame:
    out = []
    for r in rows:
        o = r["outcome"]
        labels = (
            [-1]
            if o == "rejected"
            else [1]
            if o == "correct"
            else [1, 0]
            if o == "partial"
            else [0]
        )
        rec = {
            "model": "m",
            "lang": "en",
            "testbed": "counterfactual",
            "setting": "counterfactual",
            "cluster": r["cluster"],
            "noise_rate": r["noise_rate"],
            "failed": r["failed"],
            "n_pos": r["n_pos"],
        }
        for p in ("rgb", "bordir"):
            rec.update(
                {
                    f"{p}_labels": json.dumps(labels),
                    f"{p}_rejected": o == "rejected" and not r["failed"],
                    f"{p}_correct": o == "correct" and not r["failed"],
                    f"{p}_fact": r["fact"] and not r["failed"],
                }
            )
        out.append(rec)
    return pd.DataFrame(out)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(ROW, min_size=1, max_size=30), st.randoms(use_true_random=False))
def test_rates_are_row_order_invariant_and_intervals_cover_the_value(rows, rnd):
    t = _table(rows)
    shuffled = t.sample(frac=1.0, random_state=rnd.randint(0, 10**6)).reset_index(drop=True)
    for metric in METRICS:
        for policy in ("rgb", "bordir"):
            a = rate(t, metric, policy, n_resamples=200, seed=3)
            b = rate(shuffled, metric, policy, n_resamples=200, seed=3)
            assert (a.value, a.count, a.n, a.low, a.high) == (b.value, b.count, b.n, b.low, b.high)
            if a.n:
                assert a.value == a.count / a.n
                assert a.low - 1e-12 <= a.value <= a.high + 1e-12
            if policy == "bordir" and metric in ("accuracy", "error_detection_rate"):
                assert a.n == len(t)  # failed calls stay in the denominator
            if policy == "rgb" and metric == "accuracy":
                assert a.n == int((~t["failed"]).sum())


def test_rgb_quirks_in_rates():
    t = _table(
        [
            {
                "cluster": "a",
                "noise_rate": 1.0,
                "failed": False,
                "n_pos": 0,
                "outcome": "rejected",
                "fact": True,
            },
            {
                "cluster": "b",
                "noise_rate": 1.0,
                "failed": False,
                "n_pos": 0,
                "outcome": "correct",
                "fact": False,
            },
            {
                "cluster": "c",
                "noise_rate": 1.0,
                "failed": False,
                "n_pos": 0,
                "outcome": "wrong",
                "fact": True,
            },
            {
                "cluster": "d",
                "noise_rate": 1.0,
                "failed": True,
                "n_pos": 0,
                "outcome": "wrong",
                "fact": False,
            },
        ]
    )
    assert (
        rate(t, "rejection_rate", "rgb", n_resamples=0).value == 2 / 3
    )  # rejected or correct / answered
    assert rate(t, "rejection_rate", "bordir", n_resamples=0).value == 1 / 4
    assert (
        rate(t, "error_correction_rate", "rgb", n_resamples=0).value == 1 / 2
    )  # the rejected one counts
    assert rate(t, "error_correction_rate", "bordir", n_resamples=0).value == 0.0
    assert rate(t, "hallucination_rate", "rgb", n_resamples=0).value == 2 / 3
    none = t.assign(rgb_fact=False, bordir_fact=False)
    assert (
        rate(none, "error_correction_rate", "rgb", n_resamples=0).value == 0.0
    )  # evalue.py: 0 when none flagged
    assert rate(none, "error_correction_rate", "bordir", n_resamples=0).value is None


def test_judged_error_correction_rate_is_zero_under_rgb_when_the_judge_flags_nothing():
    """fact_evalue.py: ``correct_rate = correct_tt / rejecttt if rejecttt > 0 else 0``."""
    rows = [
        {
            "cluster": c,
            "noise_rate": 0.0,
            "failed": False,
            "n_pos": 1,
            "outcome": "correct",
            "fact": False,
        }
        for c in "abc"
    ]
    t = _table(rows).assign(judge_flag=[False, False, False])
    rgb = rate(t, "error_correction_rate_judge", "rgb", n_resamples=0)
    assert (rgb.value, rgb.count, rgb.n) == (0.0, 0, 0)
    assert rate(t, "error_correction_rate_judge", "bordir", n_resamples=0).value is None
    flagged = t.assign(judge_flag=[True, False, False])
    assert rate(flagged, "error_correction_rate_judge", "rgb", n_resamples=0).value == 1.0


def test_cluster_bootstrap_moves_clusters_together():
    # one cluster of 10 correct items and 10 singleton wrong clusters: resampling clusters, not items
    rows = [
        {
            "cluster": "big",
            "noise_rate": 0.0,
            "failed": False,
            "n_pos": 1,
            "outcome": "correct",
            "fact": False,
        }
    ] * 10
    rows += [
        {
            "cluster": f"s{i}",
            "noise_rate": 0.0,
            "failed": False,
            "n_pos": 1,
            "outcome": "wrong",
            "fact": False,
        }
        for i in range(10)
    ]
    r = rate(_table(rows), "accuracy", "rgb", n_resamples=2000, seed=1)
    assert r.value == 0.5 and r.n_clusters == 11
    assert r.high - r.low > 0.5  # far wider than an item-level interval (about ±0.22)


def test_paired_rate_detects_a_shift_and_is_antisymmetric():
    a = _table(
        [
            {
                "cluster": str(i),
                "noise_rate": 0.0,
                "failed": False,
                "n_pos": 1,
                "outcome": "correct",
                "fact": False,
            }
            for i in range(30)
        ]
    )
    b = a.assign(rgb_correct=np.arange(30) % 3 == 0)
    ab = paired_rate(a, b, "accuracy", "rgb", label_a="a", label_b="b", n_resamples=999, seed=2)
    ba = paired_rate(b, a, "accuracy", "rgb", label_a="b", label_b="a", n_resamples=999, seed=2)
    assert abs(ab.diff - 2 / 3) < 1e-12 and ab.p_value == 1 / 1000 and ab.low > 0
    assert ba.diff == -ab.diff and ba.p_value == ab.p_value
    same = paired_rate(a, a, "accuracy", "rgb", label_a="a", label_b="a", n_resamples=99, seed=2)
    assert same.diff == 0 and same.p_value == 1.0


def test_summarize_pools_languages_into_all():
    t = pd.concat(
        [
            _table(
                [
                    {
                        "cluster": "x",
                        "noise_rate": 0.0,
                        "failed": False,
                        "n_pos": 1,
                        "outcome": "correct",
                        "fact": False,
                    }
                ]
            ).assign(lang=lang, testbed="noise", setting="noise")
            for lang in ("en", "ru", "ar")
        ]
    )
    groups = summarize(t, n_resamples=50, seed=1)
    by = {g["lang"]: g for g in groups}
    assert set(by) == {"en", "ru", "ar", "all"}
    acc = by["all"]["metrics"]["rgb"]["accuracy"]
    assert (
        acc["n"] == 3 and acc["n_clusters"] == 1
    )  # one territory asked in three languages: one cluster
    assert "lang:all" in acc["signature"] and "policy:rgb" in acc["signature"]


def test_rgb_rejection_rates_carry_their_note():
    from bordir.testbeds.metrics import RGB_REJECTION_NOTE

    t = _table(
        [
            {
                "cluster": "a",
                "noise_rate": 1.0,
                "failed": False,
                "n_pos": 0,
                "outcome": "correct",
                "fact": False,
            }
        ]
    )
    assert rate(t, "rejection_rate", "rgb", n_resamples=0).as_dict()["note"] == RGB_REJECTION_NOTE
    assert "note" not in rate(t, "rejection_rate", "bordir", n_resamples=0).as_dict()
    assert "note" not in rate(t, "accuracy", "rgb", n_resamples=0).as_dict()
