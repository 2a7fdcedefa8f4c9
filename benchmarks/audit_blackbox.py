"""Black-box audit speed: 1,000,000 answers with 6,000,000 cited URLs attributed and aggregated, and the per-URL cost.

The log (generation not timed): 1,000,000 JSON lines (``--quick``: 100,000), 4 models × 10 query
languages, 1,000 question groups, 1–11 URLs per answer (6 on average), drawn from 50,000 hosts with
Zipf-like popularity (ccTLDs, generic TLDs, publishers of the registry, Wikipedia language editions,
a government domain, a few bad URLs), each URL with its own path and a tracking parameter. The audit
(:func:`bordir.audit.blackbox.run.run_blackbox_audit`: reading, attribution, shares with their
intervals; the paired comparisons are timed apart) runs in a child process pinned to 2 cores; its
wall time and peak RSS are the figures. The reference: ``tldextract`` alone on the same URLs (a
sample of 300,000, one call per URL), against the audit's attribution per URL.

Usage: ``python benchmarks/audit_blackbox.py [--quick] [--figures FILE]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

from _figures import Figure, add_options, report  # noqa: E402

LANGS = ["ru", "uk", "en", "ja", "zhs", "es", "ar", "hy", "az", "el"]
MODELS = ["openai-search/a", "perplexity/b", "gemini/c", "anthropic/d"]
TLDS = [
    "ru",
    "ua",
    "com",
    "org",
    "net",
    "jp",
    "cn",
    "es",
    "am",
    "az",
    "gr",
    "de",
    "fr",
    "co.uk",
    "com.au",
    "io",
    "info",
]
PUBLISHERS = [
    "www.rt.com",
    "www.bbc.com",
    "www.reuters.com",
    "tass.com",
    "www.dw.com",
    "www.aljazeera.com",
    "kyivindependent.com",
    "www.nytimes.com",
]

_CHILD = r"""
import json, sys, time
from bordir.audit.blackbox.run import BlackboxOptions, run_blackbox_audit
from bordir.audit.blackbox import compare as cmp
t0 = time.perf_counter()
calls = []
orig = cmp.compare_all
def timed(*a, **k):
    t = time.perf_counter(); out = orig(*a, **k); calls.append(time.perf_counter() - t); return out
import bordir.audit.blackbox.run as run
run.compare_all = timed
r = run_blackbox_audit(sys.argv[1], BlackboxOptions(n_resamples=1000, n_permutations=1000, compare_countries=("RU", "UA")))
wall = time.perf_counter() - t0
print(json.dumps({"wall": wall, "compare": sum(calls), "answers": r.summary["valid"], "urls": r.summary["urls"],
                  "given": r.summary["urls_given"], "read": r.summary["seconds"]["read_and_attribute"], "hosts": r.summary["hosts"]}))
