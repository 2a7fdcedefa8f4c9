"""execute(): cache, duplicates, order, concurrency, retries, failures, interruption, secrets.

Logic tests with the mock backend and small test-only backends; whether a real
provider's errors map to TransientError / PermanentError is tested with each backend.
"""

from __future__ import annotations

import logging
import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bordir._net.ratelimit import RateLimiter
from bordir._net.retry import backoff_delay
from bordir.errors import ConfigError, PermanentError, TransientError
from bordir.generation.backend import Backend, get_backend
from bordir.generation.cache import ResponseCache
from bordir.generation.call_limits import ExecutorOptions
from bordir.generation.cost import estimate_call_tokens
from bordir.generation.executor import execute
from bordir.generation.types import GenerationRequest, GenerationResult, Message

from ..conftest import REPO


def req(i: int, model: str = "test/fake", **kw) -> GenerationRequest:
    return GenerationRequest(
        model=model, messages=(Message("user", f"Is T{i} a territory of A) X or B) Y?"),), **kw
    )


class Counting(Backend):
    """Answers ``answer-<prompt>`` after ``delay`` seconds; counts calls and the most calls in flight."""

    provider = "test"
    max_concurrency = 64

    def __init__(
        self, model: str = "fake", *, delay: float = 0.0, max_concurrency: int | None = None
    ) -> None:
        super().__init__(model)
        self.delay = delay
        if max_concurrency is not None:
            self.max_concurrency = max_concurrency
        self.calls: list[GenerationRequest] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()

    def generate(self, request: GenerationRequest) -> GenerationResult:
        with self._lock:
            self.calls.append(request)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.delay:
                time.sleep(self.delay)
            return self.answer(request)
        finally:
            with self._lock:
                self.in_flight -= 1

    def answer(self, request: GenerationRequest) -> GenerationResult:
        return GenerationResult(
            text="answer-" + request.messages[-1].content,
            model=request.model,
            input_tokens=10,
            output_tokens=2,
        )


class Flaky(Counting):
    """Raises ``make_error()`` for the first ``failures`` calls of each request, then answers."""

    def __init__(self, failures: int, make_error, **kw) -> None:
        super().__init__(**kw)
        self.failures = failures
        self.make_error = make_error
        self.per_request: dict[str, int] = {}

    def answer(self, request: GenerationRequest) -> GenerationResult:
        key = request.cache_key()
        with self._lock:
            n = self.per_request[key] = self.per_request.get(key, 0) + 1
        if n <= self.failures:
            raise self.make_error()
        return super().answer(request)


