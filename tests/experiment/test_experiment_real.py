"""The runner with a real backend: a SIGKILLed run resumes against a loopback OpenAI-protocol server
without re-billing finished calls. (The real local model through the whole pipeline is the documented
``bordir demo``: tests/test_docs_blocks.py.)"""

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
