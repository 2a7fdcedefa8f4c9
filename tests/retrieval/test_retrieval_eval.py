"""Retrieval measures (hand-computed), language mix, and BordIRLines hits in bordir's hits table."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from bordir.errors import ConfigError, DataError
from bordir.loaders import load_bordirlines, load_demo, load_demo_corpus
from bordir.retrieval.evaluate import demo_qrels, language_mix, per_query_quality, quality
from bordir.retrieval.run import HIT_COLUMNS, PROVENANCE_COLUMNS, from_bordirlines, retrieve

from ..loaders.test_bordirlines import write_bordirlines


def _hits(rows):
    return pd.DataFrame(
        rows, columns=["query_id", "query_lang", "mode", "rank", "doc_lang", "doc_id"]
    )


def test_measures_by_hand():
    # ranking: x (irrelevant), a (rel 2), y (irrelevant), b (rel 1); c (rel 1) is not retrieved
    hits = _hits(
        [("q", "en", "qlang", r, "en", d) for r, d in enumerate(["x", "a", "y", "b"], start=1)]
    )
    qrels = pd.DataFrame(
        {
            "query_id": ["q"] * 4,
            "doc_lang": ["en"] * 4,
            "doc_id": ["a", "b", "c", "x"],
            "relevance": [2, 1, 1, 0],
        }
    )
    m = per_query_quality(hits, qrels, k=3).iloc[0]
    # Recall@3: one of the three relevant documents (a) is in the top 3 -> 1/3
    assert m["Recall@3"] == pytest.approx(1 / 3)
    # MRR: first relevant at rank 2 -> 0.5
    assert m["MRR"] == 0.5
    # DCG@3 = 2/log2(3); IDCG@3 = 2/log2(2) + 1/log2(3) + 1/log2(4)
    dcg = 2 / math.log2(3)
    idcg = 2 + 1 / math.log2(3) + 1 / 2
    assert m["nDCG@3"] == pytest.approx(dcg / idcg)
    assert m["n_relevant"] == 3


def test_candidates_are_limited_to_the_modes_languages():
    hits = _hits([("q", "uk", "qlang", 1, "uk", "u1")])
    qrels = pd.DataFrame(
        {
            "query_id": ["q", "q"],
            "doc_lang": ["uk", "en"],
            "doc_id": ["u1", "e1"],
            "relevance": [1, 1],
        }
    )
    m = per_query_quality(hits, qrels, k=10).iloc[0]
    assert m["Recall@10"] == 1.0  # the English relevant document is not visible to qlang


def test_bm25_beats_reverse_ranking_on_demo_judgments():
    ds, corpus = load_demo(), load_demo_corpus()
    run = retrieve(ds, corpus, "bm25", ["qlang"], k=3, progress=False)
    qrels = demo_qrels(ds, corpus)
    q = quality(run.hits, qrels, k=3, by=("mode",)).iloc[0]
    reversed_hits = run.hits.assign(
        rank=run.hits.groupby(["query_id", "mode"])["rank"].transform(lambda r: r.max() + 1 - r)
    )
    worst = quality(reversed_hits, qrels, k=3, by=("mode",)).iloc[0]
    assert q["nDCG@3"] > worst["nDCG@3"] + 0.2
    assert q["n_queries"] == len(ds.queries)


def test_language_mix_shares_sum_to_one():
    ds, corpus = load_demo(), load_demo_corpus()
    run = retrieve(ds, corpus, "bm25", "all", k=4, progress=False)
    mix = language_mix(run.hits, ds, k=4)
    shares = mix[[c for c in mix.columns if c.endswith("_share")]].sum(axis=1)
    assert shares.round(9).eq(1).all()
    qlang = mix[mix["mode"] == "qlang"]
    assert (qlang["query_lang_share"] == 1).all()
    en_only = mix[(mix["mode"] == "en_only") & (mix["query_lang"] != "en")]
    assert (en_only["en_share"] == 1).all()


def test_bordirlines_hits_load_into_the_same_table(tmp_path):
    b = load_bordirlines(write_bordirlines(tmp_path / "bdl"))
    run = from_bordirlines(b, "openai", k=5)
    assert list(run.hits.columns) == HIT_COLUMNS + PROVENANCE_COLUMNS
    assert set(run.hits["mode"]) <= {"qlang", "qlang+en", "en_only", "rel_langs"}
    assert run.top()["rank"].max() <= 5
    assert run.signature.startswith("retrieval|ret:bordirlines/openai")
    sample = run.hits.iloc[0]
    assert sample["query_id"] == f"{sample['territory'].replace(' ', '_')}_{sample['query_lang']}"
    with pytest.raises(ConfigError, match="no BordIRLines hits for system"):
        from_bordirlines(b, "bm25")


# --- issue 13.4: candidates are the mode's pool -------------------------------------------------
def _pool_scenario():
    """Crimea_uk (claimants ru, uk): relevant uk 3, en 7, ru 4; qlang+en returns no English document."""
    qrels = pd.DataFrame(
        [("Crimea_uk", "uk", f"u{i}", int(i < 3)) for i in range(10)]
        + [("Crimea_uk", "en", f"e{i}", int(i < 7)) for i in range(10)]
        + [("Crimea_uk", "ru", f"r{i}", int(i < 4)) for i in range(6)],
        columns=["query_id", "doc_lang", "doc_id", "relevance"],
    )
    rows = [
        ("Crimea_uk", "uk", "qlang+en", r, "uk", f"u{r - 1}") for r in range(1, 11)
    ]  # 3 relevant, no en
    rel_docs = [
        ("en", "e0"),
        ("en", "e1"),
        ("en", "e2"),
        ("en", "e3"),
        ("ru", "r0"),
        ("ru", "r1"),
        ("en", "e7"),
        ("en", "e8"),
        ("en", "e9"),
        ("ru", "r5"),
    ]  # 6 relevant
    rows += [
        ("Crimea_uk", "uk", "rel_langs", r, l, d) for r, (l, d) in enumerate(rel_docs, start=1)
    ]
    return _hits(rows), qrels


def test_recall_counts_the_whole_pool_not_the_returned_languages():
    hits, qrels = _pool_scenario()
    m = per_query_quality(hits, qrels, k=10, dataset=load_demo()).set_index("mode")
    # qlang+en pool {uk, en}: 3 of 10 relevant retrieved (before: 3/3 = 1.0, as if en were not in the pool)
    assert m.loc["qlang+en", "Recall@10"] == pytest.approx(3 / 10)
    assert m.loc["qlang+en", "n_relevant"] == 10
    # rel_langs pool {ru, uk, en}: 6 of 14 (before: 6/11, the uk documents dropped from the denominator)
    assert m.loc["rel_langs", "Recall@10"] == pytest.approx(6 / 14)
    # the order of the modes: rel_langs recalls more of its pool (it was reversed before)
    assert m.loc["rel_langs", "Recall@10"] > m.loc["qlang+en", "Recall@10"]


def test_pool_modes_need_the_dataset():
    hits, qrels = _pool_scenario()
    with pytest.raises(ConfigError, match="pass dataset="):
        per_query_quality(hits, qrels, k=10)
    only_qlang_en = hits[hits["mode"] == "qlang+en"]
    assert per_query_quality(only_qlang_en, qrels, k=10).iloc[0]["Recall@10"] == pytest.approx(0.3)


def test_a_query_without_hits_in_a_mode_scores_zero():
    hits, qrels = _pool_scenario()
    hits = pd.concat([hits, _hits([("Crimea_uk", "uk", "en_only", 1, "en", "e5")])])
    hits = hits[~(hits["mode"] == "qlang+en")]
    other = _hits([("Crimea_ru", "ru", "qlang+en", 1, "ru", "x")])
    qrels2 = pd.concat([qrels, pd.DataFrame([("Crimea_ru", "en", "y", 1)], columns=qrels.columns)])
    m = per_query_quality(pd.concat([hits, other]), qrels2, k=10, dataset=load_demo())
    row = m[(m["query_id"] == "Crimea_ru") & (m["mode"] == "qlang+en")].iloc[0]
    assert (row["Recall@10"], row["MRR"], row["nDCG@10"]) == (
        0.0,
        0.0,
        0.0,
    )  # relevant en document, none found


def _ir_measures_per_query(hits, qrels, k, dataset):
    """trec_eval (via ir_measures) on the same run, qrels restricted to each (query, mode)'s pool."""
    ir_measures = pytest.importorskip("ir_measures")
    from bordir.retrieval.evaluate import mode_pool

    run, restricted = [], []
    for (qid, mode), g in hits.groupby(["query_id", "mode"]):
        pool = set(mode_pool(mode, qid, g["query_lang"].iloc[0], dataset))
        key = f"{qid}|{mode}"
        judged = qrels[(qrels["query_id"] == qid) & qrels["doc_lang"].isin(pool)]
        if not (judged["relevance"] > 0).any():
            continue
        restricted += [
            ir_measures.Qrel(key, f"{l}/{d}", int(r))
            for l, d, r in judged[["doc_lang", "doc_id", "relevance"]].itertuples(index=False)
        ]
        run += [
            ir_measures.ScoredDoc(key, f"{l}/{d}", -float(r))
            for l, d, r in g[["doc_lang", "doc_id", "rank"]].itertuples(index=False)
        ]
    measures = {
        ir_measures.R @ k: f"Recall@{k}",
        ir_measures.nDCG @ k: f"nDCG@{k}",
        ir_measures.RR: "MRR",
    }
    out: dict[tuple[str, str], dict[str, float]] = {}
    for r in ir_measures.iter_calc(list(measures), restricted, run):
        qid, mode = r.query_id.split("|")
        out.setdefault((qid, mode), {})[measures[r.measure]] = r.value
    return out


