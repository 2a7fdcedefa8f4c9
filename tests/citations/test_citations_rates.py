"""Citation / inclusion rates: hand-computed values (pooled ≠ per query), the vectorised cluster bootstrap
against a direct computation, flags and Holm, and invariance to row order."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bordir.citations import (
    CellStats,
    assign_flags,
    experiment_citations,
    summarize_cell,
)
from bordir.citations.rates import answer_statistics, rates_from_sums
from bordir.citations.tables import divergence_table, spread_by_resource
from bordir.errors import ConfigError, DataError
from bordir.stats import bootstrap_weights, multinomial_weights
from bordir.stats import holm_pvalues as holm_adjust
from bordir.stats import named_rng as cell_rng


def _tiny() -> pd.DataFrame:
    """Three answers of model m/x, mode rel_langs, query language sw, three territories.

    A: 2 en + 2 sw documents, cites en three times (<doc0> <doc1> <doc0>);
    B: 1 en + 1 sw, cites sw once;
    C: 1 en, cites nothing (and one citation out of range).
    """
    return pd.DataFrame(
        {
            "query_id": ["A_sw", "B_sw", "C_sw"],
            "territory": ["A", "B", "C"],
            "query_lang": ["sw"] * 3,
            "mode": ["rel_langs"] * 3,
            "model": ["m/x"] * 3,
            "run": [0, 0, 0],
            "outcome": ["answered"] * 3,
            "choice_name": ["X", "Y", "X"],
            "doc_ids": [["a0", "a1", "a2", "a3"], ["b0", "b1"], ["c0"]],
            "doc_langs": [["en", "en", "sw", "sw"], ["en", "sw"], ["en"]],
            "cited_doc_ids": [["a0", "a1", "a0"], ["b1"], []],
            "n_cited_dropped": [0, 0, 1],
        }
    )


def test_hand_computed_rates_pooled_and_per_query_differ():
    t = experiment_citations(_tiny(), n_resamples=50, seed=1)
    r = t.rates.set_index(["doc_lang", "rate"])
    # pooled: 3 of the 4 citations go to English; per query: A cites only English (1.0), B only Swahili (0.0)
    assert r.loc[("en", "pooled"), "citation_rate"] == pytest.approx(3 / 4)
    assert r.loc[("en", "per_query"), "citation_rate"] == pytest.approx(1 / 2)
    assert r.loc[("sw", "pooled"), "citation_rate"] == pytest.approx(1 / 4)
    # inclusion over every prompt: pooled 4 of 7 documents; per query mean(2/4, 1/2, 1/1)
    assert r.loc[("en", "pooled"), "inclusion_rate"] == pytest.approx(4 / 7)
    assert r.loc[("en", "per_query"), "inclusion_rate"] == pytest.approx(2 / 3)
    # the ratio's denominator: answers with a citation only (A, B): 3 of 6, and mean(2/4, 1/2)
    assert r.loc[("en", "pooled"), "inclusion_rate_citing"] == pytest.approx(1 / 2)
    assert r.loc[("en", "per_query"), "inclusion_rate_citing"] == pytest.approx(1 / 2)
    assert r.loc[("en", "pooled"), "ratio"] == pytest.approx(1.5)
    assert r.loc[("en", "per_query"), "ratio"] == pytest.approx(1.0)
    assert r.loc[("en", "pooled"), "n_docs"] == 4 and r.loc[("en", "pooled"), "n_citations"] == 3
    assert r.loc[("en", "pooled"), "n_clusters"] == 3 and r.loc[("en", "pooled"), "n_citing"] == 2
    assert not r["tested"].any()  # 3 territories < min_clusters: never flagged
    a = t.answers.set_index("query_lang").loc["sw"]
    assert a["no_citation_rate"] == pytest.approx(1 / 3) and a["n_out_of_range"] == 1
    assert a["out_of_range_rate"] == pytest.approx(1 / 3)
    assert r.loc[("en", "pooled"), "measure"] == "CitationRatio(rate=pooled,lang=en)"


def test_failed_echo_and_documentless_rows_are_left_out():
    df = _tiny()
    extra = df.iloc[[0, 0, 0]].copy()
    extra["outcome"] = ["failed", "answered", "echo"]  # an echo: its citations are the copy's
    extra["mode"] = ["rel_langs", "no_ir", "rel_langs"]
    extra.iloc[1, extra.columns.get_loc("doc_ids")] = []
    extra.iloc[1, extra.columns.get_loc("doc_langs")] = []
    extra.iloc[1, extra.columns.get_loc("cited_doc_ids")] = []
    t = experiment_citations(pd.concat([df, extra], ignore_index=True), n_resamples=20, seed=1)
    assert t.settings["excluded_rows"] == {"failed": 1, "echo": 1, "without_documents": 1}
    assert set(t.rates["mode"]) == {"rel_langs"}
    base = experiment_citations(df, n_resamples=20, seed=1)
    pd.testing.assert_frame_equal(t.rates, base.rates)


def test_missing_columns_say_what_is_expected():
    with pytest.raises(DataError, match="missing column.*cited_doc_ids.*citation-format run"):
        experiment_citations(_tiny().drop(columns=["cited_doc_ids"]))


# --- the vectorised bootstrap against a direct computation -----------------------------------------------------


def _direct_rates(inc: np.ndarray, cit: np.ndarray) -> dict[str, np.ndarray]:
    """Rates straight from their definitions, answer by answer."""
    citing = [i for i in range(len(inc)) if cit[i].sum() > 0]
    with_docs = [i for i in range(len(inc)) if inc[i].sum() > 0]
    return {
        "pooled_citation": cit.sum(0) / cit.sum(),
        "pooled_inclusion": inc.sum(0) / inc.sum(),
        "pooled_ratio": (cit.sum(0) / cit.sum()) / (inc[citing].sum(0) / inc[citing].sum()),
        "per_query_citation": np.mean([cit[i] / cit[i].sum() for i in citing], axis=0),
        "per_query_inclusion": np.mean([inc[i] / inc[i].sum() for i in with_docs], axis=0),
        "per_query_ratio": np.mean([cit[i] / cit[i].sum() for i in citing], axis=0)
        / np.mean([inc[i] / inc[i].sum() for i in citing], axis=0),
    }


def _as_dict(rates: dict) -> dict[str, np.ndarray]:
    return {
        f"{v}_{m}": rates[v][k]
        for v in ("pooled", "per_query")
        for m, k in (
            ("citation", "citation_rate"),
            ("inclusion", "inclusion_rate"),
            ("ratio", "ratio"),
        )
    }


def test_bootstrap_resamples_equal_direct_recomputation():
    rng = np.random.default_rng(0)
    n, L = 60, 3
    inc = rng.integers(0, 4, size=(n, L))
    inc[inc.sum(1) == 0, 0] = 1
    cit = np.minimum(rng.integers(0, 3, size=(n, L)), inc * 2)
    cit[:5] = 0  # some answers cite nothing
    clusters = rng.integers(0, 9, size=n)
    cell = CellStats.from_answers(("en", "fr", "sw"), inc, cit, clusters=clusters)
    assert cell.n_clusters == len(set(clusters))
    # each cluster's row in the (deduplicated) cell
    per_lang, scal = answer_statistics(inc, cit)
    ids = sorted(set(clusters))
    table = np.hstack([*cell.lang.values(), *[v[:, None] for v in cell.scalars.values()]])
    profile_of = []
    for c in ids:
        m = clusters == c
        row = np.hstack(
            [per_lang[k][m].sum(0) for k in cell.lang] + [[scal[k][m].sum()] for k in cell.scalars]
        )
        profile_of.append(int(np.flatnonzero(np.all(np.isclose(table, row), axis=1))[0]))
    w = bootstrap_weights(len(ids), 40, np.random.default_rng(1))
    wp = np.zeros((40, cell.n_profiles))
    for j, p in enumerate(profile_of):
        wp[:, p] += w[:, j]
    got = _as_dict(rates_from_sums(*cell.sums(wp)))
    for b in range(40):
        rows = np.concatenate(
            [np.tile(np.flatnonzero(clusters == c), int(w[b, j])) for j, c in enumerate(ids)]
        )
        want = _direct_rates(inc[rows], cit[rows])
        for k, v in want.items():
            np.testing.assert_allclose(got[k][b], v, rtol=1e-9, err_msg=k)


def test_identical_clusters_merge_into_weighted_profiles():
    inc = np.array([[1, 1]] * 500 + [[2, 0]] * 300)
    cit = np.array([[1, 0]] * 200 + [[0, 1]] * 300 + [[1, 0]] * 300)
    cell = CellStats.from_answers(("en", "sw"), inc, cit)
    assert cell.n_profiles == 3 and cell.n_clusters == 800
    est = cell.estimates()
    assert est["pooled"]["citation_rate"][0] == pytest.approx(500 / 800)
    w = multinomial_weights(cell.weight, 1000, np.random.default_rng(0))
    assert w.shape == (1000, 3) and (w.sum(1) == 800).all()
    assert np.allclose(w.mean(0), cell.weight, rtol=0.05)


def test_intervals_cover_and_are_reproducible():
    rng = np.random.default_rng(3)
    inc = rng.integers(1, 4, size=(400, 2))
    cit = rng.binomial(1, 0.5, size=(400, 2))
    cell = CellStats.from_answers(("en", "sw"), inc, cit)
    a = summarize_cell(cell, n_resamples=300, seed=9, name="x")
    b = summarize_cell(cell, n_resamples=300, seed=9, name="x")
    c = summarize_cell(cell, n_resamples=300, seed=9, name="y")
    assert a == b and a != c
    for r in a:
        for m in ("citation_rate", "inclusion_rate", "ratio"):
            assert r[f"{m}_low"] <= r[m] <= r[f"{m}_high"]
        assert 0.0 <= r["p_value"] <= 1.0
    assert cell_rng(1, "a").integers(1 << 30) == cell_rng(1, "a").integers(1 << 30)


# --- flags ----------------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_holm_matches_statsmodels():
    mt = pytest.importorskip("statsmodels.stats.multitest")
    p = np.array([0.001, 0.2, 0.01, 0.04, 0.03, 0.5])
    np.testing.assert_allclose(holm_adjust(p), mt.multipletests(p, method="holm")[1])
    assert len(holm_adjust([])) == 0


def test_assign_flags_rules():
    t = pd.DataFrame(
        {
            "rate": ["pooled"] * 4,
            "ratio": [2.0, 0.5, 1.1, 3.0],
            "ratio_low": [1.5, 0.3, 0.9, 1.2],
            "ratio_high": [2.5, 0.8, 1.3, 5.0],
            "p_value": [0.001, 0.002, 0.4, 0.03],
            "n_clusters": [50, 50, 50, 4],
        }
    )
    h = assign_flags(t, min_clusters=5)
    assert h["flag"].tolist() == ["over", "under", None, None]
    assert h["tested"].tolist() == [True, True, True, False]
    assert h["p_adjusted"].tolist()[:2] == pytest.approx([0.003, 0.004])
    t2 = t.assign(
        p_value=[0.03, 0.002, 0.4, 0.03]
    )  # 0.03 × 3 > 0.05: interval excludes 1 but Holm says no
    assert assign_flags(t2, min_clusters=5)["flag"].tolist() == [None, "under", None, None]
    assert assign_flags(t2, min_clusters=5, adjust="none")["flag"].tolist() == [
        "over",
        "under",
        None,
        None,
    ]
    with pytest.raises(ConfigError, match="unknown adjustment"):
        assign_flags(t, adjust="bonferroni")


def test_spread_by_resource_level():
    rates = pd.DataFrame(
        {
            "g": ["x"] * 4,
            "query_lang": ["sw", "sw", "en", "en"],
            "doc_lang": ["en", "sw"] * 2,
            "rate": ["pooled"] * 4,
            "citation_rate": [0.9, 0.1, 0.5, 0.5],
            "inclusion_rate_citing": [0.5, 0.5, 0.5, 0.5],
        }
    )
    d = divergence_table(rates, ["g"]).set_index("query_lang")
    assert d.loc["sw", "divergence"] == pytest.approx(0.4) and d.loc["en", "divergence"] == 0.0
    s = spread_by_resource(rates, ["g"])
    assert s["resource"].tolist() == ["high", "low"] and s["n_query_langs"].tolist() == [1, 1]


# --- invariance ----------------------------------------------------------------------------------------------------


def _random_run(seed: int, n: int = 40) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        langs = [str(x) for x in rng.choice(["en", "sw", "fr"], size=3)]
        ids = [f"d{i}_{j}" for j in range(3)]
        cited = [ids[j] for j in rng.integers(0, 3, size=rng.integers(0, 3))]
        rows.append(
            {
                "query_id": f"T{i % 8}_{langs[0]}",
                "territory": f"T{i % 8}",
                "query_lang": ["sw", "fr"][i % 2],
                "mode": "rel_langs",
                "model": "m/x",
                "run": i // 8,
                "outcome": "answered",
                "doc_ids": ids,
                "doc_langs": langs,
                "cited_doc_ids": cited,
                "n_cited_dropped": int(rng.integers(0, 2)),
            }
        )
    return pd.DataFrame(rows)


@pytest.mark.slow
@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10_000), st.randoms(use_true_random=False))
def test_metrics_do_not_depend_on_row_order(seed, rnd):
    df = _random_run(seed % 50)
    order = list(range(len(df)))
    rnd.shuffle(order)
    a = experiment_citations(df, n_resamples=100, seed=seed)
    b = experiment_citations(df.iloc[order], n_resamples=100, seed=seed)
    pd.testing.assert_frame_equal(a.rates, b.rates)
    pd.testing.assert_frame_equal(a.overall, b.overall)
    pd.testing.assert_frame_equal(a.answers, b.answers)


def test_normal_approximation_agrees_with_the_exact_bootstrap():
    rng = np.random.default_rng(4)
    n = 20_000
    inc = rng.multinomial(5, [0.4, 0.3, 0.2, 0.1], size=n)
    cit = np.stack(
        [rng.binomial(inc[:, j], p) for j, p in enumerate([0.5, 0.3, 0.2, 0.05])], axis=1
    )
    cell = CellStats.from_answers(("en", "fr", "sw", "zhs"), inc, cit)
    assert cell.n_profiles > 100
    exact = summarize_cell(cell, n_resamples=2000, seed=1, method="multinomial")
    approx = summarize_cell(cell, n_resamples=2000, seed=1, method="normal")
    assert {r["bootstrap"] for r in exact} == {"multinomial"} and {
        r["bootstrap"] for r in approx
    } == {"normal"}
    for e, a in zip(exact, approx):
        assert (e["doc_lang"], e["rate"]) == (a["doc_lang"], a["rate"]) and e["ratio"] == a["ratio"]
        width = e["ratio_high"] - e["ratio_low"]
        assert abs(e["ratio_low"] - a["ratio_low"]) < 0.15 * width
        assert abs(e["ratio_high"] - a["ratio_high"]) < 0.15 * width
    with pytest.raises(ConfigError, match="unknown bootstrap method"):
        summarize_cell(cell, method="poisson")
