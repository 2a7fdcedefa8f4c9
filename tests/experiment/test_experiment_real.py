"""The runner with real backends: a SIGKILLed run resumes against a loopback OpenAI-protocol server
without re-billing finished calls, and a small grid with the real local gemma model through the report."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

from ..conftest import REPO
from ..loopback import LoopbackServer, Reply


def _toml(path, **cfg):
    lines = ["[experiment]"] + [f"{k} = {json.dumps(v)}" for k, v in cfg.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


def _letter(body: dict) -> str:
    # answer B for even-length prompts, A otherwise: deterministic, differs between queries
    return "B)" if len(body["messages"][-1]["content"]) % 2 == 0 else "A)"


@pytest.mark.slow
def test_sigkill_then_rerun_rebills_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    with LoopbackServer(latency=0.15, reply=Reply(text=_letter)) as server:
        cfg = _toml(
            tmp_path / "exp.toml",
            models=["openai-compatible/test-model"],
            modes=["no_ir", "qlang"],
            runs=2,
            k=2,
            concurrency=2,
            cache=str(tmp_path / "cache.sqlite3"),
        )
        env = {
            **os.environ,
            "OPENAI_COMPATIBLE_BASE_URL": server.openai_url,
            "PYTHONPATH": str(REPO),
        }
        cmd = [sys.executable, "-m", "bordir", "run", str(cfg), "--out", str(tmp_path / "run")]
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        while server.count < 12 and time.time() < deadline:
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        first = server.count
        assert 12 <= first < 136, "the run should have been killed part-way"
        server.latency = 0.0  # the latency only keeps the first run going until it is killed

        import sqlite3

        with sqlite3.connect(tmp_path / "cache.sqlite3") as con:
            stored = con.execute("select count(*) from responses").fetchone()[0]
        assert first - 2 <= stored <= first  # at most the calls in flight (concurrency 2) are lost

        done = subprocess.run(cmd, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        rerun_calls = server.count - first
        info = json.loads((tmp_path / "run" / "run.json").read_text())
        assert info["calls"]["failed"] == 0
        distinct = info["calls"]["requests"]
        assert rerun_calls == distinct - stored  # finished calls were not paid again
        df = pd.read_parquet(tmp_path / "run" / "responses.parquet")
        assert (
            len(df) == 34 * 2 * 2 and not df.duplicated(["query_id", "mode", "model", "run"]).any()
        )

        # a third run is free and gives the same rows
        again = subprocess.run(cmd, env=env, capture_output=True, text=True)
        assert again.returncode == 0 and server.count == first + rerun_calls
        df2 = pd.read_parquet(tmp_path / "run" / "responses.parquet")
        key = ["query_id", "mode", "model", "run"]
        pd.testing.assert_frame_equal(
            df[key + ["outcome", "choice"]], df2[key + ["outcome", "choice"]]
        )


@pytest.mark.slow
def test_local_model_grid_and_report(local_demo_run):
    """The session's local-model run of the demo (tests/conftest.py: `bordir run`, `bordir report`)."""
    out = local_demo_run
    df = pd.read_parquet(out / "responses.parquet")
    # 4 queries (Crimea and Kuril Islands in ru; Crimea in uk is 1, ru has 2) x 6 modes, minus nothing skipped
    assert set(df["query_lang"]) == {"ru", "uk"}
    assert (df["outcome"] == "answered").all()  # rank classification always picks an option
    lp = df.groupby(["query_id", "mode"])["option_logprobs"].first()
    assert all(len(v) == 2 and all(x < 0 for x in v) for v in lp)
    # one scoring per (query, mode), sampled per run: identical logprobs across runs
    assert (
        df.groupby(["query_id", "mode"])["option_logprobs"]
        .apply(lambda s: len({tuple(v) for v in s}))
        .eq(1)
        .all()
    )
    info = json.loads((out / "run.json").read_text())
    assert info["calls"]["requests"] == df.groupby(["query_id", "mode"]).ngroups
    metrics = json.loads((out / "metrics.json").read_text())
    assert (out / "report.html").is_file() and "local/gemma-3-270m" in metrics["results"]
    assert 'id="no-plots"' in (out / "report.html").read_text(encoding="utf-8")  # --no-plots
    assert not (out / "plots").exists()
    assert metrics["settings"]["boot95"]["n_resamples"] == 200
