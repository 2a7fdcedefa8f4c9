"""A test run directory (`bordir testrun`): a second judge is refused without --replace, and `bordir report`
says what the directory is (issue 25.7)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..conftest import invoke_cli


@pytest.fixture(scope="module")
def testrun_dir(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("trun")
    out = invoke_cli("testgen", "demo", "--n", "3", "--out", str(d / "t.jsonl"))
    assert out.returncode == 0, out.stderr
    out = invoke_cli("testrun", str(d / "t.jsonl"), "--config",
                     "retriever=bm25,backend=mock/first,mode=qlang,k=2", "--out", str(d / "run"))  # fmt: skip
    assert out.returncode == 0, out.stderr
    return d / "run"


def _judge(verdict: str) -> str:
    """A mock judge that always gives these ratings (a JSON object, as the judge prompt asks)."""
    names = ("faithfulness", "relevance", "completeness", "clarity", "keyword_match")
    return "mock/fixed:" + json.dumps({**{n: verdict for n in names}, "rationale": "fixed"})


def test_judge_does_not_replace_another_judges_files(testrun_dir):
    yes, no = _judge("True"), _judge("False")
    first = invoke_cli("judge", str(testrun_dir), "--judge", yes)
    assert first.returncode == 0, first.stderr
    before = (testrun_dir / "summary.json").read_text(encoding="utf-8")
    again = invoke_cli("judge", str(testrun_dir), "--judge", yes)  # the same judge: fine
    assert again.returncode == 0, again.stderr
    other = invoke_cli("judge", str(testrun_dir), "--judge", no)
    assert (
        other.returncode == 2
        and "already holds the verdicts of judge(s) mock/fixed" in other.stderr
    )
    assert "--replace" in other.stderr
    assert (testrun_dir / "summary.json").read_text(encoding="utf-8") == before
    forced = invoke_cli("judge", str(testrun_dir), "--judge", no, "--replace")
    assert forced.returncode == 0, forced.stderr
    assert json.loads((testrun_dir / "summary.json").read_text())["judges"] == [no]


def test_report_on_a_testrun_directory_says_what_it_is(testrun_dir):
    out = invoke_cli("report", str(testrun_dir))
    assert out.returncode == 2
    assert "a test run (`bordir testrun`)" in out.stderr and "bordir judge" in out.stderr
    assert "field 'config'" not in out.stderr  # before: a misleading run.json error
