"""Terminal summaries fit a terminal (issue 25.5): `bordir report`, `testbed`, `audit` and the
demo's documented output print at most 25 lines of at most 100 characters."""

from __future__ import annotations

import json

import pytest

from ..conftest import invoke_cli


def _assert_fits(text: str, lines: int = 25, width: int = 100) -> list[str]:
    out = [l for l in text.splitlines()]
    while out and not out[0].strip():
        out.pop(0)
    assert len(out) <= lines, f"{len(out)} lines:\n" + text
    too_wide = [l for l in out if len(l) > width]
    assert not too_wide, too_wide
    return out


@pytest.mark.slow  # a whole run, report, testbed or audit
def test_the_report_summary_fits_the_terminal(demo_run_mock, tmp_path):
    from bordir.cli.report import print_summary  # noqa: F401 - the printer bordir demo uses
    from bordir.report.summary import summary_lines

    saved = tmp_path / "run"
    demo_run_mock.save(saved)
    out = invoke_cli("report", str(saved), "--resamples", "50", "--no-plots")
    assert out.returncode == 0, out.stderr
    _assert_fits(out.stdout)
    metrics = json.loads((saved / "metrics.json").read_text(encoding="utf-8"))
    assert metrics["summary"]["cannot_judge"]  # 12 territories: intervals under-cover
    assert all(len(l) <= 100 for l in summary_lines(metrics))


@pytest.mark.slow  # a whole run, report, testbed or audit
def test_testbed_and_audit_summaries_fit(tmp_path):
    out = invoke_cli("testbed", "noise", "--data", "demo", "--model", "mock/first", "--out",
                     str(tmp_path / "tb"), "--no-progress", "--resamples", "50")  # fmt: skip
    assert out.returncode == 0, out.stderr
    _assert_fits(out.stdout)
    from ..audit.test_audit_planted import make_records, write_jsonl

    logs = write_jsonl(make_records(600, seed=2, biased={"sw": "*"}), tmp_path / "logs.jsonl")
    out = invoke_cli("audit", str(logs), "--out", str(tmp_path / "aud"), "--no-plots",
                     "--resamples", "200")  # fmt: skip
    assert out.returncode == 0, out.stderr
    _assert_fits(out.stdout)


def test_the_documented_demo_output_fits():
    """The demo's summary as docs/experiments.md shows it (the docs test compares it with a fresh run)."""
    from ..docblocks import REPO, blocks

    demo = [
        b for b in blocks(REPO / "docs" / "experiments.md") if b.body.startswith("$ bordir demo\n")
    ]
    assert demo, "docs/experiments.md shows the output of `bordir demo`"
    body = demo[0].body.split("\n", 1)[1]
    _assert_fits(body)
