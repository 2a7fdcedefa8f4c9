"""Provider batch APIs: requests sent as batches (about half the price), their results collected later.

What a batch is and how a provider runs it lives here:

* :mod:`~bordir.generation.batch.state` — the batch-state file (resumable across processes);
* :mod:`~bordir.generation.batch.requests` — the Batch API's line format;
* :mod:`~bordir.generation.batch.provider` — the provider calls (OpenAI only);
* :mod:`~bordir.generation.batch.results` — the backend answering from collected results.

Submitting an experiment grid as batches and collecting them into a run
(``--submit batch`` / ``--collect``) is the runner's: :mod:`bordir.runner.batch`.
See ``docs/batch.md``.
"""

from __future__ import annotations

from .provider import BATCH_PROVIDERS, BatchError, batch_provider
from .state import BatchRecord, BatchState

__all__ = [
    "BATCH_PROVIDERS",
    "BatchError",
    "BatchRecord",
    "BatchState",
    "batch_provider",
]
