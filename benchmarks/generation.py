"""Generation benchmarks: the executor + a real HTTP backend, the response cache, and the local model.

(a) **HTTP throughput.** A loopback server (``tests/loopback.py``, run in a
    separate process so it does not share this process's GIL) answers OpenAI
    chat completions after a fixed ``--latency`` (100 ms). ``--calls`` (640)
    distinct requests go through :func:`bordir.generation.executor.execute` with
    the ``openai-compatible`` backend (the real ``openai`` client) at
    ``--concurrency`` 32. The ideal is ``concurrency / latency`` = 320 calls/s;
    the figure is the measured throughput as a fraction of it (target >= 0.9).
    Then the same requests again with the now warm response cache: the target
    is zero requests reaching the server and a time <= 5% of the cold run.
(b) **Local rank classification.** ``local/gemma-3-270m`` scores the options
    of ``--local-calls`` (10) demo prompts (direct format, two demo documents
    each) through the executor: calls per second, one prompt evaluation each.

(c) **Answer parsing of a long reply.** A 112 KB reply that names the options
    about 15,000 times (the size that took 17–36 s before name matching became
    linear, issue 14.10) goes through ``parse_answer``: the time, against the
    time of a 1 KB reply scaled by length (target: within 3× of linear).

Usage: ``python benchmarks/generation.py [--calls 640] [--concurrency 32] [--latency 0.1] [--local-calls 10]``
(``--skip-local`` / ``--skip-http`` / ``--skip-parse`` leave a part out).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

from bordir.generation.backend import get_backend  # noqa: E402
from bordir.generation.cache import ResponseCache  # noqa: E402
from bordir.generation.executor import execute  # noqa: E402
from bordir.generation.types import GenerationRequest, Message  # noqa: E402

THROUGHPUT_TARGET = 0.9
WARM_TARGET = 0.05


class ServerProcess:
    """``python tests/loopback.py`` in a child process; stopped by closing its stdin."""

    def __init__(self, latency: float) -> None:
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        self.proc = subprocess.Popen(
            [sys.executable, str(REPO / "tests" / "loopback.py"), "--latency", str(latency)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        line = self.proc.stdout.readline().split()
        if len(line) != 2 or line[0] != "PORT":
            self.stop()
            raise RuntimeError(f"the loopback server did not start (said {line!r})")
        self.url = f"http://127.0.0.1:{line[1]}"

    def count(self) -> int:
        with urllib.request.urlopen(self.url + "/_stats", timeout=5) as r:
            return int(json.load(r)["count"])

    def stop(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def bench_http(calls: int, concurrency: int, latency: float) -> list[tuple[str, str, str, str]]:
    os.environ.setdefault("NO_PROXY", "127.0.0.1,localhost")
    server = ServerProcess(latency)
    rows = []
    try:
        model = "openai-compatible/bench-model"
        backend = get_backend(
            model, base_url=server.url + "/v1", max_concurrency=concurrency, timeout=30
        )
        requests = [
            GenerationRequest(
                model=model,
                messages=(Message("user", f"Question {i}: A) x or B) y?"),),
                temperature=0.0,
                seed=i,
                max_tokens=16,
            )
            for i in range(calls)
        ]
        # warm up the connection pool and the imports outside the timing
        execute(backend, requests[:concurrency], concurrency=concurrency, progress=False)
        with tempfile.TemporaryDirectory() as tmp:
            cache = ResponseCache(Path(tmp) / "responses.sqlite3")
            before = server.count()
            t0 = time.perf_counter()
            cold = execute(backend, requests, cache=cache, concurrency=concurrency, progress=False)
            cold_s = time.perf_counter() - t0
            sent = server.count() - before
            failed = sum(not r.ok for r in cold)
            ideal = concurrency / latency
            rate = calls / cold_s
            frac = rate / ideal
            rows.append(
                (
                    f"cold: {calls} calls @ {concurrency}, {latency * 1000:g} ms",
                    f"{cold_s:.2f} s",
                    f"{rate:.0f}/s = {frac:.2f} of {ideal:.0f}/s",
                    _verdict(
                        frac >= THROUGHPUT_TARGET and failed == 0 and sent == calls,
                        f">= {THROUGHPUT_TARGET}, {failed} failed, {sent} sent",
                    ),
                )
            )
            before = server.count()
            t0 = time.perf_counter()
            warm = execute(backend, requests, cache=cache, concurrency=concurrency, progress=False)
            warm_s = time.perf_counter() - t0
            reached = server.count() - before
            ratio = warm_s / cold_s
            same = [r.text for r in warm] == [r.text for r in cold] and all(r.cached for r in warm)
            rows.append(
                (
                    "warm: same requests, cache",
                    f"{warm_s:.3f} s",
                    f"{ratio:.1%} of cold, {reached} requests",
                    _verdict(
                        ratio <= WARM_TARGET and reached == 0 and same,
                        f"<= {WARM_TARGET:.0%}, 0 requests",
                    ),
                )
            )
            cache.close()
        backend.close()
    finally:
        server.stop()
    return rows


def bench_local(n: int) -> list[tuple[str, str, str, str]]:
    try:
        backend = get_backend("local/gemma-3-270m")
    except ImportError as exc:
        return [("local rank classification", "-", f"skipped: {exc}", "")]
    from bordir.generation.prompts import as_documents, build_request
    from bordir.loaders import load_demo, load_demo_corpus

    ds, corpus = load_demo(), load_demo_corpus()
    queries = [q for q in ds.queries if len(q.options) >= 2][:n]
    requests = []
    for q in queries:
        docs = [p for p in corpus if p.territory == q.territory][:2]
        requests.append(
            build_request(q, as_documents(docs), model="local/gemma-3-270m", no_ir=not docs, seed=1)
        )
    n_tokens = [len(backend.prompt_tokens(r)) for r in requests]
    backend.score_options(requests[0])  # warm-up
    t0 = time.perf_counter()
    results = execute(backend, requests, progress=False)
    dt = time.perf_counter() - t0
    ok = sum(r.ok and r.option_logprobs is not None for r in results)
    mean_tokens = sum(n_tokens) / len(n_tokens)
    return [
        (
            f"local rank classification: {len(requests)} calls",
            f"{dt:.2f} s",
            f"{len(requests) / dt:.2f} calls/s, {mean_tokens:.0f} prompt tokens avg, "
            f"{sum(n_tokens) / dt:.0f} tok/s, threads={backend.n_threads}",
            _verdict(ok == len(requests), f"{ok}/{len(requests)} scored"),
        )
    ]


def bench_parse() -> list[tuple[str, str, str, str]]:
    from bordir.generation.parse import parse_answer
    from bordir.loaders import load_demo

    q = load_demo().query("Crimea_en")
    small, big = ("Russia Ukraine " * 70)[:1_000], ("Russia Ukraine " * 8000)[:112_000]
    parse_answer(small, q)  # warm the caches
    t0 = time.perf_counter()
    for _ in range(20):
        parse_answer(small, q)
    t_small = (time.perf_counter() - t0) / 20
    t0 = time.perf_counter()
    parse_answer(big, q)
    t_big = time.perf_counter() - t0
    ratio = t_big / (t_small * len(big) / len(small))
    return [
        (
            "parse 112 KB reply",
            f"{t_big:.3f}s",
            f"{ratio:.2f}x linear",
            _verdict(ratio <= 3, "<= 3x linear"),
        )
    ]


def _verdict(ok: bool, target: str) -> str:
    return f"ok ({target})" if ok else f"MISSED ({target})"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=640)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--latency", type=float, default=0.1)
    ap.add_argument("--local-calls", type=int, default=10)
    ap.add_argument("--skip-http", action="store_true")
    ap.add_argument("--skip-local", action="store_true")
    ap.add_argument("--skip-parse", action="store_true")
    args = ap.parse_args(argv)
    rows = []
    if not args.skip_http:
        rows += bench_http(args.calls, args.concurrency, args.latency)
    if not args.skip_local:
        rows += bench_local(args.local_calls)
    if not args.skip_parse:
        rows += bench_parse()
    widths = [
        max(len(r[i]) for r in rows + [("case", "time", "figure", "target")]) for i in range(4)
    ]
    for row in [("case", "time", "figure", "target"), *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
    return 0 if all("MISSED" not in r[3] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
