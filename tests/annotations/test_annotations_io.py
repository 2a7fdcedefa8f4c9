"""Label files: the shipped gold labels, the manifest, and validation errors with line numbers."""

from __future__ import annotations

import json

import pytest

from bordir._io.resources import resource_dir
from bordir.annotations import Label, LabelSet, load_gold, load_labels, write_labels
from bordir.annotations.io import gold_path
from bordir.annotations.manifest import manifest_problems
from bordir.annotations.schema import (
    label_options,
    normalize_relevance,
    normalize_viewpoint,
    schema,
)
from bordir.errors import ConfigError, DataError
from bordir.loaders import load_demo, load_demo_corpus


@pytest.fixture(scope="module")
def demo():
    return load_demo(), load_demo_corpus()


def _write(tmp_path, name, records):
    p = tmp_path / name
    p.write_text(
        "".join(
            (r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n" for r in records
        ),
        encoding="utf-8",
    )
    return p


def _rec(**kw):
    base = {
        "query_id": "Crimea_uk",
        "doc_lang": "uk",
        "doc_id": "crimea_uk_p0",
        "relevance": "relevant",
        "viewpoint": "Ukraine",
        "annotator": "ann1",
    }
    return {**base, **kw}


# --- the gold labels ------------------------------------------------------------------------


def test_gold_labels_load_and_validate_against_the_demo(demo):
    ds, corpus = demo
    gold = load_labels(gold_path("demo"), dataset=ds, corpus=corpus)  # raises on any problem
    assert gold.errors == () and len(gold) == 1129 and gold.annotators == ("bordir-demo-gold",)
    assert all(l.outcome == "labelled" for l in gold)
    assert {l.relevance for l in gold} == {"relevant", "partially_relevant", "not_relevant"}


def test_gold_labels_cover_every_demo_query_language_and_document(demo):
    ds, corpus = demo
    gold = load_gold("demo")
    frame = gold.to_frame()
    assert set(frame["query_id"]) == {q.query_id for q in ds.queries}
    assert set(frame["query_lang"]) == set(ds.query_langs) and len(set(ds.query_langs)) == 15
    assert set(frame["doc_lang"]) == set(corpus.langs)
    assert {(l.doc_lang, l.doc_id) for l in gold} == {p.key for p in corpus}
    # every document any mode can retrieve for a query is labelled: its territory's claimant languages and English
    pairs = {l.pair for l in gold}
    for q in ds.queries:
        for lang in {*ds.claimant_langs(q.territory), "en"}:
            for p in corpus.pool(q.territory, lang):
                assert (q.query_id, p.lang, p.doc_id) in pairs


def test_gold_labels_are_consistent_per_passage_and_off_topic_passages_are_not_relevant(demo):
    _, corpus = demo
    gold = load_gold("demo")
    by_doc: dict = {}
    for l in gold:
        by_doc.setdefault((l.doc_lang, l.doc_id), set()).add((l.relevance, l.viewpoint))
    assert all(len(v) == 1 for v in by_doc.values())  # one judgement per passage
    for p in corpus:
        if dict(p.meta).get("about") == "claimant":
            assert by_doc[p.key] == {("not_relevant", "not_applicable")}


def test_the_manifest_matches_the_annotation_files():
    assert manifest_problems() == []
    listed = json.loads((resource_dir("annotations") / "MANIFEST.json").read_text())["files"]
    assert {
        "guidelines.md",
        "schema.json",
        "gold/demo.jsonl",
        "prompts/relevance_viewpoint.txt",
    } <= set(listed)


def test_the_manifest_notices_a_changed_file(tmp_path):
    import shutil

    copy = tmp_path / "annotations"
    shutil.copytree(resource_dir("annotations"), copy)
    with (copy / "gold" / "demo.jsonl").open("a", encoding="utf-8") as fh:
        fh.write("\n")
    (copy / "extra.txt").write_text("x")
    problems = manifest_problems(copy)
    assert any(p.startswith("gold/demo.jsonl: checksum") for p in problems)
    assert "extra.txt: not listed in MANIFEST.json" in problems


def test_schema_file_and_code_agree():
    s = schema()
    assert s["relevance"]["values"] == ["relevant", "partially_relevant", "not_relevant"]
    assert set(s["fields"]) == {
        "query_id",
        "doc_lang",
        "doc_id",
        "relevance",
        "viewpoint",
        "annotator",
        "outcome",
        "note",
        "raw",
    }
    assert (
        normalize_relevance("Not relevant") == "not_relevant"
        and normalize_relevance("maybe") is None
    )
    assert normalize_viewpoint("N/A", ("Russia", "Ukraine")) == "not_applicable"
    assert normalize_viewpoint("Neutral/both", ("Russia", "Ukraine")) == "neutral"
    assert normalize_viewpoint("Supports: Russia", None) == "Russia"
    assert label_options(("Republic of China", "People's Republic of China", "Japan"))[-1] == (
        "not_relevant",
        "not_applicable",
    )


# --- bad files: every problem names its line ------------------------------------------------


@pytest.mark.parametrize(
    "bad, line, field, message",
    [
        (_rec(query_id="Atlantis_en"), 2, "query_id", "unknown query_id 'Atlantis_en'"),
        (
            _rec(doc_id="crimea_uk_p99"),
            2,
            "doc_id",
            "unknown document 'crimea_uk_p99' in language 'uk'",
        ),
        (
            _rec(relevance="very relevant"),
            2,
            "relevance",
            "'very relevant' is not a relevance label",
        ),
        (
            _rec(viewpoint="Spain"),
            2,
            "viewpoint",
            "'Spain' is not a viewpoint for Crimea_uk; expected one of Russia",
        ),
        (
            _rec(relevance="not_relevant"),
            2,
            "viewpoint",
            "viewpoint 'Ukraine' with relevance 'not_relevant'",
        ),
        (
            _rec(viewpoint="not_applicable"),
            2,
            "viewpoint",
            "viewpoint 'not_applicable' with relevance 'relevant'",
        ),
        (_rec(relevance=None), 2, "relevance", "missing"),
        (_rec(outcome="skipped"), 2, "outcome", "'skipped' is not an outcome"),
        (_rec(outcome="unparsed"), 2, "relevance", "has a label but outcome is 'unparsed'"),
        (_rec(relevence="relevant"), 2, "relevence", "unknown field(s) relevence"),
        ({k: v for k, v in _rec().items() if k != "annotator"}, 2, "annotator", "missing or empty"),
        ('{"query_id": "Crimea_uk", ', 2, None, "not valid JSON"),
        ("[1, 2]", 2, None, "expected a JSON object per line"),
        (
            _rec(doc_id="crimea_uk_p0", note="again"),
            2,
            None,
            "duplicate pair (Crimea_uk, uk, crimea_uk_p0) for annotator 'ann1'; first at line 1",
        ),
    ],
)
def test_a_bad_line_is_reported_with_its_number(tmp_path, demo, bad, line, field, message):
    ds, corpus = demo
    p = _write(tmp_path, "labels.jsonl", [_rec(), bad])
    with pytest.raises(DataError) as exc:
        load_labels(p, dataset=ds, corpus=corpus)
    assert exc.value.line == line and exc.value.field == field
    assert message in str(exc.value) and str(exc.value).startswith(f"{p}:{line}")


def test_collect_mode_lists_every_problem_and_keeps_the_good_lines(tmp_path, demo):
    ds, corpus = demo
    p = _write(
        tmp_path,
        "labels.jsonl",
        [
            _rec(),  # 1 ok
            _rec(query_id="Atlantis_en"),  # 2 unknown query
            "",  # 3 blank: skipped
            _rec(doc_id="crimea_uk_p1", viewpoint="Mordor"),  # 4 bad viewpoint
            _rec(),  # 5 duplicate of 1
            _rec(
                doc_id="crimea_uk_p4", relevance="Not relevant", viewpoint="N/A"
            ),  # 6 ok (aliases)
            _rec(annotator="ann2"),  # 7 ok: another annotator
        ],
    )
    with pytest.raises(
        DataError,
        match=r"labels.jsonl:2: .*\(and 2 more problems in this file; load with "
        r"errors='collect'",
    ):
        load_labels(p, dataset=ds, corpus=corpus)
    ls = load_labels(p, dataset=ds, corpus=corpus, errors="collect")
    assert [e.line for e in ls.errors] == [2, 4, 5]
    assert ls.lines == (1, 6, 7) and ls.annotators == ("ann1", "ann2")
    assert ls[1].relevance == "not_relevant" and ls[1].viewpoint == "not_applicable"


def test_csv_files_validate_with_line_numbers_and_round_trip(tmp_path, demo):
    ds, corpus = demo
    p = tmp_path / "labels.csv"
    p.write_text(
        "query_id,doc_lang,doc_id,relevance,viewpoint,annotator,note\n"
        "Crimea_ru,ru,crimea_ru_p0,relevant,Russia,ann1,\n"
        'Crimea_ru,ru,crimea_ru_p3,not relevant,not_applicable,ann1,"geography, plain"\n'
        "Crimea_ru,ru,crimea_ru_p2,relevant,Narnia,ann1,\n",
        encoding="utf-8",
    )
    with pytest.raises(DataError) as exc:
        load_labels(p, dataset=ds, corpus=corpus)
    assert exc.value.line == 4 and exc.value.field == "viewpoint"
    ls = load_labels(p, dataset=ds, corpus=corpus, errors="collect")
    assert len(ls) == 2 and ls[1].note == "geography, plain"
    for name in ("back.csv", "back.jsonl"):
        again = load_labels(write_labels(ls, tmp_path / name), dataset=ds, corpus=corpus)
        assert list(again) == list(ls)
    bad_header = tmp_path / "h.csv"
    bad_header.write_text("query,doc_lang,doc_id,annotator\n", encoding="utf-8")
    with pytest.raises(DataError, match="missing column"):
        load_labels(bad_header)


def test_without_a_dataset_only_the_schema_is_checked(tmp_path):
    p = _write(
        tmp_path,
        "x.jsonl",
        [_rec(query_id="Somewhere_sw", doc_lang="sw", doc_id="d1", viewpoint="Kenya")],
    )
    ls = load_labels(p)
    assert ls[0].viewpoint == "Kenya" and ls.to_frame()["query_lang"].tolist() == ["sw"]
    with pytest.raises(DataError, match="unknown label file type"):
        load_labels(_write(tmp_path, "x.txt", ["{}"]))
    with pytest.raises(DataError, match="file not found"):
        load_labels(tmp_path / "missing.jsonl")


def test_failed_and_unparsed_rows_carry_no_labels(tmp_path, demo):
    ds, corpus = demo
    rows = [
        Label("Crimea_uk", "uk", "crimea_uk_p0", None, None, "m", "failed", note="HTTP 500"),
        Label("Crimea_uk", "uk", "crimea_uk_p1", None, None, "m", "unparsed", raw="hmm"),
    ]
    ls = load_labels(write_labels(rows, tmp_path / "m.jsonl"), dataset=ds, corpus=corpus)
    assert (
        ls.outcome_counts() == {"labelled": 0, "unparsed": 1, "failed": 1}
        and len(ls.labelled()) == 0
    )


def test_several_annotators_need_choosing_before_lookup(demo):
    ls = LabelSet(
        [Label("Crimea_uk", "uk", "crimea_uk_p0", "relevant", "Ukraine", a) for a in ("x", "y")]
    )
    with pytest.raises(ConfigError, match="hold 2 annotators"):
        ls.lookup()
    assert ls.for_annotator("y").lookup() == {("Crimea_uk", "uk", "crimea_uk_p0"): "relevant"}
    with pytest.raises(ConfigError, match="no annotator 'z'"):
        ls.for_annotator("z")
