"""Issue 14 items with one test each: time limits of execute(), honest transport errors and key hints,
byte-order marks and duplicates in input files, duplicated audit records, the secret mask."""

from __future__ import annotations

import json
import shutil
import socket
import threading

import pytest

from bordir.errors import DataError, FetchError, TransientError, redact, register_secret
from bordir.generation.backend import Backend, get_backend
from bordir.generation.call_limits import ExecutorOptions
from bordir.generation.executor import execute
from bordir.generation.types import GenerationRequest, GenerationResult, Message
from bordir.loaders import load_borderlines_files
from bordir.loaders.demo import demo_dir

from ..loopback import Fault, LoopbackServer


def req(i: int, model: str = "test/fake") -> GenerationRequest:
    return GenerationRequest(
        model=model, messages=(Message("user", f"Is T{i} a territory of A) X or B) Y?"),)
    )


class FakeTime:
    def __init__(self) -> None:
        self.now = 0.0

    def clock(self) -> float:
        return self.now

    def sleep(self, s: float) -> None:
        self.now += s


class Slow(Backend):
    """Each attempt takes ``cost`` fake seconds; fails with a TransientError when ``fail``."""

    provider = "test"
    max_concurrency = 1

    def __init__(self, t: FakeTime, cost: float, fail: bool = False) -> None:
        super().__init__("fake")
        self.t, self.cost, self.fail, self.calls = t, cost, fail, 0

    def generate(self, request: GenerationRequest) -> GenerationResult:
        self.calls += 1
        self.t.now += self.cost
        if self.fail:
            raise TransientError("HTTP 503: down", status=503)
        return GenerationResult(text="A) X", model=request.model)


# -- item 11: timeout, deadline, consecutive failures -----------------------------------------


def test_deadline_stops_starting_calls_and_says_so():
    t = FakeTime()
    backend = Slow(t, cost=4.0)
    results = execute(
        backend,
        [req(i) for i in range(6)],
        progress=False,
        options=ExecutorOptions(deadline=10, clock=t.clock, sleep=t.sleep),
    )
    assert backend.calls == 3 and [r.ok for r in results] == [True] * 3 + [False] * 3
    assert all(
        r.error == "not attempted: deadline of 10 s reached" and r.attempts == 0
        for r in results[3:]
    )


def test_consecutive_failures_stop_a_dead_backend():
    t = FakeTime()
    backend = Slow(t, cost=0.1, fail=True)
    results = execute(
        backend,
        [req(i) for i in range(50)],
        progress=False,
        desc="m qlang",
        options=ExecutorOptions(
            max_retries=2, max_consecutive_failures=3, clock=t.clock, sleep=t.sleep
        ),
    )
    assert backend.calls == 3 * 3  # three requests, three attempts each, then stop
    assert not any(r.ok for r in results)
    assert results[0].error.startswith("gave up after 3 attempts")
    assert results[-1].error.startswith(
        "not attempted: stopped after 3 consecutive failures of m qlang"
    )


def test_a_success_resets_the_consecutive_failure_count():
    class Alternating(Slow):
        def generate(self, request):
            self.calls += 1
            if self.calls % 2:
                raise TransientError("flaky")
            return GenerationResult(text="A) X", model=request.model)

    backend = Alternating(FakeTime(), 0)
    results = execute(
        backend,
        [req(i) for i in range(10)],
        progress=False,
        options=ExecutorOptions(max_retries=0, max_consecutive_failures=2),
    )
    assert backend.calls == 10 and sum(r.ok for r in results) == 5


@pytest.mark.parametrize(
    "kw",
    [
        {"deadline": 0},
        {"deadline": float("nan")},
        {"timeout": -1},
        {"max_consecutive_failures": 0},
        {"max_retries": True},
        {"concurrency": 2.5},
    ],
)
def test_bad_limits_are_refused(kw):
    from bordir.errors import ConfigError

    with pytest.raises(ConfigError):
        execute(get_backend("mock/echo"), [req(0, "mock/echo")], options=ExecutorOptions(**kw))


