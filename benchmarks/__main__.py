"""``python -m benchmarks [--quick] [--only NAME ...]``: every benchmark, one table.

Each benchmark script runs in its own process (so its memory peak and its
imports are its own) with ``--figures FILE``; the figures are gathered into
one table: the figure, its target, the reference measured in the same run,
the ratio and whether the target holds. A script that fails or times out is
a row saying so, never a missing row. The whole run takes under 20 minutes on
a 2-core machine (testgen_parsing reads 50 MB inputs; audit_blackbox writes and audits 6M URLs), ``--quick`` under 3.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from _figures import Figure, format_table, load  # noqa: E402

#: (script, timeout in seconds for the full run, timeout for --quick), in run order.
BENCHMARKS: list[tuple[str, int, int]] = [
    ("metrics", 240, 60),
    ("audit", 180, 45),
    ("audit_blackbox", 600, 120),
    ("retrieval", 240, 40),
    ("index", 300, 60),
    ("generation", 240, 45),
    ("ray_executor", 150, 75),
    ("corpus", 60, 20),
    ("demo", 300, 60),
    ("view", 420, 120),
    ("report", 300, 90),
    ("testgen_parsing", 900, 60),
    ("testgen_pipeline", 900, 120),
    ("langid_short", 120, 60),
]


def _run_one(name: str, quick: bool, timeout: int) -> list[Figure]:
    script = HERE / f"{name}.py"
    if not script.exists():
        return [Figure("(script missing)", float("nan"), "", note=f"{script} not found")]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "figures.json"
        cmd = [sys.executable, str(script), "--figures", str(out)] + (["--quick"] if quick else [])
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return [Figure("(timed out)", float(timeout), "s", note=f"killed after {timeout} s")]
        took = time.perf_counter() - t0
        if proc.returncode != 0 or not out.exists():
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
            return [Figure("(failed)", took, "s", note=f"exit {proc.returncode}: {tail[0][:200]}")]
        _, figures = load(out)
        return figures


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller workloads, under 3 minutes")
    ap.add_argument("--only", nargs="*", help="run only these benchmarks")
    ap.add_argument("--json", help="also write every figure as JSON to this file")
    ap.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    args = ap.parse_args(argv)
    if args.list:
        for name, full, quick in BENCHMARKS:
            print(f"{name:12} timeout {full} s ({quick} s with --quick)")
        return 0
    chosen = [b for b in BENCHMARKS if not args.only or b[0] in args.only]
    unknown = set(args.only or ()) - {b[0] for b in BENCHMARKS}
    if unknown:
        print(f"unknown benchmark(s): {', '.join(sorted(unknown))}; see --list", file=sys.stderr)
        return 2
    rows: list[tuple[str, Figure]] = []
    t0 = time.perf_counter()
    for name, full, quick in chosen:
        print(f"running {name} ...", file=sys.stderr, flush=True)
        for fig in _run_one(name, args.quick, quick if args.quick else full):
            rows.append((name, fig))
    total = time.perf_counter() - t0
    print(format_table(rows))
    held = sum(1 for _, f in rows if f.holds is True)
    missed = sum(1 for _, f in rows if f.holds is False)
    print(f"\n{held} targets hold, {missed} missed; {total:.0f} s in all")
    if args.json:
        Path(args.json).write_text(
            json.dumps([{"benchmark": b, **f.__dict__} for b, f in rows], indent=1),
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
