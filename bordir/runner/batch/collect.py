"""``bordir run CONFIG --out DIR --collect [--wait]``: fetch finished batches and write the run as an online run would.

Collecting works from any process (the batch ids are in the run directory's
batch-state file, :mod:`~bordir.generation.batch.state`):

1. every pending batch is retrieved; one in a terminal status (``completed``,
   ``expired``, ``cancelled``, ``failed``) has its output and error files
   downloaded, each line turned into a result keyed by the request's cache
   key (a line missing from both files fails as "not processed"), saved to
   ``OUT/batch/<id>.results.jsonl`` (secrets masked) and the batch marked
   collected. With ``wait``, retrieval repeats every ``poll`` seconds (with a
   progress bar of the batches' completed requests) until none is pending;
   without it, a batch still running leaves the call with
   :attr:`CollectReport.pending` set and no table written.
2. once nothing is pending, the grid runs as an online run (:func:`~bordir.runner.online.run_online`) with a
   :class:`~bordir.generation.batch.results.BatchResultsBackend` for each
   batched model (models without a batch API are called online): the results
   go into the same response cache, under the same keys, and the same
   ``responses.parquet`` / ``run.json`` are written as by an online run. Failed
   requests get outcome ``failed``; the next ``--submit batch`` re-submits
   exactly them. The batches' claims in the response cache
   (:mod:`~bordir.generation.batch.claims`) are released then.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..._io.json_read import loads
from ...errors import ConfigError, redactor
from ...generation.batch.provider import BatchError, batch_provider
from ...generation.batch.requests import parse_output_line
from ...generation.batch.state import TERMINAL, BatchRecord, BatchState

__all__ = ["CollectReport", "collect", "refresh"]

PENDING_EXIT = 3
"""The CLI's exit status when ``--collect`` finds a batch still running."""


@dataclass
class CollectReport:
    """What :func:`collect` did.

    Attributes:
        collected: ids of the batches collected by this call.
        pending: ``(batch id, status, completed, total)`` of the batches still running (no table written).
        run: the :class:`~bordir.runner.result.Run` written (None while a batch is pending).
        summary: the state's counts (see :meth:`BatchState.summary`).
    """

    collected: list[str] = field(default_factory=list)
    pending: list[tuple[str, str, int, int]] = field(default_factory=list)
    run: Any = None
    summary: dict[str, int] = field(default_factory=dict)


def check_poll(poll: Any) -> None:
    """Refuse a ``poll`` that is not a number of seconds in (0, 86400] (nan, inf, 1e300, -1 …)."""
    if isinstance(poll, bool) or not isinstance(poll, (int, float)) or not 0 < poll <= 86_400:
        raise ConfigError(
            f"poll must be a number of seconds > 0 and <= 86400 (a day), got {poll!r}"
        )


def _providers(state: BatchState, backends: Mapping[str, Any]) -> dict[str, Any]:
    from ...generation.backend import get_backend

    out = {}
    for model in dict.fromkeys(b.model for b in state.pending()):
        backend = backends.get(model) or get_backend(model)
        provider = batch_provider(backend)
        if provider is None:
            raise ConfigError(
                f"{model}: the batch state lists a batch of this model, but its backend has no batch API"
            )
        out[model] = provider
    return out


def _collect_one(state: BatchState, rec: BatchRecord, provider: Any) -> None:
    """Download and save the results of a batch in a terminal status; mark it collected."""
    mask = redactor(provider.secrets())
    results = {}
    for file_id in (rec.output_file_id, rec.error_file_id):
        if not file_id:
            continue
        text = provider.content(file_id).decode("utf-8", errors="replace")
        for n, raw in enumerate(text.splitlines(), 1):
            if not raw.strip():
                continue
            try:
                line = loads(raw)
            except ValueError:
                raise BatchError(
                    f"{rec.model}: line {n} of result file {file_id} of batch {rec.id} is not JSON"
                ) from None
            key, res = parse_output_line(
                line, rec.custom_ids, model=rec.model, to_result=provider.to_result
            )
            if key is None:
                continue
            res = _masked(res, mask)
            if res.ok:
                meta = dict(res.meta)
                meta["batch"] = rec.id
                res = _with_meta(res, meta)
            if res.ok or key not in results:
                results[key] = res
    why = f"batch {rec.status}" + (f": {'; '.join(rec.errors)}" if rec.errors else "")
    from ...generation.types import GenerationResult

    for key in rec.custom_ids.values():
        if key not in results:
            results[key] = GenerationResult(
                text="", model=rec.model, error=mask(f"{rec.model}: not processed ({why})")
            )
    state.write_results(rec.id, results)
    rec.failed_keys = sorted(k for k, r in results.items() if not r.ok)
    rec.collected = True


def _with_meta(res: Any, meta: dict[str, Any]) -> Any:
    import dataclasses

    return dataclasses.replace(res, meta=meta)


def _masked(res: Any, mask: Callable[[str], str]) -> Any:
    import dataclasses

    return dataclasses.replace(
        res, text=mask(res.text), error=None if res.error is None else mask(res.error)
    )


