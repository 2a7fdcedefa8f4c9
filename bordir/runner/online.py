"""A run computed by calls made now (online, not through a batch API): :func:`run_online`.

The grid runs through :func:`~bordir.runner.runner.execute_grid`; with a run
directory, it is written as it goes (:class:`~bordir.experiment.writer.RunDirWriter`):
once the inputs are prepared and checked (:func:`~bordir.runner.preflight.preflight`:
backends built, keys present, the response format serving every mode), the record is
marked incomplete, then ``hits.parquet`` is written, ``responses.parquet`` after each
(model, mode), and the complete ``run.json`` and record last. A run refused by its checks
leaves the directory as it was. A run directory whose provider batches are still pending is
refused (under its lock): an online run would pay for their requests a second
time. :func:`bordir.run` and the batch collector
(:mod:`bordir.runner.batch.collect`, whose backends answer from the collected
results) both end here.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

from .._version import __version__
from ..experiment.config import ExperimentConfig
from ..provenance import git_revision, now_iso, package_versions
from .result import Run, normalized, plain

__all__ = ["run_online", "refuse_if_batches_pending"]


def _info(
    cfg: ExperimentConfig, grid: Any, started: str, status: str = "complete"
) -> dict[str, Any]:
    from ..generation.cost import summarize as summarize_cost

    prep = grid.prepared
    ds, corpus, retrieval = prep.dataset, prep.corpus, prep.retrieval
    rows = grid.rows
    return plain(
        {
            "bordir_version": __version__,
            "status": status,
            "config": cfg.to_dict(),
            "packages": package_versions(),
            "git_revision": git_revision(),
            "dataset": {
                "name": ds.name,
                "signature": ds.signature,
                "hash": ds.content_hash(),
                "source": ds.source,
                "warnings": list(ds.warnings),
                "repairs": list(ds.repairs),
            },
            "corpus": {
                "name": corpus.name,
                "hash": corpus.content_hash(),
                "passages": len(corpus),
                "source": corpus.source or cfg.corpus,
            },
            "retrieval": {"signature": retrieval.signature if retrieval else None},
            "hits": {
                "signature": retrieval.signature if retrieval else None,
                "rows": int(len(retrieval.hits)) if retrieval else 0,
            },
            "cache": {"path": grid.cache_path},
            "executor": grid.executor,
            "grid": {
                "models": list(cfg.models),
                "modes": [m.value for m in prep.modes],
                "runs": len(cfg.seeds),
            },
            "queries": len(prep.queries),
            "responses": len(rows),
            "calls": grid.calls,
            "failures": grid.failures[:50],
            "cost": [dataclasses.asdict(r) for r in summarize_cost(grid.usage)],
            "skipped": [
                {"query_id": q, "mode": m, "reason": r}
                for (q, m), r in sorted(prep.skipped.items())
            ],
            "started": started,
            "finished": now_iso(),
        }
    )


def refuse_if_batches_pending(out: Path) -> None:
    """Refuse an online run into a run directory whose batches (or an upload) are still pending.

    Their requests are not in the cache yet: an online run would call (and bill) them again.

    Raises:
        ConfigError: a batch of ``out`` is not collected yet.
    """
    from ..errors import ConfigError
    from ..generation.batch.state import BatchState

    state = BatchState.load(out)
    pending = state.pending()
    if pending or state.uploads:
        n = sum(len(b.custom_ids) for b in pending) + sum(
            len(u["custom_ids"]) for u in state.uploads
        )
        raise ConfigError(
            f"{out}: {len(pending) + len(state.uploads)} submitted batch(es) with {n} requests are "
            "still pending; collect them with `bordir run CONFIG --out DIR --collect` (an online "
            "run would pay for them again), or move DIR/batch away to give them up"
        )


def run_online(
    cfg: ExperimentConfig,
    out: str | os.PathLike[str] | None = None,
    *,
    progress: bool = True,
    backends: dict[str, Any] | None = None,
    executor: str = "local",
    address: str | None = None,
) -> Run:
    """Run the grid of ``cfg`` now and return it (with ``out``: written there as it goes; see the module docs)."""
    from ..experiment.writer import RunDirWriter
    from .preflight import preflight
    from .rows import responses_frame
    from .runner import execute_grid

    started = now_iso()
    if out is None:
        grid = execute_grid(
            cfg, progress=progress, backends=backends, executor=executor, address=address
        )
        responses = normalized(responses_frame(grid.rows))
        return Run(
            cfg,
            responses,
            grid.prepared.retrieval,
            _info(cfg, grid, started),
            grid.prepared.dataset,
        )
    out_path = Path(out)
    built = dict(backends or {})
    with RunDirWriter(out_path) as w:
        refuse_if_batches_pending(out_path)  # under the lock: no submit can start meanwhile

        def prepared(prep: Any) -> None:
            checked = preflight(cfg, prep, built)  # before the directory changes
            if executor == "local":  # (Ray's tasks build their own)
                built.update(checked)
            w.start(
                {
                    "bordir_version": __version__,
                    "config": plain({"c": cfg.to_dict()})["c"],
                    "started": started,
                }
            )
            if prep.retrieval is not None:
                w.hits(prep.retrieval)
            elif (out_path / "hits.parquet").exists():
                (out_path / "hits.parquet").unlink()

        grid = execute_grid(
            cfg,
            progress=progress,
            backends=built,
            on_prepared=prepared,
            on_batch=lambda rows: w.responses(responses_frame(rows)),
            executor=executor,
            address=address,
            parts_dir=out_path / "parts",
        )
        responses = normalized(responses_frame(grid.rows))
        w.responses(responses)
        info = _info(cfg, grid, started)
        w.finish(info)
    return Run(cfg, responses, grid.prepared.retrieval, info, grid.prepared.dataset, path=out_path)
