"""The explorer of a testbed, a test run (testgen + judge) and an audit output, in Chromium.

What is on screen is compared with the directory's own files: ``items.parquet`` and the prediction
files (testbed), the suite, its chunk file and ``judgments.jsonl`` (test run), ``rates.csv`` /
``overall.csv`` and the log (audit).
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

pytestmark = pytest.mark.slow  # a whole run and its report (session fixtures), a browser


def facet(pg, key: str) -> dict[str, int]:
    """The nonzero ``value: count`` pairs a facet shows."""
    pairs = pg.evaluate(
        """k => Array.from(document.querySelectorAll('#facet-' + k + ' label')).map(
             l => [l.querySelector('input').value, +l.querySelector('.n').textContent])""",
        key,
    )
    return {v: n for v, n in pairs if n}


def _count(pg) -> int:
    pg.wait_for_selector("body[data-table-ready='1']")
    return int(pg.locator("#count").get_attribute("data-total"))


def test_testbed_items_with_labels_under_both_policies(page, testbed_dir):
    items = pd.read_parquet(testbed_dir / "items.parquet")
    pg = page.open((testbed_dir / "view.html").as_uri() + "#setting=noise-xling&noise=0.4")
    sel = items[(items.setting == "noise-xling") & (items.noise_rate == 0.4)]
    assert _count(pg) == len(sel) > 0
    assert "Acc (bordir)" in pg.locator("#numbers").inner_text()
    pg.locator("#samples tbody tr").first.click()
    pg.wait_for_selector("body[data-panel-ready='1']")
    text = pg.locator("#panel").inner_text()
    it = sel.iloc[0]
    assert it.instance_id in text and f"{it.rgb_labels} → {it.rgb_outcome}" in text
    assert f"{it.bordir_labels} → {it.bordir_outcome}" in text
    assert "verified: the rebuilt request has the key results.jsonl records" in text
    pred = testbed_dir / "predictions" / "mock__first" / f"{it.lang}.{it.setting}.jsonl"
    rec = next(
        r
        for r in map(json.loads, pred.read_text(encoding="utf-8").splitlines())
        if r["id"] == it.question_id and r["noise_rate"] == it.noise_rate
    )
    assert pg.locator("#panel article pre").first.inner_text() == rec["query"]
    assert rec["docs"][0][:40] in text


def test_generated_tests_with_chunk_answer_and_verdicts(page, testgen_dir):
    judgments = [
        json.loads(x)
        for x in (testgen_dir / "judgments.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    answers = [
        json.loads(x)
        for x in (testgen_dir / "answers.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    suite = testgen_dir.parent / "tests.jsonl"
    tests = {
        t["test_id"]: t for t in map(json.loads, suite.read_text(encoding="utf-8").splitlines())
    }
    chunks = {
        c["chunk_id"]: c
        for c in map(
            json.loads,
            (testgen_dir.parent / "tests.chunks.jsonl").read_text(encoding="utf-8").splitlines(),
        )
    }
    pg = page.open((testgen_dir / "view.html").as_uri())
    assert _count(pg) == len(answers)
    assert "Repeats disagree" in pg.locator("#facets").inner_text()
    # the fixture's judge disagrees with itself on some tests: the facet counts them as judgments.jsonl does
    verdicts: dict[tuple[str, str], set[str]] = {}
    for j in judgments:
        verdicts.setdefault((j["config"], j["test_id"]), set()).add(j["verdict"])
    split = sum(len(v) > 1 for v in verdicts.values())
    assert 0 < split < len(verdicts)
    assert facet(pg, "disagree") == {"yes": split, "no": len(verdicts) - split}
    pg.locator("#samples tbody tr").first.click()
    pg.wait_for_selector("body[data-panel-ready='1']")
    a = answers[0]
    t = tests[a["test_id"]]
    text = pg.locator("#panel").inner_text()
    assert t["question"] in text and t["expected_answer"] in text and a["answer"] in text
    assert chunks[t["source_chunk_ids"][0]]["text"] in text
    mine = [j for j in judgments if j["test_id"] == a["test_id"] and j["config"] == a["config"]]
    rows = pg.locator("#panel table.verdicts tbody tr")
    assert rows.count() == len(mine) == 2  # two repeats of one judge
    heads = pg.locator("#panel table.verdicts thead th").all_inner_texts()
    assert heads[2:7] == ["faithfulness", "relevance", "completeness", "clarity", "keyword_match"]
    col = heads.index("verdict")
    shown = [rows.nth(i).locator("td").nth(col).inner_text() for i in range(rows.count())]
    assert shown == [j["verdict"] for j in sorted(mine, key=lambda j: j["repeat"])]


def test_audit_flagged_cells_with_their_records(page, audit_dir):
    cells = pd.concat(
        [pd.read_csv(audit_dir / "overall.csv"), pd.read_csv(audit_dir / "rates.csv")]
    )
    flagged = cells[cells["flag"].isin(["over", "under"])]
    assert len(flagged) >= 1
    pg = page.open((audit_dir / "view.html").as_uri() + "#flagged=yes")
    assert _count(pg) == len(flagged)
    pg.locator("#samples tbody tr").first.click()
    pg.wait_for_selector("body[data-panel-ready='1']")
    text = pg.locator("#panel").inner_text()
    first = flagged.iloc[0]
    assert first.verdict in text and f"documents {first.doc_lang}" in text
    assert "Citations by language in these records:" in text
    assert pg.locator("#panel .record").count() > 0
    assert "cited languages" in pg.locator("#panel .record").first.inner_text()
