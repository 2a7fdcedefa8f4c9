"""Do ``bordir report`` and ``bordir view`` write the same bytes as a reference tree of bordir?

    python -m tests.report.same_bytes --reference /path/to/bordir-checkout [--root DIR] [--demo-model M]

Builds one directory of each kind with the code of this tree (``bordir demo``; a ``bordir
testbed``; ``bordir testgen`` + ``testrun`` + ``judge``, the judge a loopback server; ``bordir
audit``), then, for each directory, runs ``report`` (run and testbed kinds) and ``view`` once
with the reference tree's code and once with this tree's, each time on the same path from the
same pristine copy, and compares every file they leave, but the record and the output
manifest (``record.json``, ``outputs.json``), the locks and ``previous/``, with the time stamps
of when a report was generated masked (two reports of one run differ in nothing else). Prints one line per
directory and exits 1 when a file differs. The reference tree is run as
``PYTHONPATH=REFERENCE python -m bordir``; it reads the directories this tree writes (it
ignores their record).
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
IGNORED = {"record.json", "outputs.json", "previous"}


def bordir(tree: Path, *args: str, env: dict[str, str] | None = None) -> None:
    e = {**os.environ, "PYTHONPATH": str(tree), "BORDIR_PROGRESS": "0", **(env or {})}
    res = subprocess.run(
        [sys.executable, "-m", "bordir", *args], env=e, capture_output=True, text=True
    )
    if res.returncode not in (0, 1):
        raise SystemExit(f"bordir {' '.join(args)} ({tree}): {res.stderr.strip()}")


def build(root: Path, demo_model: str, cache: str) -> dict[str, Path]:
    """One directory of each kind, written by this tree."""
    from tests.audit.test_audit_planted import make_records
    from tests.loopback import LoopbackServer, Reply
    from tests.view.conftest import judge_reply

    dirs = {k: root / k for k in ("demo", "testbed", "testrun", "audit")}
    bordir(HERE, "demo", "--out", str(dirs["demo"]), "--model", demo_model, "--cache", cache,
           "--resamples", "200")  # fmt: skip
    bordir(HERE, "testbed", "noise", "--data", "demo", "--model", "mock/first", "--out",
           str(dirs["testbed"]), "--resamples", "50", "--no-progress", "--cache", cache)  # fmt: skip
    suite = root / "tests.jsonl"
    bordir(HERE, "testgen", "demo", "--n", "9", "--generator", "template", "--out", str(suite),
           "--cache", cache)  # fmt: skip
    bordir(HERE, "testrun", str(suite), "--config", "retriever=bm25,backend=mock/first", "--out",
           str(dirs["testrun"]), "--cache", cache)  # fmt: skip
    with LoopbackServer(reply=Reply(text=judge_reply)) as judge:
        env = {"OPENAI_COMPATIBLE_BASE_URL": judge.openai_url,
               "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}  # fmt: skip
        bordir(HERE, "judge", str(dirs["testrun"]), "--judge", "openai-compatible/judge",
               "--repeats", "2", "--cache", cache, env=env)  # fmt: skip
    log = root / "log.jsonl"
    with log.open("w", encoding="utf-8") as f:
        for r in make_records(1200, seed=3, biased={"sw": "*"}):
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    bordir(HERE, "audit", str(log), "--out", str(dirs["audit"]), "--resamples", "100", "--seed",
           "1", "--no-plots")  # fmt: skip
    return dirs


def outputs(tree: Path, kind: str, d: Path, pristine: Path) -> Path:
    """``d`` restored from ``pristine``, then report (and view) written by ``tree``; a snapshot of it."""
    if d.exists():
        shutil.rmtree(d)
    shutil.copytree(pristine, d)
    for name in ("report.html", "metrics.json", "view.html", "tables", "plots"):
        if kind in ("demo", "testbed") and (d / name).exists():  # the report writes them again
            shutil.rmtree(d / name) if (d / name).is_dir() else (d / name).unlink()
    if kind in ("demo", "testbed"):
        bordir(tree, "report", str(d), "--resamples", "200", "--seed", "1")
    bordir(tree, "view", str(d))
    snap = Path(tempfile.mkdtemp(prefix=f"{kind}-", dir=d.parent))
    shutil.copytree(d, snap / "x")
    return snap / "x"


STAMP = re.compile(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\+00:00)?")
"""When a report was generated (``metrics.json`` ``generated``, the page's "Generated …"): the
one thing two reports of the same run may differ in; masked before comparing."""


def same(a: Path, b: Path) -> bool:
    """The same bytes, but for the time stamps of when they were written."""
    x, y = a.read_bytes(), b.read_bytes()
    return x == y or STAMP.sub(b"<time>", x) == STAMP.sub(b"<time>", y)


def differences(a: Path, b: Path, rel: str = "") -> list[str]:
    """Files that differ between two snapshots (``IGNORED`` and hidden names left out)."""
    cmp = filecmp.dircmp(a, b, ignore=[*IGNORED])
    out = [f"{rel}{n}: only in the reference" for n in cmp.left_only if not n.startswith(".")]
    out += [f"{rel}{n}: only in this tree" for n in cmp.right_only if not n.startswith(".")]
    for n in cmp.common_files:
        if not n.startswith(".") and not same(a / n, b / n):
            out.append(f"{rel}{n}: differs")
    for n in cmp.common_dirs:
        out += differences(a / n, b / n, f"{rel}{n}/")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reference", type=Path, required=True, help="a checkout of bordir (main)")
    ap.add_argument("--root", type=Path, help="work folder (default: a temporary one)")
    ap.add_argument("--demo-model", default="local/gemma-3-270m")
    ap.add_argument("--cache", help="the response cache (default: ROOT/cache.sqlite3)")
    ap.add_argument("--built", action="store_true", help="ROOT holds the directories already")
    args = ap.parse_args(argv)
    root = args.root or Path(tempfile.mkdtemp(prefix="same-bytes-"))
    root.mkdir(parents=True, exist_ok=True)
    if args.built:
        dirs = {k: root / k for k in ("demo", "testbed", "testrun", "audit")}
    else:
        dirs = build(root, args.demo_model, args.cache or str(root / "cache.sqlite3"))
    failed = False
    for kind, d in dirs.items():
        pristine = root / f"{kind}.pristine"
        if not pristine.exists():
            shutil.copytree(d, pristine)
        ref = outputs(args.reference.resolve(), kind, d, pristine)
        ours = outputs(HERE, kind, d, pristine)
        diff = differences(ref, ours)
        failed |= bool(diff)
        n = sum(1 for p in ours.rglob("*") if p.is_file() and p.name not in IGNORED)
        print(f"{kind}: {'the same bytes' if not diff else 'DIFFERENT'} ({n} files compared)")
        for line in diff:
            print(f"  {line}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
