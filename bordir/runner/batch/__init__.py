"""An experiment grid through provider batch APIs: submitted as batches, collected into a run directory.

* :mod:`~bordir.runner.batch.submit` — ``--submit batch``: the grid's uncached requests, as
  JSONL, uploaded and submitted; recorded in the run directory;
* :mod:`~bordir.runner.batch.collect` — ``--collect [--wait]``: finished batches downloaded,
  then the run written as an online run (same cache keys, same responses table).

The batch files, their state and the provider calls are generation's
(:mod:`bordir.generation.batch`). See ``docs/batch.md``.
"""

from __future__ import annotations

from .collect import PENDING_EXIT, CollectReport, collect, refresh, run_batched
from .submit import SubmitReport, submit

__all__ = [
    "PENDING_EXIT",
    "CollectReport",
    "SubmitReport",
    "collect",
    "refresh",
    "run_batched",
    "submit",
]