@pytest.mark.slow
@pytest.mark.parametrize("k", [3, 10])
def test_measures_agree_with_trec_eval_on_every_pool(k):
    ds, corpus = load_demo(), load_demo_corpus()
    run = retrieve(ds, corpus, "bm25", "all", k=k, progress=False)
    qrels = demo_qrels(ds, corpus)
    hits = run.hits
    scenario_hits, scenario_qrels = _pool_scenario()
    for h, qr in ((hits, qrels), (scenario_hits, scenario_qrels)):
        ours = per_query_quality(h, qr, k=k, dataset=ds).set_index(["query_id", "mode"])
        ref = _ir_measures_per_query(h, qr, k, ds)
        assert set(ours.index) == set(ref) and len(ref) >= 2
        for key, want in ref.items():
            assert set(want) == {f"Recall@{k}", f"nDCG@{k}", "MRR"}
            for name, value in want.items():
                assert ours.loc[key, name] == pytest.approx(value, abs=1e-4), (key, name)
    assert set(hits["mode"]) == {"qlang", "qlang+en", "en_only", "rel_langs", "swap_docs"}
    assert (
        len(per_query_quality(hits, qrels, k=k, dataset=ds)) > 100
    )  # every scored (query, mode) was compared


# --- issue 13.5: malformed input ------------------------------------------------------------------
def _simple():
    hits = _hits(
        [("q", "en", "qlang", r, "en", d) for r, d in enumerate(["x", "a", "y", "b"], start=1)]
    )
    qrels = pd.DataFrame(
        {
            "query_id": ["q"] * 3,
            "doc_lang": ["en"] * 3,
            "doc_id": ["a", "b", "x"],
            "relevance": [2, 1, 0],
        }
    )
    return hits, qrels


