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

from ..conftest import REPO
from ..loopback import LoopbackServer, Reply


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


_RACER = r"""
import sys, time
from bordir.generation.backend import get_backend
from bordir.generation.cache import ResponseCache
from bordir.generation.executor import execute
from bordir.generation.call_limits import ExecutorOptions
from bordir.generation.types import GenerationRequest, Message

url, cache_path, start, n = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
model = "openai-compatible/race"
backend = get_backend(model, base_url=url, timeout=30)
requests = [
    GenerationRequest(model=model, messages=(Message("user", f"Q{i}: A) x or B) y?"),), seed=i)
    for i in range(n)
]
cache = ResponseCache(cache_path)
while time.time() < start:  # every process starts its calls at the same moment
    time.sleep(0.001)
out = execute(backend, requests, cache=cache, progress=False,
              options=ExecutorOptions(concurrency=32))
print(sum(r.ok for r in out), sum(r.cached for r in out))
"""


@pytest.mark.slow
def test_three_processes_racing_on_the_same_keys_pay_each_once(tmp_path, monkeypatch):
    """Three processes start the same 300 calls at the same instant, 32 in flight each, on one
    cache: the grouped claims (one commit for many keys, from the cache writer thread) still
    let exactly one process call each key; the others wait and read its result."""
    import time

    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    n = 300
    cache = tmp_path / "shared.sqlite3"
    ResponseCache(cache).close()  # the schema exists before the race
    with LoopbackServer(latency=0.02) as server:
        start = time.time() + 3.0  # after the imports of all three
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", _RACER, server.openai_url, str(cache), str(start), str(n)],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(3)
        ]
        outs = [p.communicate(timeout=300) for p in procs]
        for p, (_, err) in zip(procs, outs):
            assert p.returncode == 0, err[-2000:]
        bodies = [json.dumps(r.body, sort_keys=True) for r in server.requests]
        assert len(bodies) == len(set(bodies)) == n, f"{len(bodies)} requests for {n} keys"
    oks = [tuple(map(int, out.split())) for out, _ in outs]
    assert all(ok == n for ok, _ in oks)
    assert sum(cached for _, cached in oks) == 2 * n  # each key: one caller, two readers
    with sqlite3.connect(cache) as con:
        assert con.execute("select count(*) from responses").fetchone()[0] == n
        assert con.execute("select count(*) from claims").fetchone()[0] == 0


def test_claim_many_follows_claim(tmp_path):
    """claim_many: a free key is claimed, a live other owner's claim is kept, a dead owner's
    claim is taken over, a stored key is a hit with its claim released; one transaction."""
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    host = __import__("socket").gethostname()
    req = [
        GenerationRequest(model="mock/echo", messages=(Message("user", f"{i}"),)) for i in range(4)
    ]
    free, live, gone, stored = (r.cache_key() for r in req)
    with ResponseCache(tmp_path / "c.sqlite3") as cache:
        me, other = new_owner(), new_owner()
        assert cache.claim(live, other)
        cache._execute(
            "INSERT INTO claims VALUES (?, ?, ?, ?, ?)",
            (gone, f"{host}:{dead.stdout.strip()}:x", host, int(dead.stdout), 1e12),
        )
        cache.put(req[3], GenerationResult(text="A", model="mock/echo"))
        got = cache.claim_many([free, live, gone, stored, free], me)
        assert got[free] == (True, None) and got[live] == (False, None)
        assert got[gone] == (True, None)
        claimed, hit = got[stored]
        assert not claimed and hit is not None and hit.text == "A" and hit.cached
        assert sorted(cache.claimed_keys()) == sorted([free, live, gone])
        assert not cache.claim(free, other)  # ours now
        cache.store_many(
            [
                (req[0], GenerationResult(text="B", model="mock/echo")),
                (req[2], GenerationResult(text="", model="mock/echo", error="HTTP 500")),
            ],
            me,
        )
        assert cache.get(req[0]).text == "B" and cache.get(req[2]) is None
        assert cache.claimed_keys() == [live]
