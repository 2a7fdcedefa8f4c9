"""Ctrl-C during a run: the answers that already arrived are stored, and the run ends at once after a grace.

A real ``bordir run`` subprocess calls a loopback server that answers two requests
in three at once and holds the third (it never answers in time). Right after the
server has written its sixth answer it sends the run SIGINT; the calls in flight
then get :data:`bordir.generation._calls.INTERRUPT_GRACE` seconds. Every answer
the server wrote must be in the response cache (before: the answers that had
arrived but were not stored yet were lost with their calls), and the run must
end soon after the grace, with status 130.
"""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from bordir.generation._calls import INTERRUPT_GRACE
from bordir.generation.cache import ResponseCache

from ..conftest import REPO
from ..loopback import LoopbackServer, Reply


@pytest.mark.slow
def test_ctrl_c_stores_every_answer_that_already_arrived(tmp_path):
    release = threading.Event()
    count = itertools.count()

    def text(body: dict) -> str:
        if next(count) % 3 == 2:  # a call that hangs (answered only when the test ends)
            release.wait(60)
        return "A)"

    server = LoopbackServer(reply=Reply(text=text))
    proc: list[subprocess.Popen] = []
    sent: list[float] = []

    def on_answer(_rec) -> None:
        if len(server.answered) == 6 and not sent and proc:
            sent.append(time.monotonic())
            os.kill(proc[0].pid, signal.SIGINT)

    server.on_answer = on_answer
    cache = tmp_path / "c.sqlite3"
    toml = tmp_path / "exp.toml"
    toml.write_text(
        '[experiment]\nmodels = ["openai-compatible/sut"]\nmodes = ["no_ir"]\nruns = 2\n'
        f'concurrency = 8\ncache = "{cache}"\n'
    )
    env = {
        **os.environ,
        "OPENAI_COMPATIBLE_BASE_URL": "",
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
    }
    with server:
        env["OPENAI_COMPATIBLE_BASE_URL"] = server.openai_url
        proc.append(
            subprocess.Popen(
                [sys.executable, "-m", "bordir", "run", str(toml), "--out", str(tmp_path / "r"),
                 "--no-progress"],
                cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            )
        )  # fmt: skip
        try:
            _, err = proc[0].communicate(timeout=120)
        finally:
            release.set()
            if proc[0].poll() is None:
                proc[0].kill()
        ended = time.monotonic()
        answered = len(server.answered)
    assert sent, f"the server never answered 6 calls; stderr: {err}"
    assert proc[0].returncode == 130, err
    assert ("interrupted" in err or "aborted" in err) and "Traceback" not in err
    assert ended - sent[0] < INTERRUPT_GRACE + 10  # the held calls do not hold the run
    with ResponseCache(cache) as c:
        stored = len(c)
    assert stored == answered >= 6  # before: answers that had arrived were lost