def test_a_duplicated_hit_is_a_one_line_error():
    hits, qrels = _simple()
    dup = pd.concat([hits, hits.iloc[[1]]], ignore_index=True)
    with pytest.raises(
        DataError,
        match=r"document \(en, a\) is listed twice for query 'q', mode 'qlang' "
        r"\(rows 1 and 4\)",
    ) as e:
        per_query_quality(dup, qrels, k=3)
    assert "\n" not in str(e.value)


def test_a_duplicated_judgment_is_a_one_line_error():
    hits, qrels = _simple()
    dup = pd.concat([qrels, qrels.iloc[[0]]], ignore_index=True)
    with pytest.raises(
        DataError, match=r"document \(en, a\) is judged twice for query 'q' \(rows 0 and 3\)"
    ):
        per_query_quality(hits, dup, k=3)
    bad = qrels.assign(relevance=["2", "high", "0"])
    with pytest.raises(DataError, match="relevance 'high' in row 1 is not a number"):
        per_query_quality(hits, bad, k=3)


def test_a_negative_grade_counts_as_zero():
    hits, qrels = _simple()
    negative = qrels.assign(relevance=[2, 1, -3])  # x judged -3: no gain, not relevant
    m = per_query_quality(hits, negative, k=3).iloc[0]
    z = per_query_quality(hits, qrels, k=3).iloc[0]
    assert m["nDCG@3"] == z["nDCG@3"] and m["nDCG@3"] >= 0
    only_negative = pd.DataFrame(
        {"query_id": ["q"], "doc_lang": ["en"], "doc_id": ["x"], "relevance": [-1]}
    )
    assert per_query_quality(
        hits, only_negative, k=3
    ).empty  # nothing relevant: not scored, not negative


def test_tied_ranks_are_broken_by_document_and_do_not_depend_on_row_order():
    rows = [("q", "en", "qlang", 1, "en", d) for d in "edcba"] + [
        ("q", "en", "qlang", 2, "en", "f")
    ]
    qrels = pd.DataFrame(
        {
            "query_id": ["q", "q"],
            "doc_lang": ["en", "en"],
            "doc_id": ["c", "f"],
            "relevance": [1, 1],
        }
    )
    first = per_query_quality(_hits(rows), qrels, k=2).iloc[0]
    # order a, b, c, d, e (ties by doc_id), then f: first relevant (c) at position 3
    assert first["MRR"] == pytest.approx(1 / 3) and first["Recall@2"] == 0.0
    for perm in ([5, 4, 3, 2, 1, 0], [2, 0, 5, 1, 4, 3], [0, 1, 2, 3, 4, 5]):
        again = per_query_quality(_hits([rows[i] for i in perm]), qrels, k=2).iloc[0]
        assert (again["MRR"], again["Recall@2"], again["nDCG@2"]) == (
            first["MRR"],
            first["Recall@2"],
            first["nDCG@2"],
        )


