"""Labels in experiments: the relevance filter reaches the prompt, precision@k per language, viewpoint following."""

from __future__ import annotations

import pandas as pd
import pytest

from bordir.annotations import (
    Label,
    LabelSet,
    filter_hits,
    load_gold,
    precision_at_k,
    viewpoint_following,
    viewpoint_summary,
)
from bordir.errors import ConfigError
from bordir.experiment.config import ExperimentConfig
from bordir.runner.grid import prepare
from bordir.runner.run import run_experiment

GOLD_REL = None


def _rel():
    global GOLD_REL
    if GOLD_REL is None:
        GOLD_REL = load_gold("demo").lookup("relevance")
    return GOLD_REL


def _list(series):
    return [None if pd.isna(x) else x for x in series]


def _hits(rows):
    return pd.DataFrame(
        rows, columns=["query_id", "query_lang", "mode", "rank", "doc_lang", "doc_id"]
    )


def _labels(items, name="gold"):
    return LabelSet(
        [
            Label(q, l, d, r, "not_applicable" if r == "not_relevant" else "neutral", name)
            for q, l, d, r in items
        ],
        name=name,
    )


# --- the filter on a hits table -----------------------------------------------------------------


def test_filter_keeps_order_renumbers_and_counts():
    hits = _hits([("Q_en", "en", "qlang", i, "en", f"d{i}") for i in range(1, 6)])
    labels = _labels(
        [
            ("Q_en", "en", "d1", "not_relevant"),
            ("Q_en", "en", "d2", "relevant"),
            ("Q_en", "en", "d3", "partially_relevant"),
            ("Q_en", "en", "d4", "not_relevant"),
        ]
    )  # d5 unlabelled
    rel = filter_hits(hits, labels, "relevant")
    assert rel[["doc_id", "rank", "orig_rank"]].values.tolist() == [["d2", 1, 2], ["d3", 2, 3]]
    assert rel.attrs["bordir.relevance_filter"] == {
        "filter": "relevant",
        "kept": 2,
        "dropped": 3,
        "unlabelled": 1,
        "labels": labels.content_hash(),
    }
    non = filter_hits(hits, labels, "non_relevant")
    assert non["doc_id"].tolist() == ["d1", "d4"] and non["rank"].tolist() == [1, 2]
    assert filter_hits(hits, None, "all")["doc_id"].tolist() == [f"d{i}" for i in range(1, 6)]
    with pytest.raises(ConfigError, match="needs labels"):
        filter_hits(hits, None, "relevant")
    with pytest.raises(
        ConfigError, match="unknown relevance filter 'useful'; valid: all, relevant, non-relevant"
    ):
        filter_hits(hits, labels, "useful")


# --- the filter in the experiment runner -------------------------------------------------------


def _cfg(tmp_path, **kw):
    base = {
        "models": ["mock/first"],
        "runs": 1,
        "k": 3,
        "modes": ["qlang", "rel_langs"],
        "cache": str(tmp_path / "cache.sqlite3"),
    }
    return ExperimentConfig.from_dict({**base, **kw})


def test_the_relevance_filter_changes_which_documents_reach_the_prompt(tmp_path):
    preps = {
        f: prepare(_cfg(tmp_path, relevance_filter=f), progress=False)
        for f in ("all", "relevant", "non-relevant")
    }
    rel = _rel()
    changed = 0
    for key, docs in preps["all"].docs_by.items():
        qid = key[0]
        for f, wanted in (
            ("relevant", {"relevant", "partially_relevant"}),
            ("non-relevant", {"not_relevant"}),
        ):
            got = preps[f].docs_by.get(key)
            if got is None:
                assert "no documents left after relevance_filter=" + f in preps[f].skipped[key]
                continue
            assert all(rel[(qid, d.lang, d.doc_id)] in wanted for d in got)
            assert [d.index for d in got] == list(range(len(got))) and len(got) <= 3
        if [d.doc_id for d in docs] != [d.doc_id for d in preps["relevant"].docs_by.get(key, ())]:
            changed += 1
    assert changed > len(preps["all"].docs_by) // 4
    # the filtered top k is the filter applied to the whole ranking, then cut at k (as BordIRLines)
    hits = preps["all"].retrieval.hits
    h = hits[(hits["query_id"] == "Crimea_uk") & (hits["mode"] == "rel_langs")].sort_values("rank")
    expected = [
        d for l, d in zip(h["doc_lang"], h["doc_id"]) if rel[("Crimea_uk", l, d)] != "not_relevant"
    ][:3]
    assert [d.doc_id for d in preps["relevant"].docs_by[("Crimea_uk", "rel_langs")]] == expected


