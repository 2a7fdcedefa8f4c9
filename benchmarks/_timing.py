"""Timing helper shared by the benchmarks (run them as scripts: ``python benchmarks/<name>.py``)."""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable


def median_times(fns: dict[str, Callable[[], object]], repeats: int) -> dict[str, float]:
    """Median wall time of each ``fn()`` over ``repeats`` runs, the functions interleaved run by run."""
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            gc.collect()
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
    return {name: statistics.median(ts) for name, ts in times.items()}
