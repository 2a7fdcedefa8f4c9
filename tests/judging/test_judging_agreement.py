"""The agreement statistics against scikit-learn; the unparseable rule; the always-'Supported' floor; the ceiling; thresholds."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bordir.judging.agreement import agreement, score_intervals
from bordir.judging.ceiling import ceiling
from bordir.judging.items import JudgeItem
from bordir.judging.thresholds import apply_threshold, best_threshold, split_questions
from bordir.stats import balanced_accuracy

S, N = "Supported", "Not Supported"
LABELS = (S, N)

rows = st.lists(
    st.tuples(st.sampled_from(LABELS), st.sampled_from([S, N, None]), st.integers(0, 7)),
    min_size=2,
    max_size=60,
)


@settings(max_examples=60, deadline=None)
@given(rows)
def test_statistics_match_sklearn_with_unparseable_scored_as_the_opposite(data):
    metrics = pytest.importorskip("sklearn.metrics")
    human = [h for h, _, _ in data]
    judge = [j for _, j, _ in data]
    scored = [j if j is not None else (N if h == S else S) for h, j in zip(human, judge)]
    r = agreement(human, judge, [f"q{c}" for _, _, c in data], labels=LABELS, n_resamples=0)
    m = r["metrics"]
    assert m["accuracy"]["value"] == pytest.approx(metrics.accuracy_score(human, scored))
    if len(set(human)) == 2:
        ref = metrics.balanced_accuracy_score(human, scored)
        assert m["balanced_accuracy"]["value"] == pytest.approx(ref)
        assert m["sensitivity"]["value"] == pytest.approx(
            metrics.recall_score(human, scored, pos_label=S)
        )
    kappa = m["kappa"]["value"]
    if kappa is not None:
        assert kappa == pytest.approx(metrics.cohen_kappa_score(human, scored), abs=1e-12)
    assert m["unparseable"]["value"] == pytest.approx(sum(j is None for j in judge) / len(judge))
    assert sum(r["counts"].values()) == len(data)


@settings(max_examples=30, deadline=None)
@given(rows, st.randoms(use_true_random=False))
def test_the_agreement_does_not_depend_on_row_order(data, rnd):
    def run(d):
        return agreement(
            [h for h, _, _ in d],
            [j for _, j, _ in d],
            [f"q{c}" for _, _, c in d],
            labels=LABELS,
            n_resamples=50,
        )

    shuffled = list(data)
    rnd.shuffle(shuffled)
    assert run(data)["metrics"] == run(shuffled)["metrics"]


def test_balanced_accuracy_matches_sklearn_on_three_classes():
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(3)
    a = list(rng.choice(["r", "p", "n"], 300, p=[0.6, 0.3, 0.1]))
    b = [x if rng.random() < 0.7 else str(rng.choice(["r", "p", "n"])) for x in a]
    assert balanced_accuracy(a, b) == pytest.approx(metrics.balanced_accuracy_score(a, b))


def test_an_always_supported_judge_is_the_floor():
    """Accuracy is the share of Supported labels; balanced accuracy exactly 0.5; κ 0."""
    human = [S] * 70 + [N] * 30
    r = agreement(human, [S] * 100, [f"q{i // 2}" for i in range(100)], labels=LABELS)
    m = r["metrics"]
    assert m["accuracy"]["value"] == 0.7 and m["balanced_accuracy"]["value"] == 0.5
    assert m["kappa"]["value"] == 0.0 and m["specificity"]["value"] == 0.0
    assert m["balanced_accuracy"]["high"] < 0.7  # never "calibrated" at the default floor


def test_a_perfect_judge_on_few_questions_gets_no_point_interval():
    human = [S, N] * 10
    r = agreement(human, human, [f"q{i}" for i in range(20)], labels=LABELS)
    ba = r["metrics"]["balanced_accuracy"]
    assert ba["value"] == 1.0 and ba["high"] == 1.0 and ba["low"] < 0.9
    lo, hi = score_intervals(np.array([[1, 0, 0, 1, 0, 0]] * 10, dtype=float))["accuracy"]
    assert hi == 1.0 and lo < 0.8


def test_unparseable_replies_count_against_the_judge():
    human = [S, S, N, N] * 5
    judge = [S, None, N, None] * 5
    r = agreement(human, judge, [f"q{i}" for i in range(20)], labels=LABELS, n_resamples=0)
    assert r["counts"] == {"tp": 5, "fn": 0, "fp": 0, "tn": 5, "up": 5, "un": 5}
    assert r["metrics"]["balanced_accuracy"]["value"] == 0.5
    assert r["metrics"]["unparseable"]["value"] == 0.5


def test_the_human_ceiling_leaves_one_annotator_out():
    def item(i, labels):
        return JudgeItem(
            str(i),
            "en",
            "q",
            ("c",),
            "t",
            None,
            tuple((f"a{k}", l) for k, l in enumerate(labels)),
            f"q{i % 12}",
        )

    items = [item(i, [S, S, S, S, N] if i % 2 else [N, N, N, S, N]) for i in range(24)]
    r = ceiling(items, labels=LABELS, n_resamples=100)
    # each item: 4 annotators agree with the others' plurality, the fifth does not
    assert r["annotators"] == 5 and r["n_items"] == 24 * 5
    assert r["metrics"]["accuracy"]["value"] == pytest.approx(0.8)
    assert r["metrics"]["balanced_accuracy"]["low"] is not None
    single = [JudgeItem("x", "en", "q", ("c",), "t", S, (("gold", S),), "q")]
    assert ceiling(single, labels=LABELS) is None


def test_the_threshold_maximises_balanced_accuracy_as_the_roc_curve_says():
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(0)
    human = [S if x else N for x in rng.random(200) < 0.6]
    scores = [float(rng.normal(1.0 if h == S else 0.0)) for h in human]
    t = best_threshold(scores, human, labels=LABELS)
    got = balanced_accuracy(human, apply_threshold(scores, t, labels=LABELS))
    fpr, tpr, _ = metrics.roc_curve([h == S for h in human], scores)
    assert got == pytest.approx(float(np.max((tpr + 1 - fpr) / 2)))
    assert best_threshold([1.0, 2.0], [S, S], labels=LABELS) is None
    cal, held = split_questions([f"q{i}" for i in range(10)] * 2, 0.5, np.random.default_rng(1))
    assert len(cal) == len(held) == 5 and not cal & held


@pytest.mark.parametrize("df", [5, 9, 19, 49, 249])
def test_the_t_level_matches_scipy(df):
    from scipy import stats

    from bordir.judging.agreement import t_level

    want = 2 * stats.norm.cdf(stats.t.ppf(0.975, df)) - 1
    assert t_level(0.95, df) == pytest.approx(want, abs=2e-4)


def test_one_human_label_only_gives_no_balanced_accuracy():
    """An always-Supported judge on Supported-only items is not a perfect judge."""
    r = agreement([S] * 30, [S] * 30, [f"q{i}" for i in range(30)], labels=LABELS)
    ba = r["metrics"]["balanced_accuracy"]
    assert ba == {"value": None, "low": None, "high": None}
    assert r["metrics"]["sensitivity"]["value"] == 1.0
