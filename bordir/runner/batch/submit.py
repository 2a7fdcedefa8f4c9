"""``bordir run CONFIG --out DIR --submit batch``: write the grid's uncached requests as batches and submit them.

For every model of the config whose provider has a batch API
(:data:`~bordir.generation.batch.provider.BATCH_PROVIDERS`), the requests the
grid needs are built exactly as an online run builds them (same prompts, same
cache keys), then dropped when they are

* already in the response cache (a batch never pays for a cached answer),
* in a batch of this run directory that is still pending (a second ``--submit``
  does not resubmit), or in a pending batch of another run directory sharing the
  cache (its claims in the cache, :mod:`~bordir.generation.batch.claims`), or
* answered by a collected batch.

What is left (on a first submission: everything; after a partly failed batch:
exactly its failed requests) is written to ``OUT/batch/<n>.input.jsonl``,
uploaded and submitted, at most 50,000 lines per batch, and recorded in the
batch-state file (:mod:`~bordir.generation.batch.state`) before the call
returns; the response cache records that the batch holds its keys, so that no
run on that cache calls them online meanwhile. Models of other providers are left to ``--collect``, which calls them
online.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...generation.batch.claims import WINDOW, held_by_batches
from ...generation.batch.provider import MAX_LINES, BatchError, batch_provider
from ...generation.batch.requests import custom_id_for, request_line, to_jsonl
from ...generation.batch.state import BatchRecord, BatchState
from ...generation.cache import BatchClaim

__all__ = ["SubmitReport", "submit", "grid_requests", "adopt_uploads"]


@dataclass
class SubmitReport:
    """What :func:`submit` did.

    Attributes:
        batches: ``(batch id, model, requests)`` of each batch submitted now.
        cached: distinct requests skipped because the cache has them.
        pending: distinct requests skipped because a pending batch holds them.
        answered: distinct requests skipped because a collected batch answered them.
        online_models: models without a batch API (``--collect`` calls them online).
        state: the batch-state file.
        recovered: ids of batches whose creation an earlier, interrupted call had sent
            (found at the provider by their input file, or created from it now).
    """

    batches: list[tuple[str, str, int]] = field(default_factory=list)
    cached: int = 0
    pending: int = 0
    answered: int = 0
    online_models: list[str] = field(default_factory=list)
    state: Path | None = None
    recovered: list[str] = field(default_factory=list)

    @property
    def submitted(self) -> int:
        return sum(n for _, _, n in self.batches)


def grid_requests(cfg: Any, prep: Any, model: str, backend: Any) -> list[tuple[Any, str]]:
    """``(request, query language)`` of every distinct request the grid asks ``model``, in grid order."""
    from ..grid import grid_items

    rank = getattr(backend, "supports_rank_classification", False) and (
        cfg.response_format == "direct"
    )
    seen: dict[str, tuple[Any, str]] = {}
    for mode in prep.modes:
        for it in grid_items(
            cfg,
            prep.dataset,
            prep.queries,
            mode,
            model,
            rank,
            prep.docs_by,
            dict(prep.skipped),
            prep.provenance_by,
        ):
            seen.setdefault(it.request.cache_key(), (it.request, it.query.lang))
    return list(seen.values())


def submit(
    cfg: Any,
    out: str | os.PathLike[str],
    *,
    backends: Mapping[str, Any] | None = None,
    progress: bool = False,
    prepared: Any = None,
) -> SubmitReport:
    """Submit the grid of ``cfg`` as provider batches recorded in ``out``; see the module docs.

    Args:
        cfg: the :class:`~bordir.experiment.config.ExperimentConfig`.
        out: the run directory (its ``batch/`` folder holds the state and the input files).
        backends: ``{model: backend}`` to use instead of building them.
        progress: progress bars for retrieval.
        prepared: the grid's inputs when already computed (:func:`bordir.runner.grid.prepare`).

    Raises:
        BatchError: an upload or a batch creation failed (the batches submitted before stay recorded).
    """
    from ...experiment.writer import RunDirWriter
    from ..grid import prepare

    out = Path(out)
    prep = prepared if prepared is not None else prepare(cfg, progress=progress)
    with RunDirWriter(out):  # the run-directory lock: one submitter (or collector) at a time
        return _submit(cfg, out, prep, dict(backends or {}))


def _claim(cache: Any, state: BatchState, upload: dict[str, Any], batch_id: str) -> None:
    """Record in the response cache that the batch of ``upload`` holds its keys (see claims)."""
    if cache is None:
        return
    cache.claim_for_batch(
        upload["custom_ids"].values(),
        BatchClaim(batch_id, upload["file_id"], str(state.run_dir.resolve()), time.time() + WINDOW),
    )


def _record(state: BatchState, upload: dict[str, Any], info: Any, cache: Any = None) -> None:
    """Record the batch ``info`` made from ``upload``, in place of the upload."""
    state.uploads.remove(upload)
    state.add(
        BatchRecord(
            id=info.id,
            model=upload["model"],
            provider=upload["provider"],
            input_file_id=upload["file_id"],
            custom_ids=dict(upload["custom_ids"]),
            status=info.status,
            counts=dict(info.counts),
        )
    )
    _claim(cache, state, upload, info.id)


def _create(state: BatchState, upload: dict[str, Any], provider: Any, cache: Any = None) -> Any:
    """Create the batch of a recorded upload and record it.

    Only a definite refusal (a 4xx) forgets the upload. When no answer came back (a connection
    error, a timeout, a 5xx such as a proxy's 502) the provider may have created the batch: the
    upload stays in the state, and the next submit or collect looks the batch up by its input file
    (:func:`adopt_uploads`) before it would create one.
    """
    try:
        info = provider.create(upload["file_id"])
    except BatchError as exc:
        if exc.refused:  # the provider answered no: no batch was created
            state.uploads.remove(upload)
            state.save()
            raise
        state.save()
        raise BatchError(
            f"{exc}; a batch may exist at the provider for input file {upload['file_id']} "
            f"(kept in {state.path}): the next `bordir run CONFIG --out DIR --submit batch` or "
            "`--collect` looks it up by its input file and creates it only if it is not there, "
            "so nothing is billed twice",
            status=exc.status,
        ) from None
    _record(state, upload, info, cache)
    return info


def adopt_uploads(state: BatchState, backends: Mapping[str, Any], cache: Any = None) -> list[str]:
    """Record the batches of uploads whose creation was interrupted; returns their ids.

    An upload is in the state between the file's upload and the batch's creation being recorded.
    If the process died in between, the provider may or may not have created the batch: it is
    looked up by its input file (``batches.list``) and adopted, or else created now from the
    same file; it is never created twice.
    """
    from ...generation.backend import get_backend

    ids = []
    for upload in list(state.uploads):
        provider = batch_provider(backends.get(upload["model"]) or get_backend(upload["model"]))
        if provider is None:  # pragma: no cover - only batch models are uploaded
            raise BatchError(f"{upload['model']}: an upload of this model but no batch API")
        info = provider.find_by_input(upload["file_id"])
        if info is None:
            info = _create(state, upload, provider, cache)
        else:
            _record(state, upload, info, cache)
        state.save()
        ids.append(info.id)
    return ids


def _submit(cfg: Any, out: Path, prep: Any, backends: dict[str, Any]) -> SubmitReport:
    from ..._io.atomic import atomic_write_bytes
    from ...generation.backend import get_backend
    from ...generation.cache import ResponseCache

    state = BatchState.load(out)
    report = SubmitReport(state=state.path)
    with ResponseCache(cfg.cache) as cache:
        report.recovered = adopt_uploads(state, backends, cache)
        pending, answered = state.pending_keys(), state.succeeded_keys()
        for model in cfg.models:
            backend = backends.get(model) or get_backend(model)
            provider = batch_provider(backend)
            if provider is None:
                report.online_models.append(model)
                continue
            wanted = grid_requests(cfg, prep, model, backend)
            in_cache = cache.contains_keys(r.cache_key() for r, _ in wanted)
            # held by a pending batch of another run directory on this cache
            elsewhere = held_by_batches(cache, (r.cache_key() for r, _ in wanted))
            todo = []
            for request, _ in wanted:
                key = request.cache_key()
                if key in in_cache:
                    report.cached += 1
                elif key in pending or key in elsewhere:
                    report.pending += 1
                elif key in answered:
                    report.answered += 1
                else:
                    todo.append(request)
            for start in range(0, len(todo), MAX_LINES):
                chunk = todo[start : start + MAX_LINES]
                ids = {custom_id_for(r.cache_key()): r.cache_key() for r in chunk}
                if len(ids) != len(chunk):  # pragma: no cover - 160-bit prefixes do not collide
                    raise BatchError(f"{model}: two requests share a custom_id; report this bug")
                lines = [
                    request_line(provider.body(r), custom_id_for(r.cache_key())) for r in chunk
                ]
                n = len(state.batches)
                data = to_jsonl(lines)
                name = f"{n:04d}.input.jsonl"
                (out / "batch").mkdir(parents=True, exist_ok=True)
                atomic_write_bytes(out / "batch" / name, data)  # what was sent, for auditing
                file_id = provider.upload(data, f"bordir-{out.name}-{name}")
                upload = {
                    "file_id": file_id,
                    "model": model,
                    "provider": provider.name,
                    "custom_ids": ids,
                }
                state.uploads.append(upload)
                state.save()  # a crash during the creation: the next call adopts or creates it
                _claim(cache, state, upload, "")  # no run on this cache calls them meanwhile
                info = _create(state, upload, provider, cache)
                state.save()  # at once: a crash after this point loses no batch id
                report.batches.append((info.id, model, len(chunk)))
    state.save()
    return report
