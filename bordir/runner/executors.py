"""Where the grid's calls run: the executor registry, ``local`` (this process) and ``ray`` (a cluster).

An executor is a function that prepares the grid's inputs (load, retrieve) and
runs every call of it, returning the :class:`~bordir.runner.grid.Prepared`
inputs and the merged :class:`~bordir.runner.shard.ShardResult`; both built-ins
give the same rows. :func:`~bordir.runner.runner.execute_grid` looks one up by
name in :data:`EXECUTORS`, and ``bordir run --executor`` takes its choices from
it. An entry's ``address`` metadata says whether it connects to a cluster (and
so accepts ``address=``).

Example:
    >>> EXECUTORS.names(), EXECUTORS.entry("ray", load=False).meta["address"]
    (('local', 'ray'), True)
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ..registry import Registry

if TYPE_CHECKING:  # pragma: no cover
    from ..corpus import Corpus
    from ..dataset import BorderLines
    from ..experiment.config import ExperimentConfig
    from .grid import Prepared
    from .shard import ShardResult

__all__ = ["EXECUTORS", "Executor", "GridCall", "run_local"]


@dataclass(frozen=True)
class GridCall:
    """What :func:`~bordir.runner.runner.execute_grid` hands an executor besides the config."""

    cache: Any
    """The response cache (a :class:`~bordir.generation.cache.ResponseCache`)."""
    progress: bool
    backends: dict[str, Any] | None
    """Backends by model name, built by the caller (tests, plugins); None: built from the config."""
    inputs: tuple[BorderLines, Corpus] | None
    """The dataset and corpus, already loaded; None: loaded from the config."""
    on_prepared: Callable[[Prepared], None] | None
    """Called once the grid's inputs are prepared (before any call)."""
    on_batch: Callable[[list[dict[str, Any]]], None] | None
    """Called with each batch of finished response rows."""
    address: str | None
    """The cluster to connect to (executors whose ``address`` metadata is true)."""
    parts_dir: str | os.PathLike[str] | None
    """Where shards write their parts (the run directory's), if anywhere."""
    info: dict[str, Any]
    """Filled with what ``run.json`` records about the execution."""


class Executor(Protocol):
    """Prepare the grid of ``cfg`` and run all of it; ``call.info`` is filled with what ``run.json`` records."""

    def __call__(self, cfg: ExperimentConfig, call: GridCall) -> tuple[Prepared, ShardResult]: ...


EXECUTORS: Registry[Executor] = Registry("executor")
"""Every executor :func:`~bordir.runner.runner.execute_grid` accepts, by name."""


@EXECUTORS.register("local", description="threads in this process", address=False)
def run_local(cfg: ExperimentConfig, call: GridCall) -> tuple[Prepared, ShardResult]:
    """The whole grid in this process: retrieval, then every (model, mode) through the executor's threads."""
    from .grid import prepare
    from .shard import run_shard

    prep = prepare(cfg, progress=call.progress, inputs=call.inputs)
    if call.on_prepared is not None:
        call.on_prepared(prep)
    res = run_shard(
        cfg,
        prep,
        backends=call.backends,
        cache=call.cache,
        progress=call.progress,
        on_batch=call.on_batch,
    )
    return prep, res


EXECUTORS.register(
    "ray",
    module="bordir.runner.ray_executor",
    description="shards of model x territories as tasks on a Ray cluster (the ray extra)",
    address=True,
)
