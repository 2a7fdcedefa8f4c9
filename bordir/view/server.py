"""``bordir view DIR --serve``: the explorer served from 127.0.0.1, paging through the run on the server.

The page is the static page without its rows; its script asks:

* ``GET api/query?<filters>&q=&sort=&dir=&page=`` — one page of rows, the total and
  the facet counts (:meth:`~bordir.view.query.RunQuery.query`);
* ``GET api/numbers?<filters>&metric=`` — the numbers of the rows on screen;
* ``GET api/sample?id=N`` — one sample with every detail (:mod:`~bordir.view.run_details`);
* ``GET api/territory?t=NAME`` — the rows of one territory (the matrix).

The run's columns are read once (the Parquet files, through
:mod:`~bordir.view.run_data`); nothing is written. Other kinds of directory are
small: their static page is served as it is. Only 127.0.0.1 is bound unless
``host`` says otherwise; a port in use is a :class:`~bordir.errors.ConfigError`
naming ``--port``.

Only local names are answered: a request whose ``Host`` header is not
``127.0.0.1:PORT``, ``localhost:PORT`` or ``[::1]:PORT`` (the bound port) gets
``403`` and one line, nothing of the run — a web page that rebinds its own name to
127.0.0.1 (DNS rebinding) cannot read the run through the browser of whoever serves
it. Every answer says ``X-Content-Type-Options: nosniff`` and ``Referrer-Policy:
no-referrer``, and the page its Content-Security-Policy. A browser that goes away in
the middle of an answer (a closed tab, a reload) is not an error: nothing is printed.
"""

from __future__ import annotations

import errno
import os
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ..errors import BordirError, ConfigError
from .page import render_page

__all__ = ["ViewServer", "serve_view", "local_hosts"]

LOCAL_NAMES = ("127.0.0.1", "localhost", "[::1]")
"""The host names the server answers to (with the port it is bound to)."""


def local_hosts(port: int) -> frozenset[str]:
    """The ``Host`` header values the server on ``port`` answers (lower case).

    >>> sorted(local_hosts(8765))
    ['127.0.0.1:8765', '[::1]:8765', 'localhost:8765']
    >>> sorted(local_hosts(80))  # a browser leaves the default port out
    ['127.0.0.1', '127.0.0.1:80', '[::1]', '[::1]:80', 'localhost', 'localhost:80']
    """
    hosts = {f"{name}:{port}" for name in LOCAL_NAMES}
    if port == 80:
        hosts |= set(LOCAL_NAMES)
    return frozenset(hosts)


