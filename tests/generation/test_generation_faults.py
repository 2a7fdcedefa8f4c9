"""Fault tests end to end: executor + the real openai client + a loopback server that misbehaves.

Every call ends either answered or recorded as failed with its reason; the run goes on.
"""

from __future__ import annotations

import socket
import time

import pytest

from bordir.generation import GenerationRequest, Message, get_backend
from bordir.generation.cache import ResponseCache
from bordir.generation.call_limits import ExecutorOptions
from bordir.generation.executor import execute

from ..loopback import Fault, loopback  # noqa: F401  (fixture)

pytest.importorskip("openai")


def _requests(n: int) -> list[GenerationRequest]:
    return [
        GenerationRequest(
            model="openai/gpt-4o-mini", messages=(Message("user", f"Q{i}: A) x or B) y?"),), seed=i
        )
        for i in range(n)
    ]


@pytest.fixture
def backend(loopback, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", loopback.openai_url)
    b = get_backend("openai/gpt-4o-mini", timeout=0.5)
    yield b
    b.close()


def test_transient_faults_are_retried_until_answered(loopback, backend, tmp_path):
    waits: list[float] = []
    loopback.push(
        Fault.status(429, retry_after=2), Fault.status(500), Fault.delay(2.0), Fault.malformed()
    )
    with ResponseCache(tmp_path / "c.sqlite3") as cache:
        results = execute(
            backend,
            _requests(6),
            cache=cache,
            progress=False,
            options=ExecutorOptions(concurrency=1, sleep=waits.append, jitter_seed=0),
        )
        assert all(r.ok for r in results)
        assert sum(r.attempts for r in results) == 6 + 4  # four faults, four retries
        assert 2.0 in waits  # Retry-After honoured (not replaced by the shorter backoff)
        assert len(cache) == 6


def test_persistent_failure_is_recorded_and_the_run_goes_on(loopback, backend, tmp_path):
    loopback.push(
        *[Fault.status(503)] * 3
    )  # the first request fails on every attempt (max_retries=2)
    with ResponseCache(tmp_path / "c.sqlite3") as cache:
        results = execute(
            backend,
            _requests(3),
            cache=cache,
            progress=False,
            options=ExecutorOptions(concurrency=1, max_retries=2, sleep=lambda s: None),
        )
        failed = [r for r in results if not r.ok]
        assert len(failed) == 1 and failed[0].attempts == 3 and "503" in failed[0].error
        assert [r.ok for r in results[1:]] == [True, True]
        assert len(cache) == 2  # failures are not cached: a re-run retries them
        again = execute(
            backend,
            _requests(3),
            cache=cache,
            progress=False,
            options=ExecutorOptions(concurrency=1, sleep=lambda s: None),
        )
        assert all(r.ok for r in again) and sum(not r.cached for r in again) == 1


def test_client_error_is_permanent_and_not_retried(loopback, backend):
    loopback.push(Fault.status(400))
    results = execute(
        backend,
        _requests(2),
        progress=False,
        options=ExecutorOptions(concurrency=1, sleep=lambda s: None),
    )
    assert not results[0].ok and results[0].attempts == 1 and "permanent" in results[0].error
    assert results[1].ok


def test_a_dns_failure_is_not_retried(monkeypatch):
    pytest.importorskip("openai")
    from bordir.generation import get_backend
    from bordir.generation.executor import execute
    from bordir.generation.types import GenerationRequest, Message

    calls = []
    real = socket.getaddrinfo

    def fake(host, *a, **k):
        if "invalid" in str(host):
            calls.append(host)
            raise socket.gaierror(-2, "Name or service not known")
        return real(host, *a, **k)

    monkeypatch.setattr(socket, "getaddrinfo", fake)
    monkeypatch.setenv("OPENAI_COMPATIBLE_API_KEY", "sk-test-not-a-real-key")
    backend = get_backend("openai-compatible/x", base_url="http://bordir-test.invalid/v1")
    req = GenerationRequest(model="openai-compatible/x", messages=(Message("user", "hi"),))
    t0 = time.perf_counter()
    (res,) = execute(backend, [req], progress=False)
    assert (
        not res.ok
        and "cannot resolve the host name (DNS)" in res.error
        and "not retried" in res.error
    )
    assert time.perf_counter() - t0 < 5  # before: six attempts over about 18 s
    assert len(calls) <= 2  # the client's own connect attempt, once (no backoff schedule)
