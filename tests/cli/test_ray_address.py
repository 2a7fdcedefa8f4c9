"""``bordir run --executor ray --address HOST:PORT`` against a real ``ray start --head`` cluster on 127.0.0.1.

The fixture starts its own head node (2 CPUs, its own temp dir and free ports,
``--block`` in a new session) and stops exactly that one (SIGTERM to its
session; ``ray stop`` would stop every cluster on the machine).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

from ..conftest import run_cli

pytestmark = pytest.mark.slow  # a `ray start --head` cluster

ray = pytest.importorskip("ray")

RAY = Path(sys.executable).with_name("ray")
# the cluster's token, given to the head and to the driver (nothing written to ~/.ray)
AUTH = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def head(ray_one_at_a_time):
    if not RAY.is_file():
        pytest.skip(f"no `ray` command next to {sys.executable}")
    temp = tempfile.mkdtemp(prefix="bdray", dir="/tmp")  # short: Ray's socket paths are limited
    port, client_port = _free_port(), _free_port()
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env.update(AUTH, RAY_USAGE_STATS_ENABLED="0")
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
            time.sleep(0.5)
        else:
            pytest.fail("the Ray head did not open its port in 120 s")
        time.sleep(2)  # the raylet registers after the GCS listens
        yield address, f"ray://127.0.0.1:{client_port}"
    finally:
        # our session only: ray start and what it spawned. Not SIGTERM: a graceful stop takes ~30 s
        # on 2 cores (a wait of 5 s then ended in SIGKILL anyway), and nothing of it is checked
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        proc.stderr.close()
        shutil.rmtree(temp, ignore_errors=True)


CLIENT = pytest.param(
    "client",
    marks=pytest.mark.skipif(
        os.environ.get("BORDIR_TEST_RAY_CLIENT") != "1",
        reason="the Ray Client server takes 30-190 s to start on 2 busy cores (and failed once so); "
        "set BORDIR_TEST_RAY_CLIENT=1 to run the ray:// path",
    ),
)


@pytest.mark.parametrize("kind", ["gcs", CLIENT])
def test_cli_run_on_a_ray_head_equals_the_local_run(head, kind, tmp_path):
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
        "--no-progress", "--executor", "ray", "--address", address, env=AUTH,
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
