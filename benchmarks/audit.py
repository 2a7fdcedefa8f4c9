"""Audit benchmark: ``run_audit`` on 1,000,000 log records without and with the language check; the engines.

(a) **Scale, no texts.** ``--records`` (1,000,000; ``--quick``: 100,000)
    synthetic answers are written to a temporary JSONL file (not timed): 5
    documents per prompt given as ids and languages (en / sw / fr / ar / zhs,
    no texts), query and response languages given, 1–3 citations given as lists
    of document ids, two models, three months, Swahili queries of one model
    over-citing English. A child process (pinned to 2 cores) runs the audit —
    :func:`bordir.audit.run_audit` with 2,000 resamples and
    :func:`bordir.audit.write_audit` without plots — and its wall time and
    peak RSS (``ru_maxrss`` from ``wait4``) are held to ≤ 15 s and ≤ 1 GB.
    No language is detected there.
(b) **Scale, language check on.** The same records, but each response is a
    text (40–160 characters cut from the demo corpus in 15 languages, a
    different text for every record unless ``--distinct`` says fewer) and its
    language is not given, so the audit detects every response's language
    (the language-match check). Held to ≤ 30 s and ≤ 1 GB on 2 cores. The
    reference is plain ``langdetect`` on the same number of distinct texts, at
    the rate measured in (c).
(c) **Engines.** On ``--texts`` (2,000; ``--quick``: 500) distinct short texts
    of the same kind, in this process: bordir's detector one text at a time on
    ``langdetect``, on ``langdetect-rs``, and in one block on ``langdetect-rs``
    (its batch call; the best of 3 runs on langdetect-rs); the speed ratios,
    and the share of texts on which the engines give the same language and
    probability (target: all).

Usage: ``python benchmarks/audit.py [--quick] [--figures FILE] [--records N] [--distinct N]
[--texts N] [--keep DIR]``
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
from _figures import Figure, add_options, report

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

TIME_TARGET_S = 15.0
LANG_TIME_TARGET_S = 30.0
MEMORY_TARGET_MB = 1024.0
FULL_RECORDS = 1_000_000

_CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
from bordir.audit import run_audit, write_audit
from bordir.audit.config import AuditOptions
t1 = time.perf_counter()
res = run_audit(sys.argv[1], AuditOptions(group_by=sys.argv[3] or None, n_resamples=2000, seed=1))
t2 = time.perf_counter()
write_audit(res, sys.argv[2], plots=False)
t3 = time.perf_counter()
flags = res.tables.flagged()
print(json.dumps({"import_s": t1 - t0, "audit_s": t2 - t1, "write_s": t3 - t2, "valid": res.summary["valid"],
                  "skipped": res.summary["skipped"], "blocks": res.summary["blocks"],
                  "seconds": res.summary["seconds"], "detection": res.summary["detection"],
                  "signature": str(res.signature),
                  "over": sorted({(r.group, r.query_lang, r.doc_lang) for r in flags.itertuples() if r.flag == "over"})}))
"""


