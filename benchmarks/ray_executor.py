"""The Ray executor against the local one: the demo grid over a real HTTP backend, same rows, wall time.

A loopback server (``tests/loopback.py`` in its own process) answers OpenAI
chat completions after ``--latency`` (50 ms). The demo grid (bm25, modes
``no_ir, qlang, rel_langs``, ``--runs`` 2, the ``openai-compatible`` backend
at ``--concurrency`` per executor) runs once with ``executor="local"`` and
once with ``executor="ray"`` on a local Ray cluster of ``--cpus`` (2) CPUs,
each with a fresh response cache. Figures: the two wall times (the Ray one
without the cluster's start, reported apart), their ratio, and whether the
two responses tables are equal (timing column aside). A second Ray run on the
warm cache must send zero requests.

On one small machine Ray adds overhead (task start, pickling the inputs); it
pays when the calls are CPU-bound (local models) or the cluster has more
nodes than this one. The figures say how much it costs here.

Usage: ``python benchmarks/ray_executor.py [--runs 2] [--latency 0.05] [--concurrency 4] [--cpus 2]``
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _figures import Figure, add_options, report  # noqa: E402
from generation import ServerProcess  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--latency", type=float, default=0.05)
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--cpus", type=int, default=2)
    add_options(ap)
    args = ap.parse_args()
    if args.quick:
        args.runs = 1
    # before Ray is imported: it reads its auth mode once
    os.environ.update(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=secrets.token_hex(32))
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    try:
        import ray
    except ImportError:
        report(
            "ray_executor",
            [Figure("ray executor", float("nan"), "s", note="ray not installed: skipped")],
            args,
        )
        return
    from pandas.testing import assert_frame_equal

    import bordir

    os.environ.setdefault("NO_PROXY", "127.0.0.1,localhost")
    server = ServerProcess(args.latency)
    os.environ["OPENAI_COMPATIBLE_BASE_URL"] = server.url + "/v1"
    os.environ["OPENAI_COMPATIBLE_API_KEY"] = "sk-bench"
    cfg = {
        "models": ["openai-compatible/bench-model"],
        "modes": ["no_ir", "qlang", "rel_langs"],
        "runs": args.runs,
        "k": 3,
        "concurrency": args.concurrency,
    }
    try:
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            local = bordir.run(cfg, cache=Path(tmp) / "a.sqlite3", progress=False)
            local_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            ray.init(
                address="local", num_cpus=args.cpus, include_dashboard=False, log_to_driver=False
            )
            start_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            on_ray = bordir.run(cfg, cache=Path(tmp) / "b.sqlite3", progress=False, executor="ray")
            ray_s = time.perf_counter() - t0
            before = server.count()
            t0 = time.perf_counter()
            bordir.run(cfg, cache=Path(tmp) / "b.sqlite3", progress=False, executor="ray")
            warm_s = time.perf_counter() - t0
            warm_requests = server.count() - before
            ray.shutdown()
    finally:
        server.stop()
    try:
        assert_frame_equal(
            local.responses.drop(columns="latency_s"), on_ray.responses.drop(columns="latency_s")
        )
        same = True
    except AssertionError:
        same = False
    n = local.info["calls"]["requests"]
    shards = on_ray.info["executor"]["shards"]
    figs = [
        Figure(
            f"local executor: {n} calls @ {args.concurrency}, {args.latency * 1000:g} ms",
            local_s,
            "s",
        ),
        Figure(
            f"ray executor: {shards} shards on {args.cpus} CPUs @ {args.concurrency} each",
            ray_s,
            "s",
            target="same rows as local",
            reference=f"local {local_s:.2f} s",
            ratio=ray_s / local_s,
            holds=same,
            note=f"local Ray cluster start {start_s:.1f} s, not included",
        ),
        Figure(
            "ray executor, warm cache",
            warm_s,
            "s",
            target="0 requests",
            reference=f"cold {ray_s:.2f} s",
            ratio=warm_s / ray_s,
            holds=warm_requests == 0,
            note=f"{warm_requests} requests reached the server",
        ),
    ]
    report("ray_executor", figs, args)


if __name__ == "__main__":
    main()
