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
            '{"territory": "Crimea", "query_lang": "fr", "answer": "x"}',
            "no query for territory 'Crimea'",
        ),
        ("not json", "answers.jsonl:1: not JSON"),
    ],
)
def test_bad_records_exit_2_with_one_line(tmp_path, line, message):
    src = tmp_path / "answers.jsonl"
    src.write_text(line + "\n", encoding="utf-8")
    res = invoke_cli("score", "free", str(src))
    assert res.returncode == 2 and message in res.stderr
    assert "Traceback" not in res.stderr and len(res.stderr.strip().splitlines()) == 1
