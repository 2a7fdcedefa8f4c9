"""Generation benchmarks: ``bordir run`` against a loopback OpenAI server, the client's CPU per call, parsing.

(a) **Throughput at the limit, through ``bordir run``.** A loopback server
    (``tests/loopback.py``) runs in its own process (so that its CPU and GIL are
    not the client's) and answers chat completions after a fixed latency. A
    config file (the ``openai-compatible`` backend, i.e. the real ``openai``
    client; one mode, 34 demo queries x ``runs`` seeds) is run with
    ``python -m bordir run`` at concurrency 32 with 100 ms latency (ideal 320
    calls/s) and at concurrency 128 with 1 s latency (ideal 128 calls/s). The
    throughput is the calls the server answered over the time from its first
    request to its last answer (the command's start-up and retrieval are not
    calls); the figure is its ratio to ``concurrency / latency`` (targets >= 0.95
    at c=32 and >= 0.97 at c=128).
    Also reported: the most requests the server had in flight (target: the
    configured concurrency), and a warm re-run of the same config with the same
    cache (target: 0 requests reach the server).
(b) **Client CPU per call.** The CPU time (user + system) of the ``bordir run``
    process, cold minus warm (the warm run does everything but the calls), per
    call; and the CPU of :func:`bordir.generation.executor.execute` alone over
    the same server, per call (target <= 1 ms; about 2.5-3 ms before issue 18,
    1.7-2.1 ms before issue 30), with the share of each layer of the client in a
    py-spy profile of the same benchmark (:func:`layer_profile`, the ``dev``
    extra's py-spy) in its note.
(c) **Local rank classification** (full run only): ``local/gemma-3-270m`` scores
    the options of 10 demo prompts through the executor: calls per second.
(d) **Answer parsing of a long reply.** A 112 KB reply that names the options
    about 15,000 times goes through ``parse_answer``: its time against the time
    of a 1 KB reply scaled by length (target: within 3x of linear).
(e) **Echo check of a 1 MB reply** (:func:`bordir.generation.parse.echo.detect_echo`): a reply
    that copies the prompt's five documents over and over, in English and in Chinese (Han
    characters are one token each), against a 10 KB reply of the same kind scaled by length
    (target: within 3x of linear; about a second).

Figures measured on a loaded machine are noisy (CPU per call and throughput
both suffer when other processes take the cores).

Usage: ``python benchmarks/generation.py [--quick] [--figures FILE]``
(``--quick``: 15 runs instead of 30, one warm re-run, no local model; < 45 s).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import replace
from pathlib import Path

from _figures import Figure, add_options, report

REPO = Path(__file__).resolve().parents[1]
THROUGHPUT_TARGET = {32: 0.95, 128: 0.97}
"""Throughput target by concurrency (c=32 at 100 ms, c=128 at 1 s), as a share of the ideal."""
CPU_TARGET_MS = 1.0
QUERIES = 34  # demo queries


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
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().split()
        if len(line) != 2 or line[0] != "PORT":
            self.stop()
            raise RuntimeError(f"the loopback server did not start (said {line!r})")
        self.url = f"http://127.0.0.1:{line[1]}"

    def stats(self) -> dict:
        with urllib.request.urlopen(self.url + "/_stats", timeout=10) as r:
            return json.load(r)

    def count(self) -> int:
        return int(self.stats()["count"])

    def reset(self) -> None:
        req = urllib.request.Request(self.url + "/_reset", data=b"{}", method="POST")
        with urllib.request.urlopen(req, timeout=10):
            pass

    def stop(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def bordir_run(server: ServerProcess, cfg: Path, out: Path) -> dict:
    """One ``python -m bordir run`` of ``cfg``: wall time, its CPU, and the server's view."""
    env = {
        **os.environ,
        "OPENAI_COMPATIBLE_BASE_URL": server.url + "/v1",
        "NO_PROXY": "127.0.0.1,localhost",
    }
    server.reset()
    cpu0, t0 = _children_cpu(), time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "bordir", "run", str(cfg), "--out", str(out), "--no-progress"],
        env=env,
        capture_output=True,
        text=True,
    )
    wall, cpu = time.perf_counter() - t0, _children_cpu() - cpu0
    if done.returncode != 0:
        raise RuntimeError(f"bordir run failed: {done.stderr.strip().splitlines()[-1:]}")
    info = json.loads((out / "run.json").read_text())
    return {"wall": wall, "cpu": cpu, "failed": info["calls"]["failed"], **server.stats()}


