"""The Ray executor: the grid sharded by (model × territories) over Ray tasks, assembled like the local run.

:func:`run_on_ray`, the ``ray`` executor of :data:`~bordir.runner.executors.EXECUTORS`,
is what ``bordir run CONFIG --executor ray [--address ADDR]`` (and
``bordir.run(..., executor="ray")``) runs: retrieval (a local dense model embeds
the corpus on Ray Data), then :func:`execute_on_ray`:

1. **Shards.** Per model, the territories (in the order the queries come) are cut
   into contiguous chunks, one Ray task each (:func:`plan_shards`): a deterministic
   slice of the grid. All the queries of a territory, in every language, land in
   the same task.
2. **Same code, same cache.** Each task runs :func:`~bordir.runner.shard.run_shard`
   (the local executor's code) on its slice with the *same* response cache file:
   the SQLite cache and its claim lease (:mod:`bordir.generation.cache`) work across
   processes, so a call is never billed twice, across workers or across re-runs.
   On a multi-node cluster the cache file must be on a filesystem every node
   sees (``docs/scale.md``).
3. **Parts.** Each task returns its rows as one Parquet part; the driver writes
   it atomically as ``PARTS/<shard>.parquet`` (``OUT/parts`` for a run directory,
   so the rows done survive the driver) and then assembles the parts into the
   responses table in the local executor's order: a stable sort on (model,
   mode, query position) over the parts, whose rows are in local order within.
   Call counts, cost usage, failures and skips are merged the same way, so
   ``run.json`` equals the local one (timings apart).

The tasks need ``bordir`` importable and the providers' API keys in their
environment (set them where the cluster starts: ``ray start``, the KubeRay pod
spec); they are never sent through Ray.
"""

from __future__ import annotations

import io
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from .._net.ray import connect, connected
from ..errors import BordirError, ConfigError
from ..experiment.config import ExperimentConfig
from .executors import EXECUTORS, GridCall
from .grid import Prepared, prepare
from .rows import RESPONSE_COLUMNS
from .shard import ShardResult, run_shard

__all__ = ["run_on_ray", "execute_on_ray", "plan_shards", "Shard", "RayShardError"]

Shard = tuple[str, str, tuple[str, ...]]  # (name, model, query ids)


def plan_shards(cfg: ExperimentConfig, prep: Prepared, per_model: int) -> list[Shard]:
    """``per_model`` contiguous chunks of territories for each model: ``(name, model, query ids)``.

    Examples:
        >>> from bordir.runner.grid import prepare
        >>> cfg = ExperimentConfig.from_dict({"models": ["mock/first", "mock/echo"], "modes": "no_ir"})
        >>> shards = plan_shards(cfg, prepare(cfg, progress=False), 2)
        >>> len(shards), shards[0][:2], shards[3][:2]
        (4, ('m0-t0', 'mock/first'), ('m1-t1', 'mock/echo'))
        >>> set(shards[0][2]).isdisjoint(shards[1][2]), set(shards[0][2]) == set(shards[2][2])
        (True, True)
    """
    territories = list(dict.fromkeys(q.territory for q in prep.queries))
    n = max(1, min(per_model, len(territories)))
    size, extra = divmod(len(territories), n)
    chunks, start = [], 0
    for i in range(n):
        end = start + size + (i < extra)
        chunks.append(set(territories[start:end]))
        start = end
    shards: list[Shard] = []
    for mi, model in enumerate(cfg.models):
        for ti, chunk in enumerate(chunks):
            qids = tuple(q.query_id for q in prep.queries if q.territory in chunk)
            shards.append((f"m{mi}-t{ti}", model, qids))
    return shards


#: dense retrievers that embed the corpus with a local model: worth sending to Ray Data
RAY_EMBEDDED = ("e5-small", "bge-m3")


def dense_retriever_on_ray(name: str, address: str | None = None) -> Any:
    """The retriever ``name`` embedding its corpus through Ray Data (None: not a local dense model).

    Examples:
        >>> dense_retriever_on_ray("bm25") is None, dense_retriever_on_ray("openai/text-embedding-3-small")
        (True, None)
    """
    if name not in RAY_EMBEDDED:
        return None
    from ..retrieval.base import get_retriever
    from ..retrieval.dense.store import EmbeddingStore

    return get_retriever(name, store=EmbeddingStore(executor="ray", address=address))


