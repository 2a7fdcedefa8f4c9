"""``bordir score free FILE``: JSONL, CSV and Parquet records resolved and scored; bad input exits 2."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from ..conftest import invoke_cli

RECORDS = [
    {"query_id": "Crimea_uk", "answer": "Крим — це Україна.", "forced": "B) Україна"},
    {
        "territory": "Crimea",
        "query_lang": "ru",
        "answer": "Крым является частью России.",
        "forced": "Россия",
    },
    {
        "query_id": "Ceuta_es",
        "answer": "Marruecos la reclama, pero Ceuta pertenece a España.",
        "forced": "A",
    },
    {"query_id": "Kuril_Islands_ja", "answer": "   ", "forced": "A"},
]


@pytest.mark.parametrize("kind", ["jsonl", "csv", "parquet"])
def test_records_are_resolved_with_rule_and_span(tmp_path, kind):
    src = tmp_path / f"answers.{kind}"
    df = pd.DataFrame(RECORDS)
    if kind == "jsonl":
        src.write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in RECORDS), encoding="utf-8"
        )
    elif kind == "csv":
        df.to_csv(src, index=False)
    else:
        df.to_parquet(src)
    out = tmp_path / "resolved.csv"
    res = invoke_cli("score", "free", str(src), "--out", str(out), "--resamples", "100", "--json")
    assert res.returncode == 0, res.stderr
    summary = json.loads(res.stdout)
    assert summary["n_records"] == 4 and summary["signature"].startswith("free|")
    got = pd.read_csv(out, keep_default_na=False)
    assert list(got["outcome"]) == ["claimant", "claimant", "claimant", "empty"]
    assert list(got["claimant"]) == ["Ukraine", "Russia", "Spain", ""]
    spain = got.iloc[2]
    assert "España" in RECORDS[2]["answer"][spain["span_start"] : spain["span_end"]]
    assert spain["rule"] == "sovereignty"
    pooled = next(r for r in summary["languages"] if r["query_lang"] == "*")
    # territories weigh the same: Crimea (2 pairs, no switch) and Ceuta (1 pair, a switch)
    assert pooled["n_switch_pairs"] == 3 and pooled["switch_rate"] == pytest.approx(0.5)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            '{"query_id": "Nope_xx", "answer": "x"}',
            "answers.jsonl:1: field 'query_id': no query 'Nope_xx'",
        ),
        ('{"query_id": "Crimea_uk"}', "answers.jsonl:1: field 'answer': no answer field"),
        (
            '{"territory": "Krimea", "query_lang": "fr", "answer": "x"}',
            "answers.jsonl:1: field 'territory': no territory 'Krimea' in the demo dataset; did "
            "you mean 'Crimea'?",
        ),
        ("not json", "answers.jsonl:1: not valid JSON"),
        (
            '{"query_id": "Crimea_uk", "answer": ' + "[" * 5000 + "]" * 5000 + "}",
            "nested too deeply",
        ),
        ('{"query_id": "Crimea_uk", "answer": ["a"]}', "field 'answer': found list; expected the"),
        ('{"query_id": 7, "answer": "a"}', "field 'query_id': found int"),
        ('{"query_id": "Crimea_uk", "answer": "a", "run": "x"}', "field 'run': found 'x'"),
        (
            '{"query_id": "Crimea_uk", "answer": "a"}\n{"query_id": "Crimea_uk", "answer": "b"}',
            "answers.jsonl:2: field 'run': lines 1 and 2 both answer Crimea_uk",
        ),
    ],
)
def test_bad_records_exit_2_with_one_line(tmp_path, line, message):
    src = tmp_path / "answers.jsonl"
    src.write_text(line + "\n", encoding="utf-8")
    res = invoke_cli("score", "free", str(src))
    assert res.returncode == 2 and message in res.stderr
    assert "Traceback" not in res.stderr and len(res.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("name", "body", "message"),
    [
        ("answers.csv", b'query_id,answer\nCrimea_uk,"never closed\n', "not a readable CSV file"),
        ("answers.parquet", b"not parquet", "not a readable Parquet file"),
        ("answers.csv", "query_id,answer\nCrimea_uk,a\n".encode("utf-16"), "UTF-16"),
    ],
)
def test_malformed_files_exit_2_with_one_line(tmp_path, name, body, message):
    src = tmp_path / name
    src.write_bytes(body)
    res = invoke_cli("score", "free", str(src))
    assert res.returncode == 2 and message in res.stderr and str(src.name) in res.stderr
    assert "Traceback" not in res.stderr and len(res.stderr.strip().splitlines()) == 1


def test_the_output_never_replaces_the_input(tmp_path):
    src = tmp_path / "answers.jsonl"
    src.write_text(json.dumps(RECORDS[0], ensure_ascii=False) + "\n", encoding="utf-8")
    before = src.read_bytes()
    res = invoke_cli("score", "free", str(src), "--out", str(src))
    assert res.returncode == 2 and "is the input file" in res.stderr
    assert src.read_bytes() == before


def test_a_question_the_dataset_does_not_ask_is_resolved_and_left_out_of_the_metrics(tmp_path):
    """An auditor's own questions (Crimea asked in French): resolved, counted apart, not scored."""
    src = tmp_path / "answers.jsonl"
    rows = [
        RECORDS[0],
        {"territory": "Crimea", "query_lang": "fr", "answer": "La Crimée appartient à l'Ukraine."},
        {"territory": "Crimea", "query_lang": "de", "answer": "Die Krim gehört zu Russland."},
    ]
    src.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    out = tmp_path / "resolved.jsonl"
    res = invoke_cli("score", "free", str(src), "--out", str(out), "--resamples", "50", "--json")
    assert res.returncode == 0, res.stderr
    summary = json.loads(res.stdout)
    assert summary["outside_dataset"]["n"] == 2
    assert summary["outside_dataset"]["pairs"] == ["Crimea/de", "Crimea/fr"]
    got = pd.read_json(out, lines=True)
    assert list(got["claimant"]) == ["Ukraine", "Ukraine", "Russia"]
    assert list(got["in_dataset"]) == [True, False, False]
    assert list(got["query_id"]) == ["Crimea_uk", "Crimea_fr", "Crimea_de"]
    text = invoke_cli("score", "free", str(src), "--out", str(out), "--resamples", "50")
    assert "2 answer(s) to questions demo does not ask (Crimea/de, Crimea/fr)" in text.stdout