def write_config(path: Path, *, concurrency: int, runs: int, cache: Path) -> Path:
    cfg = {
        "models": ["openai-compatible/bench-model"],
        "modes": ["no_ir"],
        "runs": runs,
        "seeds": list(range(1, runs + 1)),
        "temperature": 0.5,
        "concurrency": concurrency,
        "timeout": 60,
        "cache": str(cache),
    }
    path.write_text(
        "[experiment]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in cfg.items()),
        encoding="utf-8",
    )
    return path


def bench_run(concurrency: int, latency: float, runs: int, warm: bool, tmp: Path) -> list[Figure]:
    server = ServerProcess(latency)
    case = f"c={concurrency}, {latency * 1000:g} ms"
    try:
        cfg = write_config(
            tmp / f"c{concurrency}.toml",
            concurrency=concurrency,
            runs=runs,
            cache=tmp / f"c{concurrency}.sqlite3",
        )
        cold = bordir_run(server, cfg, tmp / f"run-c{concurrency}")
        calls = int(cold["count"])
        span = (cold["last_at"] or 0.0) - (cold["first_at"] or 0.0)
        ideal = concurrency / latency
        rate = calls / span if span > 0 else float("nan")
        frac = rate / ideal
        expected = QUERIES * runs
        figs = [
            Figure(
                f"bordir run throughput ({case}, {calls} calls)",
                rate,
                "calls/s",
                target=f"≥ {THROUGHPUT_TARGET[concurrency]} × ideal",
                reference=f"ideal {ideal:g} calls/s",
                ratio=frac,
                holds=frac >= THROUGHPUT_TARGET[concurrency]
                and cold["failed"] == 0
                and calls == expected,
                note=f"{cold['failed']} failed; command {cold['wall']:.1f} s in all "
                f"(start-up and retrieval included)",
            ),
            Figure(
                f"max requests in flight ({case})",
                float(cold["max_in_flight"]),
                "requests",
                target=f"= configured {concurrency}",
                holds=int(cold["max_in_flight"]) == concurrency,
            ),
        ]
        if warm:
            again = bordir_run(server, cfg, tmp / f"run-c{concurrency}-warm")
            per_call = (cold["cpu"] - again["cpu"]) / max(calls, 1) * 1000
            figs += [
                Figure(
                    f"warm re-run: requests reaching the server ({case})",
                    float(again["count"]),
                    "requests",
                    target="0",
                    holds=int(again["count"]) == 0,
                    note=f"warm command {again['wall']:.1f} s",
                ),
                Figure(
                    f"bordir run client CPU per call ({case})",
                    per_call,
                    "ms",
                    target=f"≤ {CPU_TARGET_MS:g} ms",
                    reference="2.5–3 ms before (issue 18)",
                    holds=per_call <= CPU_TARGET_MS,
                    note="CPU of the cold run minus the warm run, over the calls",
                ),
            ]
        return figs
    finally:
        server.stop()


