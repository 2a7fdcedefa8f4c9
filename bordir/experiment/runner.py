"""The mode-comparison runner: retrieve, prompt, call, parse — one row per (query, mode, model, run).

:func:`execute_grid` computes a run in memory (what :func:`bordir.run` returns
as a :class:`~bordir.experiment.run.Run`); with a run directory it also writes,
as it goes (:mod:`~bordir.experiment.record`):

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
:class:`~bordir.metrics.signature.Signature` class: mode, the retriever with its
parameters (fusion, balanced, depth), k, the relevance filter, model, prompt
format, system prompt, instruction language, temperature, runs, policy, the
dataset hash, the corpus hash and the bordir version.

Backends that score options (``local/…`` rank classification) are called once
per (query, mode): the option scores do not depend on the seed, and each run
samples its answer from the softmax over options at the configured
temperature with the run's seed.

The grid runs here (``executor="local"``) or sharded by (model × territories)
over a Ray cluster (``executor="ray"``, :mod:`~bordir.experiment.ray_executor`);
both run :func:`run_shard` on their slice and give the same rows.

The pieces live in one file each: the inputs and the calls
(:mod:`~bordir.experiment.grid`), the rows and their table
(:mod:`~bordir.experiment.rows`), the execution (here).
"""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..corpus import Corpus
from ..dataset import BorderLines
from .config import ExperimentConfig
from .grid import Prepared, _Item, _items, _label, _query_orders, prepare, run_signature
from .inputs import load_inputs
from .rows import RESPONSE_COLUMNS, _in_given_order, _rows, responses_frame

__all__ = [
    "run_experiment",
    "execute_grid",
    "run_shard",
    "prepare",
    "run_signature",
    "responses_frame",
    "load_inputs",
    "RESPONSE_COLUMNS",
    "EXECUTORS",
    "Prepared",
    "GridResult",
    "ShardResult",
]

#: the executors :func:`execute_grid` accepts
EXECUTORS = ("local", "ray")

# re-exported for the modules that import them from here
_ = (_Item, _query_orders, _in_given_order)


def _executor_options(cfg: ExperimentConfig) -> dict[str, Any]:
    """The operational settings the executor accepts (only those set, only parameters it has)."""
    from ..generation.executor import execute

    params = inspect.signature(execute).parameters
    out: dict[str, Any] = {"concurrency": cfg.concurrency}
    for name in ("timeout", "max_retries", "deadline", "max_consecutive_failures"):
        value = getattr(cfg, name)
        if value is not None and name in params:
            out[name] = value
    return out


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


@dataclass
class ShardResult:
    """What :func:`run_shard` computed for one slice of the grid.

    ``keys[i]`` is the ``(model index, mode index, query position)`` of
    ``usage[i]``; ``failure_keys`` those of ``failures``: the order of the local
    executor is restored by a stable sort on them.
    """

    rows: list[dict[str, Any]] = field(default_factory=list)
    calls: dict[str, int] = field(default_factory=lambda: {"requests": 0, "cached": 0, "failed": 0})
    usage: list[tuple[Any, Any, str]] = field(default_factory=list)
    keys: list[tuple[int, int, int]] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    failure_keys: list[tuple[int, int, int]] = field(default_factory=list)
    skipped: dict[tuple[str, str], str] = field(default_factory=dict)


def run_shard(
    cfg: ExperimentConfig,
    prep: Prepared,
    *,
    models: Collection[str] | None = None,
    query_ids: Collection[str] | None = None,
    backends: dict[str, Any] | None = None,
    cache: Any = None,
    progress: bool = True,
    on_batch: Callable[[list[dict[str, Any]]], None] | None = None,
) -> ShardResult:
    """Run the (model, mode) batches of ``cfg`` on ``prep`` for ``models`` × ``query_ids`` (default: all).

    The skips found on the way are added to ``prep.skipped`` and returned in
    :attr:`ShardResult.skipped`.

    Examples:
        >>> cfg = ExperimentConfig.from_dict({"models": ["mock/first"], "modes": "no_ir", "runs": 2})
        >>> import tempfile
        >>> prep = prepare(cfg, progress=False)
        >>> one = sorted({q.query_id for q in prep.queries})[:3]
        >>> res = run_shard(cfg, prep, query_ids=one, cache=tempfile.mkdtemp() + "/c.sqlite3",
        ...                 progress=False)
        >>> len(res.rows), res.calls
        (6, {'requests': 6, 'cached': 0, 'failed': 0})
    """
    from ..generation.backend import get_backend
    from ..generation.cache import ResponseCache
    from ..generation.executor import execute

    if cache is None or isinstance(cache, (str, Path)):
        cache = ResponseCache(cache if cache is not None else cfg.cache)
    wanted = None if query_ids is None else set(query_ids)
    queries = [q for q in prep.queries if wanted is None or q.query_id in wanted]
    position = {q.query_id: i for i, q in enumerate(prep.queries)}
    out = ShardResult()
    before = dict(prep.skipped)
    backends = dict(backends or {})
    options = _executor_options(cfg)
    sub = prep if wanted is None else _subset(prep, queries)
    for mi, model in enumerate(cfg.models):
        if models is not None and model not in models:
            continue
        backend = backends.get(model) or get_backend(model)
        rank = (
            getattr(backend, "supports_rank_classification", False)
            and cfg.response_format == "direct"
        )
        cf = (
            _calibrate(cfg, sub, backend, model, cache, out.calls, out.usage)
            if rank and cfg.calibrate
            else {}
        )
        for di, mode in enumerate(prep.modes):
            items = _items(
                cfg,
                prep.dataset,
                queries,
                mode,
                model,
                rank,
                prep.docs_by,
                prep.skipped,
                prep.provenance_by,
            )
            names = {id(it.request): _label(it) for it in items}
            results = execute(
                backend,
                [it.request for it in items],
                cache=cache,
                progress=progress,
                desc=f"{model} {mode.value}",
                label=functools.partial(_name_of, names),
                **options,
            )
            sig = str(run_signature(cfg, prep, model, mode.value))
            for it, res in zip(items, results):
                key = (mi, di, position[it.query.query_id])
                out.calls["requests"] += 1
                out.calls["cached"] += bool(res.cached)
                out.calls["failed"] += not res.ok
                if not res.ok:
                    out.failures.append(f"{_label(it)} ({model}): {res.error}")
                    out.failure_keys.append(key)
                out.usage.append((it.request, res, it.query.lang))
                out.keys.append(key)
                new = _rows(cfg, it, res, sig, rank)
                for r in new:
                    r["cf_logprobs"] = (
                        cf.get(it.query.query_id) if r["option_order"] == "given" else None
                    )
                out.rows.extend(new)
            if on_batch is not None:
                on_batch(out.rows)
    out.skipped = {k: v for k, v in prep.skipped.items() if k not in before}
    return out


