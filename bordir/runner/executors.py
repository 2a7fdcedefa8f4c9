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
from typing import TYPE_CHECKING, Any, Protocol

from ..registry import Registry

if TYPE_CHECKING:  # pragma: no cover
    from ..corpus import Corpus
    from ..dataset import BorderLines
    from ..experiment.config import ExperimentConfig
    from .grid import Prepared
    from .shard import ShardResult

__all__ = ["EXECUTORS", "Executor", "run_local"]


class Executor(Protocol):
    """Prepare the grid of ``cfg`` and run all of it; ``info`` is filled with what ``run.json`` records."""

    def __call__(
        self,
        cfg: ExperimentConfig,
        *,
        cache: Any,
        progress: bool,
        backends: dict[str, Any] | None,
        inputs: tuple[BorderLines, Corpus] | None,
        on_prepared: Callable[[Prepared], None] | None,
        on_batch: Callable[[list[dict[str, Any]]], None] | None,
        address: str | None,
        parts_dir: str | os.PathLike[str] | None,
        info: dict[str, Any],
    ) -> tuple[Prepared, ShardResult]: ...


EXECUTORS: Registry[Executor] = Registry("executor")
"""Every executor :func:`~bordir.runner.runner.execute_grid` accepts, by name."""


@EXECUTORS.register("local", description="threads in this process", address=False)
def run_local(
    cfg: ExperimentConfig,
    *,
    cache: Any,
    progress: bool,
    backends: dict[str, Any] | None,
    inputs: tuple[BorderLines, Corpus] | None,
    on_prepared: Callable[[Prepared], None] | None,
    on_batch: Callable[[list[dict[str, Any]]], None] | None,
    address: str | None,
    parts_dir: str | os.PathLike[str] | None,
    info: dict[str, Any],
) -> tuple[Prepared, ShardResult]:
    """The whole grid in this process: retrieval, then every (model, mode) through the executor's threads."""
    from .grid import prepare
    from .shard import run_shard

    prep = prepare(cfg, progress=progress, inputs=inputs)
    if on_prepared is not None:
        on_prepared(prep)
    res = run_shard(cfg, prep, backends=backends, cache=cache, progress=progress, on_batch=on_batch)
    return prep, res


EXECUTORS.register(
    "ray",
    module="bordir.runner.ray_executor",
    description="shards of model x territories as tasks on a Ray cluster (the ray extra)",
    address=True,
)
