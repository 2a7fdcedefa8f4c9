"""Audit input handling: bad records skipped with line numbers, --strict, Parquet = JSONL, the vectorised
reader = the line-by-line reader, citations parsed from text, detected languages marked, the CLI."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from bordir.audit import aggregate as aggregate_mod
from bordir.audit import run_audit, validate_record
from bordir.audit.config import AuditOptions
from bordir.errors import DataError

from .test_audit_planted import make_records, write_jsonl

_STATS = [
    "group",
    "query_lang",
    "doc_lang",
    "rate",
    "n_clusters",
    "n_answers",
    "n_docs",
    "n_citations",
    "inclusion_rate",
    "citation_rate",
    "ratio",
    "ratio_low",
    "ratio_high",
    "p_value",
    "flag",
]


def _same(a, b) -> None:
    pd.testing.assert_frame_equal(
        a.tables.rates[_STATS].reset_index(drop=True), b.tables.rates[_STATS].reset_index(drop=True)
    )
    pd.testing.assert_frame_equal(
        a.tables.answers.reset_index(drop=True), b.tables.answers.reset_index(drop=True)
    )


# --- bad records -----------------------------------------------------------------------------------------------

BAD = {  # record index the raw line goes before → (raw line, reason)
    3: ("this is not json", "invalid_json"),
    10: ("[1, 2, 3]", "not_an_object"),
    20: ('{"id": "x1", "documents": [], "response": ""}', "missing_field"),
    30: ('{"id": "x2", "query": "q", "documents": "d1,d2", "response": ""}', "documents_not_list"),
    40: ('{"id": "x3", "query": "q", "documents": [{"id": "d1"}], "response": ""}', "bad_document"),
    50: (
        '{"id": "x4", "query": "q", "query_lang": "sw", "documents": [{"id": "d1", "lang": "en"}], '
        '"response": "", "citations": ["d9"]}',
        "unknown_citation",
    ),
    60: ('{"id": 1.5, "query": "q", "documents": [], "response": ""}', "wrong_type"),
    70: (
        '{"id": "x5", "query": "q", "documents": [], "response": "", "timestamp": "yesterday"}',
        "bad_timestamp",
    ),
}


@pytest.fixture
def bad_log(tmp_path):
    recs = make_records(300, seed=2)
    extra = {i: line for i, (line, _) in BAD.items()}
    extra[80] = ""  # a blank line: not a record, not counted
    path = write_jsonl(recs, tmp_path / "log.jsonl", extra)
    # the expected line numbers: each raw line sits before its record
    expected, offset = {}, 0
    for i in range(300):
        if i in extra:
            offset += 1
            if i in BAD:
                expected[BAD[i][1]] = i + offset
    return path, recs, expected


@pytest.mark.parametrize("fast", [True, False])
def test_bad_records_are_skipped_with_line_and_reason(bad_log, tmp_path, fast):
    path, recs, expected = bad_log
    res = run_audit(
        path,
        AuditOptions(group_by="month", n_resamples=200, seed=1, fast=fast),
        skipped_path=tmp_path / "skip.jsonl",
    )
    s = res.summary
    assert s["valid"] == 300 and s["skipped"] == len(BAD) and s["records"] == 300 + len(BAD)
    got = {r: v["examples"][0]["line"] for r, v in s["skipped_by_reason"].items()}
    assert got == expected
    assert all(v["count"] == 1 for v in s["skipped_by_reason"].values())
    lines = [json.loads(x) for x in (tmp_path / "skip.jsonl").read_text().splitlines()]
    assert sorted((x["line"], x["reason"]) for x in lines) == sorted(
        (v, k) for k, v in expected.items()
    )
    msg = s["skipped_by_reason"]["unknown_citation"]["examples"][0]["message"]
    assert "'d9' is not among the record's document ids (d1)" in msg
    clean = run_audit(
        write_jsonl(recs, tmp_path / "clean.jsonl"),
        AuditOptions(group_by="month", n_resamples=200, seed=1),
    )
    _same(res, clean)  # the bad lines change nothing else


def test_timestamp_is_only_checked_when_grouping_by_month(bad_log):
    path, _, _ = bad_log
    res = run_audit(path, AuditOptions(n_resamples=100, seed=1))
    assert "bad_timestamp" not in res.summary["skipped_by_reason"] and res.summary["valid"] == 301


def test_strict_stops_at_the_first_bad_record(bad_log):
    path, _, expected = bad_log
    with pytest.raises(DataError) as e:
        run_audit(path, AuditOptions(strict=True, n_resamples=100))
    assert e.value.line == expected["invalid_json"] and "invalid_json" in str(e.value)


def test_validate_record_messages():
    assert validate_record("x", 4).reason == "not_an_object"
    r = validate_record(
        {
            "id": "a",
            "query": "q",
            "documents": [{"id": "d", "lang": "en", "text": 3}],
            "response": "",
        },
        9,
    )
    assert (r.line, r.reason) == (9, "bad_document") and "'text'" in r.message
    ok = validate_record(
        {
            "id": "a",
            "query": "q",
            "query_lang": "",
            "documents": [{"id": 5, "text": "t"}],
            "response": "",
            "citations": [5, "5"],
        },
        1,
    )
    assert ok["query_lang"] is None and ok["documents"][0] == {"id": "5", "text": "t", "lang": None}
    assert ok["citations"] == ["5", "5"]


# --- readers agree -----------------------------------------------------------------------------------------------


def test_parquet_gives_the_same_result_as_jsonl(tmp_path):
    recs = make_records(1500, seed=7, biased={"sw": "*"})
    j = run_audit(write_jsonl(recs, tmp_path / "log.jsonl"), AuditOptions(n_resamples=500, seed=4))
    pq.write_table(pa.Table.from_pylist(recs), tmp_path / "log.parquet", row_group_size=400)
    p = run_audit(tmp_path / "log.parquet", AuditOptions(n_resamples=500, seed=4))
    assert p.summary["format"] == "parquet" and p.summary["valid"] == 1500
    _same(j, p)


def test_parquet_bad_rows_are_reported_by_row(tmp_path):
    recs = make_records(50, seed=1)
    recs[7]["citations"] = ["nope"]
    pq.write_table(pa.Table.from_pylist(recs), tmp_path / "log.parquet")
    res = run_audit(tmp_path / "log.parquet", AuditOptions(n_resamples=100, seed=1))
    assert res.summary["skipped_by_reason"]["unknown_citation"]["examples"][0]["line"] == 8
    pq.write_table(
        pa.table({"id": ["a"], "query": ["q"], "documents": [1.5], "response": [""]}),
        tmp_path / "bad.parquet",
    )
    with pytest.raises(DataError, match="column 'documents'"):
        run_audit(tmp_path / "bad.parquet")


def test_vectorised_and_line_by_line_readers_agree(tmp_path):
    recs = make_records(2000, seed=9, biased={"fr": "*"})
    for r in recs[::7]:  # integer ids in some records: those blocks fall back
        r["id"] = int(r["id"][1:])
    path = write_jsonl(recs, tmp_path / "log.jsonl")
    fast = run_audit(path, AuditOptions(n_resamples=300, seed=1, block_bytes=40_000))
    slow = run_audit(path, AuditOptions(n_resamples=300, seed=1, fast=False))
    assert fast.summary["blocks"]["line_by_line"] > 0  # string and integer ids mixed in a block
    _same(fast, slow)
    ints = [
        dict(r, id=i) for i, r in enumerate(recs)
    ]  # integer record ids everywhere: the integer schema
    fast_int = run_audit(
        write_jsonl(ints, tmp_path / "int.jsonl"),
        AuditOptions(n_resamples=300, seed=1, block_bytes=40_000),
    )
    assert fast_int.summary["blocks"]["line_by_line"] == 0
    _same(fast_int, slow)


def test_many_blocks_and_consolidation(tmp_path, monkeypatch):
    recs = make_records(1200, seed=5, biased={"sw": "*"})
    path = write_jsonl(recs, tmp_path / "log.jsonl")
    one = run_audit(path, AuditOptions(n_resamples=300, seed=1))
    monkeypatch.setattr(aggregate_mod, "_CONSOLIDATE", 10)
    many = run_audit(path, AuditOptions(n_resamples=300, seed=1, block_bytes=20_000))
    assert many.summary["blocks"]["vectorised"] > 5
    _same(one, many)


@settings(
    max_examples=6,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(st.randoms(use_true_random=False))
def test_results_do_not_depend_on_record_order(tmp_path, rnd):
    recs = make_records(300, seed=3, biased={"sw": "*"})
    shuffled = list(recs)
    rnd.shuffle(shuffled)
    a = run_audit(write_jsonl(recs, tmp_path / "a.jsonl"), AuditOptions(n_resamples=200, seed=1))
    b = run_audit(
        write_jsonl(shuffled, tmp_path / "b.jsonl"),
        AuditOptions(n_resamples=200, seed=1, block_bytes=10_000),
    )
    _same(a, b)


# --- citations parsed from the response text ------------------------------------------------------------------


def _docs(n):
    return [{"id": f"d{j}", "lang": ["en", "sw", "fr"][j % 3]} for j in range(n)]


def test_citations_parsed_from_the_response(tmp_path):
    recs = [
        {
            "id": i,
            "query": "q",
            "query_lang": "sw",
            "response_lang": "sw",
            "documents": _docs(3),
            "response": "Cited Documents: 0\nChosen Option: A) x\nExplanation: because <doc0> and [2] <doc7>",
        }
        for i in range(20)
    ]
    res = run_audit(
        write_jsonl(recs, tmp_path / "log.jsonl"), AuditOptions(n_resamples=100, seed=1)
    )
    assert res.summary["citations_parsed"] == 20 and res.summary["citations_given"] == 0
    t = res.tables.rates.set_index(["doc_lang", "rate"])
    assert (
        t.loc[("en", "pooled"), "n_citations"] == 20
        and t.loc[("fr", "pooled"), "n_citations"] == 20
    )
    assert t.loc[("sw", "pooled"), "n_citations"] == 0
    a = res.tables.answers.set_index("query_lang").loc["sw"]
    assert a["n_out_of_range"] == 20 and a["out_of_range_rate"] == 1.0
    one = run_audit(
        tmp_path / "log.jsonl", AuditOptions(n_resamples=100, seed=1, citation_base=1)
    )  # [2] is now d1 (sw)
    t1 = one.tables.rates.set_index(["doc_lang", "rate"])
    assert (
        t1.loc[("sw", "pooled"), "n_citations"] == 20
        and t1.loc[("en", "pooled"), "n_citations"] == 0
    )


# --- detected languages -------------------------------------------------------------------------------------------


def test_missing_languages_are_detected_and_marked(tmp_path):
    pytest.importorskip("langdetect")
    from bordir.loaders import load_demo_corpus

    by_lang = {}
    for p in load_demo_corpus():
        if p.lang in ("en", "es", "ru") and len(p.text) > 150:
            by_lang.setdefault(p.lang, []).append(p.text)
    recs = []
    for i in range(30):
        ql = ("es", "ru", "en")[i % 3]
        docs = [
            {
                "id": f"e{i}",
                "text": by_lang["en"][i % len(by_lang["en"])],
            },  # language detected from text
            {"id": f"q{i}", "lang": ql},
        ]
        recs.append(
            {
                "id": i,
                "query": by_lang[ql][i % len(by_lang[ql])],
                "documents": docs,
                "citations": [f"e{i}"],
                # responses: in the query language, except every third Spanish one, which is in English
                "response": by_lang["en"][0] if (ql == "es" and i % 9 == 0) else by_lang[ql][-1],
            }
        )
    res = run_audit(
        write_jsonl(recs, tmp_path / "log.jsonl"), AuditOptions(n_resamples=100, seed=1)
    )
    s = res.summary
    assert (
        s["detected_query_lang"] == 30
        and s["detected_doc_lang"] == 30
        and s["detected_response_lang"] == 30
    )
    assert s["detection"]["seed"] == 0 and s["detection"]["calls"] > 0
    a = res.tables.answers.set_index("query_lang")
    assert set(a.index) == {"en", "es", "ru", "*"}
    assert a.loc["*", "n_qlang_detected"] == 30 and a.loc["*", "n_docs_detected"] == 30
    assert a.loc["*", "n_resp_detected"] == 30
    assert a.loc["ru", "language_match_rate"] == 1.0 and a.loc["es", "language_match_rate"] < 1.0
    assert set(res.tables.rates["doc_lang"]) == {"en", "es", "ru"}
    again = run_audit(
        tmp_path / "log.jsonl", AuditOptions(n_resamples=100, seed=1)
    )  # seeded: the same languages every time
    _same(res, again)


# --- the CLI ------------------------------------------------------------------------------------------------------


@pytest.fixture
def cli_main():
    from bordir.cli import main
    from bordir.cli.audit import audit_cmd
    from bordir.cli.main import cli

    if "audit" not in cli.commands:  # the registration line bordir/cli/main.py gets
        cli.add_command(audit_cmd)
    return main


def test_cli_strict_exits_2_with_one_line(cli_main, bad_log, tmp_path, capsys):
    path, _, expected = bad_log
    code = cli_main(["audit", str(path), "--strict", "--out", str(tmp_path / "o"), "--no-plots"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert err.startswith(f"bordir: error: {path}:{expected['invalid_json']}: invalid_json")


@pytest.mark.slow
def test_cli_writes_the_report(cli_main, bad_log, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    path, _, _ = bad_log
    out = tmp_path / "o"
    code = cli_main(
        [
            "audit",
            str(path),
            "--out",
            str(out),
            "--resamples",
            "200",
            "--seed",
            "3",
            "--group-by",
            "month",
        ]
    )
    text = capsys.readouterr().out
    assert code == 0
    assert "300 records audited, 8 skipped (" in text and "invalid_json 1" in text
    assert "signature: citation_audit|group:month|cluster:record|boot:200|seed:3" in text
    for name in (
        "audit.json",
        "audit.md",
        "rates.csv",
        "overall.csv",
        "answers.csv",
        "skipped.jsonl",
        "plots/citation_inclusion.png",
        "plots/citation_ratio.png",
        "plots/citation_spread.png",
    ):
        assert (out / name).is_file(), name
    data = json.loads((out / "audit.json").read_text())
    assert data["summary"]["skipped"] == 8 and data["signature"].startswith("citation_audit|")
    assert (
        data["settings"]["group_by"] == "month" and data["citation_settings"]["cluster"] == "record"
    )
    assert {r["rate"] for r in data["rates"]} == {"pooled", "per_query"}
    md = (out / "audit.md").read_text()
    assert (
        "## Language match" in md
        and "pooled" in md
        and "per query" in md
        and "| invalid_json | 1 |" in md
    )


def test_cli_json_and_group_by(cli_main, tmp_path, capsys):
    recs = make_records(1500, seed=3, biased={"sw": "m2"}, models=("m1", "m2"))
    path = write_jsonl(recs, tmp_path / "log.jsonl")
    code = cli_main(
        [
            "audit",
            str(path),
            "--group-by",
            "model",
            "--json",
            "--no-plots",
            "--out",
            str(tmp_path / "o"),
            "--resamples",
            "500",
        ]
    )
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["signature"].startswith("citation_audit|group:model|")
    over = {
        (f["group"], f["query_lang"], f["doc_lang"]) for f in data["flagged"] if f["flag"] == "over"
    }
    # per query language: only the planted cell; every query language pooled ('*'): m2's documents
    # in en are over-cited too (the sw queries pull them up), and a pooled flag reaches the CLI
    assert {c for c in over if c[1] != "*"} == {("m2", "sw", "en")}
    assert {c for c in over if c[1] == "*"} == {("m2", "*", "en")}
    overall = pd.read_csv(tmp_path / "o" / "overall.csv", keep_default_na=False)
    pooled = overall[overall["flag"].isin(["over", "under"])]
    assert sorted(
        (f["group"], f["doc_lang"], f["rate"], f["flag"])
        for f in data["flagged"]
        if f["query_lang"] == "*"
    ) == sorted(zip(pooled["group"], pooled["doc_lang"], pooled["rate"], pooled["flag"]))
    assert not (tmp_path / "o" / "skipped.jsonl").exists()


def test_numbers_are_json_safe(tmp_path):
    recs = make_records(
        30, seed=1, no_citation=1.0
    )  # nothing cited: every rate of citations is undefined
    res = run_audit(write_jsonl(recs, tmp_path / "log.jsonl"), AuditOptions(n_resamples=50, seed=1))
    d = res.as_dict()
    json.dumps(d, allow_nan=False)
    r = res.tables.rates
    assert r["citation_rate"].isna().all() and r["flag"].isna().all() and not r["tested"].any()
    assert np.isclose(res.tables.answers.set_index("query_lang").loc["*", "no_citation_rate"], 1.0)