class FakeTime:
    """A clock and a sleep that advances it, recording each sleep."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


# -- order, duplicates, cache ------------------------------------------------------------------


def test_results_in_request_order_and_duplicates_called_once():
    backend = Counting(delay=0.002)
    requests = [req(i % 7) for i in range(30)]
    random.Random(1).shuffle(requests)
    results = execute(backend, requests, progress=False, options=ExecutorOptions(concurrency=8))
    assert [r.text for r in results] == ["answer-" + r.messages[-1].content for r in requests]
    assert len(backend.calls) == 7
    assert all(r.ok and r.attempts == 1 and not r.cached and r.latency_s > 0 for r in results)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 12), max_size=40), st.integers(1, 8))
def test_order_and_single_call_per_distinct_request(ids, concurrency):
    backend = Counting()
    results = execute(
        backend,
        [req(i) for i in ids],
        progress=False,
        options=ExecutorOptions(concurrency=concurrency),
    )
    assert [r.text for r in results] == ["answer-" + req(i).messages[-1].content for i in ids]
    assert sorted(r.cache_key() for r in backend.calls) == sorted({req(i).cache_key() for i in ids})


def test_mock_backend_end_to_end(tmp_path):
    requests = [
        GenerationRequest(
            model="mock/first", messages=(Message("user", "?"),), options=(f"A) {i}", "B) x")
        )
        for i in range(5)
    ]
    with ResponseCache(tmp_path / "c.sqlite3") as cache:
        results = execute(get_backend("mock/first"), requests, cache=cache, progress=True)
        assert [r.text for r in results] == [f"A) {i}" for i in range(5)]
        assert len(cache) == 5


def test_cache_hit_makes_zero_calls(tmp_path):
    requests = [req(i) for i in range(20)]
    with ResponseCache(tmp_path / "c.sqlite3") as cache:
        first = execute(Counting(), requests, cache=cache, progress=False)
        assert len(cache) == 20
        backend = Counting()
        again = execute(backend, requests, cache=cache, progress=False)
    assert backend.calls == []
    assert [r.text for r in again] == [r.text for r in first]
    assert all(r.cached and r.attempts == 0 for r in again)


def test_partial_cache_calls_only_the_rest(tmp_path):
    with ResponseCache(tmp_path / "c.sqlite3") as cache:
        execute(Counting(), [req(i) for i in range(10)], cache=cache, progress=False)
        backend = Counting()
        results = execute(backend, [req(i) for i in range(15)], cache=cache, progress=False)
    assert sorted(r.messages[0].content for r in backend.calls) == sorted(
        req(i).messages[0].content for i in range(10, 15)
    )
    assert [r.cached for r in results] == [True] * 10 + [False] * 5


def test_failed_calls_are_not_cached_and_retried_on_rerun(tmp_path):
    requests = [req(i) for i in range(6)]
    with ResponseCache(tmp_path / "c.sqlite3") as cache:
        bad = Flaky(
            failures=1, make_error=lambda: PermanentError("HTTP 400 bad request", status=400)
        )
        results = execute(bad, requests, cache=cache, progress=False)
        assert all(not r.ok and r.text == "" and r.attempts == 1 for r in results)
        assert "permanent error: HTTP 400 bad request (status 400)" == results[0].error
        assert len(cache) == 0
        again = execute(
            bad, requests, cache=cache, progress=False
        )  # the second call of each succeeds
    assert all(r.ok for r in again) and len(bad.calls) == 12


def test_on_result_once_per_distinct_request_including_hits(tmp_path):
    seen: list[tuple[str, bool]] = []
    with ResponseCache(tmp_path / "c.sqlite3") as cache:
        execute(Counting(), [req(0)], cache=cache, progress=False)
        execute(
            Counting(),
            [req(0), req(1), req(1), req(2)],
            cache=cache,
            progress=False,
            on_result=lambda q, r: seen.append((q.messages[0].content, r.cached)),
        )
    assert sorted(seen) == sorted(
        [
            (req(0).messages[0].content, True),
            (req(1).messages[0].content, False),
            (req(2).messages[0].content, False),
        ]
    )


def test_request_for_another_model_is_refused():
    with pytest.raises(ConfigError, match="group requests by model"):
        execute(Counting(), [req(0, model="test/other")], progress=False)


# -- concurrency -------------------------------------------------------------------------------


def test_concurrency_overlaps():
    backend = Counting(delay=0.05)
    results = execute(
        backend,
        [req(i) for i in range(64)],
        progress=False,
        options=ExecutorOptions(concurrency=32),
    )
    assert all(r.ok for r in results) and len(backend.calls) == 64
    # calls overlap, never more than the concurrency (the throughput itself: benchmarks/)
    assert 1 < backend.max_in_flight <= 32


def test_concurrency_above_the_backend_default_is_used_and_said(caplog):
    backend = Counting(delay=0.02, max_concurrency=3)
    with caplog.at_level(logging.WARNING, logger="bordir.generation.executor"):
        execute(
            backend,
            [req(i) for i in range(40)],
            progress=False,
            options=ExecutorOptions(concurrency=12),
        )
    assert 3 < backend.max_in_flight <= 12
    assert "concurrency 12 is above this backend's default limit of 3" in caplog.text


def test_concurrency_is_capped_by_a_hard_backend_limit():
    class OneAtATime(Counting):
        max_concurrency_hard = True

    backend = OneAtATime(delay=0.01, max_concurrency=2)
    execute(
        backend,
        [req(i) for i in range(10)],
        progress=False,
        options=ExecutorOptions(concurrency=32),
    )
    assert backend.max_in_flight <= 2


# -- retries and failures ----------------------------------------------------------------------


def test_transient_errors_are_retried_honouring_retry_after():
    t = FakeTime()
    backend = Flaky(
        failures=2, make_error=lambda: TransientError("429 slow down", retry_after=3.0, status=429)
    )
    (result,) = execute(
        backend,
        [req(0)],
        progress=False,
        options=ExecutorOptions(sleep=t.sleep, clock=t.clock, jitter_seed=0),
    )
    assert result.ok and result.attempts == 3 and len(backend.calls) == 3
    assert len(t.sleeps) == 2 and all(s >= 3.0 for s in t.sleeps)


def test_backoff_is_full_jitter_exponential_and_seeded():
    def run(seed):
        t = FakeTime()
        backend = Flaky(failures=99, make_error=lambda: TransientError("503"))
        (result,) = execute(
            backend,
            [req(0)],
            progress=False,
            options=ExecutorOptions(max_retries=8, sleep=t.sleep, clock=t.clock, jitter_seed=seed),
        )
        return result, t.sleeps

    result, sleeps = run(7)
    assert not result.ok and result.attempts == 9 and result.text == ""
    assert result.error == "gave up after 9 attempts: 503"
    assert len(sleeps) == 8
    assert all(0 <= s <= min(30.0, 0.5 * 2**n) for n, s in enumerate(sleeps))
    assert run(7)[1] == sleeps and run(8)[1] != sleeps
    rng = random.Random(0)
    draws = [backoff_delay(20, rng) for _ in range(200)]
    assert max(draws) <= 30.0 and max(draws) > 20.0  # capped at 30 s, and spread over [0, 30]
    assert (
        backoff_delay(1, rng, retry_after=120.0) == 120.0
    )  # retry_after is honoured above the cap


def test_max_retries_zero_makes_one_attempt():
    t = FakeTime()
    (result,) = execute(
        Flaky(failures=5, make_error=lambda: TransientError("timeout")),
        [req(0)],
        progress=False,
        options=ExecutorOptions(max_retries=0, sleep=t.sleep, clock=t.clock),
    )
    assert (
        result.attempts == 1
        and result.error == "gave up after 1 attempts: timeout"
        and t.sleeps == []
    )


@pytest.mark.parametrize(
    ("limits", "attempts", "error"),
    [
        (  # the request deadline bounds a request's attempts and waits
            {"request_deadline": 25},
            3,
            "request deadline of 25 s reached after 3 attempts; last error: 429 (status 429)",
        ),
        (  # the timeout bounds ONE attempt (before, 25 s spanned the retries: 3 attempts)
            {"timeout": 25},
            7,
            "gave up after 7 attempts: 429 (status 429)",
        ),
    ],
)
def test_what_stops_the_retries(limits, attempts, error):
    t = FakeTime()
    backend = Flaky(
        failures=99, make_error=lambda: TransientError("429", retry_after=10.0, status=429)
    )
    (result,) = execute(
        backend,
        [req(0)],
        progress=False,
        options=ExecutorOptions(**limits, sleep=t.sleep, clock=t.clock),
    )
    # every wait honours Retry-After (10 s); the exponential backoff with jitter may wait longer
    assert result.attempts == attempts and len(t.sleeps) == attempts - 1
    assert all(s >= 10.0 for s in t.sleeps)
    assert result.error.startswith(error)


def test_permanent_and_unexpected_errors_do_not_stop_the_run():
    class Mixed(Counting):
        def answer(self, request):
            n = int(request.messages[0].content.split()[1][1:])
            if n == 1:
                raise PermanentError("unknown model", status=404)
            if n == 2:
                raise ZeroDivisionError("division by zero")
            if n == 3:
                return GenerationResult(text="", model=request.model, error="empty completion")
            return super().answer(request)

    t = FakeTime()
    backend = Mixed()
    results = execute(
        backend,
        [req(i) for i in range(6)],
        progress=False,
        options=ExecutorOptions(sleep=t.sleep, clock=t.clock),
    )
    assert [r.ok for r in results] == [True, False, False, False, True, True]
    assert (
        results[1].error == "permanent error: unknown model (status 404)"
        and results[1].attempts == 1
    )
    assert results[2].error == "unexpected ZeroDivisionError from test/fake: division by zero"
    assert results[3].error == "empty completion"
    assert len(backend.calls) == 6 and t.sleeps == []


# -- rate limits -------------------------------------------------------------------------------


def test_rate_limiter_buckets_and_correction():
    t = FakeTime()
    rl = RateLimiter(rpm=60, tpm=600, clock=t.clock, sleep=t.sleep)
    assert rl.try_acquire(500) == 0.0
    assert rl.try_acquire(500) == pytest.approx(40.0)  # 400 tokens missing at 10 tokens/s
    rl.correct(500, 100)  # the call used only 100: 400 come back
    assert rl.try_acquire(500) == 0.0
    assert (
        rl.acquire(10_000) is True
    )  # larger than the bucket: waits for a full bucket, then goes into debt
    assert t.now == pytest.approx(60.0)
    assert rl.try_acquire(1) > 0
    with pytest.raises(ValueError, match="positive"):
        RateLimiter(rpm=0)
    assert RateLimiter().try_acquire(10**9) == 0.0 and not RateLimiter().enabled


def test_rate_limiter_is_thread_safe():
    rl = RateLimiter(rpm=500, tpm=50_000, clock=lambda: 0.0)  # frozen clock: no refill
    granted = []

    def grab():
        for _ in range(200):
            if rl.try_acquire(100) == 0.0:
                granted.append(1)

    threads = [threading.Thread(target=grab) for _ in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert len(granted) == 500  # exactly the bucket, never more


def test_execute_respects_rpm_and_tpm():
    t = FakeTime()
    rl = RateLimiter(rpm=2, clock=t.clock, sleep=t.sleep)
    execute(
        Counting(),
        [req(i) for i in range(4)],
        progress=False,
        options=ExecutorOptions(concurrency=1, limiter=rl),
    )
    assert t.now == pytest.approx(60.0)  # 2 at once, then one every 30 s

    t = FakeTime()
    reserve = estimate_call_tokens(req(0))
    rl = RateLimiter(tpm=reserve * 2, clock=t.clock, sleep=t.sleep)
    execute(
        Counting(),
        [req(i) for i in range(3)],
        progress=False,
        options=ExecutorOptions(concurrency=1, limiter=rl),
    )
    # each call reserves `reserve` but reports 12 tokens: the correction makes room for the third at once
    assert t.now == 0.0


# -- interruption ------------------------------------------------------------------------------


def test_keyboard_interrupt_cancels_pending_calls(tmp_path):
    backend = Counting(delay=0.05)

    def interrupt(request, result):
        raise KeyboardInterrupt

    with ResponseCache(tmp_path / "c.sqlite3") as cache:
        with pytest.raises(KeyboardInterrupt):
            execute(
                backend,
                [req(i) for i in range(100)],
                cache=cache,
                progress=False,
                on_result=interrupt,
                options=ExecutorOptions(concurrency=2),
            )
        deadline = time.monotonic() + 30  # a bound for a loaded machine, not a measurement
        while (
            backend.in_flight or len(cache) < len(backend.calls)
        ) and time.monotonic() < deadline:
            time.sleep(0.01)  # the calls in flight finish and are cached
        assert len(cache) == len(backend.calls)
        assert len(backend.calls) <= 4  # nothing new started: the other 96 were cancelled


_KILLED_RUN = textwrap.dedent("""
    import sys, time
    from bordir.generation.backend import Backend
    from bordir.generation.cache import ResponseCache
    from bordir.generation.executor import execute
    from bordir.generation.call_limits import ExecutorOptions
    from bordir.generation.types import GenerationRequest, GenerationResult, Message

    class Slow(Backend):
        provider = "test"
        def generate(self, request):
            time.sleep(0.1)
            return GenerationResult(text="slow-" + request.messages[-1].content, model=request.model)

    requests = [GenerationRequest(model="test/fake", messages=(Message("user", f"Is T{i} a territory of A) X or B) Y?"),))
                for i in range(40)]
    cache = ResponseCache(sys.argv[1])
    print("ready", flush=True)
    execute(Slow("fake"), requests, cache=cache, progress=False, options=ExecutorOptions(concurrency=2))
    print("finished", flush=True)
