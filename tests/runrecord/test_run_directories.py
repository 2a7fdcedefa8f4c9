"""Run directories that never show stale outputs, never race, and never break on a refused start.

Each test is a case an independent review found on the code before the run record (issue 49):
a re-run left ``view.html`` of the old results beside the new ones; a report racing a re-run
wrote old numbers beside new responses; a run refused before its first call turned a complete
directory into an incomplete one; ``bordir runs`` showed any ``metrics.json`` as a row; the kind
of a directory was guessed from its file names; an audit's page showed a changed log's records.
"""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path

import pytest

import bordir
from bordir.errors import ConfigError
from bordir.generation.backend import Backend
from bordir.generation.types import GenerationResult

from ..conftest import invoke_cli

pytestmark = pytest.mark.slow  # whole runs, reports and views (mock backends), a few seconds each

SMALL = {"models": ["mock/first"], "modes": ["no_ir", "qlang"], "runs": 2, "k": 2,
         "langs": ["en", "ru", "uk"]}  # fmt: skip


def _toml(path: Path, **fields) -> Path:
    path.write_text(
        "[experiment]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in fields.items()),
        encoding="utf-8",
    )
    return path


def _ok(*args: str, env: dict | None = None) -> str:
    res = invoke_cli(*args, env=env)
    assert res.returncode == 0, res.stderr
    return res.stdout


@pytest.fixture
def run_dir(tmp_path) -> Path:
    cfg = _toml(tmp_path / "exp.toml", **SMALL, cache=str(tmp_path / "c.sqlite3"))
    out = tmp_path / "run"
    _ok("run", str(cfg), "--out", str(out), "--no-progress")
    return out


def _snapshot(d: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(d)): p.read_bytes()
        for p in sorted(d.rglob("*"))
        if p.is_file() and not p.name.startswith(".bordir-")
    }


@pytest.mark.parametrize(
    ("override", "env", "needle"),
    [
        (("--models", "openai/gpt-4o-mini"), {"OPENAI_API_KEY": None}, "export OPENAI_API_KEY"),
        (("--response-format", "citation"), {}, "field 'modes': includes no_ir"),
    ],
)
def test_a_run_refused_before_its_first_call_leaves_a_complete_directory_complete(
    run_dir, override, env, needle
):
    _ok("report", str(run_dir), "--resamples", "20", "--no-plots")
    before = _snapshot(run_dir)
    res = invoke_cli("run", str(run_dir.parent / "exp.toml"), "--out", str(run_dir),
                     "--no-progress", *override, env=env)  # fmt: skip
    assert res.returncode == 2 and needle in res.stderr and "Traceback" not in res.stderr
    assert _snapshot(run_dir) == before  # nothing moved, nothing marked incomplete
    assert "left out" not in invoke_cli("runs", str(run_dir)).stderr
    _ok("compare", str(run_dir), "--modes", "no_ir,qlang", "--resamples", "20")


def test_a_testbed_refused_for_a_missing_key_leaves_its_directory_as_it_was(tmp_path):
    out = tmp_path / "tb"
    common = ("--data", "demo", "--out", str(out), "--resamples", "20", "--no-progress",
              "--cache", str(tmp_path / "c.sqlite3"), "--lang", "uk")  # fmt: skip
    _ok("testbed", "noise", "--model", "mock/first", *common)
    before = _snapshot(out)
    res = invoke_cli("testbed", "noise", "--model", "openai/gpt-4o-mini", *common,
                     env={"OPENAI_API_KEY": None})  # fmt: skip
    assert res.returncode == 2 and "OPENAI_API_KEY" in res.stderr
    assert _snapshot(out) == before


