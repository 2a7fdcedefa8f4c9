"""Accuracy, F1, Cohen's κ (weighted) and Krippendorff's α against scikit-learn, statsmodels and krippendorff."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bordir.stats import (
    accuracy,
    cohen_kappa,
    confusion,
    f1_scores,
    krippendorff_alpha,
    krippendorff_alpha_ordinal,
    macro_f1,
    weighted_kappa,
)
from bordir.stats.alpha import alpha_o, coincidence
from bordir.stats.confusion import acc_m
from bordir.stats.kappa import kappa_m

LEVELS = ("n", "p", "r")
pairs = st.lists(
    st.tuples(st.sampled_from(LEVELS), st.sampled_from(LEVELS)), min_size=2, max_size=40
)


@settings(max_examples=30, deadline=None)
@given(pairs)
def test_nominal_statistics_match_sklearn(p):
    metrics = pytest.importorskip("sklearn.metrics")
    a, b = [x for x, _ in p], [y for _, y in p]
    assert accuracy(a, b) == pytest.approx(metrics.accuracy_score(a, b))
    classes = sorted(set(a) | set(b))
    ref_f1 = metrics.f1_score(a, b, labels=classes, average=None, zero_division=0)
    assert [f1_scores(a, b)[c] for c in classes] == pytest.approx(list(ref_f1))
    assert macro_f1(a, b) == pytest.approx(float(np.mean(ref_f1)))
    k = cohen_kappa(a, b)
    if k is not None:
        assert k == pytest.approx(metrics.cohen_kappa_score(a, b), abs=1e-12)


@settings(max_examples=30, deadline=None)
@given(pairs, st.sampled_from(["linear", "quadratic"]))
def test_weighted_kappa_matches_sklearn(p, weights):
    metrics = pytest.importorskip("sklearn.metrics")
    a, b = [x for x, _ in p], [y for _, y in p]
    k = weighted_kappa(a, b, LEVELS, weights=weights)
    if k is not None:
        ref = metrics.cohen_kappa_score(a, b, labels=list(LEVELS), weights=weights)
        assert k == pytest.approx(ref, abs=1e-12)


def test_kappa_matches_statsmodels():
    irr = pytest.importorskip("statsmodels.stats.inter_rater")
    rng = np.random.default_rng(0)
    a = rng.choice(list(LEVELS), 200)
    b = np.where(rng.random(200) < 0.6, a, rng.choice(list(LEVELS), 200))
    m, _ = confusion(list(a), list(b), LEVELS)
    assert cohen_kappa(list(a), list(b)) == pytest.approx(irr.cohens_kappa(m).kappa)
    w = irr.cohens_kappa(m, wt="linear").kappa
    assert weighted_kappa(list(a), list(b), LEVELS, weights="linear") == pytest.approx(w)


units = st.lists(
    st.lists(st.one_of(st.none(), st.sampled_from(LEVELS)), min_size=3, max_size=3),
    min_size=2,
    max_size=25,
)


@settings(max_examples=30, deadline=None)
@given(units)
def test_alpha_matches_the_krippendorff_package(u):
    kd = pytest.importorskip("krippendorff")
    code = {v: i for i, v in enumerate(LEVELS)}
    data = np.array([[np.nan if v is None else code[v] for v in row] for row in u], dtype=float).T
    alpha, ordinal = krippendorff_alpha(u), krippendorff_alpha_ordinal(u, LEVELS)
    if alpha is None or ordinal is None:
        return  # undefined here (no variation or too few paired values): the package divides by 0
    assert alpha == pytest.approx(
        kd.alpha(data, level_of_measurement="nominal", value_domain=[0, 1, 2]), abs=1e-9
    )
    assert ordinal == pytest.approx(
        kd.alpha(data, level_of_measurement="ordinal", value_domain=[0, 1, 2]), abs=1e-9
    )


def test_matrix_forms_take_resample_axes():
    a, b = ["r", "p", "n", "r", "p"], ["r", "p", "p", "r", "n"]
    m, _ = confusion(a, b, LEVELS)
    stacked = np.stack([m, 2 * m, np.zeros_like(m)])
    assert acc_m(stacked)[:2] == pytest.approx([accuracy(a, b)] * 2) and np.isnan(acc_m(stacked)[2])
    assert kappa_m(stacked)[:2] == pytest.approx([cohen_kappa(a, b)] * 2)
    o = coincidence([[x, y] for x, y in zip(a, b)], LEVELS).sum(axis=0)
    assert alpha_o(np.stack([o, 3 * o]))[0] == pytest.approx(
        krippendorff_alpha([[x, y] for x, y in zip(a, b)])
    )