def snippets(n: int) -> list[tuple[str, str]]:
    """``n`` distinct (text, language) snippets of 40–160 characters from the demo corpus.

    Windows of every passage at growing offsets; past what one window gives, two windows of
    passages in the same language are joined, so any ``n`` is reached.
    """
    from bordir.loaders import load_demo_corpus

    by_lang: dict[str, list[str]] = {}
    for p in load_demo_corpus():
        if len(p.text) > 60:
            by_lang.setdefault(p.lang, []).append(p.text)
    passages = [(t, lang) for lang, ts in sorted(by_lang.items()) for t in ts]
    seen: set[str] = set()
    out: list[tuple[str, str]] = []
    k = 0
    while len(out) < n:
        text, lang = passages[k % len(passages)]
        r = k // len(passages)
        length = 40 + (k * 37) % 121
        off = (r * 13) % max(1, len(text) - 40)
        s = text[off : off + length]
        if r >= 40:  # join with a window of another passage of the language
            other = by_lang[lang][(k * 7 + r) % len(by_lang[lang])]
            o2 = (k * 11) % max(1, len(other) - 40)
            s = (s[: length // 2] + " " + other[o2 : o2 + length // 2]).strip()
        if len(s) >= 40 and s not in seen:
            seen.add(s)
            out.append((s, lang))
        k += 1
    return out


def generate(path: Path, n: int, *, texts: list[str] | None = None, seed: int = 0) -> None:
    """Write ``n`` synthetic records; with ``texts``, responses are texts (record i: texts[i % len])."""
    rng = np.random.default_rng(seed)
    langs = np.array(["en", "sw", "fr", "ar", "zhs"])
    models = np.array(["model-a", "model-b"])
    months = np.array(["2024-04", "2024-05", "2024-06"])
    quoted = [json.dumps(t, ensure_ascii=False) for t in texts] if texts else None
    chunk = 100_000
    with path.open("w", encoding="utf-8") as f:
        for start in range(0, n, chunk):
            m = min(chunk, n - start)
            ql = langs[rng.integers(0, len(langs), m)]
            mo = models[rng.integers(0, 2, m)]
            mon = months[rng.integers(0, 3, m)]
            dl = langs[rng.integers(0, len(langs), (m, 5))]
            k = rng.integers(1, 4, m)
            u = rng.random((m, 5))
            biased = (ql == "sw") & (mo == "model-b")
            u[biased] += np.where(dl[biased] == "en", 0.6, 0.0)  # model-b: English docs for sw
            order = np.argsort(-u, axis=1)
            lines = []
            for i in range(m):
                rid = start + i
                docs = ",".join(f'{{"id":"d{rid}_{j}","lang":"{dl[i, j]}"}}' for j in range(5))
                cites = ",".join(f'"d{rid}_{j}"' for j in order[i, : k[i]])
                resp = (
                    f'"response":{quoted[rid % len(quoted)]}'
                    if quoted
                    else f'"response":"answer","response_lang":"{ql[i]}"'
                )
                lines.append(
                    f'{{"id":"r{rid}","query":"q{rid}","query_lang":"{ql[i]}","documents":[{docs}],'
                    f'{resp},"citations":[{cites}],'
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
    stdout = proc.stdout.read() if proc.stdout else b""
    stderr = proc.stderr.read() if proc.stderr else b""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"the audit failed:\n{stderr.decode()}")
    return json.loads(stdout), wall, usage.ru_maxrss / 1024.0


def engines(n_texts: int) -> dict:
    """Bordir's detector on ``n_texts`` distinct snippets: langdetect, langdetect-rs, its batch call."""
    from bordir.langid import engine as le
    from bordir.langid.check import detect, detect_many, engine_label

    sample = snippets(n_texts)
    texts = [t for t, _ in sample]
    out: dict = {"texts": len(texts), "languages": len({lang for _, lang in sample})}
    saved = os.environ.get(le.ENV)
    try:
        for name in ("langdetect", "langdetect-rs"):
            os.environ[le.ENV] = name
            try:
                detect("warm up the profiles")
            except Exception as exc:  # an engine not installed: reported, not fatal
                out[name] = {"error": f"{type(exc).__name__}: {exc}"}
                continue
            repeats = 1 if name == "langdetect" else 3  # the fast engine: the best of 3
            best = float("inf")
            for _ in range(repeats):
                t0 = time.perf_counter()
                one = [detect(t) for t in texts]
                best = min(best, time.perf_counter() - t0)
            out[name] = {"engine": engine_label(), "one_per_s": len(texts) / best, "res": one}
            if name == "langdetect-rs":  # load the batch factories (each script group) first
                detect_many(
                    ["Nothing in CJK.", "日本語の文です。", "한국어 문장입니다.", "中文句子。"]
                )
                best = float("inf")
                for _ in range(repeats):
                    t0 = time.perf_counter()
                    block = detect_many(texts)
                    best = min(best, time.perf_counter() - t0)
                out[name]["block_per_s"] = len(texts) / best
                out[name]["block_same"] = block == one
    finally:
        if saved is None:
            os.environ.pop(le.ENV, None)
        else:
            os.environ[le.ENV] = saved
    py, rs = out.get("langdetect", {}), out.get("langdetect-rs", {})
    if "res" in py and "res" in rs:
        out["agree"] = sum(a == b for a, b in zip(py["res"], rs["res"])) / len(texts)
    return out


def _audit_figures(
    label: str,
    rep: dict,
    wall: float,
    rss: float,
    target: float,
    full: bool,
    n: int,
    reference: str | None = None,
    ratio: float | None = None,
) -> list[Figure]:
    scaled = "" if full else f"; {n:,} records (--quick): the targets are for 1,000,000"
    det = rep.get("detection", {})
    note = (
        f"read+aggregate {rep['seconds']['read_and_aggregate']:.1f} s, statistics "
        f"{rep['seconds']['statistics']:.1f} s, detection {rep['seconds']['detection']:.1f} s "
        f"({det.get('calls', 0):,} texts, engine {det.get('engine')}), write {rep['write_s']:.1f} s, "
        f"imports {rep['import_s']:.1f} s; over-citation flagged: {rep['over']}{scaled}"
    )
    return [
        Figure(
            f"{label}: audit wall time (2 cores)",
            wall,
            "s",
            target=f"≤ {target:.0f} s",
            reference=reference,
            ratio=ratio,
            holds=(wall <= target) if full else None,
            note=note,
        ),
        Figure(
            f"{label}: peak RSS",
            rss,
            "MB",
            target=f"≤ {MEMORY_TARGET_MB:.0f} MB",
            holds=(rss <= MEMORY_TARGET_MB) if full else None,
        ),
    ]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument(
        "--records", type=int, default=None, help="default 1,000,000 (--quick: 100,000)"
    )
    ap.add_argument(
        "--distinct",
        type=int,
        default=None,
        help="distinct response texts in (b) (default: one per record)",
    )
    ap.add_argument(
        "--texts", type=int, default=None, help="texts in (c) (default 2,000; --quick 500)"
    )
    ap.add_argument("--group-by", default="model", choices=["", "model", "month"])
    ap.add_argument("--keep", help="Keep the logs and the outputs in this directory.")
    add_options(ap)
    args = ap.parse_args(argv)
    n = args.records or (100_000 if args.quick else FULL_RECORDS)
    n_texts = args.texts or (500 if args.quick else 2000)
    full = n >= FULL_RECORDS
    tmp = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bordir-audit-bench-"))
    tmp.mkdir(parents=True, exist_ok=True)
    figs: list[Figure] = []
    try:
        eng = engines(n_texts)
        py, rs = eng.get("langdetect", {}), eng.get("langdetect-rs", {})

        log = tmp / "log.jsonl"
        generate(log, n)
        rep, wall, rss = run_child(log, tmp / "out", args.group_by)
        figs += _audit_figures(f"{n:,} records, no texts", rep, wall, rss, TIME_TARGET_S, full, n)
        log.unlink()

        distinct = min(args.distinct or n, n)
        log = tmp / "log_texts.jsonl"
        generate(log, n, texts=[t for t, _ in snippets(distinct)])
        rep, wall, rss = run_child(log, tmp / "out_texts", args.group_by)
        ref = ratio = None
        if "one_per_s" in py:
            est = distinct / py["one_per_s"]
            ref, ratio = (
                f"langdetect ≈ {est:,.0f} s for the detection alone (rate of (c))",
                wall / est,
            )
        label = f"{n:,} records, language check ({distinct:,} distinct texts)"
        figs += _audit_figures(label, rep, wall, rss, LANG_TIME_TARGET_S, full, n, ref, ratio)
        log.unlink()

        what = f"{eng['texts']:,} texts in {eng['languages']} languages"
        if "one_per_s" in py:
            figs.append(
                Figure(
                    "detector, langdetect, one at a time",
                    py["one_per_s"],
                    "texts/s",
                    note=f"{what}; {py['engine']}",
                )
            )
        if "one_per_s" in rs:
            base = py.get("one_per_s")
            figs.append(
                Figure(
                    "detector, langdetect-rs, one at a time",
                    rs["one_per_s"],
                    "texts/s",
                    reference=f"langdetect {base:,.0f}/s" if base else None,
                    ratio=rs["one_per_s"] / base if base else None,
                    note=rs["engine"],
                )
            )
            figs.append(
                Figure(
                    "detector, langdetect-rs, one block",
                    rs["block_per_s"],
                    "texts/s",
                    reference=f"langdetect {base:,.0f}/s" if base else None,
                    ratio=rs["block_per_s"] / base if base else None,
                    note=f"block = one at a time on every text: {rs['block_same']}",
                )
            )
        else:
            figs.append(
                Figure(
                    "detector, langdetect-rs",
                    float("nan"),
                    "texts/s",
                    note=rs.get("error", "not measured"),
                )
            )
        if "agree" in eng:
            figs.append(
                Figure(
                    "engines agree (language and probability)",
                    eng["agree"],
                    "share",
                    target="= 1",
                    holds=eng["agree"] == 1.0,
                    note=what,
                )
            )
    finally:
        if not args.keep:
            import shutil

            shutil.rmtree(tmp, ignore_errors=True)
    report("audit", figs, args)


if __name__ == "__main__":
    main()
