"""Audit benchmark: ``run_audit`` on 1,000,000 synthetic log records, and the language detector's rate.

(a) **Scale.** ``--records`` (1,000,000) synthetic answers are written to a
    temporary JSONL file (not timed): 5 documents per prompt given as ids and
    languages (en / sw / fr / ar / zhs, no texts), query and response
    languages given, 1–3 citations given as lists of document ids, two models,
    three months, Swahili queries of one model over-citing English. A child
    process (pinned to 2 cores) then runs the audit —
    :func:`bordir.audit.run_audit` with 2,000 resamples and
    :func:`bordir.audit.write_audit` without plots — and its wall time and
    peak RSS (``ru_maxrss`` from ``wait4``) are compared with the targets:
    ≤ 15 s and ≤ 1 GB. No language is detected there.
(b) **Detection.** The seeded ``langdetect`` on ``--texts`` (2,000) distinct
    short texts (60–160 characters) cut from the demo corpus in 15 languages:
    texts per second, and the share detected as the passage's language.

Usage: ``python benchmarks/audit.py [--records 1000000] [--texts 2000] [--keep DIR]``
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

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

TIME_TARGET_S = 15.0
MEMORY_TARGET_MB = 1024.0

_CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
from bordir.audit import run_audit, write_audit
t1 = time.perf_counter()
res = run_audit(sys.argv[1], group_by=sys.argv[3] or None, n_resamples=2000, seed=1)
t2 = time.perf_counter()
write_audit(res, sys.argv[2], plots=False)
t3 = time.perf_counter()
flags = res.tables.flagged()
print(json.dumps({"import_s": t1 - t0, "audit_s": t2 - t1, "write_s": t3 - t2, "valid": res.summary["valid"],
                  "skipped": res.summary["skipped"], "blocks": res.summary["blocks"],
                  "seconds": res.summary["seconds"],
                  "over": sorted({(r.group, r.query_lang, r.doc_lang) for r in flags.itertuples() if r.flag == "over"})}))
"""


def generate(path: Path, n: int, seed: int = 0) -> None:
    """Write ``n`` synthetic records (vectorised draws, one formatted line each)."""
    rng = np.random.default_rng(seed)
    langs = np.array(["en", "sw", "fr", "ar", "zhs"])
    qlangs = np.array(["en", "sw", "fr", "ar", "zhs"])
    models = np.array(["model-a", "model-b"])
    months = np.array(["2024-04", "2024-05", "2024-06"])
    chunk = 100_000
    with path.open("w", encoding="utf-8") as f:
        for start in range(0, n, chunk):
            m = min(chunk, n - start)
            ql = qlangs[rng.integers(0, len(qlangs), m)]
            mo = models[rng.integers(0, 2, m)]
            mon = months[rng.integers(0, 3, m)]
            dl = langs[rng.integers(0, len(langs), (m, 5))]
            k = rng.integers(1, 4, m)
            u = rng.random((m, 5))
            biased = (ql == "sw") & (mo == "model-b")
            u[biased] += np.where(
                dl[biased] == "en", 0.6, 0.0
            )  # model-b prefers English documents for sw queries
            order = np.argsort(-u, axis=1)
            lines = []
            for i in range(m):
                rid = start + i
                docs = ",".join(f'{{"id":"d{rid}_{j}","lang":"{dl[i, j]}"}}' for j in range(5))
                cites = ",".join(f'"d{rid}_{j}"' for j in order[i, : k[i]])
                lines.append(
                    f'{{"id":"r{rid}","query":"q{rid}","query_lang":"{ql[i]}","documents":[{docs}],'
                    f'"response":"answer","response_lang":"{ql[i]}","citations":[{cites}],'
                    f'"model":"{mo[i]}","timestamp":"{mon[i]}-10T12:00:00Z"}}\n'
                )
            f.write("".join(lines))