""")


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_sigkill_loses_only_calls_in_flight(tmp_path):
    path = tmp_path / "killed.sqlite3"
    proc = subprocess.Popen(
        [sys.executable, "-c", _KILLED_RUN, str(path)], stdout=subprocess.PIPE, text=True, cwd=REPO
    )
    assert proc.stdout.readline().strip() == "ready"
    deadline = (
        time.monotonic() + 60
    )  # until the first results are stored (a bound, not a measurement)
    while time.monotonic() < deadline:
        probe = sqlite3.connect(path)
        stored = probe.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
        probe.close()
        if stored >= 2:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    proc.stdout.close()
    assert proc.returncode == -signal.SIGKILL

    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    before = conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
    conn.close()
    assert 0 < before < 40, before

    backend = Counting()
    with ResponseCache(path) as cache:
        results = execute(backend, [req(i) for i in range(40)], cache=cache, progress=False)
        assert len(cache) == 40
    assert len(backend.calls) == 40 - before
    assert all(r.ok for r in results)
    assert sum(r.text.startswith("slow-") for r in results) == before


# -- secrets -----------------------------------------------------------------------------------


CANARY = "sk-canary-XXXX-0123456789abcdef"


def test_no_secret_reaches_cache_results_or_logs(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("OPENAI_API_KEY", CANARY)
    monkeypatch.setenv("COHERE_API_KEY", CANARY + "-co")

    class Leaky(Counting):
        """Fails like an SDK that echoes the key in its error message."""

        def answer(self, request):
            if "T3" in request.messages[0].content:
                raise PermanentError(
                    f"Incorrect API key provided: {os.environ['OPENAI_API_KEY']}", status=401
                )
            if "T4" in request.messages[0].content:
                raise RuntimeError(f"boom with {os.environ['COHERE_API_KEY']}")
            return super().answer(request)

    path = tmp_path / "c.sqlite3"
    caplog.set_level(logging.DEBUG)
    with ResponseCache(path) as cache:
        mock_requests = [
            GenerationRequest(model="mock/echo", messages=(Message("user", f"Q{i}"),))
            for i in range(5)
        ]
        results = execute(get_backend("mock/echo"), mock_requests, cache=cache, progress=False)
        results += execute(Leaky(), [req(i) for i in range(6)], cache=cache, progress=False)
        results += execute(get_backend("mock/echo"), mock_requests, cache=cache, progress=False)
        assert len(cache) == 9
    assert results[5 + 3].error == "permanent error: Incorrect API key provided: *** (status 401)"
    assert (
        results[5 + 4].error == "unexpected RuntimeError from test/fake: boom with ***"
    )  # the longest secret first
    blobs = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert CANARY.encode() not in blobs and b"canary" not in blobs
    assert not any(CANARY in r.to_json() for r in results)
    assert CANARY not in caplog.text
