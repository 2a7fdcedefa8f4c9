"""Provider batch APIs: submit a grid's requests as batches (about half the price), collect them later.

* :mod:`~bordir.generation.batch.submit` — ``--submit batch``: the grid's uncached requests, as
  JSONL, uploaded and submitted; recorded in the run directory;
* :mod:`~bordir.generation.batch.collect` — ``--collect [--wait]``: finished batches downloaded,
  then the run written through the normal runner (same cache keys, same responses table);
* :mod:`~bordir.generation.batch.state` — the batch-state file (resumable across processes);
* :mod:`~bordir.generation.batch.requests` — the Batch API's line format;
* :mod:`~bordir.generation.batch.provider` — the provider calls (OpenAI only);
* :mod:`~bordir.generation.batch.results` — the backend answering from collected results.

See ``docs/batch.md``.
"""

from __future__ import annotations

from .collect import PENDING_EXIT, CollectReport, collect, refresh
from .provider import BATCH_PROVIDERS, BatchError, batch_provider
from .state import BatchRecord, BatchState
from .submit import SubmitReport, submit

__all__ = [
    "BATCH_PROVIDERS",
    "PENDING_EXIT",
    "BatchError",
    "BatchRecord",
    "BatchState",
    "CollectReport",
    "SubmitReport",
    "batch_provider",
    "collect",
    "refresh",
    "submit",
]