def bench_executor_cpu(calls: int, concurrency: int, latency: float) -> list[Figure]:
    """CPU of execute() alone (client process), the server in another process."""
    from bordir.generation.backend import get_backend
    from bordir.generation.cache import ResponseCache
    from bordir.generation.call_limits import ExecutorOptions
    from bordir.generation.executor import execute
    from bordir.generation.types import GenerationRequest, Message

    os.environ.setdefault("NO_PROXY", "127.0.0.1,localhost")
    server = ServerProcess(latency)
    try:
        model = "openai-compatible/bench-model"
        backend = get_backend(model, base_url=server.url + "/v1", timeout=30)
        requests = [
            GenerationRequest(
                model=model,
                messages=(Message("user", f"Question {i}: A) x or B) y?"),),
                temperature=0.0,
                seed=i,
                max_tokens=16,
            )
            for i in range(calls + concurrency)
        ]
        # warm up the connection pool and the imports outside the measurement
        execute(
            backend,
            requests[:concurrency],
            progress=False,
            options=ExecutorOptions(concurrency=concurrency),
        )
        with tempfile.TemporaryDirectory() as tmp:
            cache = ResponseCache(Path(tmp) / "responses.sqlite3")
            cpu0, t0 = time.process_time(), time.perf_counter()
            out = execute(
                backend,
                requests[concurrency:],
                cache=cache,
                progress=False,
                options=ExecutorOptions(concurrency=concurrency),
            )
            cpu, wall = time.process_time() - cpu0, time.perf_counter() - t0
            cache.close()
        backend.close()
    finally:
        server.stop()
    per_call = cpu / calls * 1000
    failed = sum(not r.ok for r in out)
    return [
        Figure(
            f"executor client CPU per call (c={concurrency}, {latency * 1000:g} ms, {calls} calls)",
            per_call,
            "ms",
            target=f"≤ {CPU_TARGET_MS:g} ms",
            reference="2.5–3 ms before (issue 18)",
            holds=per_call <= CPU_TARGET_MS and failed == 0,
            note=f"execute() with a response cache; {calls / wall:.0f} calls/s, {failed} failed",
        )
    ]


LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("response cache (SQLite)", ("generation/cache.py", "generation/cache_writer.py", "sqlite3")),
    ("json", ("/json/",)),
    ("HTTP (aiohttp, httpcore, h11)", ("aiohttp/", "multidict", "yarl/", "httpcore", "h11/")),
    ("httpx", ("httpx",)),
    ("anyio / sniffio", ("anyio/", "sniffio")),
    ("openai SDK", ("openai/",)),
    ("pydantic", ("pydantic",)),
    ("asyncio event loop", ("asyncio/", "selectors.py")),
    ("bordir executor", ("generation/_calls.py", "generation/executor.py",
                         "generation/_execute_parts.py", "_net/ratelimit.py", "_net/retry.py")),
    ("bordir openai backend", ("generation/backends/",)),
    ("bordir, other", ("bordir/",)),
    ("threads, queues", ("threading.py", "queue.py", "concurrent/futures")),
)  # fmt: skip
"""Layers of the client, each named by the files its frames live in (the innermost match wins)."""


def layer_profile(calls: int, concurrency: int, latency: float) -> str:
    """The share of each layer (:data:`LAYERS`) in the client's samples, from ``py-spy record --gil``.

    The executor benchmark runs again in a child sampled by py-spy (the ``dev`` extra) at
    250 Hz; imports and start-up are left out. py-spy sees the threads holding the GIL, so
    work done without it (inside SQLite, in the socket calls) is not counted.
    """
    import shutil

    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(spy).exists():
        return "per-layer profile: py-spy is not installed (pip install py-spy)"
    child = (
        f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); "
        f"from generation import bench_executor_cpu; bench_executor_cpu({calls}, {concurrency}, {latency})"
    )
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "profile.txt"
        done = subprocess.run(
            [spy, "record", "--gil", "-r", "250", "-f", "raw", "-o", str(raw), "--",
             sys.executable, "-c", child],
            capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)},
        )  # fmt: skip
        if done.returncode != 0 or not raw.is_file():
            return f"per-layer profile: py-spy failed ({(done.stderr or '').strip()[-120:]})"
        counts: dict[str, int] = {}
        total = 0
        for line in raw.read_text().splitlines():
            stack, _, n = line.rpartition(" ")
            frames = [f for f in stack.split(";") if f.strip()]
            if not n.isdigit() or any("<module>" in f or "importlib" in f for f in frames):
                continue
            layer = next(
                (
                    name
                    for f in reversed(frames)
                    for name, parts in LAYERS
                    if any(p in f for p in parts)
                ),
                "other" if frames else "native code (no Python frame)",
            )
            counts[layer] = counts.get(layer, 0) + int(n)
            total += int(n)
    if not total:
        return "per-layer profile: no samples"
    shares = sorted(counts.items(), key=lambda kv: -kv[1])
    return "per-layer share of the client's GIL samples (py-spy): " + ", ".join(
        f"{name} {n / total:.0%}" for name, n in shares if n / total >= 0.01
    )


