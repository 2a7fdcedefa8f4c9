"""The terminal output of `bordir testbed` and `testbed score`: both policies in points (×100), the rgb policy's
rejection-rate note said once ("† rgb policy: rgb policy: …" twice before, issue 51.9)."""

from __future__ import annotations

import json

from bordir.cli.testbed import print_scores
from bordir.report.testbeds import score_tables
from bordir.testbeds.metrics import RGB_REJECTION_NOTE

from ..conftest import invoke_cli


def _scores() -> dict:
    m = {"value": 0.5, "count": 1, "n": 2, "ci95": [0.0, 1.0], "n_clusters": 2}
    group = {
        "model": "mock/first", "lang": "all", "testbed": "rejection", "setting": "rejection",
        "noise_rate": 1.0, "n_items": 2, "n_failed": 0,
        "metrics": {p: {"accuracy": m, "rejection_rate": m} for p in ("rgb", "bordir")},
    }  # fmt: skip
    return {"policy": "rgb", "policies": ["rgb", "bordir"], "groups": [group], "comparisons": [],
            "n_resamples": 10, "bootstrap_seed": 1}  # fmt: skip


def test_the_cli_says_the_rgb_note_once(capsys):
    print_scores(_scores())
    out = " ".join(capsys.readouterr().out.split())
    assert out.count("rgb policy:") == 1 and "† rgb policy: the rejection rate" in out


def test_the_report_tables_say_it_once():
    info = {"config": {"testbed": "rejection"}}
    for table in score_tables(info, _scores()):  # the policy named once where the note is said
        assert "(rgb): rgb policy" not in table.caption, table.caption
        assert "rgb policy: rgb policy" not in table.caption, table.caption
    assert RGB_REJECTION_NOTE.startswith("rgb policy:")


def test_the_testbed_shows_both_policies_in_points(tmp_path):
    out = invoke_cli("testbed", "noise", "--data", "demo", "--model", "mock/first", "--out",
                     str(tmp_path / "tb"), "--no-progress", "--resamples", "50", "--ratios", "0")  # fmt: skip
    assert out.returncode == 0, out.stderr
    head = out.stdout.splitlines()[0]
    assert "(bordir)" in head and "(rgb)" in head  # before: bordir's policy only
    scores = json.loads((tmp_path / "tb" / "scores.json").read_text(encoding="utf-8"))
    g = next(g for g in scores["groups"] if g["lang"] == "all" and g["setting"] == "noise")
    rgb = g["metrics"]["rgb"]["accuracy"]["value"]
    row = next(l for l in out.stdout.splitlines()[2:] if l.split()[1] == "noise")
    assert f"{100 * rgb:.1f}" in row.split()  # the rgb value, ×100 like the bordir one


def test_testbed_score_prints_points_like_the_testbed(tmp_path):
    rec = {"id": 0, "query": "q", "ans": ["北京"], "label": [1], "prediction": "北京", "docs": [],
           "noise_rate": 0.0, "factlabel": 0}  # fmt: skip
    pred = tmp_path / "prediction_zh_m_temp0.7_noise0.0_passage5_correct0.0.json"
    pred.write_text(json.dumps(rec, ensure_ascii=False) + "\n", encoding="utf-8")
    out = invoke_cli("testbed", "score", str(pred))
    assert out.returncode == 0, out.stderr
    assert "value ×100" in out.stdout.splitlines()[0]
    assert any(l.split()[:3] == ["all", "accuracy", "100.0"] for l in out.stdout.splitlines())
