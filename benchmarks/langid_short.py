"""Language detection against text length, per script: the figures behind ``bordir.langid.short.MIN_LETTERS``.

Every passage of the demo corpus (and, when ../shared holds them, the first two passages of
60 MEMERAG queries in de, en, es, fr and hi) is cut after *n* letters, from its start and
from each of its first four sentence starts, and detected with
:func:`bordir.langid.check.detect` (seeded langdetect with script priors). A sample is right
when the detected code agrees with the passage's language
(:func:`bordir.langid.check.expected_codes`; ``hy`` and ``az``, which langdetect has no profile
for, are left out). Prints the share right per script and length, and checks that at each
script's threshold (:data:`~bordir.langid.short.MIN_LETTERS`) at least 95 % are right.

Usage: ``python benchmarks/langid_short.py`` (about 20 s on 2 cores; ``--quick``: 3 lengths).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from _figures import Figure, add_options, report  # noqa: E402

from bordir.langid.check import detect_many, expected_codes  # noqa: E402
from bordir.langid.short import LETTER, MIN_LETTERS, script_of  # noqa: E402
from bordir.loaders import load_demo_corpus  # noqa: E402

MEMERAG = REPO.parent / "shared" / "data" / "memerag"
LENGTHS = (2, 4, 8, 10, 15, 20, 25, 30, 40)
TARGET = 0.95


def passages() -> dict[str, list[str]]:
    """Passage texts by bordir language code."""
    out: dict[str, list[str]] = defaultdict(list)
    for p in load_demo_corpus():
        out[p.lang].append(p.text)
    for lang in ("de", "en", "es", "fr", "hi"):
        f = MEMERAG / f"{lang}.jsonl"
        if f.is_file():
            for line in f.read_text(encoding="utf-8").splitlines()[:60]:
                out[lang] += [c["text"] for c in json.loads(line)["context"][:2]]
    return out


def cut(text: str, n: int) -> str | None:
    """``text`` up to its ``n``-th letter (None when it has fewer)."""
    for k, m in enumerate(LETTER.finditer(text), 1):
        if k >= n:
            return text[: m.end()]
    return None


def measure(lengths: tuple[int, ...]) -> dict[tuple[str, int], Counter[str]]:
    res: dict[tuple[str, int], Counter[str]] = defaultdict(Counter)
    for lang, texts in passages().items():
        expected = expected_codes(lang)
        if not expected:
            continue
        samples = []
        for t in texts:
            starts = [0] + [m.end() for m in re.finditer(r"[.!?。！？]\s*", t)][:4]
            for s in starts:
                for n in lengths:
                    c = cut(t[s:], n)
                    if c:
                        samples.append((n, c))
        found = detect_many([c for _, c in samples], extra="audit")
        for (n, c), (code, _) in zip(samples, found):
            key = (script_of(c) or "none", n)
            res[key]["n"] += 1
            res[key]["ok"] += code in expected
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_options(ap)
    args = ap.parse_args(argv)
    lengths = tuple(sorted({4, 20, 30} | set(MIN_LETTERS.values()))) if args.quick else LENGTHS
    lengths = tuple(sorted(set(lengths) | set(MIN_LETTERS.values())))
    res = measure(lengths)
    scripts = sorted({s for s, _ in res if res[(s, 20)]["n"] >= 10})  # not a stray symbol
    print("letters     " + " ".join(f"{n:>5}" for n in lengths) + "   samples (at 20)")
    for s in scripts:
        cells = [
            f"{100 * res[(s, n)]['ok'] / res[(s, n)]['n']:4.0f}%" if res[(s, n)]["n"] else "    -"
            for n in lengths
        ]
        print(f"{s:11s} " + " ".join(cells) + f"   {res[(s, 20)]['n']}")
    figs = []
    for s, n in sorted(MIN_LETTERS.items()):
        c = res.get((s, n), Counter())
        if not c["n"]:
            figs.append(
                Figure(f"{s}: right at {n} letters", float("nan"), "share", note="no sample")
            )
            continue
        share = c["ok"] / c["n"]
        figs.append(
            Figure(
                f"{s}: right at {n} letters (n={c['n']})",
                share,
                "share",
                target=f"≥ {TARGET:.0%}",
                holds=share >= TARGET,
            )
        )
    report("langid_short", figs, args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