class _Server(ThreadingHTTPServer):
    """The HTTP server: a client that goes away mid-answer is not reported; other errors in one line."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError)):
            return  # the browser closed the connection (a reload, a closed tab): nothing to say
        from ..settings import DEBUG

        try:
            debug = DEBUG.get()
        except BordirError:
            debug = False
        if debug:
            super().handle_error(request, client_address)  # the traceback
            return
        print(
            f"bordir view: internal error answering a request: {type(exc).__name__}: {exc} "
            "(this is a bug; BORDIR_DEBUG=1 shows the traceback)",
            file=sys.stderr,
        )


class ViewServer:
    """The explorer of one directory on an HTTP server (see the module docs).

    Example:
        >>> import tempfile
        >>> ViewServer(tempfile.mkdtemp())  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        bordir.errors.DataError: ...record.json: file not found; not a bordir output directory: ...
    """

    def __init__(
        self, path: str | os.PathLike[str], *, port: int = 0, host: str = "127.0.0.1"
    ) -> None:
        from ..runrecord.lock import DirLock
        from .write import viewed

        self.path = Path(path)
        with DirLock(self.path, shared=True):  # read while no run writes it
            record, kind = viewed(self.path)
            self.kind = record.kind
            self.query: Any = None
            self.details: Any = None
            if self.kind == "run":
                from .query import RunQuery
                from .run_data import load_run_data
                from .run_details import RunDetails
                from .run_view import run_meta

                data = load_run_data(self.path, lazy=True)
                self.query = RunQuery(data)
                self.details = RunDetails(data)
                meta = run_meta(data)
                meta["serve"] = True
                self.page = render_page(meta, None).encode("utf-8")
            else:
                self.page = render_page(*kind.page(self.path)).encode("utf-8")
        self.lock = threading.Lock()
        handler = _handler(self)
        try:
            self.httpd = _Server((host, port), handler)
        except OSError as exc:
            if exc.errno in (errno.EADDRINUSE, errno.EACCES):
                why = (
                    "is in use"
                    if exc.errno == errno.EADDRINUSE
                    else "cannot be opened (permission denied)"
                )
                raise ConfigError(
                    f"--port {port}: port {port} on {host} {why}; pass another --port, or --port 0 for a free one"
                ) from None
            raise ConfigError(
                f"--port {port}: cannot listen on {host}:{port} ({exc.strerror or exc})"
            ) from None
        self.hosts = local_hosts(int(self.httpd.server_address[1]))
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        name = host.decode() if isinstance(host, bytes) else str(host)
        return f"http://{name}:{port}/"

    def start(self) -> ViewServer:
        """Serve in a background thread (tests, notebooks); :meth:`close` stops it."""
        self._thread = threading.Thread(
            target=self.httpd.serve_forever, name="bordir-view", daemon=True
        )
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self.httpd.serve_forever()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> ViewServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # --- answers ---------------------------------------------------------------------------------
    def answer(self, route: str, params: dict[str, str]) -> Any:
        if self.query is None:
            raise ConfigError(f"{route}: this directory's page holds its data; no API")
        if route == "/api/query":
            with self.lock:
                res = self.query.query(params)
            res.pop("_mask", None)
            return res
        if route == "/api/numbers":
            with self.lock:
                return self.query.numbers(params)
        if route == "/api/territory":
            return {"rows": self.query.territory(params.get("t", ""))}
        if route == "/api/sample":
            try:
                i = int(params.get("id", ""))
            except ValueError:
                raise ConfigError(f"id={params.get('id')!r}: expected a row number") from None
            if not 0 <= i < self.query.n:
                raise ConfigError(f"id={i}: no such row (the run has {self.query.n})")
            with self.lock:
                rec = self.query.record(i)
                rec.update(self.details.rows([i])[0])
            return rec
        raise ConfigError(f"{route}: no such page")


def _handler(server: ViewServer) -> type[BaseHTTPRequestHandler]:
    from .query import dumps

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
            pass

        def _send(self, status: int, body: bytes, ctype: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Referrer-Policy", "no-referrer")
            self.end_headers()
            self.wfile.write(body)

        def _local(self) -> bool:
            """True when the request names this server by a local name and its port (else 403 sent).

            One ``Host`` header, one of :attr:`ViewServer.hosts`, and a path (not an absolute URL,
            whose host would stand in for the header).
            """
            hosts = self.headers.get_all("Host") or []
            if (
                len(hosts) == 1
                and hosts[0].strip().lower() in server.hosts
                and self.path.startswith("/")
            ):
                return True
            port = server.httpd.server_address[1]
            self._send(
                403,
                f"403 forbidden: bordir view answers only http://127.0.0.1:{port}/, "
                f"http://localhost:{port}/ and http://[::1]:{port}/\n".encode(),
                "text/plain; charset=utf-8",
            )
            return False

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            if not self._local():
                return
            parts = urlsplit(self.path)
            if parts.path in ("/", "/view.html", "/index.html"):
                self._send(200, server.page, "text/html; charset=utf-8")
                return
            if not parts.path.startswith("/api/"):
                self._send(404, b"not found", "text/plain; charset=utf-8")
                return
            params = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
            try:
                body = dumps(server.answer(parts.path, params))
            except BordirError as exc:
                self._send(400, str(exc).encode("utf-8"), "text/plain; charset=utf-8")
                return
            self._send(200, body, "application/json")

    return Handler


def serve_view(
    path: str | os.PathLike[str],
    *,
    port: int = 0,
    host: str = "127.0.0.1",
    ready: Callable[[str], None] | None = None,
) -> None:
    """Serve the explorer of ``path`` until interrupted; ``ready(url)`` is called once it listens."""
    srv = ViewServer(path, port=port, host=host)
    if ready is not None:
        ready(srv.url)
    try:
        srv.serve_forever()
    finally:
        srv.httpd.server_close()
