"""``bordir view --serve`` answers only its own local names, and says nothing when a browser goes away.

A web page the user visits can rebind its own host name to 127.0.0.1 and then read the served run
with same-origin requests (DNS rebinding); what tells such a request apart is its ``Host`` header,
which names the attacker's host. A real client on the loopback interface sends raw requests with
foreign, missing and wrong-port ``Host`` headers (refused: 403, one line, nothing of the run) and
the three local names with the bound port (served). Browsers that close the connection in the
middle of an answer leave the server's stderr clean (a real ``bordir view --serve`` subprocess).
"""

from __future__ import annotations

import os
import signal
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bordir.view.server import ViewServer

from ..conftest import REPO, invoke_cli


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory) -> Path:
    """The demo with ``mock/first``, two modes, one run: a real run directory in a second."""
    root = tmp_path_factory.mktemp("serve-hosts")
    cfg = root / "exp.toml"
    cfg.write_text(
        'dataset = "demo"\ncorpus = "demo"\nmodels = ["mock/first"]\nmodes = ["no_ir", "qlang"]\n'
        f'runs = 1\nk = 2\ncache = "{root / "cache.sqlite3"}"\n',
        encoding="utf-8",
    )
    res = invoke_cli("run", str(cfg), "--out", str(root / "run"), "--no-progress")
    assert res.returncode == 0, res.stderr
    return root / "run"


def raw_get(port: int, path: str, host: str | None) -> tuple[int, bytes]:
    """GET ``path`` from 127.0.0.1:``port`` with exactly this ``Host`` header (None: no header)."""
    head = f"GET {path} HTTP/1.1\r\n" + (f"Host: {host}\r\n" if host is not None else "")
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall((head + "Connection: close\r\n\r\n").encode("latin-1"))
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    status = int(data.split(b" ", 2)[1])
    return status, data.partition(b"\r\n\r\n")[2]


def test_foreign_host_headers_are_refused(tiny_run):
    with ViewServer(tiny_run) as srv:
        port = srv.httpd.server_address[1]
        refused = [
            f"evil.example:{port}",
            "evil.example",
            f"127.0.0.1.evil.example:{port}",
            "127.0.0.1.evil.example",
            f"localhost.evil.example:{port}",
            f"127.0.0.1:{port + 1}",  # the wrong port
            "127.0.0.1",  # no port (a browser sends it unless it is 80)
            f"localhost:{port}.evil.example",
            f"user@127.0.0.1:{port}",
            f"127.0.0.2:{port}",
            f"[::1]:{port + 1}",
            "",
            None,  # no Host header at all
        ]
        for host in refused:
            for path in ("/", "/view.html", "/api/query?page=0", "/api/sample?id=0", "/nowhere"):
                status, body = raw_get(port, path, host)
                assert status == 403, (host, path, status)
                text = body.decode("utf-8")
                assert (
                    text.startswith("403 forbidden: bordir view answers only")
                    and text.count("\n") == 1
                ), (host, text)
                assert "mock/first" not in text and "Crimea" not in text, (host, path)
        twice = f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nHost: evil.example\r\n\r\n"
        absolute = f"GET http://evil.example/ HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"
        for request in (twice, absolute):
            with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
                s.sendall(request.encode())
                assert s.recv(100).startswith(b"HTTP/1.0 403 "), request
        for host in (
            f"127.0.0.1:{port}",
            f"localhost:{port}",
            f"[::1]:{port}",
            f"LocalHost:{port}",
        ):
            status, body = raw_get(port, "/", host)
            assert status == 200 and b"bordir view: run" in body, host
            status, body = raw_get(port, "/api/query?page=0", host)
            assert status == 200 and b"mock/first" in body, host
            assert raw_get(port, "/nowhere", host)[0] == 404


def test_every_answer_is_nosniff_and_the_page_carries_its_policy(tiny_run):
    with ViewServer(tiny_run) as srv:
        port = srv.httpd.server_address[1]
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(
                f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode()
            )
            data = b""
            while chunk := s.recv(65536):
                data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    assert b"X-Content-Type-Options: nosniff" in head and b"Referrer-Policy: no-referrer" in head
    assert b'http-equiv="Content-Security-Policy"' in body and b"connect-src 'self'" in body


def _reset(s: socket.socket) -> None:
    """Close with a TCP reset (what a browser's closed tab can look like to the server)."""
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()


@pytest.mark.slow  # a subprocess
def test_a_browser_that_goes_away_leaves_stderr_clean(tiny_run):
    proc = subprocess.Popen(
        [sys.executable, "-m", "bordir", "view", str(tiny_run), "--serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        line = proc.stdout.readline()  # serving DIR at http://127.0.0.1:PORT/ (Ctrl-C stops)
        port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
        host = f"127.0.0.1:{port}"
        for i in range(30):
            path = (
                "/",
                "/api/query?page=0&sort=reply",
                "/api/sample?id=1",
                "/api/territory?t=Crimea",
            )[i % 4]
            s = socket.create_connection(("127.0.0.1", port), timeout=10)
            s.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
            if i % 3 == 1:
                s.recv(20)  # read the start of the answer, then go away
            elif i % 3 == 2:
                s.shutdown(socket.SHUT_WR)  # half-closed, then reset
            _reset(s)
        for _ in range(3):  # a client that goes away before it has sent a whole request
            s = socket.create_connection(("127.0.0.1", port), timeout=10)
            s.sendall(b"GET /api/query?page=0 HT")
            _reset(s)
        time.sleep(0.5)
        assert raw_get(port, "/", host)[0] == 200  # still serving
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "Error" not in err and "Exception" not in err, err


def test_a_bug_while_answering_is_one_line(tiny_run, capfd, monkeypatch):
    def broken(self, route, params):
        raise RuntimeError("planted")

    monkeypatch.setattr(ViewServer, "answer", broken)
    monkeypatch.delenv("BORDIR_DEBUG", raising=False)
    with ViewServer(tiny_run) as srv:
        port = srv.httpd.server_address[1]
        with pytest.raises((ConnectionError, IndexError, ValueError)):
            raw_get(port, "/api/query?page=0", f"127.0.0.1:{port}")  # no answer
        assert raw_get(port, "/", f"127.0.0.1:{port}")[0] == 200  # still serving
    err = capfd.readouterr().err
    assert err.strip() == (
        "bordir view: internal error answering a request: RuntimeError: planted "
        "(this is a bug; BORDIR_DEBUG=1 shows the traceback)"
    ), err
