"""Configured concurrency reaches the server; one retry utility; one exception tree; wiki does not import generation.

The in-flight counts come from the real loopback server (``tests/loopback.py``),
which counts the requests it is answering at once, with the real ``openai`` and
``cohere`` clients in front of it, through ``bordir.run`` and ``bordir run``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import bordir
from bordir import errors
from bordir._net.ratelimit import RateLimiter
from bordir._net.retry import Backoff, is_transient_status, parse_retry_after, retry_call
from bordir.generation.backend import get_backend
from bordir.generation.cache import ResponseCache
from bordir.generation.call_limits import ExecutorOptions
from bordir.generation.executor import execute
from bordir.generation.types import GenerationRequest, Message

from ..conftest import REPO
from ..loopback import LoopbackServer

pytest.importorskip("openai")


def _config(concurrency: int, runs: int, **extra) -> dict:
    seeds = list(range(1, runs + 1))
    return {
        "models": ["openai-compatible/m"],
        "modes": ["no_ir"],
        "runs": runs,
        "seeds": seeds,
        "concurrency": concurrency,
        **extra,
    }


@pytest.mark.slow
def test_concurrency_128_reaches_the_server_through_bordir_run(tmp_path, monkeypatch):
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    with LoopbackServer(latency=1.0) as server:
        monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", server.openai_url)
        run = bordir.run(_config(128, 4), cache=tmp_path / "c.sqlite3", progress=False)
        assert server.count == 34 * 4 and run.info["calls"]["failed"] == 0
        assert server.max_in_flight == 128


@pytest.mark.slow
def test_concurrency_64_in_a_config_file_reaches_the_server_through_the_cli(tmp_path):
    cfg = _config(64, 2, cache=str(tmp_path / "c.sqlite3"))
    toml = tmp_path / "exp.toml"
    toml.write_text("[experiment]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in cfg.items()))
    with LoopbackServer(latency=1.0) as server:
        env = {
            **os.environ,
            "OPENAI_COMPATIBLE_BASE_URL": server.openai_url,
            "NO_PROXY": "127.0.0.1,localhost",
            "PYTHONPATH": str(REPO),
        }
        cmd = [sys.executable, "-m", "bordir", "run", str(toml), "--out", str(tmp_path / "run")]
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        assert server.count == 34 * 2
        assert server.max_in_flight == 64
        # a warm re-run pays nothing
        again = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
        assert again.returncode == 0, again.stderr
        assert server.count == 34 * 2


@pytest.mark.slow
@pytest.mark.parametrize("model", ["openai-compatible/m", "cohere/command-r"])
def test_the_backends_pools_hold_the_executors_concurrency(model, monkeypatch):
    """httpx alone keeps 20 connections alive and opens at most 100: the pools are sized to the run."""
    if model.startswith("cohere"):
        pytest.importorskip("cohere")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("CO_API_KEY", "test-key-123456")
    with LoopbackServer(latency=1.0) as server:
        url = server.openai_url if model.startswith("openai") else server.url
        backend = get_backend(model, base_url=url)
        requests = [
            GenerationRequest(model=model, messages=(Message("user", f"q{i}"),), seed=i)
            for i in range(110)
        ]
        try:
            results = execute(
                backend, requests, progress=False, options=ExecutorOptions(concurrency=110)
            )
        finally:
            backend.close()
        assert all(r.ok for r in results)
        assert server.max_in_flight == 110


def test_sliding_window_keeps_results_in_order_with_duplicates_and_cache(tmp_path):
    backend = get_backend("mock/echo")
    requests = [
        GenerationRequest(model="mock/echo", messages=(Message("user", f"A) {i % 50}"),))
        for i in range(300)
    ]
    seen = []
    with ResponseCache(tmp_path / "c.sqlite3") as cache:
        out = execute(
            backend,
            requests,
            cache=cache,
            progress=False,
            on_result=lambda r, res: seen.append(r.cache_key()),
            options=ExecutorOptions(concurrency=3),
        )
        assert [r.text for r in out] == [f"A) {i % 50}" for i in range(300)]
        assert len(seen) == len(set(seen)) == 50 and len(cache) == 50


# -- one retry utility, one exception tree ------------------------------------------------------


def test_one_exception_tree():
    from bordir import generation
    from bordir.wiki import retry

    # the attempt errors live in bordir.errors alone: generation neither copies nor re-exports them
    assert not hasattr(generation, "TransientError") and not hasattr(generation, "PermanentError")
    assert retry.TransientError is errors.TransientError
    assert retry.PermanentError is errors.PermanentError
    assert retry.FetchError is errors.FetchError
    for cls in (errors.TransientError, errors.PermanentError):
        assert issubclass(cls, errors.AttemptError) and issubclass(cls, errors.BordirError)
    for name in errors.__all__:
        obj = getattr(errors, name)
        if isinstance(obj, type) and issubclass(obj, Exception):
            assert obj.__name__ in errors.__doc__, f"{name} is not drawn in errors.py's tree"


@pytest.mark.slow
def test_wiki_does_not_import_generation():
    code = (
        "import sys, bordir.wiki, bordir.wiki.client, bordir.wiki.fetch, bordir.wiki.retry; "
        "print(sorted(m for m in sys.modules if m.startswith('bordir.generation')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        check=True,
    )
    assert out.stdout.strip() == "[]"


def test_retry_call_retries_transient_honours_retry_after_and_stops():
    waits: list[float] = []
    calls = []

    def flaky():
        calls.append(1)
        if len(calls) < 3:
            raise errors.TransientError("HTTP 503", status=503, retry_after=4.0)
        return "ok"

    assert retry_call(flaky, max_retries=5, backoff=Backoff(seed=0), sleep=waits.append) == "ok"
    assert waits == [4.0, 4.0] and len(calls) == 3

    def down():
        raise errors.TransientError("HTTP 500", status=500)

    with pytest.raises(errors.TransientError) as info:
        retry_call(
            down, max_retries=2, backoff=Backoff(seed=0, base=1.0, cap=2.0), sleep=waits.append
        )
    assert info.value.attempts == 3 and all(0 <= w <= 2.0 for w in waits[2:]) and len(waits) == 4

    def refused():
        raise errors.PermanentError("HTTP 404", status=404)

    with pytest.raises(errors.PermanentError):
        retry_call(refused, max_retries=5, backoff=Backoff(seed=0), sleep=waits.append)
    assert len(waits) == 4  # no wait before a permanent error


def test_backoff_is_jittered_exponential_and_reproducible():
    a, b = Backoff(seed=7), Backoff(seed=7)
    da = [a.delay(n) for n in range(1, 10)]
    assert da == [b.delay(n) for n in range(1, 10)]
    assert all(0 <= d <= min(30.0, 0.5 * 2 ** (n - 1)) for n, d in enumerate(da, 1))
    assert len(set(da)) == len(da)  # jittered
    assert Backoff(seed=1).delay(1, retry_after=45.0) == 45.0  # above the cap: honoured


def test_status_classification_and_retry_after():
    assert [is_transient_status(s) for s in (408, 409, 425, 429, 500, 503)] == [True] * 6
    assert [is_transient_status(s) for s in (400, 401, 403, 404, 422)] == [False] * 5
    assert is_transient_status(499, also=(499,)) and not is_transient_status(499)
    assert parse_retry_after({"Retry-After": "3"}) == 3.0
    assert parse_retry_after({"retry-after-ms": "250"}) == 0.25


# -- ConfigError for bad settings ------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, field", [({"rpm": 0}, "rpm"), ({"tpm": -5}, "tpm"), ({"rpm": "fast"}, "rpm")]
)
def test_rate_limits_refuse_bad_values_with_config_error(kwargs, field):
    with pytest.raises(errors.ConfigError, match=rf"^{field} must be a positive number") as info:
        RateLimiter(**kwargs)
    assert "leave it out for no limit" in str(info.value)


def test_cache_refuses_bad_settings_with_config_error(tmp_path):
    with pytest.raises(errors.ConfigError, match="synchronous must be OFF, NORMAL, FULL or EXTRA"):
        ResponseCache(tmp_path / "c.sqlite3", synchronous="sometimes")
    with pytest.raises(errors.ConfigError, match="timeout must be a number of seconds"):
        ResponseCache(tmp_path / "c.sqlite3", timeout=-1)


# -- the executor's async lane (backends with agenerate_within) ------------------------------


def _openai_requests(n: int, model: str = "openai-compatible/m") -> list[GenerationRequest]:
    return [
        GenerationRequest(model=model, messages=(Message("user", f"A) x or B) y? {i}"),), seed=i)
        for i in range(n)
    ]


def test_async_lane_interrupt_releases_claims_and_stops(tmp_path, monkeypatch):
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    with LoopbackServer(latency=0.3) as server:
        backend = get_backend("openai-compatible/m", base_url=server.openai_url)
        assert hasattr(backend, "agenerate_within")

        def interrupt(request, result):
            raise KeyboardInterrupt

        with ResponseCache(tmp_path / "c.sqlite3") as cache:
            with pytest.raises(KeyboardInterrupt):
                execute(
                    backend,
                    _openai_requests(40),
                    cache=cache,
                    progress=False,
                    on_result=interrupt,
                    options=ExecutorOptions(concurrency=4),
                )
            assert cache.claimed_keys() == []
            assert 1 <= len(cache) < 40
        sent = server.count
        backend.close()
    assert sent < 40


@pytest.mark.slow
def test_async_lane_rate_limit_and_retry_after(monkeypatch):
    from ..loopback import Fault

    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    with LoopbackServer() as server:
        backend = get_backend("openai-compatible/m", base_url=server.openai_url)
        server.push(Fault.status(429, retry_after=0.2), Fault.status(503))
        limiter = RateLimiter(rpm=60)
        waits: list[float] = []
        out = execute(
            backend,
            _openai_requests(61),
            progress=False,
            options=ExecutorOptions(concurrency=8, limiter=limiter, sleep=waits.append),
        )
        backend.close()
    assert all(r.ok for r in out) and server.count == 63  # 61 answers and the 2 faults
    # each fault cost its request one more attempt (one request takes both when its retry reaches
    # the server before any other request's first attempt, as on a loaded machine)
    assert sum(r.attempts for r in out) == 63 and max(r.attempts for r in out) <= 3
    assert any(w >= 0.2 for w in waits)  # Retry-After honoured
    assert limiter.try_acquire() > 0  # the bucket of 60 was used up, and waited for


def test_openai_backend_works_in_a_forked_child(monkeypatch):
    """The async clients belong to the parent's event loop; a forked child builds its own."""
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    with LoopbackServer() as server:
        backend = get_backend("openai-compatible/m", base_url=server.openai_url)
        assert backend.generate(_openai_requests(1)[0]).ok
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child
            try:
                ok = backend.generate(_openai_requests(2)[1]).ok
                os.write(write, b"ok" if ok else b"failed")
            finally:
                os._exit(0)
        os.close(write)
        answer = os.read(read, 16)
        os.waitpid(pid, 0)
        assert answer == b"ok"
        assert backend.generate(_openai_requests(3)[2]).ok  # the parent's clients still work
        backend.close()
    assert server.count == 3
