"""Two real ``bordir run`` processes sharing one response cache pay for each call once.

The processes run the same grid against a loopback OpenAI-protocol server that
counts requests; before claims (a key is claimed in the cache file before it is
called, and looked up again right before the call) both paid every call.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys

import pandas as pd
import pytest

from bordir.generation.cache import ResponseCache, new_owner
from bordir.generation.executor import execute
from bordir.generation.types import GenerationRequest, GenerationResult, Message

from .conftest import REPO
from .loopback import LoopbackServer, Reply


def _toml(path, **cfg):
    path.write_text(
        "\n".join(["[experiment]"] + [f"{k} = {json.dumps(v)}" for k, v in cfg.items()]) + "\n"
    )
    return path


def _letter(body: dict) -> str:
    return "B)" if len(body["messages"][-1]["content"]) % 2 == 0 else "A)"


@pytest.mark.slow
def test_two_processes_on_one_cache_pay_each_call_once(tmp_path, monkeypatch):
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    cache = tmp_path / "shared-cache.sqlite3"
    with LoopbackServer(latency=0.03, reply=Reply(text=_letter)) as server:
        cfg = _toml(
            tmp_path / "exp.toml",
            models=["openai-compatible/test-model"],
            modes=["no_ir", "qlang"],
            runs=2,
            k=2,
            concurrency=4,
            cache=str(cache),
        )
        env = {
            **os.environ,
            "OPENAI_COMPATIBLE_BASE_URL": server.openai_url,
            "PYTHONPATH": str(REPO),
        }
        procs = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "bordir",
                    "run",
                    str(cfg),
                    "--out",
                    str(tmp_path / f"run{i}"),
                ],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for i in range(2)
        ]
        outs = [p.communicate(timeout=300) for p in procs]
        for p, (_, err) in zip(procs, outs):
            assert p.returncode == 0, err
        distinct = 34 * 2 * 2
        bodies = [json.dumps(r.body, sort_keys=True) for r in server.requests]
        twice = len(bodies) - len(set(bodies))
        calls = [
            json.loads((tmp_path / f"run{i}" / "run.json").read_text())["calls"] for i in range(2)
        ]
        assert server.count == distinct, (
            f"{server.count} requests for {distinct} distinct calls ({twice} bodies sent twice); "
            f"calls per process: {calls}; stderr: {[err[-1500:] for _, err in outs]}"
        )
    frames = [pd.read_parquet(tmp_path / f"run{i}" / "responses.parquet") for i in range(2)]
    key = ["query_id", "mode", "model", "run"]
    for df in frames:
        assert len(df) == distinct and not df.duplicated(key).any()
    a, b = (
        df.sort_values(key).reset_index(drop=True)[key + ["outcome", "choice"]] for df in frames
    )
    pd.testing.assert_frame_equal(a, b)
    with sqlite3.connect(cache) as con:
        assert con.execute("select count(*) from responses").fetchone()[0] == distinct
        assert con.execute("select count(*) from claims").fetchone()[0] == 0  # every claim released


def test_a_key_claimed_by_another_live_owner_is_waited_for_not_called(tmp_path):
    """In one process: another owner holds the claim, stores the result later; no call is made."""
    import threading
    import time

    from bordir.generation.backend import get_backend

    path = tmp_path / "c.sqlite3"
    request = GenerationRequest(model="mock/echo", messages=(Message("user", "A) x"),))
    backend = get_backend("mock/echo")
    calls: list[GenerationRequest] = []
    original = backend.generate
    backend.generate = lambda r: calls.append(r) or original(r)  # type: ignore[method-assign]
    with ResponseCache(path) as cache:
        other = new_owner()
        assert cache.claim(request.cache_key(), other)

        def finish_later() -> None:
            time.sleep(0.4)
            cache.put(request, GenerationResult(text="B) from the other owner", model="mock/echo"))
            cache.release(request.cache_key(), other)

        t = threading.Thread(target=finish_later)
        t.start()
        (result,) = execute(backend, [request], cache=cache, progress=False)
        t.join()
    assert calls == [] and result.cached and result.text == "B) from the other owner"


def test_a_dead_owners_claim_is_taken_over(tmp_path):
    path = tmp_path / "c.sqlite3"
    request = GenerationRequest(model="mock/echo", messages=(Message("user", "A) x"),))
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    pid = int(dead.stdout)
    with ResponseCache(path) as cache:
        cache._execute(
            "INSERT INTO claims VALUES (?, ?, ?, ?, ?)",
            (request.cache_key(), f"gone:{pid}:x", __import__("socket").gethostname(), pid, 1e12),
        )
        from bordir.generation.backend import get_backend

        (result,) = execute(get_backend("mock/echo"), [request], cache=cache, progress=False)
        assert result.ok and not result.cached and cache.claimed_keys() == []
