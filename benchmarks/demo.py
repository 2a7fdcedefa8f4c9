"""``bordir demo`` wall time, cold (empty response cache) and warm (everything cached), against its budget.

Budget (issue): <= 120 s cold on 2 cores including model load, <= 15 s warm.
Also prints the local model's prompt-evaluation rate measured in the same run
(total prompt tokens of the demo's calls / time spent in calls), so a slow
machine can be told apart from a slow pipeline.

Usage: ``python benchmarks/demo.py``
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

COLD_BUDGET, WARM_BUDGET = 120.0, 15.0


def timed_demo(out: Path, cache_dir: Path) -> float:
    env = {**os.environ, "BORDIR_CACHE": str(cache_dir)}
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "bordir", "demo", "--out", str(out)],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return time.perf_counter() - t0


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        cold = timed_demo(tmp / "run", tmp / "cache")
        warm = timed_demo(tmp / "run", tmp / "cache")
        df = pd.read_parquet(tmp / "run" / "responses.parquet")
        calls = df.drop_duplicates(["query_id", "mode"])
        info = json.loads((tmp / "run" / "run.json").read_text())
    # latency_s of the warm run's rows is 0 (cache hits); the cold figures are in the cache's results
    tokens = int(calls["input_tokens"].sum())
    print(
        f"bordir demo: {info['queries']} queries x {len(info['config']['modes'])} modes, "
        f"{len(calls)} (query, mode) option scorings (identical prompts are scored once), {len(df)} responses, "
        f"{tokens} prompt tokens"
    )
    print(f"{'':6}{'seconds':>9}  {'budget':>7}  {'ratio':>6}")
    for name, t, budget in (("cold", cold, COLD_BUDGET), ("warm", warm, WARM_BUDGET)):
        flag = "" if t <= budget else "  <- over budget"
        print(f"{name:6}{t:9.1f}  {budget:7.0f}  {t / budget:5.2f}x{flag}")
    print(
        f"cold-run prompt throughput: {tokens / cold:.0f} tokens/s of wall time; warm/cold = {warm / cold:.3f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
