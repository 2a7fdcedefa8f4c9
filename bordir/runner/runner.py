"""The mode-comparison runner: retrieve, prompt, call, parse — one row per (query, mode, model, run).

:func:`execute_grid` computes a run in memory (what :func:`bordir.run` returns
as a :class:`~bordir.runner.result.Run`); with a run directory it also writes,
as it goes (:mod:`~bordir.experiment.writer`):

* ``hits.parquet`` — the retrieval run (all modes, ``depth`` hits, skips in its
  metadata; each hit with its passage's title, revision id and fetch time);
* ``responses.parquet`` — one row per (query, mode, model, run): the rendered
  prompt, raw text, parsed outcome and choice, cited documents, the prompt's
  document ids, languages, titles, revision ids and fetch times, tokens, latency, cache
  status, the error if the call failed, and the row's signature;
* ``run.json`` — config, package versions, git revision, dataset / corpus /
  retrieval signatures and hashes, the response cache's path, start and end
  time, call counts, skipped queries, and ``status`` (``incomplete`` until the
  last write).

Every call goes through the response cache (always: the default is
``$BORDIR_CACHE/responses.sqlite3``) and is stored the moment it finishes, so an
interrupted run loses at most the calls in flight and a re-run re-bills nothing.

Each row's signature is built by :func:`run_signature` through the one
:class:`~bordir.signature.Signature` class: mode, the retriever with its
parameters (fusion, balanced, depth), k, the relevance filter, model, prompt
format, system prompt, instruction language, temperature, runs, policy, the
dataset hash, the corpus hash and the bordir version.

The grid runs in this process (``executor="local"``) or sharded by (model ×
territories) over a Ray cluster (``executor="ray"``,
:mod:`~bordir.runner.ray_executor`): the executors of
:data:`~bordir.runner.executors.EXECUTORS`, which both run
:func:`~bordir.runner.shard.run_shard` on their slice and give the same rows.

The pieces live in one file each: the inputs and the calls
(:mod:`~bordir.runner.grid`), one slice of calls (:mod:`~bordir.runner.shard`),
the rows and their table (:mod:`~bordir.runner.rows`), the executors
(:mod:`~bordir.runner.executors`), the whole grid (here).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..corpus import Corpus
from ..dataset import BorderLines
from ..errors import ConfigError
from ..experiment.config import ExperimentConfig
from .executors import EXECUTORS, GridCall
from .grid import Prepared

__all__ = ["execute_grid", "GridResult"]


@dataclass
class GridResult:
    """What :func:`execute_grid` computed: the inputs, the rows and the call counts."""

    prepared: Prepared
    rows: list[dict[str, Any]]
    calls: dict[str, int]
    usage: list[tuple[Any, Any, str]]
    cache_path: str
    failures: list[str]
    executor: dict[str, Any] = field(default_factory=lambda: {"name": "local"})


def execute_grid(
    cfg: ExperimentConfig,
    *,
    progress: bool = True,
    backends: dict[str, Any] | None = None,
    cache: Any = None,
    inputs: tuple[BorderLines, Corpus] | None = None,
    on_prepared: Callable[[Prepared], None] | None = None,
    on_batch: Callable[[list[dict[str, Any]]], None] | None = None,
    executor: str = "local",
    address: str | None = None,
    parts_dir: str | os.PathLike[str] | None = None,
) -> GridResult:
    """Run every (model, mode) of ``cfg``; call ``on_prepared`` after retrieval and ``on_batch`` after each batch.

    Args:
        cfg: the experiment.
        progress: show progress bars.
        backends: ``{model: backend}`` to use instead of building them from the model names.
        cache: a :class:`~bordir.generation.cache.ResponseCache`, or its file (default: the
            config's ``cache``).
        inputs: the dataset and corpus, already loaded (default: loaded from the config).
        on_prepared: called with the prepared inputs before the first call.
        on_batch: called with each batch of finished response rows.
        executor: a name of :data:`~bordir.runner.executors.EXECUTORS`: ``"local"``
            (threads in this process) or ``"ray"`` (shards of model × territories as
            Ray tasks; see :mod:`~bordir.runner.ray_executor`).
        address: the Ray cluster to connect to (``"auto"``, ``"ray://head:10001"``,
            ``"127.0.0.1:6379"``); default: ``$RAY_ADDRESS``, else a local cluster.
        parts_dir: where the Ray shards write their Parquet parts (default: a
            temporary directory; :func:`bordir.run` passes ``OUT/parts``).
    """
    from ..generation.cache import ResponseCache

    if executor not in EXECUTORS:
        raise ConfigError(f"unknown executor {executor!r}; valid: {', '.join(EXECUTORS.names())}")
    if address is not None and not EXECUTORS.entry(executor, load=False).meta.get("address"):
        clusters = [e.name for e in EXECUTORS.entries() if e.meta.get("address")]
        raise ConfigError(
            f"--address is for --executor {' / '.join(clusters)}; drop it or add --executor "
            f"{clusters[0]}"
        )
    if cache is None or isinstance(cache, (str, Path)):
        cache = ResponseCache(cache if cache is not None else cfg.cache)
    info: dict[str, Any] = {"name": executor}
    call = GridCall(
        cache=cache,
        progress=progress,
        backends=backends,
        inputs=inputs,
        on_prepared=on_prepared,
        on_batch=on_batch,
        address=address,
        parts_dir=parts_dir,
        info=info,
    )
    prep, res = EXECUTORS.get(executor)(cfg, call)
    return GridResult(
        prep, res.rows, res.calls, res.usage, os.path.abspath(cache.path), res.failures, info
    )
