"""testgen parsing benchmark: the HTML, Markdown and judge-reply readers on inputs up to 50 MB, time per MB.

The readers of :mod:`bordir.testgen` used to take quadratic time on some inputs
(bs4 ``insert_before`` per block, Markdown regexes scanning to the end from
every marker, a JSON reader scanning to the end from every ``{``): 8,000
``<p>`` took 21 CPU-s, 72 KB of ``*a `` 39 s, 16,000 unclosed objects 144 s.
Here each reader reads inputs of growing size (full: 1, 10 and 50 MB;
``--quick``: 0.1, 0.4 and 1.6 MB), each made of the unit that was quadratic, and
the time per MB is reported for every size. The figure for each input is the
time per MB at the largest size over the time per MB at the smallest, measured
in the same run (the reference): about 1 for a linear reader (target ≤ 2; a
quadratic one gives 50 at 50 MB).

Inputs: HTML pages of ``<p>`` paragraphs, of unclosed ``<a`` tags, of elements
each with its own ``<style>`` (the same rules again: a sheet that would grow with
the page) and of unclosed ``@media`` blocks (a stylesheet searched again from each
``{``); Markdown
of unclosed emphasis (``*a `` …) and of document-like lines mixing emphasis,
links, code and stray markers; judge replies of unclosed objects
(``{"a": 1, `` …) and of objects nested in strings.

Usage: ``python benchmarks/testgen_parsing.py [--quick] [--figures FILE] [--sizes MB,MB,...]``
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

from _figures import Figure, add_options, report

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bordir.testgen.documents import markdown_text  # noqa: E402
from bordir.testgen.htmlread import html_text  # noqa: E402
from bordir.testgen.oracle import parse_judgment  # noqa: E402

TARGET = 2.0
"""Time per MB at the largest size over the smallest, at most."""

INPUTS: list[tuple[str, Callable[[str], object], str]] = [
    ("HTML <p> paragraphs", html_text, "<p>Crimea is a peninsula in the Black Sea.</p>\n"),
    ("HTML unclosed <a", html_text, "<a "),
    (
        "HTML with a <style> per element",
        html_text,
        '<style>.n{display:none} div .x{color:#fff}</style><div class="c"><p class="x n">'
        "Hidden.</p><p>Seen text.</p></div>\n",
    ),
    ("HTML unclosed @media blocks", html_text, "<style>@media screen{"),
    ("Markdown unclosed *a", markdown_text, "*a "),
    (
        "Markdown document lines",
        markdown_text,
        "Some *emphasis*, **strong**, a [link](http://x.org) and `code`; a stray *star _x\n",
    ),
    ("judge reply: unclosed objects", parse_judgment, '{"a": 1, '),
    ("judge reply: objects in strings", parse_judgment, '{"a":"{"b": 2} '),
]


def _input(unit: str, mb: float) -> str:
    return unit * max(1, int(mb * 1_000_000 / len(unit)))


def _time(fn: Callable[[str], object], text: str) -> float:
    t0 = time.process_time()
    fn(text)
    return time.process_time() - t0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_options(parser)
    parser.add_argument("--sizes", help="input sizes in MB, comma-separated (default 1,10,50)")
    args = parser.parse_args(argv)
    sizes = (
        [float(x) for x in args.sizes.split(",")]
        if args.sizes
        else [0.1, 0.4, 1.6]
        if args.quick
        else [1.0, 10.0, 50.0]
    )
    t_all = time.perf_counter()
    figs = []
    print(f"testgen parsing: sizes {', '.join(f'{s:g}' for s in sizes)} MB; CPU seconds per MB")
    for name, fn, unit in INPUTS:
        per_mb = []
        for mb in sizes:
            text = _input(unit, mb)
            took = _time(fn, text)
            per_mb.append(took / (len(text) / 1e6))
            print(
                f"  {name:34s} {len(text) / 1e6:6.2f} MB  {took:8.2f} s  {per_mb[-1]:7.3f} s/MB",
                flush=True,
            )
            del text
        ratio = per_mb[-1] / per_mb[0]
        figs.append(
            Figure(
                f"{name}: s/MB at {sizes[-1]:g} MB",
                per_mb[-1],
                "s/MB",
                target=f"≤ {TARGET:g}× the s/MB at {sizes[0]:g} MB (linear)",
                reference=f"{per_mb[0]:.3f} s/MB at {sizes[0]:g} MB",
                ratio=ratio,
                holds=ratio <= TARGET,
                note=", ".join(f"{s:g} MB: {x:.3f}" for s, x in zip(sizes, per_mb)),
            )
        )
    print(f"({time.perf_counter() - t_all:.1f} s in all)")
    report("testgen_parsing", figs, args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