def test_a_rerun_never_leaves_the_old_view_beside_new_results(run_dir):
    _ok("view", str(run_dir))
    old_view = (run_dir / "view.html").read_bytes()
    _ok("run", str(run_dir.parent / "exp.toml"), "--out", str(run_dir), "--no-progress",
        "--runs", "1")  # fmt: skip
    assert not (run_dir / "view.html").exists()  # moved aside with the old record
    assert (run_dir / "previous" / "view.html").read_bytes() == old_view
    assert json.loads((run_dir / "previous" / "record.json").read_text())["status"] == "complete"
    _ok("view", str(run_dir))
    assert b'"runs": 1' in (run_dir / "run.json").read_bytes()


class _Gate(Backend):
    """Answers like ``mock/first``, but the first call waits until the test opens the gate."""

    provider = "mock"
    max_concurrency = 1

    def __init__(self) -> None:
        super().__init__("first")
        self.entered, self.gate = threading.Event(), threading.Event()

    def generate(self, request):
        self.entered.set()
        self.gate.wait(30)
        return GenerationResult(text=request.options[0], model=request.model)


def test_a_report_racing_a_rerun_never_writes_old_numbers_beside_new_responses(
    run_dir, monkeypatch
):
    """The report holds the directory while it computes; a re-run that starts meanwhile is refused
    (and the other way round). Before the record, the re-run went ahead and the report then wrote
    the old run's numbers beside the new responses."""
    import bordir.report as report_pkg
    from bordir.metrics.summary.build import build_metrics
    from bordir.runner.run import run

    computing, release = threading.Event(), threading.Event()

    def slow_metrics(*a, **kw):
        out = build_metrics(*a, **kw)
        computing.set()
        release.wait(30)
        return out

    monkeypatch.setattr(report_pkg, "build_metrics", slow_metrics)
    errors: list[BaseException] = []

    def report() -> None:
        try:
            report_pkg.build_report(run_dir, n_resamples=20, plots=False)
        except BaseException as exc:  # noqa: BLE001 - the test reads it
            errors.append(exc)

    t = threading.Thread(target=report)
    t.start()
    assert computing.wait(60)
    cfg = bordir.ExperimentConfig.coerce(str(run_dir.parent / "exp.toml")).override(runs=1)
    try:
        with pytest.raises(ConfigError, match="being read by another bordir process"):
            run(cfg, out=run_dir, progress=False)
    finally:
        release.set()
        t.join(60)
    assert not errors
    fresh = build_metrics(bordir.load_run(run_dir)._scored(), n_resamples=20)
    saved = json.loads((run_dir / "metrics.json").read_text())
    assert saved["results"] == json.loads(json.dumps(fresh["results"]))  # the numbers of these rows

    gate = _Gate()  # and a report while a run writes the directory is refused
    fresh_cache = cfg.override(cache=str(run_dir.parent / "fresh.sqlite3"))  # calls, not hits
    writer = threading.Thread(
        target=lambda: run(fresh_cache, out=run_dir, progress=False, backends={"mock/first": gate})
    )
    writer.start()
    try:
        assert gate.entered.wait(60)
        with pytest.raises(ConfigError, match=r"being written by another bordir process \(pid"):
            report_pkg.build_report(run_dir, n_resamples=20, plots=False)
    finally:
        gate.gate.set()
        writer.join(60)


def test_runs_shows_only_complete_runs_whose_metrics_match_their_record(run_dir, tmp_path):
    _ok("report", str(run_dir), "--resamples", "20", "--no-plots")
    other = tmp_path / "other"
    _ok("run", str(run_dir.parent / "exp.toml"), "--out", str(other), "--no-progress",
        "--models", "mock/planted:uk")  # fmt: skip
    shutil.copy(run_dir / "metrics.json", other / "metrics.json")  # a foreign metrics.json
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy(run_dir / "metrics.json", alone / "metrics.json")  # only a metrics.json
    partial = tmp_path / "partial"
    shutil.copytree(run_dir, partial)
    rec = json.loads((partial / "record.json").read_text())
    (partial / "record.json").write_text(json.dumps({**rec, "status": "incomplete"}))
    res = invoke_cli("runs", str(run_dir), str(other), str(alone), str(partial))
    assert res.returncode == 0, res.stderr
    rows = [
        line.split()[0] for line in res.stdout.splitlines()[2:] if line.startswith(str(tmp_path))
    ]
    assert set(rows) == {str(run_dir)}  # mock/first of run_dir only
    assert "mock/planted" not in res.stdout
    why = dict(line.removeprefix("left out ").split(": ", 1) for line in res.stderr.splitlines())
    assert "metrics.json is not listed in outputs.json" in why[str(other)]
    assert "record.json: file not found" in why[str(alone)]
    assert "incomplete" in why[str(partial)]
    none = invoke_cli("runs", str(alone))
    assert none.returncode == 2 and "no run to show" in none.stderr