"""


def hosts(n: int, rng: random.Random) -> list[str]:
    out = list(PUBLISHERS) + [
        f"{lang}.wikipedia.org"
        for lang in ("ru", "uk", "en", "ja", "zh", "es", "ar", "hy", "az", "el")
    ]
    out += ["www.gov.ua", "minfin.gov.ru", "www.mofa.go.jp", "192.168.10.1"]
    while len(out) < n:
        out.append(f"{rng.choice(['www.', 'news.', ''])}site{len(out)}.{rng.choice(TLDS)}")
    return out


def generate(path: Path, n: int, seed: int = 0) -> int:
    """Write ``n`` answers; returns the number of URLs written."""
    rng = random.Random(seed)
    hs = hosts(50_000, rng)
    weights = [1.0 / (i + 1) ** 0.9 for i in range(len(hs))]
    cum, acc = [], 0.0
    for w in weights:
        acc += w
        cum.append(acc)
    n_urls = 0
    import bisect

    with open(path, "w", encoding="utf-8") as fh:
        for i in range(n):
            k = rng.randint(1, 11)
            urls = []
            for j in range(k):
                h = hs[bisect.bisect(cum, rng.random() * acc)]
                if rng.random() < 0.001:
                    urls.append("javascript:void(0)")
                else:
                    urls.append(
                        f"https://{h}/{rng.choice(['ru/', 'en/', '', 'news/'])}a{i}-{j}?utm_source=chat&id={j}"
                    )
            n_urls += k
            g = i % 1000
            lang = LANGS[(i // 1000) % len(LANGS)]
            rec = {"id": i, "question": f"q{g}", "lang": lang, "model": MODELS[(i // 10_000) % 4], "answer": "…",
                   "urls": urls, "group": g, "claimants": ["RU", "UA"]}  # fmt: skip
            fh.write(json.dumps(rec) + "\n")
    return n_urls


def run_child(log: Path) -> tuple[dict, float]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}

    def pin() -> None:
        os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:2])

    proc = subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(log)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        preexec_fn=pin,
    )
    out = proc.stdout.read() if proc.stdout else b""
    err = proc.stderr.read() if proc.stderr else b""
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"the audit failed:\n{err.decode()[-3000:]}")
    return json.loads(out), usage.ru_maxrss / 1024.0


def per_url_costs(log: Path, n: int) -> tuple[float, float, float]:
    """µs per URL: tldextract alone, the audit's attribution (cold: every host new), and again (hosts known)."""
    import pyarrow as pa

    from bordir.audit.blackbox.attribution import Attributor, psl_extractor

    urls: list[str] = []
    with open(log, encoding="utf-8") as fh:
        for line in fh:
            urls.extend(json.loads(line)["urls"])
            if len(urls) >= n:
                break
    urls = urls[:n]
    ex = psl_extractor()
    t = time.perf_counter()
    for u in urls:
        ex(u)
    t_ref = (time.perf_counter() - t) / len(urls) * 1e6
    a = Attributor()
    arr = pa.array(urls)
    t = time.perf_counter()
    for i in range(0, len(urls), 100_000):
        a.attribute(arr.slice(i, 100_000))
    t_ours = (time.perf_counter() - t) / len(urls) * 1e6
    t = time.perf_counter()
    for i in range(0, len(urls), 100_000):
        a.attribute(arr.slice(i, 100_000))
    t_warm = (time.perf_counter() - t) / len(urls) * 1e6
    return t_ref, t_ours, t_warm


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_options(ap)
    args = ap.parse_args(argv)
    n = 100_000 if args.quick else 1_000_000
    with tempfile.TemporaryDirectory() as d:
        log = Path(d) / "log.jsonl"
        n_urls = generate(log, n)
        res, rss = run_child(log)
        ref, ours, warm = per_url_costs(log, 300_000 if not args.quick else 100_000)
    agg = res["wall"] - res["compare"]
    target = 60.0 * n / 1_000_000
    figs = [
        Figure(f"{n:,} answers, {n_urls:,} URLs: read, attribute, shares (wall, 2 cores)", round(agg, 1), "s",
               target=f"≤ {target:g} s", holds=agg <= target, note=f"reading and attribution {res['read']:.1f} s; {res['hosts']:,} hosts"),
        Figure("paired comparisons (1,000 resamples and permutations each)", round(res["compare"], 1), "s"),
        Figure("peak RSS of the audit", round(rss), "MB", target="≤ 4,000 MB", holds=rss <= 4000),
        Figure("attribution per URL, hosts new (columns of 100,000)", round(ours, 2), "µs", reference=f"tldextract alone {ref:.2f} µs/URL",
               ratio=round(ours / ref, 3), target="≤ tldextract alone", holds=ours <= ref),
        Figure("attribution per URL, hosts known (the same URLs again)", round(warm, 2), "µs", reference=f"tldextract alone {ref:.2f} µs/URL",
               ratio=round(warm / ref, 3)),
    ]  # fmt: skip
    report("audit_blackbox", figs, args)


if __name__ == "__main__":
    main()