# --- issue 28.7: a judged query without any hit scores 0 and is counted ---------------------------
def _unretrieved_scenario():
    """The pool scenario plus Crimea_ru, judged (a relevant ru and en document) but absent from the hits."""
    hits, qrels = _pool_scenario()
    extra = pd.DataFrame(
        [
            ("Crimea_ru", "ru", "r_a", 1),
            ("Crimea_ru", "en", "e_a", 1),
            ("Crimea_ru", "ru", "r_b", 0),
        ],
        columns=qrels.columns,
    )
    return hits, pd.concat([qrels, extra], ignore_index=True)


def test_a_judged_query_without_any_hit_scores_zero_and_is_counted():
    hits, qrels = _unretrieved_scenario()
    ds = load_demo()
    m = per_query_quality(hits, qrels, k=10, dataset=ds).set_index(["query_id", "mode"])
    for mode in ("qlang+en", "rel_langs"):
        row = m.loc[("Crimea_ru", mode)]
        assert (row["Recall@10"], row["MRR"], row["nDCG@10"], row["has_hits"]) == (
            0.0,
            0.0,
            0.0,
            False,
        )
    assert m.loc[("Crimea_uk", "rel_langs"), "has_hits"]
    q = quality(hits, qrels, k=10, by=("mode",), dataset=ds).set_index("mode")
    # the mean is over both judged queries: Crimea_uk's Recall@10 and Crimea_ru's 0
    assert q.loc["rel_langs", "Recall@10"] == pytest.approx((6 / 14 + 0.0) / 2)
    assert q.loc["qlang+en", "Recall@10"] == pytest.approx((3 / 10 + 0.0) / 2)
    assert (q.loc["rel_langs", "n_queries"], q.loc["rel_langs", "n_without_hits"]) == (2, 1)


def test_a_judged_query_without_hits_needs_its_language():
    hits, qrels = _unretrieved_scenario()
    only = hits[hits["mode"] == "qlang+en"]
    with pytest.raises(ConfigError, match="'Crimea_ru' has no hit in any mode"):
        per_query_quality(only, qrels, k=10)
    with_lang = qrels.assign(query_lang=qrels["query_id"].str.split("_").str[-1])
    m = per_query_quality(only, with_lang, k=10).set_index("query_id")
    assert m.loc["Crimea_ru", "Recall@10"] == 0.0 and m.loc["Crimea_ru", "query_lang"] == "ru"


def test_unretrieved_judged_queries_agree_with_ir_measures():
    """ir_measures scores a judged query missing from the run as 0: so does bordir, query by query."""
    ir_measures = pytest.importorskip("ir_measures")
    from bordir.retrieval.evaluate import mode_pool

    hits, qrels = _unretrieved_scenario()
    ds, k = load_demo(), 10
    restricted, run = [], []
    for qid in sorted(set(qrels["query_id"])):
        for mode in sorted(set(hits["mode"])):
            pool = set(mode_pool(mode, qid, ds.query(qid).lang, ds))
            judged = qrels[(qrels["query_id"] == qid) & qrels["doc_lang"].isin(pool)]
            if not (judged["relevance"] > 0).any():
                continue
            key = f"{qid}|{mode}"
            restricted += [
                ir_measures.Qrel(key, f"{l}/{d}", int(r))
                for l, d, r in judged[["doc_lang", "doc_id", "relevance"]].itertuples(index=False)
            ]
            g = hits[(hits["query_id"] == qid) & (hits["mode"] == mode)]
            run += [
                ir_measures.ScoredDoc(key, f"{l}/{d}", -float(r))
                for l, d, r in g[["doc_lang", "doc_id", "rank"]].itertuples(index=False)
            ]
    names = {
        ir_measures.R @ k: f"Recall@{k}",
        ir_measures.nDCG @ k: f"nDCG@{k}",
        ir_measures.RR: "MRR",
    }
    ref: dict[tuple[str, str], dict[str, float]] = {}
    for r in ir_measures.iter_calc(list(names), restricted, run):
        qid, mode = r.query_id.split("|")
        ref.setdefault((qid, mode), {})[names[r.measure]] = r.value
    ours = per_query_quality(hits, qrels, k=k, dataset=ds).set_index(["query_id", "mode"])
    assert set(ours.index) == set(ref) and ("Crimea_ru", "rel_langs") in ref
    for key, want in ref.items():
        for name, value in want.items():
            assert ours.loc[key, name] == pytest.approx(value, abs=1e-9), (key, name)
    agg = ir_measures.calc_aggregate([ir_measures.R @ k], restricted, run)[ir_measures.R @ k]
    assert ours[f"Recall@{k}"].mean() == pytest.approx(agg)
