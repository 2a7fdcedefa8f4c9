"""testgen pipeline benchmark: a large Markdown source to a test suite, against markdown-it-py's own parse.

Issue 45: a 10 MB Markdown source took more than 80 CPU-seconds in ``bordir
testgen`` while markdown-it-py alone parsed it in 18 (a cross-document job
scanned every chunk of the language for each chunk, the complexity ranking was
computed twice, textstat recounted the syllables of every word of every chunk).
Here a document-like Markdown file (sections of the demo corpus's English
sentences, each paragraph a new mix of them, under headings, with emphasis,
links, inline code, lists, tables and code fences; full: 10 MB, ``--quick``: 1 MB) goes through what ``bordir testgen FILE --lang en``
does — read and chunk it (:func:`~bordir.testgen.sources.chunks_from_file`),
generate 50 tests with the default strategies (complexity ranking of every
chunk, the template generator), write the suite — and the reference, in the
same run, is ``MarkdownIt("commonmark").enable("table").parse`` of the same
text. Both are CPU seconds (``time.process_time``) after a warm-up on a small
document (imports, the CMU dictionary: a fixed start-up, reported apart), the
fastest of two alternated runs of each.

Target: the pipeline within 2× the parser's own time. The per-MB cost is the
figure docs/testgen.md states.

Usage: ``python benchmarks/testgen_pipeline.py [--quick] [--figures FILE] [--mb N]``
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _figures import Figure, add_options, report

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

TARGET = 2.0
"""Pipeline CPU time over markdown-it-py's parse of the same text, at most."""


def _marked(sentence: str, rng: Any, i: int) -> str:
    """``sentence`` with one inline element on one of its words (emphasis, strong, a link, code)."""
    words = sentence.split()
    k = rng.randrange(len(words))
    w = words[k]
    words[k] = rng.choice(
        (f"*{w}*", f"**{w}**", f"[{w}](https://example.org/{i}/{k})", f"`{w}`", f"_{w}_")
    )
    return " ".join(words)


def document(mb: float, *, dense: bool = False) -> str:
    """Markdown of about ``mb`` MB, with headings, lists, tables and code blocks.

    Prose (default): sections of the demo corpus's English sentences (each paragraph a new mix),
    one inline element (emphasis, strong, a link, code) in each sentence. ``dense``: the lines of
    ``benchmarks/testgen_parsing.py``'s Markdown document, every line marked up several times
    (markdown-it-py reads it about as slowly per MB as the issue's 10 MB source: 1.8 s/MB).
    """
    import random

    from bordir.corpus import load_corpus
    from bordir.testgen.chunks import sentences

    pool = [s for p in load_corpus("demo") if p.lang == "en" for s in sentences(p.text)]
    rng = random.Random(0)
    parts: list[str] = []
    size, i = 0, 0
    while size < mb * 1_000_000:
        if dense:
            body = "".join(
                f"{rng.choice(pool).split()[0]} *emphasis*, **strong**, a [link](http://x.org/{i}) "
                f"and `code`; a stray *star _x\n"
                for _ in range(4)
            )
        else:
            body = " ".join(_marked(s, rng, i) for s in rng.sample(pool, 4))
        section = (
            f"## Section {i}: {' '.join(rng.choice(pool).split()[:4]).strip('.,')}\n\n"
            f"{body}\n\n"
            f"- {_marked(rng.choice(pool), rng, i)}\n- {_marked(rng.choice(pool), rng, i)}\n\n"
            + ("| year | event |\n|---|---|\n| 1954 | transfer |\n\n" if i % 5 == 0 else "")
            + ("```\ncode block\n```\n\n" if i % 7 == 0 else "")
            + " ".join(_marked(s, rng, i) for s in rng.sample(pool, 3))
            + "\n\n"
        )
        parts.append(section)
        size += len(section)
        i += 1
    return "".join(parts)


def pipeline(path: Path, out: Path) -> dict[str, float]:
    """CPU seconds of each stage of ``bordir testgen FILE --lang en`` (50 tests, default strategies)."""
    from bordir.testgen.sources import chunks_from_file
    from bordir.testgen.suite import generate_suite
    from bordir.testgen.testcase import write_suite

    t0 = time.process_time()
    chunks = chunks_from_file(path, lang="en")
    t1 = time.process_time()
    suite = generate_suite(chunks, n=50)
    t2 = time.process_time()
    write_suite(suite, out)
    t3 = time.process_time()
    return {"read": t1 - t0, "generate": t2 - t1, "write": t3 - t2, "chunks": len(chunks)}


def _measure(kind: str, text: str, tmp: Path, mb: float, repeats: int) -> list[Figure]:
    """The pipeline and markdown-it-py on ``text``: the fastest of ``repeats`` alternated runs."""
    import markdown_it

    big = tmp / f"{kind}.md"
    big.write_text(text, encoding="utf-8")
    size = len(text.encode()) / 1e6
    refs, runs = [], []
    for _ in range(repeats):  # alternated; the fastest of each (a busy machine only adds)
        gc.collect()
        t = time.process_time()
        markdown_it.MarkdownIt("commonmark").enable("table").parse(text)
        refs.append(time.process_time() - t)
        gc.collect()
        runs.append(pipeline(big, tmp / f"{kind}.jsonl"))
    ref = min(refs)
    stages = min(runs, key=lambda r: r["read"] + r["generate"] + r["write"])
    total = stages["read"] + stages["generate"] + stages["write"]
    ratio = total / ref
    note = (
        f"{size:.1f} MB, {stages['chunks']:.0f} chunks: read {stages['read']:.2f} s, "
        f"generate {stages['generate']:.2f} s, write {stages['write']:.2f} s"
    )
    print(f"testgen pipeline ({kind}): {note}; markdown-it-py {ref:.2f} s; {ratio:.2f}× the parser")
    return [
        Figure(
            f"Markdown {kind} {mb:g} MB → 50 tests: pipeline CPU",
            total,
            "s",
            target=f"≤ {TARGET:g}× markdown-it-py alone",
            reference=f"markdown-it-py parse {ref:.2f} s",
            ratio=ratio,
            holds=ratio <= TARGET,
            note=note,
        ),
        Figure(
            f"Markdown {kind} → tests: CPU per MB",
            total / size,
            "s/MB",
            reference=f"markdown-it-py {ref / size:.2f} s/MB",
            ratio=ratio,
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_options(parser)
    parser.add_argument("--mb", type=float, help="document size in MB (default 10; --quick 1)")
    parser.add_argument("--repeats", type=int, default=2, help="runs of each (the fastest counts)")
    args = parser.parse_args(argv)
    mb = args.mb or (1.0 if args.quick else 10.0)
    with tempfile.TemporaryDirectory() as tmp:
        small = Path(tmp) / "small.md"
        small.write_text(document(0.02), encoding="utf-8")
        t = time.process_time()
        pipeline(small, Path(tmp) / "small.jsonl")  # imports, the CMU dictionary, pyphen
        startup = time.process_time() - t
        figs = []
        for kind, dense in (("prose", False), ("markup-dense", True)):
            figs += _measure(kind, document(mb, dense=dense), Path(tmp), mb, args.repeats)
    figs.append(Figure("testgen start-up (imports, CMU dictionary)", startup, "s"))
    report("testgen_pipeline", figs, args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