def run_child(log: Path, out: Path, group_by: str) -> tuple[dict, float, float]:
    """Run the audit in a child process on 2 cores; (its report, wall seconds, peak RSS in MB)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}

    def pin() -> None:
        cpus = sorted(os.sched_getaffinity(0))[:2]
        os.sched_setaffinity(0, cpus)

    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(log), str(out), group_by],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        preexec_fn=pin,
    )
    stdout = proc.stdout.read()
    stderr = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"the audit failed:\n{stderr.decode()}")
    return json.loads(stdout), wall, usage.ru_maxrss / 1024.0


def detection_rate(n_texts: int) -> dict:
    """langdetect on ``n_texts`` distinct short texts from the demo corpus."""
    from bordir.audit.detect import LanguageDetector
    from bordir.loaders import load_demo_corpus

    passages = [p for p in load_demo_corpus() if len(p.text) > 80]
    texts = []
    k = 0
    while len(texts) < n_texts:
        p = passages[k % len(passages)]
        off = (k // len(passages)) * 23
        length = 60 + (k * 37) % 100
        snippet = p.text[off : off + length]
        if len(snippet) >= 40:
            texts.append((snippet, p.lang))
        k += 1
        if k > 50 * n_texts:
            break
    det = LanguageDetector(cache_size=0)
    det.detect("warm up the profiles")
    det.calls = det.cached = 0
    det.seconds = 0.0
    t0 = time.perf_counter()
    correct = sum(det.detect(t) == lang for t, lang in texts)
    wall = time.perf_counter() - t0
    return {
        "texts": len(texts),
        "seconds": wall,
        "texts_per_s": len(texts) / wall,
        "share_correct": correct / len(texts),
        "languages": len({lang for _, lang in texts}),
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--texts", type=int, default=2000)
    ap.add_argument("--group-by", default="model", choices=["", "model", "month"])
    ap.add_argument("--keep", help="Keep the log and the outputs in this directory.")
    args = ap.parse_args(argv)

    tmp = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bordir-audit-bench-"))
    tmp.mkdir(parents=True, exist_ok=True)
    log = tmp / "log.jsonl"
    t0 = time.perf_counter()
    generate(log, args.records)
    gen_s = time.perf_counter() - t0
    size_mb = log.stat().st_size / 2**20
    print(
        f"(a) {args.records:,} records, {size_mb:.0f} MB of JSONL generated in {gen_s:.1f} s (not timed)"
    )
    rep, wall, rss = run_child(log, tmp / "out", args.group_by)
    audit_s = rep["audit_s"] + rep["write_s"]
    print(
        f"    audit (run_audit + write_audit, no plots, 2000 resamples, group-by {args.group_by or 'none'}), "
        f"child process on 2 cores:"
    )
    print(
        f"      wall time, whole process:  {wall:6.2f} s   (target <= {TIME_TARGET_S:.0f} s: "
        f"{'met' if wall <= TIME_TARGET_S else 'MISSED'}, {wall / TIME_TARGET_S:.2f} of it)"
    )
    print(
        f"      of which imports {rep['import_s']:.2f} s, read+aggregate {rep['seconds']['read_and_aggregate']:.2f} s, "
        f"statistics {rep['seconds']['statistics']:.2f} s, writing {rep['write_s']:.2f} s (audit {audit_s:.2f} s)"
    )
    print(
        f"      peak RSS:                  {rss:6.0f} MB  (target <= {MEMORY_TARGET_MB:.0f} MB: "
        f"{'met' if rss <= MEMORY_TARGET_MB else 'MISSED'}, {rss / MEMORY_TARGET_MB:.2f} of it)"
    )
    print(
        f"      throughput: {args.records / wall:,.0f} records/s; blocks {rep['blocks']}; valid {rep['valid']:,}, "
        f"skipped {rep['skipped']}"
    )
    print(f"      flagged over-citation: {rep['over']}")
    d = detection_rate(args.texts)
    print(
        f"(b) language detection (langdetect, seeded): {d['texts']} short texts in {d['languages']} languages in "
        f"{d['seconds']:.2f} s = {d['texts_per_s']:.0f} texts/s; {100 * d['share_correct']:.0f}% detected as the "
        f"passage's language; at this rate 1,000,000 texts would take {1e6 / d['texts_per_s'] / 60:.0f} min"
    )
    if not args.keep:
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
