"""``bordir report`` on a large run: the whole report (numbers, plots, per-language section, view.html).

A run of the demo's grid with two mock models (``mock/planted:uk+ru+ja+zhs+zht`` and ``mock/first``;
every mode but ``swap_docs``, 2 runs, k 2) has its run-0 rows repeated over new runs
(:func:`view.synthetic`) up to ``--rows`` rows (30,000; ``--quick``: 6,000), and
:func:`bordir.report.build_report` (1,000 resamples) is timed on it, stated with no target.
Reference, in the same run: the same report with ``plots=False`` (the numbers and pages without
figures), so the note says what the plots cost. Before the second round of issue 30 (2026-12-02)
the 30,000-row report took 55-66 s on a 2-core machine, and 23-28 s after it.

Usage: ``python benchmarks/report.py [--quick] [--figures FILE]``
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from _figures import Figure, add_options, report

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))


CONFIG = (
    'models = ["mock/planted:uk+ru+ja+zhs+zht", "mock/first"]\nruns = 2\nk = 2\n'
    'modes = ["no_ir", "qlang", "qlang+en", "en_only", "rel_langs"]\n'
)


def timed_report(run: Path, copy: Path, *, plots: bool) -> float:
    from bordir.report import build_report

    shutil.copytree(run, copy)
    t = time.perf_counter()
    build_report(copy, n_resamples=1000, seed=1, plots=plots)
    return time.perf_counter() - t


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_options(ap)
    ap.add_argument("--rows", type=int, default=None)
    args = ap.parse_args(argv)
    rows = args.rows or (6_000 if args.quick else 30_000)
    from view import base_run, synthetic

    import bordir.report  # noqa: F401  (imports outside the timing)

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        big = synthetic(base_run(root, CONFIG), root / "big", rows)
        without = timed_report(big, root / "no-plots", plots=False)
        whole = timed_report(big, root / "whole", plots=True)
    figs = [
        Figure(
            f"bordir report of a {rows:,}-row run (1,000 resamples)",
            whole,
            "s",
            reference=f"the same without plots {without:.1f} s",
            ratio=whole / without,
            note=f"stated, no target; {whole / rows * 1000:.2f} ms per row",
        )
    ]
    report("report", figs, args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
