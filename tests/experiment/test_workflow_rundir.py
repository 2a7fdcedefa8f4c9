"""Issue 14.2, 14.3, 14.9: run directories that cannot go stale, mix two runs, or hide failed calls."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import bordir
from bordir.cli import main as cli_main
from bordir.errors import DataError
from bordir.generation.backend import Backend
from bordir.generation.types import GenerationResult

from ..loopback import Fault, LoopbackServer
from ..rundirs import rerecord

REPO = Path(__file__).resolve().parents[2]
SMALL = {
    "models": ["mock/first"],
    "modes": ["no_ir", "qlang"],
    "runs": 2,
    "k": 2,
    "langs": ["en", "ru", "uk"],
}


def _toml(path: Path, **fields) -> Path:
    path.write_text(
        "[experiment]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in fields.items()),
        encoding="utf-8",
    )
    return path


class _Dies(Backend):
    """Answers ``n`` calls, then raises KeyboardInterrupt: a run killed half-way."""

    provider = "mock"
    max_concurrency = 1

    def __init__(self, n: int) -> None:
        super().__init__("first")
        self.left = n

    def generate(self, request):
        if self.left <= 0:
            raise KeyboardInterrupt
        self.left -= 1
        return GenerationResult(text=request.options[0], model=request.model)


@pytest.mark.slow
def test_killed_rerun_never_leaves_the_old_record_beside_new_results(tmp_path):
    out = tmp_path / "run"
    first = bordir.run(SMALL, cache=tmp_path / "a.sqlite3", out=out, progress=False)
    old = json.loads((out / "run.json").read_text())
    assert old["status"] == "complete"
    cfg = {**SMALL, "modes": ["no_ir"], "runs": 3, "concurrency": 1}
    with pytest.raises(KeyboardInterrupt):
        bordir.run(
            cfg,
            cache=tmp_path / "b.sqlite3",
            out=out,
            progress=False,
            backends={"mock/first": _Dies(5)},
        )
    info = json.loads((out / "run.json").read_text())
    assert info["status"] == "incomplete" and info["config"]["seeds"] == [4321, 2557, 2558]
    assert json.loads((out / "previous" / "run.json").read_text()) == old
    with pytest.raises(
        DataError,
        match=r"record.json: field 'status': a `bordir run` run, incomplete .*re-run the same",
    ):
        bordir.load_run(out)
    assert cli_main(["report", str(out)]) == 2
    # finishing the run (same command) makes it loadable again
    done = bordir.run(cfg, cache=tmp_path / "b.sqlite3", out=out, progress=False)
    assert len(bordir.load_run(out).responses) == len(done.responses) != len(first.responses)


@pytest.mark.slow
def test_load_run_refuses_a_record_and_table_that_disagree(tmp_path):
    out = tmp_path / "run"
    r = bordir.run(SMALL, cache=tmp_path / "c.sqlite3", out=out, progress=False)
    resp = pd.read_parquet(out / "responses.parquet")
    resp.iloc[: len(resp) // 2].to_parquet(out / "responses.parquet", index=False)
    with pytest.raises(DataError, match=r"responses.parquet: changed since the run wrote it"):
        bordir.load_run(out)  # the record lists every file's digest
    rerecord(out)  # past the record: run.json and the table must agree too
    with pytest.raises(
        DataError,
        match=rf"responses.parquet: has {len(resp) // 2} rows but run.json records "
        rf"{len(resp)}; the directory mixes two runs",
    ):
        bordir.load_run(out)
    other = resp.copy()
    other.loc[other["mode"] == "qlang", "mode"] = "rel_langs"
    other.to_parquet(out / "responses.parquet", index=False)
    rerecord(out)
    with pytest.raises(
        DataError, match=r"field 'mode': mode\(s\) rel_langs are not in the grid run.json records"
    ):
        bordir.load_run(out)
    r.save(out)
    # hits of another run (another k) next to these responses
    bordir.run(
        {**SMALL, "k": 3}, cache=tmp_path / "c.sqlite3", out=tmp_path / "other", progress=False
    )
    shutil.copy(tmp_path / "other" / "hits.parquet", out / "hits.parquet")
    rerecord(out)
    with pytest.raises(
        DataError, match=r"hits.parquet: signature retrieval\|.*\|k:3\|.* differs from .*\|k:2\|"
    ):
        bordir.load_run(out)


def test_failed_calls_are_counted_and_exit_non_zero(tmp_path, monkeypatch, capsys):
    with LoopbackServer() as server:
        monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
        monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", server.openai_url)
        server.push(*[Fault.status(400, body="bad request")] * 3)
        cfg = _toml(
            tmp_path / "exp.toml",
            models=["openai-compatible/m"],
            modes=["no_ir"],
            runs=2,
            langs=["ru", "uk"],
            concurrency=1,
            max_retries=0,
            cache=str(tmp_path / "c.sqlite3"),
        )
        code = cli_main(["run", str(cfg), "--out", str(tmp_path / "run"), "--no-progress"])
        captured = capsys.readouterr()
        assert code == 1
        lines = [l for l in captured.err.splitlines() if "calls failed" in l]
        assert len(lines) == 1 and lines[0].startswith("3 of 6 calls failed")
        assert "re-run the same command to retry them" in lines[0]
        assert "run 0" in lines[0] or "run 1" in lines[0]  # names the query, mode and run
        info = json.loads((tmp_path / "run" / "run.json").read_text())
        assert info["status"] == "complete" and info["calls"]["failed"] == 3
        # a re-run retries exactly the failed calls (the others come from the cache)
        n = server.count
        assert cli_main(["run", str(cfg), "--out", str(tmp_path / "run"), "--no-progress"]) == 0
        assert server.count - n == 3


@pytest.mark.slow
def test_two_processes_on_one_run_directory(tmp_path):
    """Two real `bordir run` processes on one --out: the second is refused with one line, the first is intact."""
    with LoopbackServer(latency=0.25) as server:
        env = {
            **os.environ,
            "NO_PROXY": "127.0.0.1,localhost",
            "OPENAI_COMPATIBLE_BASE_URL": server.openai_url,
            "PYTHONPATH": str(REPO),
        }
        cfg = _toml(
            tmp_path / "exp.toml",
            models=["openai-compatible/m"],
            modes=["no_ir"],
            runs=2,
            langs=["en", "ru", "uk"],
            concurrency=1,
            cache=str(tmp_path / "c.sqlite3"),
        )
        out = tmp_path / "run"
        cmd = [sys.executable, "-m", "bordir", "run", str(cfg), "--out", str(out), "--no-progress"]
        first = subprocess.Popen(
            cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        deadline = time.monotonic() + 60
        while server.count == 0 and time.monotonic() < deadline and first.poll() is None:
            time.sleep(0.05)
        assert first.poll() is None, first.communicate()
        second = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
        assert first.poll() is None  # still running when the second was refused
        server.latency = 0.0  # the latency only kept the first run going until then
        out1, err1 = first.communicate(timeout=120)
    assert second.returncode == 2
    err = second.stderr.strip().splitlines()
    assert len(err) == 1 and "is being written by another bordir process (pid" in err[0], (
        second.stderr
    )
    assert "Traceback" not in second.stderr
    assert first.returncode == 0, err1
    run = bordir.load_run(out)
    assert run.info["status"] == "complete" and len(run.responses) == run.info["responses"] == 30
    assert not list(out.glob(".*.tmp")) and not list(out.glob("*.tmp"))


def test_a_run_that_fails_before_writing_leaves_the_directory_as_it_was(tmp_path):
    out = tmp_path / "run"
    bordir.run(SMALL, cache=tmp_path / "a.sqlite3", out=out, progress=False)
    before = (out / "run.json").read_text()
    with pytest.raises(DataError, match="no such file or directory"):
        bordir.run(
            {**SMALL, "corpus": str(tmp_path / "missing.jsonl")},
            cache=tmp_path / "a.sqlite3",
            out=out,
            progress=False,
        )
    assert (out / "run.json").read_text() == before and not (out / "previous").exists()
    assert len(bordir.load_run(out).responses)


@pytest.mark.slow
def test_killed_rerun_moves_the_old_report_aside(tmp_path):
    """A report of the previous results never sits beside an interrupted re-run's partial ones."""
    out = tmp_path / "run"
    bordir.run(SMALL, cache=tmp_path / "a.sqlite3", out=out, progress=False)
    assert cli_main(["report", str(out), "--no-plots"]) == 0
    old_html = (out / "report.html").read_bytes()
    old_metrics = (out / "metrics.json").read_bytes()
    cfg = {**SMALL, "modes": ["no_ir"], "runs": 3, "concurrency": 1}
    with pytest.raises(KeyboardInterrupt):
        bordir.run(
            cfg,
            cache=tmp_path / "b.sqlite3",
            out=out,
            progress=False,
            backends={"mock/first": _Dies(5)},
        )
    assert not (out / "report.html").exists() and not (out / "metrics.json").exists()
    assert (out / "previous" / "report.html").read_bytes() == old_html
    assert (out / "previous" / "metrics.json").read_bytes() == old_metrics
