"""The paired cluster bootstrap and swap test: for a mean it is the sign-flip test on differences; Holm."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest

from bordir import __version__
from bordir.stats import (
    PairedResult,
    bootstrap_weights,
    flip_matrix,
    holm,
    holm_adjust,
    paired_test,
    percentile_bounds,
    sign_flip_pvalue,
)


def _mean(cols, w):
    x = cols["x"]
    return x.mean(axis=-1) if w is None else (w @ x) / x.shape[-1]


def test_swapping_a_mean_is_flipping_the_differences():
    rng = np.random.default_rng(4)
    a, b = rng.normal(0.6, 0.2, 30), rng.normal(0.5, 0.2, 30)
    t = paired_test({"x": a}, {"x": b}, _mean, n_resamples=500, n_permutations=500, seed=8)
    d = a - b
    assert t.diff == pytest.approx(d.mean())
    flips = flip_matrix(500, 30, np.random.default_rng(8))
    assert t.p_value == pytest.approx(sign_flip_pvalue(d, flips), abs=1 / 501)
    w = bootstrap_weights(30, 500, np.random.default_rng(8))
    lo, hi, _ = percentile_bounds(w @ d / 30, 0.95)
    assert (t.low, t.high) == pytest.approx((lo, hi))


def test_a_ratio_of_sums_is_compared_on_the_same_resampled_clusters():
    num_a, den_a = np.array([3.0, 1, 2, 4]), np.array([4.0, 2, 2, 5])
    num_b, den_b = np.array([1.0, 1, 0, 2]), np.array([4.0, 2, 2, 5])

    def ratio_of_sums(cols, w):
        if w is None:
            return cols["num"].sum(axis=-1) / cols["den"].sum(axis=-1)
        return (w @ cols["num"]) / (w @ cols["den"])

    t = paired_test(
        {"num": num_a, "den": den_a},
        {"num": num_b, "den": den_b},
        ratio_of_sums,
        n_resamples=200,
        n_permutations=200,
        seed=1,
    )
    assert (t.value_a, t.value_b) == pytest.approx((10 / 13, 4 / 13))
    assert t.low <= t.diff <= t.high and 0 < t.p_value <= 1


def test_paired_result_signature_and_dict():
    r = PairedResult("acc", "x", "y", 0.7, 0.5, 0.2, 0.1, 0.3, 0.01, 12, 100, 99, 7)
    assert str(r.signature) == f"acc|cmp:y-vs-x|boot:100|perm:99|seed:7|version:{__version__}"
    assert r.as_dict()["n_clusters"] == 12 and r.as_dict()["ci95"] == [0.1, 0.3]

    @dataclass(frozen=True)
    class OnTerritories(PairedResult):
        unit: ClassVar[str] = "territories"
        seed_key: ClassVar[str] = "bseed"

    g = OnTerritories(
        "acc",
        "x",
        "y",
        0.7,
        0.5,
        0.2,
        0.1,
        0.3,
        0.01,
        12,
        100,
        99,
        7,
        fields=(("lang", "sw"),),
        policy="rgb",
    )
    assert str(g.signature).startswith(
        "acc|lang:sw|cmp:y-vs-x|policy:rgb|boot:100|perm:99|bseed:7|"
    )
    assert "n_territories" in g.as_dict() and "n_clusters" not in g.as_dict()


def test_holm_adjust_sets_the_holm_p_values_and_marks_the_signature():
    rs = [
        PairedResult("m", "a", "b", None, None, None, None, None, p, 5, 10, 10, 1)
        for p in (0.01, 0.04, 0.03)
    ]
    adjusted = holm_adjust(rs)
    assert [r.p_holm for r in adjusted] == pytest.approx(holm([0.01, 0.04, 0.03])[0].tolist())
    assert all(r.signature.get("holm") == "yes" for r in adjusted) and rs[0].p_holm is None
    assert holm_adjust([]) == []