def _name_of(names: dict[int, str], request: Any) -> str:
    """The label of ``request`` in progress bars and errors (``names``: by the request's id)."""
    return names.get(id(request), "?")


def _subset(prep: Prepared, queries: list[Any]) -> Prepared:
    """``prep`` restricted to ``queries`` (what the calibration of a shard sees)."""
    import dataclasses

    return dataclasses.replace(prep, queries=queries)


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
        executor: ``"local"`` (threads in this process) or ``"ray"`` (shards of
            model × territories as Ray tasks; see :mod:`~bordir.experiment.ray_executor`).
        address: the Ray cluster to connect to (``"auto"``, ``"ray://head:10001"``,
            ``"127.0.0.1:6379"``); default: ``$RAY_ADDRESS``, else a local cluster.
        parts_dir: where the Ray shards write their Parquet parts (default: a
            temporary directory; :func:`bordir.run` passes ``OUT/parts``).
    """
    from ..errors import ConfigError
    from ..generation.cache import ResponseCache

    if executor not in EXECUTORS:
        raise ConfigError(f"unknown executor {executor!r}; valid: {', '.join(EXECUTORS)}")
    if executor == "local" and address is not None:
        raise ConfigError("--address is for --executor ray; drop it or add --executor ray")
    if cache is None or isinstance(cache, (str, Path)):
        cache = ResponseCache(cache if cache is not None else cfg.cache)
    info: dict[str, Any] = {"name": executor}
    if executor == "local":
        prep = prepare(cfg, progress=progress, inputs=inputs)
        if on_prepared is not None:
            on_prepared(prep)
        res = run_shard(
            cfg, prep, backends=backends, cache=cache, progress=progress, on_batch=on_batch
        )
    else:
        from .ray_executor import connected, dense_retriever_on_ray, execute_on_ray

        with connected(address):  # one cluster for the corpus embedding and the calls
            prep = prepare(
                cfg,
                progress=progress,
                inputs=inputs,
                retriever=dense_retriever_on_ray(cfg.retriever, address),
            )
            if on_prepared is not None:
                on_prepared(prep)
            res = execute_on_ray(
                cfg,
                prep,
                cache_path=os.path.abspath(cache.path),
                backends=backends,
                address=address,
                parts_dir=parts_dir,
                on_batch=on_batch,
                info=info,
                progress=progress,
            )
    return GridResult(
        prep, res.rows, res.calls, res.usage, os.path.abspath(cache.path), res.failures, info
    )


def _calibrate(
    cfg: ExperimentConfig,
    prep: Prepared,
    backend: Any,
    model: str,
    cache: Any,
    calls: dict[str, int],
    usage: list,
) -> dict[str, list[float] | None]:
    """Content-free option scores per query (given order), for contextual calibration (experiment.calibration)."""
    from .calibration import run_calibration
    from .orders import OptionOrder

    triples = [(q, OptionOrder.identity(len(q.options)), q) for q in prep.queries]
    table = run_calibration(
        backend,
        triples,
        model=model,
        system=cfg.system,
        instruction_lang=cfg.instruction_lang,
        countries=prep.dataset.countries,
        cache=cache,
        concurrency=cfg.concurrency,
    )
    # counted apart from the grid's requests: they add no response row
    calls["calibration"] = calls.get("calibration", 0) + len(table)
    calls["calibration_cached"] = calls.get("calibration_cached", 0) + int(table["cached"].sum())
    calls["calibration_failed"] = calls.get("calibration_failed", 0) + int(
        table["error"].notna().sum()
    )
    return dict(zip(table["query_id"], table["cf_logprobs"]))


def run_experiment(
    cfg: ExperimentConfig,
    out_dir: str | Path,
    *,
    progress: bool = True,
    backends: dict[str, Any] | None = None,
    executor: str = "local",
    address: str | None = None,
) -> Path:
    """Run the grid of ``cfg`` into ``out_dir`` (resumable; see module docs). Returns ``out_dir``."""
    from .run import run

    kw: dict[str, Any] = {} if executor == "local" else {"executor": executor, "address": address}
    run(cfg, out=out_dir, progress=progress, backends=backends, **kw)
    return Path(out_dir)
