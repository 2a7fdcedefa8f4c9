"""Agreement statistics against values computed by hand, Krippendorff's published example, and the CLI."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

from bordir.annotations import Label, LabelSet, compare, majority_vote, reliability, write_labels
from bordir.cli.annotate import agreement_cmd
from bordir.errors import ConfigError
from bordir.stats import accuracy, cohen_kappa, f1_scores, krippendorff_alpha, macro_f1

# The small table: 10 pairs, 3 classes (r = relevant, p = partially relevant, n = not relevant).
A = ["r", "r", "r", "r", "p", "p", "p", "n", "n", "n"]
B = ["r", "r", "r", "p", "p", "p", "n", "n", "n", "p"]
# Confusion matrix, rows A, columns B:      B: r  p  n
#                                        A r:  3  1  0    (row total 4)
#                                        A p:  0  2  1    (row total 3)
#                                        A n:  0  1  2    (row total 3)
#                                  column totals 3  4  3
# accuracy = (3 + 2 + 2) / 10 = 0.7
# p_e = (4*3 + 3*4 + 3*3) / 100 = 33/100;  kappa = (0.70 - 0.33) / (1 - 0.33) = 0.37 / 0.67 = 37/67
# F1_c = 2 TP / (row + column):  r: 6 / (4 + 3) = 6/7;  p: 4 / (3 + 4) = 4/7;  n: 4 / (3 + 3) = 2/3
# macro F1 = (6/7 + 4/7 + 2/3) / 3 = 44/63
# Krippendorff's alpha (2 coders, no missing): coincidences o = M + M^T = [[6,1,0],[1,4,2],[0,2,4]],
# n_c = (7, 7, 6), n = 20, sum_c o_cc = 14:  alpha = 1 - 19 * (20 - 14) / (400 - (49 + 49 + 36)) = 1 - 114/266 = 4/7
HAND = {
    "accuracy": 0.7,
    "kappa": 37 / 67,
    "macro_f1": 44 / 63,
    "alpha": 4 / 7,
    "f1": {"r": 6 / 7, "p": 4 / 7, "n": 2 / 3},
}


def test_statistics_match_the_hand_computation():
    assert accuracy(A, B) == pytest.approx(HAND["accuracy"])
    assert cohen_kappa(A, B) == pytest.approx(HAND["kappa"])
    assert macro_f1(A, B) == pytest.approx(HAND["macro_f1"])
    assert f1_scores(A, B) == pytest.approx(HAND["f1"])
    assert krippendorff_alpha(list(zip(A, B))) == pytest.approx(HAND["alpha"])


def test_kappa_matches_statsmodels():
    inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
    table = np.array([[3, 1, 0], [0, 2, 1], [0, 1, 2]])
    assert cohen_kappa(A, B) == pytest.approx(inter_rater.cohens_kappa(table)["kappa"])


def test_krippendorff_alpha_reproduces_the_published_example():
    # Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", nominal data, 4 observers,
    # 12 units with missing values: alpha = 0.743.
    N = None
    obs = [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
        [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
    ]
    assert round(krippendorff_alpha(list(zip(*obs))), 3) == 0.743


def test_degenerate_inputs_are_undefined_not_errors():
    assert cohen_kappa(["a", "a"], ["a", "a"]) is None  # p_e = 1
    assert accuracy([], []) is None and macro_f1([], []) is None
    assert krippendorff_alpha([["a", "a"], ["a", None]]) is None  # no variation
    assert krippendorff_alpha([["a"], ["b"]]) is None  # no unit with two values
    with pytest.raises(ConfigError, match="differ in length"):
        cohen_kappa(["a"], ["a", "b"])


# --- label sets -------------------------------------------------------------------------------

_REL = {"r": "relevant", "p": "partially_relevant", "n": "not_relevant"}


def _labelset(
    codes,
    annotator,
    *,
    langs=("en", "ru"),
    territories=("Crimea", "Kuril Islands", "Abyei", "Ceuta", "Golan Heights"),
):
    labels = []
    for i, c in enumerate(codes):
        t = territories[i % len(territories)].replace(" ", "_")
        lang = langs[i % len(langs)]
        rel = _REL[c]
        labels.append(
            Label(
                f"{t}_{lang}",
                "en",
                f"d{i}",
                rel,
                "not_applicable" if c == "n" else "neutral",
                annotator,
            )
        )
    return LabelSet(labels, name=annotator)


def test_compare_reports_the_hand_values_overall_and_per_language():
    report = compare(
        _labelset(A, "gold"), _labelset(B, "llm"), dimensions=["relevance"], n_resamples=300, seed=3
    )
    assert report.value("relevance", "accuracy") == pytest.approx(0.7)
    assert report.value("relevance", "kappa") == pytest.approx(37 / 67)
    assert report.value("relevance", "macro_f1") == pytest.approx(44 / 63)
    assert report.value("relevance", "f1[partially_relevant]") == pytest.approx(4 / 7)
    # per language: en = positions 0, 2, 4, 6, 8 -> A r r p p n, B r r p n n: 4/5 agree
    assert report.value("relevance", "accuracy", group="en") == pytest.approx(0.8)
    assert accuracy(A[1::2], B[1::2]) == report.value("relevance", "accuracy", group="ru")
    frame = report.to_frame()
    row = frame[(frame.group == "all") & (frame.statistic == "kappa")].iloc[0]
    assert row.low <= row.estimate <= row.high and row.n_pairs == 10 and row.n_clusters == 5
    assert str(report.signature).startswith(
        "agreement|sets:gold+llm|dims:relevance|by:query_lang|cluster:territory|"
        "boot:300|seed:3|ci:percentile95|version:"
    )


def test_bootstrap_is_seeded_order_invariant_and_clusters_by_territory():
    a, b = _labelset(A, "gold"), _labelset(B, "llm")
    r1 = compare(a, b, n_resamples=200, seed=11).to_frame()
    r2 = compare(
        LabelSet(list(a)[::-1], name="gold"),
        LabelSet(list(b)[::-1], name="llm"),
        n_resamples=200,
        seed=11,
    ).to_frame()
    r3 = compare(a, b, n_resamples=200, seed=12).to_frame()
    key = ["dimension", "group", "statistic"]
    m = r1.merge(r2, on=key)
    assert np.allclose(m.estimate_x.astype(float), m.estimate_y.astype(float), equal_nan=True)
    assert not r1[["low", "high"]].equals(r3[["low", "high"]])
    pairs = compare(a, b, n_resamples=200, seed=11, cluster="pair").to_frame()
    assert set(pairs["n_clusters"][pairs.group == "all"]) == {10}
    # a language with one territory resamples its pairs, and says so
    one = compare(
        _labelset(A, "g", territories=("Crimea",)),
        _labelset(B, "l", territories=("Crimea",)),
        n_resamples=100,
        seed=1,
    ).to_frame()
    assert set(one["resampled"]) == {"pair"}


def test_pairs_missing_from_one_set_or_unlabelled_are_counted_not_scored():
    a = _labelset(A, "gold")
    b_labels = list(_labelset(B, "llm"))[:8]
    b_labels[0] = Label(*b_labels[0].pair, None, None, "llm", "unparsed", raw="?")
    report = compare(a, LabelSet(b_labels, name="llm"), n_resamples=0)
    assert report.counts["labelled_by_all"] == 7 and report.counts["absent_from"]["llm"] == 2
    assert report.counts["missing_outcome"]["llm"] == 1
    assert report.value("relevance", "accuracy") == pytest.approx(accuracy(A[1:8], B[1:8]))
    assert report.to_frame()["low"].isna().all()  # no resamples, no intervals


def test_reliability_for_three_annotators_with_missing_labels():
    c = list(B)
    c[0] = "p"
    sets = [
        _labelset(A, "h1"),
        _labelset(B, "h2"),
        LabelSet(list(_labelset(c, "h3"))[:9], name="h3"),
    ]
    rep = reliability(sets, dimensions="relevance", n_resamples=200, seed=5)
    units = [[a, b, (c[i] if i < 9 else None)] for i, (a, b) in enumerate(zip(A, B))]
    assert rep.value("relevance", "alpha") == pytest.approx(krippendorff_alpha(units))
    with pytest.raises(ConfigError, match="at least two"):
        reliability(sets[:1])


def test_majority_vote_over_three_annotators():
    h1, h2 = _labelset(A, "h1"), _labelset(B, "h2")
    h3 = _labelset(["r", "p", "r", "r", "p", "n", "n", "n", "p", "p"], "h3")
    maj = majority_vote([h1, h2, h3])
    # votes (h1 h2 h3): d3 r p r -> r; d5 p p n -> p; d6 p n n -> n; d8 n n p -> n; d9 n p p -> p; others unanimous
    got = {l.doc_id: l.relevance[0] for l in maj}
    assert got == {
        "d0": "r",
        "d1": "r",
        "d2": "r",
        "d3": "r",
        "d4": "p",
        "d5": "p",
        "d6": "n",
        "d7": "n",
        "d8": "n",
        "d9": "p",
    }
    assert maj.meta["ties"] == 0 and maj.annotators == ("majority",)
    assert all(
        l.viewpoint == ("not_applicable" if l.relevance == "not_relevant" else "neutral")
        for l in maj
    )


def test_unknown_dimension_or_cluster_is_a_config_error():
    a, b = _labelset(A, "gold"), _labelset(B, "llm")
    with pytest.raises(ConfigError, match="unknown label dimension"):
        compare(a, b, dimensions="stance")
    with pytest.raises(ConfigError, match="unknown cluster"):
        compare(a, b, cluster="language")


# --- the CLI ------------------------------------------------------------------------------------


def test_cli_agreement_prints_per_language_kappa_and_f1_with_cis(tmp_path):
    from bordir.annotations import load_gold

    gold = load_gold("demo")
    # an "LLM" that disagrees with the gold on every 5th pair's relevance
    flip = {
        "relevant": "partially_relevant",
        "partially_relevant": "relevant",
        "not_relevant": "not_relevant",
    }
    llm = [
        Label(*l.pair, flip[l.relevance] if i % 5 == 0 else l.relevance, l.viewpoint, "llm")
        for i, l in enumerate(gold)
    ]
    g_path = write_labels(gold, tmp_path / "gold.jsonl")
    l_path = write_labels(llm, tmp_path / "llm.jsonl")
    res = CliRunner().invoke(
        agreement_cmd, [str(g_path), str(l_path), "--resamples", "200", "--seed", "7"]
    )
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[0] == "gold vs llm (reference: gold)"
    header = lines[1].split()
    assert (
        header[:4] == ["dimension", "lang", "pairs", "clusters"]
        and "kappa" in header
        and "F1" in header
    )
    langs = {l.split()[1] for l in lines[3:] if l.startswith(("relevance ", "viewpoint "))}
    assert langs == {
        "all",
        "ar",
        "az",
        "el",
        "en",
        "es",
        "hi",
        "hy",
        "iw",
        "ja",
        "ru",
        "tr",
        "uk",
        "ur",
        "zhs",
        "zht",
    }
    vp_all = next(l for l in lines if l.startswith("viewpoint  all"))
    assert "1.000 [1.000, 1.000]" in vp_all  # viewpoints agree everywhere
    assert any(l.startswith("signature: agreement|sets:gold+llm|") for l in lines[-3:])

    res = CliRunner().invoke(
        agreement_cmd, [str(g_path), str(l_path), "--resamples", "100", "--json", "--by", "none"]
    )
    out = json.loads(res.output)
    assert out["signature"].startswith("agreement|") and {r["group"] for r in out["rows"]} == {
        "all"
    }
    kappa = next(
        r for r in out["rows"] if r["dimension"] == "relevance" and r["statistic"] == "kappa"
    )
    expected = cohen_kappa([l.relevance for l in gold], [l.relevance for l in llm])
    assert math.isclose(kappa["estimate"], expected) and kappa["low"] <= expected <= kappa["high"]


def test_cli_agreement_with_three_files_reports_alpha_and_majority(tmp_path):
    files = []
    for name, codes in (("h1", A), ("h2", B), ("h3", A)):
        files.append(str(write_labels(_labelset(codes, name), tmp_path / f"{name}.jsonl")))
    llm = str(write_labels(_labelset(B, "llm"), tmp_path / "llm.jsonl"))
    res = CliRunner().invoke(
        agreement_cmd, [*files, llm, "--dataset", "none", "--resamples", "50", "--vs-majority"]
    )
    assert res.exit_code == 0, res.output
    assert "Krippendorff's alpha" in res.output and "alpha [95% CI]" in res.output
    assert "majority of h1, h2, h3 vs llm" in res.output
    res = CliRunner().invoke(agreement_cmd, [files[0], "--dataset", "none"])
    assert res.exit_code != 0 and "two label sets or more" in str(res.exception)


# --- issue 13.10: ordinal statistics next to the nominal ones --------------------------------------
from bordir.stats import krippendorff_alpha_ordinal, weighted_kappa  # noqa: E402

LEVELS = ("n", "p", "r")


def test_weighted_kappa_by_hand():
    # linear weights |i - j| over levels n < p < r; confusion (rows A, cols B) in level order:
    #   A n: n 2, p 1, r 0;  A p: n 1, p 2, r 0;  A r: n 0, p 1, r 3   (row totals 3, 3, 4; col totals 3, 4, 3)
    # observed weighted disagreement = 1 + 1 + 1 = 3;  expected = sum w_ij row_i col_j / n
    #   = (3*4*1 + 3*3*2 + 3*3*1 + 3*3*1 + 4*3*2 + 4*4*1) / 10 = (12 + 18 + 9 + 9 + 24 + 16) / 10 = 8.8
    assert weighted_kappa(A, B, LEVELS, weights="linear") == pytest.approx(1 - 3 / 8.8)
    # quadratic: observed 3; expected (12 + 36 + 9 + 9 + 48 + 16) / 10 = 13
    assert weighted_kappa(A, B, LEVELS, weights="quadratic") == pytest.approx(1 - 3 / 13)
    assert weighted_kappa(["n"], ["n"], LEVELS) is None  # no expected disagreement
    with pytest.raises(ConfigError, match="unknown kappa weights"):
        weighted_kappa(A, B, LEVELS, weights="cubic")  # type: ignore[arg-type]


@pytest.mark.parametrize("weights", ["linear", "quadratic"])
def test_weighted_kappa_matches_sklearn(weights):
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(4)
    for _ in range(20):
        n = int(rng.integers(5, 60))
        a = list(rng.choice(LEVELS, n))
        b = [x if rng.random() < 0.6 else str(rng.choice(LEVELS)) for x in a]
        ours = weighted_kappa(a, b, LEVELS, weights=weights)
        ref = metrics.cohen_kappa_score(a, b, weights=weights, labels=list(LEVELS))
        assert (ours is None and math.isnan(ref)) or ours == pytest.approx(ref)


def test_ordinal_alpha_reproduces_the_published_example_and_the_krippendorff_package():
    N = None
    obs = [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
        [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
    ]
    # Krippendorff (2011): ordinal alpha = 0.815 for the data whose nominal alpha is 0.743
    assert round(krippendorff_alpha_ordinal(list(zip(*obs)), [1, 2, 3, 4, 5]), 3) == 0.815
    kd = pytest.importorskip("krippendorff")
    rng = np.random.default_rng(9)
    for _ in range(20):
        coders, units = int(rng.integers(2, 5)), int(rng.integers(4, 40))
        data = rng.integers(0, 3, size=(coders, units)).astype(float)
        data[rng.random(data.shape) < 0.2] = np.nan
        if (np.sum(~np.isnan(data), axis=0) >= 2).sum() < 2:
            continue
        ours = krippendorff_alpha_ordinal(
            [[None if np.isnan(v) else int(v) for v in col] for col in data.T], [0, 1, 2]
        )
        ref = kd.alpha(
            reliability_data=data, level_of_measurement="ordinal", value_domain=[0, 1, 2]
        )
        assert (ours is None and math.isnan(ref)) or ours == pytest.approx(ref)
        nominal = krippendorff_alpha(
            [[None if np.isnan(v) else int(v) for v in col] for col in data.T]
        )
        ref_nominal = kd.alpha(
            reliability_data=data, level_of_measurement="nominal", value_domain=[0, 1, 2]
        )
        assert (nominal is None and math.isnan(ref_nominal)) or nominal == pytest.approx(
            ref_nominal
        )


def test_reports_carry_ordinal_statistics_for_relevance_only():
    rep = compare(_labelset(A, "gold"), _labelset(B, "llm"), n_resamples=200, seed=3)
    # relevance levels in order not_relevant < partially_relevant < relevant = n < p < r
    assert rep.value("relevance", "kappa_linear") == pytest.approx(
        weighted_kappa(A, B, LEVELS, weights="linear")
    )
    assert rep.value("relevance", "kappa_quadratic") == pytest.approx(weighted_kappa(A, B, LEVELS))
    frame = rep.to_frame()
    row = frame[
        (frame.dimension == "relevance")
        & (frame.group == "all")
        & (frame.statistic == "kappa_linear")
    ]
    assert row.iloc[0].low <= row.iloc[0].estimate <= row.iloc[0].high
    assert not {"kappa_linear", "kappa_quadratic"} & set(
        frame[frame.dimension == "viewpoint"].statistic
    )
    c = list(B)
    c[0] = "p"
    rel = reliability(
        [_labelset(A, "h1"), _labelset(B, "h2"), _labelset(c, "h3")],
        dimensions="relevance",
        n_resamples=0,
    )
    units = [[x, y, z] for x, y, z in zip(A, B, c)]
    assert rel.value("relevance", "alpha_ordinal") == pytest.approx(
        krippendorff_alpha_ordinal(units, LEVELS)
    )
    assert rel.settings["ordinal"] == {
        "relevance": ["not_relevant", "partially_relevant", "relevant"]
    }


def test_cli_agreement_prints_the_weighted_kappa_and_ordinal_alpha(tmp_path):
    g = str(write_labels(_labelset(A, "gold"), tmp_path / "gold.jsonl"))
    l = str(write_labels(_labelset(B, "llm"), tmp_path / "llm.jsonl"))
    h3 = str(write_labels(_labelset(A, "h3"), tmp_path / "h3.jsonl"))
    res = CliRunner().invoke(
        agreement_cmd, [g, l, "--dataset", "none", "--resamples", "50", "--by", "none"]
    )
    assert res.exit_code == 0, res.output
    assert "kappa linear [95% CI]" in res.output and "kappa quadratic [95% CI]" in res.output
    rel = next(x for x in res.output.splitlines() if x.startswith("relevance "))
    assert f"{weighted_kappa(A, B, LEVELS, weights='linear'):.3f}" in rel
    res = CliRunner().invoke(
        agreement_cmd, [g, l, h3, "--dataset", "none", "--resamples", "50", "--by", "none"]
    )
    assert res.exit_code == 0, res.output
    assert "alpha ordinal [95% CI]" in res.output