def refresh(
    state: BatchState,
    backends: Mapping[str, Any] | None = None,
    *,
    wait: bool = False,
    poll: float = 30.0,
    progress: bool = False,
    sleep: Callable[[float], object] = time.sleep,
) -> list[str]:
    """Retrieve the pending batches of ``state``, collect the finished ones; returns their ids.

    With ``wait``, poll every ``poll`` seconds until none is pending. The state is saved after
    each batch collected.
    """
    providers = _providers(state, dict(backends or {}))
    done: list[str] = []
    bar = None
    if wait and progress:
        from ..._progress import progress_bar

        total = sum(len(b.custom_ids) for b in state.pending())
        bar = progress_bar(True, total=total, desc="batches", unit="req")
    try:
        while True:
            seen = 0
            for rec in state.pending():
                info = providers[rec.model].retrieve(rec.id)
                rec.status, rec.counts = info.status, dict(info.counts)
                rec.output_file_id, rec.error_file_id = info.output_file_id, info.error_file_id
                rec.errors = list(info.errors)
                if info.status in TERMINAL:
                    _collect_one(state, rec, providers[rec.model])
                    done.append(rec.id)
                    seen += len(rec.custom_ids)
                else:
                    seen += int(info.counts.get("completed", 0)) + int(info.counts.get("failed", 0))
            seen += sum(
                len(b.custom_ids) for b in state.batches if b.collected and b.id not in done
            )
            state.save()
            if bar is not None:
                bar.n = min(seen, int(bar.total or seen))
                bar.set_postfix_str(
                    ", ".join(f"{b.id[:14]}… {b.status}" for b in state.pending()) or "done"
                )
                bar.refresh()
            if not wait or not state.pending():
                return done
            sleep(poll)
    finally:
        if bar is not None:
            bar.close()


def collect(
    cfg: Any,
    out: str | os.PathLike[str],
    *,
    wait: bool = False,
    poll: float = 30.0,
    backends: Mapping[str, Any] | None = None,
    progress: bool = True,
    sleep: Callable[[float], object] = time.sleep,
    require_batches: bool = True,
) -> CollectReport:
    """Collect the batches of run directory ``out`` and, when none is pending, write the run; see the module docs.

    Raises:
        ConfigError: no batch was ever submitted in ``out`` (unless not ``require_batches``), or
            ``poll`` is not a number of seconds in (0, 86400].
        BatchError: a retrieval or a download failed (run ``--collect`` again).
    """
    from ...experiment.writer import RunDirWriter
    from ...generation.backend import get_backend
    from ...generation.batch.results import BatchResultsBackend
    from ...generation.cache import ResponseCache
    from ..online import run_online
    from .submit import adopt_uploads

    check_poll(poll)
    out = Path(out)
    state = BatchState.load(out)
    if not state.batches and not state.uploads and require_batches:
        raise ConfigError(
            f"no batch was submitted in {str(out)!r} (no {state.path.relative_to(out)}); "
            "run `bordir run CONFIG --out DIR --submit batch` first"
        )
    backends = dict(backends or {})
    report = CollectReport()
    if state.pending() or state.uploads:
        with RunDirWriter(out):  # the run-directory lock: one collector at a time
            state = BatchState.load(out)
            with ResponseCache(cfg.cache) as cache:  # a submission interrupted during a creation
                adopt_uploads(state, backends, cache)
            report.collected = refresh(
                state, backends, wait=wait, poll=poll, progress=progress, sleep=sleep
            )
    report.summary = state.summary()
    report.pending = [
        (b.id, b.status, int(b.counts.get("completed", 0)), len(b.custom_ids))
        for b in state.pending()
    ]
    if report.pending:
        return report
    grid_backends: dict[str, Any] = {}
    for model in cfg.models:
        online = backends.get(model) or get_backend(model)
        if batch_provider(online) is None:
            grid_backends[model] = online
            continue
        grid_backends[model] = BatchResultsBackend(
            model, state.results(model), secrets=tuple(online.secrets())
        )
    report.run = run_online(cfg, out, progress=progress, backends=grid_backends)
    with ResponseCache(cfg.cache) as cache:  # their answers are in the cache now
        cache.release_batch_claims(b.id for b in state.batches if b.collected)
    return report


def run_batched(
    cfg: Any,
    out: str | os.PathLike[str] | None,
    *,
    backends: Mapping[str, Any] | None = None,
    poll: float = 30.0,
    progress: bool = True,
    sleep: Callable[[float], object] = time.sleep,
) -> Any:
    """``bordir.run(cfg, out=out, batch=True)``: submit, wait for the batches, collect; returns the Run.

    Raises:
        ConfigError: ``out`` is None (the batch state needs a run directory).
    """
    from .submit import submit

    check_poll(poll)
    if out is None:
        raise ConfigError(
            "batch=True needs a run directory for the batch state: pass out='runs/exp1'"
        )
    submit(cfg, out, backends=backends, progress=progress)
    return collect(
        cfg,
        out,
        wait=True,
        poll=poll,
        backends=backends,
        progress=progress,
        sleep=sleep,
        require_batches=False,  # everything may have been cached already
    ).run
