"""Resolving free answers at scale: 1,000,000 answers of about 400 characters in ≤ 60 s on 2 cores.

The answers are the hand-written set (``tests/generation/free_answers/answers.jsonl``), each padded
to about 400 characters with sentences of context that name the territory's region, its history
and, now and then, a neighbouring country (as free answers do around their verdict), cycled to
the size asked. :func:`bordir.generation.parse.free.batch.resolve_many` resolves them on every CPU
bordir may use. The reference, measured in the same run, is a pass that only folds and splits the
same texts into words (``str.casefold`` + ``re.findall``) in one process: a busy machine shows as a
slow reference. Both wall time and the CPU seconds of all processes are reported.

    python benchmarks/free_speed.py            # 1,000,000 answers
    python benchmarks/free_speed.py --quick    # 100,000
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from _figures import Figure, add_options, report  # noqa: E402

SET = HERE.parent / "tests" / "generation" / "free_answers" / "answers.jsonl"
FILLER = {
    "en": [
        "The area has a long and complicated history.",
        "Its population is small, and most residents live along the coast.",
        "Tourism and fishing are the main sources of income there.",
        "Relations between the neighbours have improved in recent years, although talks stalled in 2019.",
        "It lies close to Turkey and Georgia, across the sea.",
    ],
    "ru": [
        "У региона долгая и сложная история.",
        "Основу экономики составляют туризм и сельское хозяйство.",
    ],
    "es": [
        "La zona tiene una historia larga y compleja.",
        "Su economía depende del comercio y del turismo.",
    ],
    "ar": ["للمنطقة تاريخ طويل ومعقد.", "يعتمد اقتصادها على التجارة والسياحة."],
    "zhs": ["该地区历史悠久而复杂。", "当地经济以渔业和旅游业为主。"],
    "ja": ["この地域には長く複雑な歴史があります。", "経済は漁業と観光に支えられています。"],
}


def corpus(n_distinct: int, seed: int = 1) -> list[tuple[str, str]]:
    rows = [json.loads(line) for line in SET.read_text(encoding="utf-8").splitlines() if line]
    rng = random.Random(seed)
    out = []
    for _ in range(n_distinct):
        row = rng.choice(rows)
        pool = FILLER.get(row["answer_lang"], FILLER["en"])
        text = row["text"]
        while len(text) < 360:
            text = (
                (text + " " + rng.choice(pool))
                if rng.random() < 0.6
                else (rng.choice(pool) + " " + text)
            )
        out.append((text, row["query_id"]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_options(ap)
    args = ap.parse_args()
    n = 100_000 if args.quick else 1_000_000
    from bordir.generation.parse.free.batch import resolve_many
    from bordir.generation.parse.free.resolve import resolver_for
    from bordir.loaders import load_demo

    ds = load_demo()
    resolver_for(ds)  # built once, before the clock (CLDR names come from the cache folder)
    base = corpus(20_000)
    texts = [base[i % len(base)][0] for i in range(n)]
    queries = [ds.query(base[i % len(base)][1]) for i in range(n)]
    avg = sum(map(len, texts)) / n
    word = re.compile(r"\w+")
    t0 = time.perf_counter()
    for t in texts:
        word.findall(t.casefold())
    ref = time.perf_counter() - t0

    def cpu() -> float:
        own = resource.getrusage(resource.RUSAGE_SELF)
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime

    c0, t0 = cpu(), time.perf_counter()
    out = resolve_many(texts, queries, dataset=ds)
    wall, cpus_used = time.perf_counter() - t0, cpu() - c0
    assert len(out) == n
    per_million = wall * 1_000_000 / n
    print(
        f"{n:,} answers, {avg:.0f} characters on average: {wall:.1f} s wall, {cpus_used:.1f} CPU s "
        f"({os.cpu_count()} CPUs; load {os.getloadavg()[0]:.1f}); fold+split reference {ref:.1f} s"
    )
    figs = [
        Figure(
            f"resolve 1,000,000 free answers (~{avg:.0f} chars; measured on {n:,})",
            per_million,
            "s",
            target="≤ 60 s on 2 cores",
            reference=f"fold+split pass, one process: {ref * 1_000_000 / n:.1f} s",
            ratio=wall / ref if ref else None,
            holds=per_million <= 60,
        ),
        Figure(
            "the same, CPU seconds of all processes",
            cpus_used * 1_000_000 / n,
            "s",
            note=f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs",
        ),
    ]
    report("free_speed", figs, args)


if __name__ == "__main__":
    main()
