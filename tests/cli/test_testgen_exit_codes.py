"""testgen, testrun and judge exit as ``bordir run`` does: 1 when calls failed, 2 when nothing was made.

Against a loopback server: every generator call refused (401) writes no tests and
exits 2; some refused exits 1 with ``N of M generator calls failed``; a judge
whose calls all fail, or none of whose replies parse, exits 2; some judge calls
failing exits 1; testrun exits 2 when every call failed or the tests file is
empty, 1 when some failed. Warnings name the chunk or the test, not a cache key.
"""

from __future__ import annotations

import json
import re

import pytest

from ..conftest import invoke_cli
from ..loopback import Fault, LoopbackServer, Reply
from ..testgen.test_judge_injection import CASES, _suite

GOOD = json.dumps({"question": "What does the passage say about Crimea?", "answer": "A peninsula.",
                   "keywords": ["peninsula"]})  # fmt: skip
RATED = json.dumps({c: "True" for c in ("faithfulness", "relevance", "completeness", "clarity", "keyword_match")})  # fmt: skip


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("BORDIR_PROGRESS", "0")  # warnings as lines, not through a bar
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    with LoopbackServer(reply=Reply(text=GOOD)) as s:
        monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", s.openai_url)
        yield s


def _testgen(tmp_path, *extra):
    out = tmp_path / "tests.jsonl"
    args = ("testgen", "demo", "--langs", "en", "--strategies", "coverage", "--n", "4",
            "--generator", "openai-compatible/gen", "--out", str(out), "--cache",
            str(tmp_path / "c.sqlite3"), *extra)  # fmt: skip
    return invoke_cli(*args), out


def test_testgen_whose_generator_calls_all_fail_writes_nothing_and_exits_2(server, tmp_path):
    server.push(*[Fault.status(401)] * 400)
    r, out = _testgen(tmp_path)
    assert r.returncode == 2, (r.stdout, r.stderr)  # before: "wrote 0 tests", exit 0
    (line,) = [ln for ln in r.stderr.splitlines() if ln.startswith("bordir: error")]
    assert "no test could be made" in line and "generator calls failed" in line
    assert not out.exists()


def test_testgen_with_some_failed_calls_exits_1_and_names_the_chunk(server, tmp_path):
    server.push(Fault.status(401), Fault.status(401))
    r, out = _testgen(tmp_path, "--max-retries", "0", "--timeout", "30")
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert re.search(r"\b2 of \d+ generator calls failed \(the first: .*401", r.stderr), r.stderr
    assert out.exists()
    assert "on chunk en:" in r.stderr and "failed: permanent error" in r.stderr  # not a key prefix


def _judge(tmp_path, server, reply, *faults):
    _, run, _ = _suite(tmp_path, CASES[:8])
    server.reply.text = reply
    server.push(*faults)
    return invoke_cli("judge", str(run), "--judge", "openai-compatible/judge", "--cache",
                      str(tmp_path / "c.sqlite3"), "--max-retries", "0")  # fmt: skip


def test_a_judge_whose_calls_all_fail_exits_2(server, tmp_path):
    r = _judge(tmp_path, server, RATED, *[Fault.status(401)] * 8)
    assert r.returncode == 2, (r.stdout, r.stderr)  # before: exit 0
    assert "no answer could be judged: all 8 judge calls failed" in r.stderr


def test_a_judge_none_of_whose_replies_parse_exits_2(server, tmp_path):
    r = _judge(tmp_path, server, "Looks good to me.")
    assert r.returncode == 2, (r.stdout, r.stderr)  # before: "0 of 8 parsed", exit 0
    assert "0 of 8 judge replies could be read" in r.stderr


def test_a_judge_with_some_failed_calls_exits_1_naming_the_test(server, tmp_path):
    r = _judge(tmp_path, server, RATED, Fault.status(401), Fault.status(401), Fault.status(401))
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert "3 of 8 judge calls failed (the first:" in r.stderr
    assert re.search(r"test t\d-\S+ of retriever=\S+ \(prompt en, repeat 0\) failed", r.stderr)


def _testrun(tmp_path, tests):
    return invoke_cli("testrun", str(tests), "--config", "backend=openai-compatible/sut,mode=qlang,k=1",
                      "--out", str(tmp_path / "run2"), "--cache", str(tmp_path / "c2.sqlite3"),
                      "--max-retries", "0")  # fmt: skip


def test_testrun_exits_2_when_every_call_failed_and_1_when_some_did(server, tmp_path):
    cases = [(f"c{i}", "x", f"Fact {i} about Crimea.", f"What is fact {i}?") for i in range(6)]
    tests, _, _ = _suite(tmp_path, cases)  # six different questions: six different calls
    server.push(*[Fault.status(401)] * 6)
    r = _testrun(tmp_path, tests)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert "no answer could be made: all 6 calls failed" in r.stderr
    server.reset()
    server.push(Fault.status(401))
    r = _testrun(tmp_path, tests)  # the failed ones again: one call fails once more
    assert r.returncode == 1 and "1 of 6 calls failed (the first:" in r.stderr, r.stderr


def test_testrun_on_an_empty_tests_file_exits_2(server, tmp_path):
    tests, _, _ = _suite(tmp_path, CASES[:2])
    tests.write_text("")
    r = _testrun(tmp_path, tests)
    assert r.returncode == 2, (r.stdout, r.stderr)  # before: wrote 0 answers, exit 0
    assert r.stderr.count("\n") == 1 and "no tests" in r.stderr and str(tests) in r.stderr


def test_a_run_of_echoes_says_the_answers_are_echoes_not_failures(tmp_path):
    """A model that repeats its prompt: nothing to judge, and the reason is the echoes."""
    tests = tmp_path / "tests.jsonl"
    assert invoke_cli("testgen", "demo", "--n", "6", "--out", str(tests)).returncode == 0
    run = tmp_path / "tr"
    r = invoke_cli("testrun", str(tests), "--config", "backend=mock/echo", "--out", str(run))
    assert r.returncode == 0, r.stderr
    r = invoke_cli("judge", str(run), "--judge", "mock/first")
    assert r.returncode == 2
    assert "echo their prompt or documents" in r.stderr and "failed in testrun" not in r.stderr