def test_runs_refuses_an_unknown_sort_before_reading_any_directory(tmp_path):
    res = invoke_cli("runs", str(tmp_path / "nosuch"), "--sort", "nosuch")
    assert res.returncode == 2
    assert res.stderr.strip().splitlines() == [
        "bordir: error: --sort 'nosuch' is not shown; shown: kb_cs, cst_cs, delta_cs"
    ]


def test_runs_says_why_a_number_has_no_interval(tmp_path):
    cfg = _toml(tmp_path / "exp.toml", **{**SMALL, "limit": 2}, cache=str(tmp_path / "c.sqlite3"))
    _ok("run", str(cfg), "--out", str(tmp_path / "r"), "--no-progress")
    out = _ok("runs", str(tmp_path / "r"), "--resamples", "20")
    assert "†1" in out
    notes = [line for line in out.splitlines() if line.startswith("†")]
    assert notes and all("no interval over territories: " in n for n in notes)
    assert "territor" in notes[0].split(": ", 1)[1]


def test_the_kind_comes_from_the_record_not_from_file_names(run_dir):
    (run_dir / "testbed.json").write_text('{"kind": "bordir-testbed", "status": "complete"}')
    (run_dir / "answers.jsonl").write_text("")
    out = _ok("view", str(run_dir))
    assert "view:" in out
    page = (run_dir / "view.html").read_text()
    assert '"kind": "run"' in page or "Samples" in page
    res = invoke_cli("report", str(run_dir), "--resamples", "20", "--no-plots")
    assert res.returncode == 0 and "report:" in res.stdout


def test_an_audit_page_never_shows_the_records_of_a_changed_log(tmp_path):
    from ..audit.test_audit_planted import make_records

    log = tmp_path / "log.jsonl"
    recs = make_records(300, seed=3, biased={"sw": "*"})
    log.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs))
    out = tmp_path / "audit"
    _ok("audit", str(log), "--out", str(out), "--resamples", "50", "--no-plots")
    _ok("view", str(out))
    assert "changed since the audit" not in (out / "view.html").read_text()
    with log.open("a", encoding="utf-8") as f:  # the log grows after the audit
        f.write(json.dumps({**recs[0], "id": "new", "query": "a query added later"}) + "\n")
    _ok("view", str(out))
    page = (out / "view.html").read_text()
    assert "changed since the audit" in page and "a query added later" not in page


def test_a_test_run_page_never_shows_the_questions_of_a_changed_suite(tmp_path):
    suite, cache, out = tmp_path / "tests.jsonl", str(tmp_path / "c.sqlite3"), tmp_path / "trun"
    _ok("testgen", "demo", "--n", "3", "--generator", "template", "--out", str(suite),
        "--cache", cache)  # fmt: skip
    _ok("testrun", str(suite), "--config", "retriever=bm25,backend=mock/first", "--out", str(out),
        "--cache", cache)  # fmt: skip
    _ok("view", str(out))
    assert "the suite changed since the run" not in (out / "view.html").read_text()
    lines = suite.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    lines[0] = json.dumps({**first, "question": "a question written after the run"})
    suite.write_text("\n".join(lines) + "\n", encoding="utf-8")
    _ok("view", str(out))
    page = (out / "view.html").read_text()
    assert "the suite changed since the run" in page
    assert "a question written after the run" not in page