def _shard_task(
    cfg: ExperimentConfig,
    prep: Prepared,
    model: str,
    query_ids: tuple[str, ...],
    cache_path: str,
    backends: dict[str, Any] | None,
) -> tuple[bytes, ShardResult]:
    """One Ray task: the shard's rows as Parquet bytes, and its counts, usage, failures, skips."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not Path(cache_path).parent.is_dir():
        raise ConfigError(
            f"the response cache {cache_path} is not visible on this Ray node; put it on a "
            "filesystem every node mounts (cache = '/shared/...'; see docs/scale.md)"
        )
    res = run_shard(
        cfg,
        prep,
        models=[model],
        query_ids=query_ids,
        backends=backends,
        cache=cache_path,
        progress=False,
    )
    buf = io.BytesIO()
    frame = pd.DataFrame(res.rows, columns=RESPONSE_COLUMNS)
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), buf)
    res.rows = []
    return buf.getvalue(), res


def execute_on_ray(
    cfg: ExperimentConfig,
    prep: Prepared,
    *,
    cache_path: str,
    backends: dict[str, Any] | None = None,
    address: str | None = None,
    parts_dir: str | os.PathLike[str] | None = None,
    on_batch: Callable[[list[dict[str, Any]]], None] | None = None,
    shards_per_model: int | None = None,
    info: dict[str, Any] | None = None,
    progress: bool = False,
) -> ShardResult:
    """Run the grid of ``cfg`` on ``prep`` as Ray tasks; the merged result, in the local executor's order.

    Args:
        cfg: the experiment.
        prep: its prepared inputs (:func:`~bordir.runner.grid.prepare`).
        cache_path: the response cache file every task opens (shared).
        backends: ``{model: backend}`` to send to the tasks (they must pickle);
            default: each task builds its own from the model name.
        address: the cluster (see :func:`bordir._net.ray.connect`).
        parts_dir: where the parts are written (default: a temporary directory,
            removed at the end).
        on_batch: called with the rows assembled so far after each shard.
        shards_per_model: territory chunks per model (default: the cluster's CPUs).
        info: filled with what ``run.json`` records of the executor (shards, CPUs).
        progress: a progress bar of the shards done.
    """
    from .._progress import progress_bar

    ray, started = connect(address)
    temp_parts: Path | None = None
    try:
        if shards_per_model is None:
            shards_per_model = max(1, int(ray.cluster_resources().get("CPU", 1)))
        shards = plan_shards(cfg, prep, shards_per_model)
        if info is not None:
            info.update(
                address=address or os.environ.get("RAY_ADDRESS") or "local",
                shards=sum(1 for _, _, qids in shards if qids),
                cpus=int(ray.cluster_resources().get("CPU", 0)),
                ray_version=ray.__version__,
            )
        temp = parts_dir is None
        parts = Path(tempfile.mkdtemp(prefix="bordir-parts-") if parts_dir is None else parts_dir)
        if parts.exists() and not temp:
            shutil.rmtree(parts)  # parts of an earlier attempt: the cache has their calls
        parts.mkdir(parents=True, exist_ok=True)
        temp_parts = parts if temp else None  # removed however the run ends
        task = ray.remote(num_cpus=1)(_shard_task)
        prep_ref = ray.put(prep)
        backends_ref = ray.put(dict(backends)) if backends else None
        pending = {
            task.remote(cfg, prep_ref, model, qids, cache_path, backends_ref): name
            for name, model, qids in shards
            if qids
        }
        done: dict[str, tuple[Path, ShardResult]] = {}
        bar = progress_bar(progress, total=len(pending), desc="ray shards", unit="shard")
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            name = pending.pop(ready[0])
            try:
                data, res = ray.get(ready[0])
            except ray.exceptions.RayError as exc:
                raise _shard_error(ray, name, exc) from None
            from .._io.atomic import atomic_write_bytes

            done[name] = (atomic_write_bytes(parts / f"{name}.parquet", data), res)
            bar.update(1)
            if on_batch is not None:
                on_batch(_assemble(cfg, prep, done)[0])
        bar.close()
        rows, merged = _assemble(cfg, prep, done)
        shutil.rmtree(parts, ignore_errors=True)  # assembled: the run's responses table has them
        merged.rows = rows
        return merged
    finally:
        if temp_parts is not None:
            shutil.rmtree(temp_parts, ignore_errors=True)
        if started:
            ray.shutdown()


@EXECUTORS.register("ray")
def run_on_ray(cfg: ExperimentConfig, call: GridCall) -> tuple[Prepared, ShardResult]:
    """The ``ray`` executor: one cluster for the corpus embedding (local dense models) and the calls."""
    with connected(call.address):
        prep = prepare(
            cfg,
            progress=call.progress,
            inputs=call.inputs,
            retriever=dense_retriever_on_ray(cfg.retriever, call.address),
        )
        if call.on_prepared is not None:
            call.on_prepared(prep)
        res = execute_on_ray(
            cfg,
            prep,
            cache_path=os.path.abspath(call.cache.path),
            backends=call.backends,
            address=call.address,
            parts_dir=call.parts_dir,
            on_batch=call.on_batch,
            info=call.info,
            progress=call.progress,
        )
    return prep, res


class RayShardError(BordirError):
    """A Ray shard could not finish (its worker died, or it raised a bordir error there)."""


def _shard_error(ray: Any, name: str, exc: Exception) -> Exception:
    """The one-line error for a shard that failed on the cluster (a bug's traceback stays one)."""
    cause = getattr(exc, "cause", None)
    if isinstance(cause, ConfigError):
        return ConfigError(f"Ray shard {name}: {cause}")
    if isinstance(cause, BordirError):
        return RayShardError(f"Ray shard {name}: {cause}")
    if isinstance(exc, ray.exceptions.RayTaskError):
        return cast(
            "Exception", exc
        )  # an unexpected exception in bordir's code: its traceback, as locally
    why = " ".join(str(exc).split())[:300]
    return RayShardError(
        f"Ray shard {name} failed on the cluster ({type(exc).__name__}: {why}); the calls it "
        "finished are in the response cache: run the same command again to resume"
    )


def _assemble(
    cfg: ExperimentConfig, prep: Prepared, done: dict[str, tuple[Path, ShardResult]]
) -> tuple[list[dict[str, Any]], ShardResult]:
    """The parts' rows and the shards' records merged in the local executor's order."""
    import pandas as pd

    names = sorted(done)
    frames = [pd.read_parquet(done[n][0]) for n in names]
    model_ix = {m: i for i, m in enumerate(cfg.models)}
    mode_ix = {m.value: i for i, m in enumerate(prep.modes)}
    pos = {q.query_id: i for i, q in enumerate(prep.queries)}
    rows: list[dict[str, Any]] = []
    if frames:
        df = pd.concat(frames, ignore_index=True)
        keys = pd.DataFrame(
            {
                "m": df["model"].map(model_ix),
                "d": df["mode"].map(mode_ix),
                "q": df["query_id"].map(pos),
            }
        )
        order = keys.sort_values(["m", "d", "q"], kind="stable").index
        rows = df.loc[order].to_dict("records")
    merged = ShardResult()
    usage: list[tuple[tuple[int, int, int], int, Any]] = []
    failures: list[tuple[tuple[int, int, int], int, str]] = []
    for n in names:
        res = done[n][1]
        for k, v in res.calls.items():
            merged.calls[k] = merged.calls.get(k, 0) + v
        usage.extend(zip(res.keys, range(len(res.usage)), res.usage))
        failures.extend(zip(res.failure_keys, range(len(res.failures)), res.failures))
        merged.skipped.update(res.skipped)
    merged.usage = [u for _, _, u in sorted(usage, key=lambda t: (t[0], t[1]))]
    merged.failures = [f for _, _, f in sorted(failures, key=lambda t: (t[0], t[1]))]
    prep.skipped.update(merged.skipped)
    return rows, merged
