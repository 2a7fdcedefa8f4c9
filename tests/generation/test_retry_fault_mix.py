"""The timeout bounds ONE attempt; the request deadline bounds a request's attempts; a stalled server still stops the run.

Real calls through the ``openai-compatible`` and ``cohere`` backends to a loopback server
(``tests/loopback.py``) that misbehaves on purpose: 429 with ``Retry-After``, 500, an answer
held longer than the attempt timeout (a hang), a malformed body. Before, the per-call timeout
spanned all of a call's attempts, so one hung attempt used it up and failed the call: the
first two tests failed (``timeout of 1 s reached after 1 attempts``). The timeouts are
made small through :class:`~bordir.generation.call_limits.ExecutorOptions`, so the
tests take seconds.
"""

from __future__ import annotations

import time

import pytest

from bordir.generation import GenerationRequest, Message, get_backend
from bordir.generation.call_limits import ExecutorOptions
from bordir.generation.executor import execute

from ..loopback import Fault, LoopbackServer

# (backend model, the attempt timeout it can be given: the cohere SDK counts whole seconds)
PROTOCOLS = {
    "openai-compatible": ("openai-compatible/fault-mix", 1.0),
    "cohere": ("cohere/command-r-08-2024", 1.0),
}


@pytest.fixture(params=sorted(PROTOCOLS))
def protocol(request, monkeypatch):
    name = request.param
    pytest.importorskip("openai" if name == "openai-compatible" else "cohere")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    with LoopbackServer() as server:
        monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", server.openai_url)
        monkeypatch.setenv("CO_API_URL", server.url)
        monkeypatch.setenv("CO_API_KEY", "co-test-key-0000")
        model, timeout = PROTOCOLS[name]
        backend = get_backend(model)  # its own per-attempt default: 60 s
        try:
            yield server, backend, model, timeout
        finally:
            backend.close()


def _requests(model: str, n: int) -> list[GenerationRequest]:
    return [
        GenerationRequest(model=model, messages=(Message("user", f"question {i}"),), seed=i)
        for i in range(n)
    ]


def _stall(kind: str, timeout: float) -> Fault:
    """An attempt that takes too long: no answer at all (a hang), or one byte every 0.2 s (a
    trickle: every read of the client gets a byte within its per-read timeout, so only a limit on
    the whole attempt cuts it; before, such an attempt ran to its end, 54-74 s with a 1 s timeout)."""
    return Fault.delay(timeout * 6) if kind == "hang" else Fault.trickle(0.2)


@pytest.mark.filterwarnings("ignore:The `__fields__` attribute is deprecated")
@pytest.mark.parametrize("stall", ["hang", "trickle"])
def test_a_call_whose_first_attempt_hangs_succeeds_on_retry(protocol, stall):
    server, backend, model, timeout = protocol
    server.push(_stall(stall, timeout))  # the first attempt gets no answer in time
    t0 = time.monotonic()
    (result,) = execute(
        backend,
        _requests(model, 1),
        options=ExecutorOptions(timeout=timeout, jitter_seed=1),
        progress=False,
    )
    took = time.monotonic() - t0
    assert result.ok, result.error
    assert result.attempts >= 2 and server.count == result.attempts  # 2 unless a machine stalls
    assert took < timeout * 6  # the hung attempt was cut at the attempt timeout


@pytest.mark.filterwarnings("ignore:The `__fields__` attribute is deprecated")
def test_every_call_of_a_fault_mix_is_answered(protocol):
    """30 % of the first answers are faults (429 with Retry-After, 500, hangs, malformed bodies)."""
    server, backend, model, timeout = protocol
    kinds = [
        Fault.status(429, retry_after=0.1),
        Fault.status(500),
        Fault.delay(timeout * 4),
        Fault.malformed(),
    ]
    faults = [kinds[i % 4] if i % 10 in (1, 4, 7) else None for i in range(40)]
    for f in faults:  # a None: answer normally (a zero delay)
        server.push(f if f is not None else Fault.delay(0.0))
    results = execute(
        backend,
        _requests(model, 40),
        options=ExecutorOptions(timeout=timeout, concurrency=8, jitter_seed=2),
        progress=False,
    )
    failed = [r.error for r in results if not r.ok]
    assert failed == []
    n_faults = sum(f is not None for f in faults)
    # every fault cost one more attempt (more only if a busy machine delays an answer past 1 s)
    assert n_faults == 12 and sum(r.attempts for r in results) >= 40 + n_faults
    assert server.count == sum(r.attempts for r in results)


@pytest.mark.filterwarnings("ignore:The `__fields__` attribute is deprecated")
@pytest.mark.parametrize("stall", ["hang", "trickle"])
def test_the_request_deadline_bounds_the_retries(protocol, stall):
    server, backend, model, timeout = protocol
    server.push(*[_stall(stall, timeout * 10 / 6)] * 20)  # every attempt hangs (or trickles)
    t0 = time.monotonic()
    (result,) = execute(
        backend,
        _requests(model, 1),
        options=ExecutorOptions(
            timeout=timeout,
            request_deadline=timeout * 2.5,
            max_consecutive_failures=None,
            jitter_seed=3,
        ),
        progress=False,
    )
    took = time.monotonic() - t0
    assert not result.ok and 2 <= result.attempts <= 4
    assert result.error.startswith(f"request deadline of {timeout * 2.5:g} s reached after ")
    assert took < timeout * 2.5 + 1.5


@pytest.mark.filterwarnings("ignore:The `__fields__` attribute is deprecated")
def test_a_stalled_server_stops_the_run_after_that_many_timed_out_attempts(protocol):
    """Every attempt hangs: 4 timed-out attempts in a row stop the run (one wave at concurrency 4)."""
    server, backend, model, timeout = protocol
    server.push(*[Fault.delay(timeout * 10)] * 100)
    t0 = time.monotonic()
    results = execute(
        backend,
        _requests(model, 30),
        options=ExecutorOptions(
            timeout=timeout, concurrency=4, max_consecutive_failures=4, jitter_seed=4
        ),
        progress=False,
    )
    took = time.monotonic() - t0
    assert not any(r.ok for r in results)
    assert server.count <= 4 + 4  # one wave of 4 attempts (and retries that had started)
    assert any(
        "stopped after 4 consecutive failures of" in r.error and "attempts in a row" in r.error
        for r in results
    )
    assert sum(r.error.startswith("not attempted: stopped after 4") for r in results) >= 20
    assert took < timeout * 3 + 2.0