def test_a_stalled_server_costs_the_timeout_not_the_client_default(monkeypatch):
    """A real HTTP server that never answers in time: the attempt is cut at ``timeout``, not after 60 s."""
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    with LoopbackServer() as server:
        server.push(*[Fault.delay(30.0)] * 20)
        monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", server.openai_url)
        backend = get_backend("openai-compatible/stalled")  # its own per-attempt limit: 60 s
        try:
            results = execute(
                backend,
                [req(i, "openai-compatible/stalled") for i in range(20)],
                progress=False,
                options=ExecutorOptions(
                    timeout=0.4, max_retries=6, max_consecutive_failures=2, concurrency=1
                ),
            )
        finally:
            backend.close()
        assert server.count == 2
    assert "timed out after 0.4s" in results[0].error
    assert results[5].error.startswith("not attempted: stopped after 2 consecutive failures")


# -- item 13: truncated bodies, key hints ------------------------------------------------------


def _read_request(conn: socket.socket) -> bytes:
    """One whole HTTP request (headers and a Content-Length body) from ``conn``."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


class _RawServer:
    """An HTTP server on a raw socket: reads each request whole, answers ``reply`` and closes cleanly."""

    reply = b""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.count = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                _read_request(conn)  # all of it: closing on unread bytes would send a reset
                self.count += 1
                if self.reply:
                    conn.sendall(self.reply)
                conn.shutdown(socket.SHUT_WR)  # a clean close after what was sent

    def close(self) -> None:
        self.sock.close()


class _Truncating(_RawServer):
    """An HTTP server that announces a body of 500 bytes, sends 40 and closes."""

    reply = (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n"
        b'{"id": "x", "choices": [{"index": 0, "m'
    )


def _error_from(server_cls: type[_RawServer], transport: str, monkeypatch) -> str:
    """The message of the error an ``openai-compatible`` call to a ``server_cls`` server raises."""
    pytest.importorskip(transport)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    srv = server_cls()
    backend = get_backend(
        "openai-compatible/raw",
        base_url=f"http://127.0.0.1:{srv.port}/v1",
        timeout=30.0,
        transport=transport,
    )
    try:
        with pytest.raises(TransientError) as info:
            backend.generate(req(0, "openai-compatible/raw"))
    finally:
        backend.close()
        srv.close()
    return str(info.value)


@pytest.mark.parametrize("transport", ["aiohttp", "httpx"])
def test_a_truncated_body_is_called_truncated_not_a_connection_error(monkeypatch, transport):
    msg = _error_from(_Truncating, transport, monkeypatch)
    assert "truncated response body" in msg and "connection error" not in msg, msg


class _HangingUp(_RawServer):
    """An HTTP server that reads each request whole, then closes without a word."""


@pytest.mark.parametrize("transport", ["aiohttp", "httpx"])
def test_a_server_that_hangs_up_is_not_called_a_timeout(monkeypatch, transport):
    # the openai SDK maps aiohttp's ServerDisconnectedError to httpx's ConnectTimeout
    msg = _error_from(_HangingUp, transport, monkeypatch)
    assert "timed out" not in msg and ("protocol error" in msg or "connection error" in msg), msg


def test_cohere_401_names_the_variable_the_key_came_from(monkeypatch):
    pytest.importorskip("cohere")
    from bordir.errors import PermanentError

    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.delenv("CO_API_KEY", raising=False)
    monkeypatch.setenv("COHERE_API_KEY", "co-test-key-123456789")
    with LoopbackServer() as server:
        server.push(Fault.status(401, body="invalid api token co-test-key-123456789"))
        monkeypatch.setenv("CO_API_URL", server.url)
        backend = get_backend("cohere/command-r-08-2024")
        with pytest.raises(PermanentError) as info:
            backend.generate(req(0, "cohere/command-r-08-2024"))
        backend.close()
    msg = str(info.value)
    assert "check the API key in COHERE_API_KEY" in msg and "CO_API_KEY" not in msg.replace(
        "COHERE_API_KEY", ""
    )
    assert "co-test-key-123456789" not in msg


# -- item 1: one redaction ---------------------------------------------------------------------


def test_every_bordir_error_is_redacted(monkeypatch):
    monkeypatch.setenv("SOME_SERVICE_PASSWORD", "hunter2-hunter2")
    register_secret("passed-as-argument-0042")
    assert str(DataError("bad hunter2-hunter2", path="x", line=1)) == "x:1: bad ***"
    assert (
        str(FetchError("HTTP 401: key passed-as-argument-0042", status=401)) == "HTTP 401: key ***"
    )
    assert redact("TOKENIZERS_PARALLELISM stays false") == "TOKENIZERS_PARALLELISM stays false"


# -- item 8 / 13: byte-order marks, duplicates -------------------------------------------------


@pytest.fixture
def bl(tmp_path):
    d = tmp_path / "bl"
    shutil.copytree(
        demo_dir(), d, ignore=shutil.ignore_patterns("corpus", "embeddings", "README.md")
    )
    return d


def test_a_bom_is_dropped_not_read_as_text(bl):
    for p in (
        bl / "disputed_territories.csv",
        bl / "prompts_mc_q/prompts.uk",
        bl / "prompts_mc_q/choices.uk",
        bl / "countries_info.json",
    ):
        p.write_bytes(b"\xef\xbb\xbf" + p.read_bytes())
    ds = load_borderlines_files(bl)
    q = ds.query("Crimea_uk")
    assert not q.text.startswith("\ufeff") and q.text.startswith("Чи")
    assert ds.territories[0].name == "Crimea"


def test_a_duplicated_territory_row_is_refused(bl):
    p = bl / "disputed_territories.csv"
    lines = p.read_text().splitlines()
    p.write_text("\n".join([*lines, lines[1]]) + "\n")
    with pytest.raises(
        DataError,
        match=r"disputed_territories.csv:14: field 'Territory': territory 'Crimea' appears "
        r"twice \(first at line 2\)",
    ):
        load_borderlines_files(bl)


def test_truncated_table_is_blamed_not_the_control_files(bl):
    p = bl / "disputed_territories.csv"
    p.write_text("\n".join(p.read_text().splitlines()[:8]) + "\n")
    with pytest.raises(DataError) as info:
        load_borderlines_files(bl)
    assert str(info.value).startswith(str(p)) and "truncated" in str(info.value)


def test_duplicated_audit_records_are_counted_once(tmp_path):
    from bordir.audit import AuditOptions, run_audit

    rec = {
        "query": "Je, Crimea ni ya nani?",
        "query_lang": "sw",
        "response": "",
        "response_lang": "sw",
        "documents": [{"id": "a", "lang": "en"}, {"id": "b", "lang": "sw"}],
        "citations": ["a"],
    }
    lines = [json.dumps(rec | {"id": i}) for i in range(30)]
    p = tmp_path / "log.jsonl"
    other = json.dumps(rec | {"id": 3, "response": "another answer with the same id"})
    p.write_text(
        "\n".join(lines + lines[:10] + [json.dumps(rec | {"id": "5"}), other]) + "\n"
    )  # "5" is 5
    for fast in (True, False):
        res = run_audit(p, AuditOptions(n_resamples=50, seed=1, language_match=False, fast=fast))
        assert (
            res.summary["valid"] == 31
            and res.summary["skipped_by_reason"]["duplicate_record"]["count"] == 11
        )


@pytest.mark.slow
def test_bordir_run_against_a_dead_server_stops_early(tmp_path, monkeypatch):
    """End to end: `bordir run --timeout --max-consecutive-failures` against a server that never answers."""
    import os
    import subprocess
    import sys

    from ..conftest import REPO

    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    with LoopbackServer() as server:
        server.push(*[Fault.delay(30.0)] * 200)
        cfg = tmp_path / "exp.toml"
        cfg.write_text(
            '[experiment]\nmodels = ["openai-compatible/dead"]\nmodes = ["no_ir", "qlang"]\nruns = 2\n'
            f'k = 2\ncache = "{tmp_path / "c.sqlite3"}"\n'
        )
        env = {
            **os.environ,
            "OPENAI_COMPATIBLE_BASE_URL": server.openai_url,
            "PYTHONPATH": str(REPO),
            "NO_PROXY": "127.0.0.1,localhost",
        }
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "bordir",
                "run",
                str(cfg),
                "--out",
                str(tmp_path / "run"),
                "--timeout",
                "0.3",
                "--max-consecutive-failures",
                "2",
                "--concurrency",
                "1",
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        calls = server.count
    assert proc.returncode == 1, proc.stderr
    # at most two attempts per (model, mode), not 34 queries x 2 runs x 7 attempts (fewer reach the
    # server when a 0.3 s timeout expires before a busy machine has sent the request)
    assert 1 <= calls <= 2 * 2
    assert "consecutive failures" in proc.stderr and "Traceback" not in proc.stderr
