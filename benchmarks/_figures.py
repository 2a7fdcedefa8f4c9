"""The figure a benchmark reports, and the protocol every benchmark script follows.

A benchmark script (``benchmarks/<name>.py``) measures bordir and a reference
in the same run and reports :class:`Figure` objects through :func:`report`.
Every script accepts two options added by :func:`add_options`:

``--quick``
    a smaller workload that still exercises the same code (the whole
    ``python -m benchmarks --quick`` must finish in under 3 minutes);
``--figures FILE``
    also write the figures as JSON to FILE; ``python -m benchmarks`` runs each
    script in its own process with this option and prints one table.

Example (inside a script)::

    from _figures import Figure, add_options, report

    ap = argparse.ArgumentParser()
    add_options(ap)
    args = ap.parse_args()
    figs = [Figure("bm25 build", 1.8, "s", target="≤ 1.2× bm25s",
                   reference="bm25s 1.5 s", ratio=1.2, holds=True)]
    report("retrieval", figs, args)
"""

from __future__ import annotations

import argparse
import compileall
import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path


def ensure_bytecode() -> None:
    """Compile bordir's modules to bytecode, as an installed package has them.

    With ``PYTHONDONTWRITEBYTECODE`` set (or after an edit), every timed child would otherwise
    compile the changed modules again: start-up figures would include a compile no user pays twice.
    """
    compileall.compile_dir(Path(__file__).resolve().parents[1] / "bordir", quiet=1)


ensure_bytecode()  # every benchmark script imports this module before it times anything


@dataclass(frozen=True)
class Figure:
    """One measured figure: its value, the target it is held to and the reference it is compared to.

    Attributes:
        name: what was measured, e.g. ``"1M response rows: CS + 1,000 resamples"``.
        value: the measured value, in ``unit``.
        unit: ``"s"``, ``"MB"``, ``"calls/s"``, ``"ms"``, ``"×"``, ``"share"``, ...
        target: the target in words, e.g. ``"≤ 10 s"``; ``None`` for a figure reported only.
        reference: what it is compared to in the same run, with its value, e.g. ``"bm25s 1.52 s"``.
        ratio: value relative to the reference (the direction is stated in ``target``), if any.
        holds: whether the target holds; ``None`` when there is no target or it could not be measured.
        note: anything the reader needs (e.g. ``"reference not installed: skipped"``).
    """

    name: str
    value: float
    unit: str
    target: str | None = None
    reference: str | None = None
    ratio: float | None = None
    holds: bool | None = None
    note: str = ""


def add_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--quick`` and ``--figures FILE`` to a benchmark script's parser."""
    parser.add_argument(
        "--quick", action="store_true", help="a smaller workload (for python -m benchmarks --quick)"
    )
    parser.add_argument("--figures", help="also write the figures as JSON to this file")


def _fmt(x: float | None) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    if abs(x) >= 10:
        return f"{x:.1f}"
    return f"{x:.3g}"


def format_table(rows: list[tuple[str, Figure]]) -> str:
    """One text table of ``(benchmark, figure)`` rows."""
    head = ("benchmark", "figure", "value", "target", "reference", "ratio", "holds")
    body = [
        (
            bench,
            f.name,
            f"{_fmt(f.value)} {f.unit}",
            f.target or "",
            f.reference or "",
            "" if f.ratio is None else f"{_fmt(f.ratio)}×",
            {True: "yes", False: "NO", None: "–"}[f.holds],
        )
        for bench, f in rows
    ]
    widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(head, widths)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in body]
    notes = [f"  [{b}] {f.name}: {f.note}" for b, f in rows if f.note]
    if notes:
        lines += ["", "notes:", *notes]
    return "\n".join(lines)


def report(benchmark: str, figures: list[Figure], args: argparse.Namespace) -> None:
    """Print the figures as a table and, with ``--figures FILE``, write them as JSON."""
    print(format_table([(benchmark, f) for f in figures]))
    path = getattr(args, "figures", None)
    if path:
        Path(path).write_text(
            json.dumps({"benchmark": benchmark, "figures": [asdict(f) for f in figures]}),
            encoding="utf-8",
        )


def load(path: str | Path) -> tuple[str, list[Figure]]:
    """Read a ``--figures`` file back."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return data["benchmark"], [Figure(**f) for f in data["figures"]]
