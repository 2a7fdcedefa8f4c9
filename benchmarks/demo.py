"""``bordir demo`` wall time, cold (empty response cache) and warm (everything cached), against its budget.

Budget (issue 30): <= 90 s cold on 2 cores including model load, <= 10 s warm
(issue 18: 120 s and 15 s). Each figure's note gives the run's CPU time (user +
system), which a loaded machine inflates less than the wall time.
Also reports the local model's prompt-evaluation rate measured in the same run
(total prompt tokens of the demo's calls / time spent in calls), so a slow
machine can be told apart from a slow pipeline.

``--quick`` runs the same pipeline with the ``mock/first`` backend and 200
resamples (no model load, no model calls): it times everything but the model.

Usage: ``python benchmarks/demo.py [--quick] [--figures FILE]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pandas as pd
from _figures import Figure, add_options, report

COLD_BUDGET, WARM_BUDGET = 90.0, 10.0


CPU: list[float] = []
"""CPU seconds (user + system) of each timed demo, in order."""


def _children_cpu() -> float:
    import resource

    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def timed_demo(out: Path, cache_dir: Path, extra: list[str]) -> float:
    env = {**os.environ, "BORDIR_CACHE": str(cache_dir)}
    cpu0 = _children_cpu()
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "bordir", "demo", "--out", str(out), *extra],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    CPU.append(_children_cpu() - cpu0)
    return time.perf_counter() - t0


PHASES: tuple[tuple[str, str, str], ...] = (
    ("run", "bordir/runner/run.py", "run"),
    ("retriever comparison", "bordir/cli/demo.py", "_compare_retrievers"),
    ("report", "bordir/report/__init__.py", "build_report"),
    ("report: metrics", "bordir/metrics/summary/build.py", "build_metrics"),
    ("report: main plots", "bordir/report/plots.py", "write_plots"),
    ("report: methodology", "bordir/report/methodology.py", "methodology_sections"),
    ("report: waiting for the per-language child", "bordir/_fork.py", "_collect"),
    ("report: explorer page", "bordir/report/view_links.py", "write_view_beside"),
)
"""(label, file, function) of the warm run's phases, in the order the demo runs them."""


def phase_shares(out: Path, cache_dir: Path, extra: list[str]) -> str:
    """Where a warm run's time goes: each phase's share of a profiled warm run (cProfile).

    Profiling slows every function alike, so the shares, not the seconds, are what this says; the
    rest is interpreter start, imports and the demo's own setup. The per-language section runs in
    a forked child on 2 CPUs: the parent's wait for it is its share of the critical path.
    """
    import pstats

    prof = out.parent / "warm.prof"
    env = {**os.environ, "BORDIR_CACHE": str(cache_dir)}
    cmd = [sys.executable, "-m", "cProfile", "-o", str(prof), "-m", "bordir", "demo"]
    subprocess.run(
        [*cmd, "--out", str(out), *extra],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    stats: Any = pstats.Stats(str(prof)).stats
    total = max(v[3] for v in stats.values())
    parts = []
    for label, file, func in PHASES:
        cum = sum(v[3] for (f, _, name), v in stats.items() if f.endswith(file) and name == func)
        parts.append(f"{label} {100 * cum / total:.0f} %")
    return "warm run, share of a profiled run: " + ", ".join(parts)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_options(ap)
    args = ap.parse_args(argv)
    extra = ["--model", "mock/first", "--resamples", "200"] if args.quick else []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        cold = timed_demo(tmp / "run", tmp / "cache", extra)
        warm = timed_demo(tmp / "run", tmp / "cache", extra)
        shares = phase_shares(tmp / "run", tmp / "cache", extra)
        df = pd.read_parquet(tmp / "run" / "responses.parquet")
        calls = df.drop_duplicates(["query_id", "mode"])
        info = json.loads((tmp / "run" / "run.json").read_text())
    tokens = int(calls["input_tokens"].fillna(0).sum()) if "input_tokens" in calls else 0
    what = "mock/first backend (no model)" if args.quick else "local gemma 3 270M"
    print(
        f"bordir demo ({what}): {info['queries']} queries x {len(info['config']['modes'])} modes, "
        f"{len(calls)} (query, mode) option scorings, {len(df)} responses, {tokens} prompt tokens\n"
    )
    figs = [
        Figure(
            f"demo cold ({what})",
            cold,
            "s",
            target=f"≤ {COLD_BUDGET:.0f} s",
            reference=f"budget {COLD_BUDGET:.0f} s",
            ratio=cold / COLD_BUDGET,
            holds=cold <= COLD_BUDGET,
            note=f"CPU {CPU[0]:.1f} s",
        ),
        Figure(
            f"demo warm ({what})",
            warm,
            "s",
            target=f"≤ {WARM_BUDGET:.0f} s",
            reference=f"cold run {cold:.1f} s",
            ratio=warm / cold,
            holds=warm <= WARM_BUDGET,
            note=f"CPU {CPU[1]:.1f} s; {shares}",
        ),
    ]
    if tokens and not args.quick:
        figs.append(
            Figure("cold-run prompt tokens per second of wall time", tokens / cold, "tok/s")
        )
    report("demo", figs, args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