def test_run_experiment_records_the_filter_in_the_signature(tmp_path):
    out = run_experiment(
        _cfg(tmp_path, relevance_filter="relevant", langs=["uk", "ru"]),
        tmp_path / "r",
        progress=False,
    )
    df = pd.read_parquet(out / "responses.parquet")
    gold_hash = load_gold("demo").content_hash()
    assert (
        df["signature"]
        .str.contains(f"|k:3|rel:relevant|labels:{gold_hash}|gen:mock/first|", regex=False)
        .all()
    )
    rel = _rel()
    for r in df.itertuples():
        assert all(
            rel[(r.query_id, l, d)] != "not_relevant" for d, l in zip(r.doc_ids, r.doc_langs)
        )
    base = pd.read_parquet(
        run_experiment(_cfg(tmp_path, langs=["uk", "ru"]), tmp_path / "b", progress=False)
        / "responses.parquet"
    )
    assert not base["signature"].str.contains("rel:").any()  # the default (all) adds nothing
    assert (
        base.set_index(["query_id", "mode"])["doc_ids"].map(list).to_dict()
        != df.set_index(["query_id", "mode"])["doc_ids"].map(list).to_dict()
    )


def test_filter_config_errors(tmp_path):
    assert (
        ExperimentConfig.from_dict({"relevance_filter": "non_relevant"}).relevance_filter
        == "non-relevant"
    )
    with pytest.raises(
        ConfigError, match="field 'relevance_filter': expected all | relevant | non-relevant"
    ):
        ExperimentConfig.from_dict({"relevance_filter": "some"})
    corpus = tmp_path / "passages.jsonl"
    corpus.write_text(
        '{"doc_id": "x", "lang": "en", "territory": "Crimea", "text": "Crimea."}\n',
        encoding="utf-8",
    )
    with pytest.raises(ConfigError, match="needs labels: set labels"):
        prepare(_cfg(tmp_path, relevance_filter="relevant", corpus=str(corpus)), progress=False)
    labels = tmp_path / "l.jsonl"
    labels.write_text(
        '{"query_id": "Crimea_uk", "doc_lang": "uk", "doc_id": "crimea_uk_p4", "relevance": '
        '"relevant", "viewpoint": "Ukraine", "annotator": "me"}\n',
        encoding="utf-8",
    )
    prep = prepare(
        _cfg(tmp_path, relevance_filter="relevant", labels=str(labels), langs=["uk"]),
        progress=False,
    )
    assert [d.doc_id for d in prep.docs_by[("Crimea_uk", "qlang")]] == ["crimea_uk_p4"]
    assert ("Crimea_uk", "rel_langs") in prep.docs_by and len(
        prep.docs_by[("Crimea_uk", "rel_langs")]
    ) == 1


# --- precision@k ---------------------------------------------------------------------------------


def test_precision_at_k_per_language_by_hand():
    hits = _hits(
        [
            ("A_en", "en", "qlang", 1, "en", "a1"),
            ("A_en", "en", "qlang", 2, "en", "a2"),
            ("A_en", "en", "qlang", 3, "en", "a3"),
            ("A_en", "en", "qlang", 4, "en", "a4"),
            ("B_en", "en", "qlang", 1, "en", "b1"),
            ("B_en", "en", "qlang", 2, "en", "b2"),  # only 2 hits
            ("A_ru", "ru", "qlang", 1, "ru", "r1"),
            ("A_ru", "ru", "qlang", 2, "ru", "r2"),
            ("A_ru", "ru", "qlang", 3, "ru", "r3"),
        ]
    )
    labels = _labels(
        [
            ("A_en", "en", "a1", "relevant"),
            ("A_en", "en", "a2", "not_relevant"),
            ("A_en", "en", "a3", "partially_relevant"),
            ("A_en", "en", "a4", "relevant"),
            ("B_en", "en", "b1", "relevant"),  # b2 unlabelled: not relevant, not judged
            ("A_ru", "ru", "r1", "not_relevant"),
            ("A_ru", "ru", "r2", "not_relevant"),
            ("A_ru", "ru", "r3", "partially_relevant"),
        ]
    )
    p = precision_at_k(hits, labels, k=3)
    got = {r.query_lang: (r.n_queries, r.precision, r.judged) for r in p.itertuples()}
    # en: A_en 2/3 (a1, a3), B_en 1/3 (b1; missing rank 3 counts as not relevant) -> mean 1/2; judged (3/3 + 1/3)/2
    # ru: 1/3
    assert got["en"] == pytest.approx((2, 0.5, 2 / 3)) and got["ru"] == pytest.approx(
        (1, 1 / 3, 1.0)
    )
    assert set(p["measure"]) == {"P@3"}
    strict = precision_at_k(hits, labels, k=3, min_relevance="relevant")
    assert strict.set_index("query_lang")["precision"].to_dict() == pytest.approx(
        {"en": (1 / 3 + 1 / 3) / 2, "ru": 0.0}
    )
    assert set(strict["measure"]) == {"P(rel=relevant)@3"}
    per = precision_at_k(hits, labels, k=3, per_query=True)
    assert per.set_index("query_id")["n_relevant"].to_dict() == {"A_en": 2, "B_en": 1, "A_ru": 1}


