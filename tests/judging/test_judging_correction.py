"""The Rogan–Gladen corrected rate: checked by simulation against known true rates, refused near chance."""

from __future__ import annotations

import numpy as np
import pytest

from bordir.judging.correction import J_MIN, calibration_rates, corrected_rate, rogan_gladen

LABELS = ("S", "N")


def _calibration(rng, questions, se, sp, share=0.6):
    rows = []
    for q in range(questions):
        for _ in range(int(rng.integers(1, 4))):
            pos = rng.random() < share
            right = rng.random() < (se if pos else sp)
            said = ("S" if pos else "N") if right else ("N" if pos else "S")
            rows.append({"cluster": f"q{q}", "human": "S" if pos else "N", "judge": said})
    return rows


def _run(rng, n, true_rate, se, sp):
    truth = rng.random(n) < true_rate
    return list(np.where(truth, rng.random(n) < se, rng.random(n) > sp))


def test_the_estimator_inverts_the_judges_errors():
    p = np.array([0.34, 0.9, 0.05])
    assert rogan_gladen(p, np.array(0.9), np.array(0.8)).round(4).tolist() == [0.2, 1.0, 0.0]
    assert np.isnan(rogan_gladen(np.array(0.5), np.array(0.5), np.array(0.5)))


def test_calibration_rates_swap_roles_for_the_other_label():
    rows = [
        {"cluster": "a", "human": "S", "judge": "S"},
        {"cluster": "a", "human": "S", "judge": "N"},
        {"cluster": "b", "human": "N", "judge": "N"},
        {"cluster": "b", "human": "N", "judge": None},  # unparseable: not in the correction
    ]
    s, names = calibration_rates(rows, counted="S", labels=LABELS)
    assert names == ["a", "b"] and s.sum(axis=0).tolist() == [1, 2, 1, 1]
    n, _ = calibration_rates(rows, counted="N", labels=LABELS)
    assert n.sum(axis=0).tolist() == [1, 1, 1, 2]


def test_the_corrected_rate_recovers_the_true_rate_by_simulation():
    """200 simulated (calibration, run) pairs, true rate 0.3, a judge with Se 0.85, Sp 0.75."""
    rng = np.random.default_rng(7)
    estimates, covered, observed = [], 0, []
    for r in range(200):
        cal = _calibration(rng, 150, 0.85, 0.75)
        flags = _run(rng, 200, 0.3, 0.85, 0.75)
        out = corrected_rate(
            flags,
            [f"t{i}" for i in range(200)],
            cal,
            counted="S",
            labels=LABELS,
            n_resamples=300,
            seed=r,
            name="sim",
        )
        assert out["refused"] is None
        estimates.append(out["value"])
        observed.append(out["observed"])
        covered += out["low"] <= 0.3 <= out["high"]
    assert np.mean(observed) == pytest.approx(0.3 * 0.85 + 0.7 * 0.25, abs=0.01)  # biased upward
    assert np.mean(estimates) == pytest.approx(0.3, abs=0.015)  # corrected
    assert covered / 200 >= 0.9


def test_a_judge_barely_better_than_chance_is_refused():
    rng = np.random.default_rng(11)
    refused = 0
    for r in range(40):
        cal = _calibration(rng, 150, 0.53, 0.52)  # Youden J = 0.05
        out = corrected_rate(
            _run(rng, 200, 0.3, 0.53, 0.52),
            [f"t{i}" for i in range(200)],
            cal,
            counted="S",
            labels=LABELS,
            n_resamples=300,
            seed=r,
            name="sim",
        )
        if out["refused"]:
            refused += 1
            assert "too close to chance" in out["refused"] and f"below {J_MIN:g}" in out["refused"]
            assert out["value"] is None and out["youden"]["low"] < J_MIN
    assert refused >= 38


def test_too_few_clusters_give_no_corrected_rate():
    rng = np.random.default_rng(0)
    cal = _calibration(rng, 100, 0.9, 0.9)
    out = corrected_rate([True, False, True], ["a", "b", "c"], cal, counted="S", labels=LABELS)
    assert out["value"] is None and "too few clusters" in out["refused"]
    assert out["observed"] == pytest.approx(2 / 3)