def bench_local(n: int) -> list[Figure]:
    from bordir.generation.backend import get_backend
    from bordir.generation.executor import execute

    try:
        backend = get_backend("local/gemma-3-270m")
    except ImportError as exc:
        return [
            Figure("local rank classification", float("nan"), "calls/s", note=f"skipped: {exc}")
        ]
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
    return [
        Figure(
            f"local rank classification ({len(requests)} calls)",
            len(requests) / dt,
            "calls/s",
            holds=ok == len(requests),
            target="every call scored",
            note=f"{sum(n_tokens) / len(n_tokens):.0f} prompt tokens avg, "
            f"{sum(n_tokens) / dt:.0f} tok/s, threads={backend.n_threads}, {ok}/{len(requests)} scored",
        )
    ]


def bench_parse() -> list[Figure]:
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
    linear = t_small * len(big) / len(small)
    ratio = t_big / linear
    return [
        Figure(
            "parse a 112 KB reply",
            t_big,
            "s",
            target="≤ 3× linear",
            reference=f"1 KB reply scaled: {linear:.3f} s",
            ratio=ratio,
            holds=ratio <= 3,
        )
    ]


def bench_echo() -> list[Figure]:
    from bordir.generation.parse.echo import PromptParts, detect_echo
    from bordir.loaders import load_demo_corpus

    passages = list(load_demo_corpus())
    figs = []
    for lang in ("en", "zhs"):
        docs = tuple(p.text for p in passages if p.lang == lang)[:5]
        parts = PromptParts(system="Answer the question.", user="\n\n".join(docs), documents=docs)
        unit = " ".join(docs) + " "
        small = unit * (10_000 // len(unit.encode()) + 1)
        big = unit * (1_000_000 // len(unit.encode()) + 1)
        assert detect_echo(small, parts).is_echo  # warm the prompt's index
        t0 = time.perf_counter()
        for _ in range(5):
            detect_echo(small, parts)
        t_small = (time.perf_counter() - t0) / 5
        t0 = time.perf_counter()
        echo = detect_echo(big, parts).is_echo
        t_big = time.perf_counter() - t0
        linear = t_small * len(big) / len(small)
        figs.append(
            Figure(
                f"echo check of a {len(big.encode()) / 1e6:.1f} MB reply ({lang})",
                t_big,
                "s",
                target="≤ 3× linear",
                reference=f"10 KB reply scaled: {linear:.3f} s",
                ratio=t_big / linear,
                holds=echo and t_big / linear <= 3,
            )
        )
    return figs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_options(ap)
    args = ap.parse_args(argv)
    runs = 15 if args.quick else 30  # 510 / 1020 calls: close to whole waves of 32 and 128
    figs: list[Figure] = []
    with tempfile.TemporaryDirectory() as tmp:
        figs += bench_run(32, 0.1, runs, warm=True, tmp=Path(tmp))
        figs += bench_run(128, 1.0, runs, warm=not args.quick, tmp=Path(tmp))
    executor = bench_executor_cpu(320 if args.quick else 960, 32, 0.1)
    profile = layer_profile(320 if args.quick else 960, 32, 0.1)
    figs += [replace(f, note=f"{f.note}; {profile}") for f in executor]
    if not args.quick:
        figs += bench_executor_cpu(512, 128, 1.0)
        figs += bench_local(10)
    figs += bench_parse()
    figs += bench_echo()
    report("generation", figs, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
