"""The executor's defaults fail a dead provider within about two minutes, not after 7 × 60 s per call.

A real ``bordir run`` subprocess against a loopback server that never answers
(every request held far longer than the run): with the defaults, every attempt is
cut at the attempt timeout, and after
:data:`~bordir.generation.call_limits.DEFAULT_MAX_CONSECUTIVE_FAILURES`
timed-out attempts in a row the rest of the (model, mode) is not attempted. Here the
timeout is shortened to 0.5 s (``--timeout``) so that the test takes seconds; the
consecutive-failure stop is the default one. Before: no stop (every request was
tried, each for 7 attempts of 60 s), no per-request timeout. The timeout bounds one
attempt (a hung attempt is retried: ``tests/generation/test_retry_fault_mix.py``), so
the stop counts timed-out attempts, not only failed requests.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time

import pytest

from bordir.generation.call_limits import (
    DEFAULT_MAX_CONSECUTIVE_FAILURES,
    DEFAULT_TIMEOUT,
    ExecutorOptions,
)

from ..conftest import REPO
from ..loopback import Fault, LoopbackServer


def test_the_documented_bound_holds_at_the_default_concurrency():
    opts = ExecutorOptions()
    assert opts.timeout == DEFAULT_TIMEOUT and opts.max_consecutive_failures is not None
    concurrency = 8  # bordir run's default (Operational.concurrency)
    waves = math.ceil(opts.max_consecutive_failures / concurrency)  # of timed-out attempts
    assert waves * opts.timeout <= 150  # "within about two minutes"
    # a request whose attempt hangs has room for retries within its deadline
    assert opts.request_deadline is not None and opts.request_deadline >= 2 * opts.timeout


@pytest.mark.slow  # seconds of work: the end-to-end tier
def test_a_stalled_provider_stops_the_run_after_the_default_number_of_failures(tmp_path):
    with LoopbackServer() as server:
        server.push(*[Fault.delay(120.0)] * 400)  # accepts every call, never answers in time
        cfg = tmp_path / "exp.toml"
        cfg.write_text(
            '[experiment]\nmodels = ["openai-compatible/dead"]\nmodes = ["no_ir"]\nruns = 2\n'
            f'cache = "{tmp_path / "c.sqlite3"}"\n'
        )
        env = {
            **os.environ,
            "OPENAI_COMPATIBLE_BASE_URL": server.openai_url,
            "NO_PROXY": "127.0.0.1,localhost",
            "BORDIR_PROGRESS": "0",
        }
        t0 = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-m", "bordir", "run", str(cfg), "--out", str(tmp_path / "run"),
             "--timeout", "0.5"],
            env=env, capture_output=True, text=True, timeout=300, cwd=REPO,
        )  # fmt: skip
        took = time.monotonic() - t0
        calls = server.count
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    # 68 requests: before, every one was called (and retried); now the stop comes after 10
    assert calls < 68 and calls <= DEFAULT_MAX_CONSECUTIVE_FAILURES + 8, calls
    assert f"stopped after {DEFAULT_MAX_CONSECUTIVE_FAILURES} consecutive failures" in proc.stderr
    info = json.loads((tmp_path / "run" / "run.json").read_text())
    assert info["calls"]["failed"] == info["calls"]["requests"] == 68
    assert took < 60
