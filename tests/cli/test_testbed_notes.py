"""Issue 51.9: the rgb policy's rejection-rate note is said once ("† rgb policy: rgb policy: …" twice before)."""

from __future__ import annotations

from bordir.cli.testbed import print_scores
from bordir.report.testbeds import score_tables
from bordir.testbeds.metrics import RGB_REJECTION_NOTE


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