def test_precision_at_k_on_the_demo_gold(tmp_path):
    prep = prepare(_cfg(tmp_path), progress=False)
    p = precision_at_k(prep.retrieval.hits, load_gold("demo"), k=3)
    assert set(p["query_lang"]) == set(prep.dataset.query_langs) and set(p["mode"]) == {
        "qlang",
        "rel_langs",
    }
    assert (p["judged"] == 1.0).all()  # the gold labels cover every retrievable document
    assert p["precision"].between(0, 1).all() and p["precision"].mean() > 0.3


# --- viewpoint following -----------------------------------------------------------------------


def test_viewpoint_following_by_hand():
    vp = LabelSet(
        [
            Label("T_xx", "xx", "d1", "relevant", "A", "g"),
            Label("T_xx", "xx", "d2", "relevant", "A", "g"),
            Label("T_xx", "xx", "d3", "relevant", "B", "g"),
            Label("T_xx", "xx", "d4", "relevant", "neutral", "g"),
            Label("T_xx", "xx", "d5", "not_relevant", "not_applicable", "g"),
        ],
        name="g",
    )
    responses = pd.DataFrame(
        [
            # majority A (2 vs 1; neutral and not-applicable do not vote)
            {
                "query_id": "T_xx",
                "query_lang": "xx",
                "mode": "qlang",
                "model": "m",
                "run": 0,
                "outcome": "answered",
                "choice_name": "A",
                "doc_ids": ["d1", "d2", "d3", "d4", "d5"],
                "doc_langs": ["xx"] * 5,
                "cited_doc_ids": ["d3"],
            },
            {
                "query_id": "T_xx",
                "query_lang": "xx",
                "mode": "qlang",
                "model": "m",
                "run": 1,
                "outcome": "answered",
                "choice_name": "B",
                "doc_ids": ["d1", "d2", "d3"],
                "doc_langs": ["xx"] * 3,
                "cited_doc_ids": ["d3", "d4"],
            },
            {
                "query_id": "T_xx",
                "query_lang": "xx",
                "mode": "qlang",
                "model": "m",
                "run": 2,
                "outcome": "refused",
                "choice_name": "",
                "doc_ids": ["d1", "d3", "d4"],
                "doc_langs": ["xx"] * 3,
                "cited_doc_ids": [],
            },  # tie
            {
                "query_id": "T_xx",
                "query_lang": "xx",
                "mode": "qlang",
                "model": "m",
                "run": 3,
                "outcome": "unparsed",
                "choice_name": "",
                "doc_ids": ["d2"],
                "doc_langs": ["xx"],
                "cited_doc_ids": [],
            },
        ]
    )
    per = viewpoint_following(responses, vp)
    assert _list(per["majority"]) == ["A", "A", None, "A"]
    assert per["majority_status"].tolist() == ["defined", "defined", "tie", "defined"]
    assert (
        per["follows"].tolist()[:2] == [1.0, 0.0]
        and pd.isna(per["follows"][2])
        and per["follows"][3] == 0.0
    )
    s = viewpoint_summary(per).iloc[0]
    assert (s.n_responses, s.n_defined, s.n_tie, s.n_no_stance, s.n_unanswered) == (4, 3, 1, 0, 1)
    assert s.follow_rate == pytest.approx(1 / 3)
    cited = viewpoint_following(responses, vp, docs="cited")
    assert _list(cited["majority"]) == ["B", "B", None, None]
    assert cited["majority_status"].tolist() == ["defined", "defined", "no_stance", "no_stance"]
    assert cited["follows"].tolist()[:2] == [0.0, 1.0]


def test_viewpoint_following_on_a_demo_run(tmp_path):
    out = run_experiment(_cfg(tmp_path, langs=["uk", "ru", "ja"]), tmp_path / "r", progress=False)
    df = pd.read_parquet(out / "responses.parquet")
    per = viewpoint_following(df, load_gold("demo"))
    assert len(per) == len(df) and (per["n_labelled"] == per["n_docs"]).all()
    summary = viewpoint_summary(per)
    assert set(summary["query_lang"]) == {"uk", "ru", "ja"}
    assert (
        summary["n_defined"] + summary["n_tie"] + summary["n_no_stance"] == summary["n_responses"]
    ).all()
