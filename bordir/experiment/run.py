"""An experiment run in memory: :func:`run` → :class:`Run` (responses, hits, run info), saved and loaded exactly.

Example (the notebook path; ``docs/quickstart.md`` has the full version)::

    >>> import bordir, tempfile
    >>> cache = tempfile.mkdtemp() + "/responses.sqlite3"
    >>> r = bordir.run({"models": ["mock/first"], "modes": ["no_ir", "qlang"], "runs": 2, "k": 2}, cache=cache,
    ...                progress=False)
    >>> r
    Run(models=1, modes=2, responses=136, failed=0)
    >>> r.info["cache"]["path"] == cache
    True
    >>> d = tempfile.mkdtemp()
    >>> back = bordir.load_run(r.save(d))
    >>> back.responses.equals(r.responses), back.info == r.info
    (True, True)
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from .._json import jsonable
from .._version import __version__
from ..errors import ConfigError
from .config import ExperimentConfig
from .numbers import DEFAULT_RESAMPLES
from .provenance import git_revision, now_iso, package_versions

__all__ = ["Run", "run", "load_run"]


def _normalized(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` as it reads back from Parquet, so a saved and loaded run compares equal."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    buf = io.BytesIO()
    pq.write_table(pa.Table.from_pandas(df, preserve_index=False), buf)
    buf.seek(0)
    return pq.read_table(buf).to_pandas()


def _plain(info: Mapping[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(jsonable(info), ensure_ascii=False, allow_nan=False))


class Run:
    """A finished (or loaded) run.

    Attributes:
        config: the :class:`~bordir.experiment.config.ExperimentConfig`.
        responses: one row per (query, mode, model, run) (see :mod:`~bordir.experiment.runner`).
        hits: the :class:`~bordir.retrieval.run.RetrievalRun` (None when only ``no_ir`` ran).
        info: the run record (what ``run.json`` holds): signatures, hashes, cache path, calls, cost …
        dataset: the :class:`~bordir.dataset.BorderLines` the run used.
        path: the run directory, once saved or when loaded.
    """

    def __init__(
        self,
        config: ExperimentConfig,
        responses: pd.DataFrame,
        hits: Any,
        info: dict[str, Any],
        dataset: Any,
        *,
        path: str | os.PathLike[str] | None = None,
    ) -> None:
        self.config = config
        self.responses = responses
        self.hits = hits
        self.info = info
        self.dataset = dataset
        self.path = None if path is None else Path(path)

    def __repr__(self) -> str:
        failed = int((self.responses["outcome"] == "failed").sum()) if len(self.responses) else 0
        return (
            f"Run(models={self.responses['model'].nunique()}, modes={self.responses['mode'].nunique()}, "
            f"responses={len(self.responses)}, failed={failed})"
        )

    # -- persistence ---------------------------------------------------------------------------
    def save(self, out: str | os.PathLike[str]) -> Path:
        """Write ``hits.parquet``, ``responses.parquet`` and ``run.json`` into ``out`` (locked, atomic)."""
        from .record import RunDirWriter

        out = Path(out)
        with RunDirWriter(out) as w:
            w.start(self.info)
            if self.hits is not None:
                w.hits(self.hits)
            elif (out / "hits.parquet").exists():
                (out / "hits.parquet").unlink()
            w.responses(self.responses)
            w.finish(self.info)
        self.path = out
        return out

    # -- numbers (computed in :mod:`bordir.experiment.numbers`) -----------------------------------
    def scores(self) -> pd.DataFrame:
        """Every CS metric per (model, mode, run), with counts and a signature (one tidy row each)."""
        from . import numbers

        return numbers.scores(self)

    def summary(
        self, *, n_resamples: int = DEFAULT_RESAMPLES, seed: int | None = None
    ) -> pd.DataFrame:
        """Mean over runs with its t-interval and the cluster-bootstrap interval, per (model, mode, metric).

        Reuses the report's computation (:func:`bordir.report.metrics.build_metrics`).
        """
        from . import numbers

        return numbers.summary(self, n_resamples=n_resamples, seed=seed)

    def compare(
        self,
        mode_a: str,
        mode_b: str,
        by: str | None = None,
        *,
        metric: str | None = None,
        model: str | None = None,
        n_resamples: int = DEFAULT_RESAMPLES,
        seed: int | None = None,
    ) -> Any:
        """Paired comparison of ``mode_a`` − ``mode_b`` on the common territories (per model).

        Without ``by``: one row per model with the difference, its paired
        cluster-bootstrap interval and the permutation p-value (Holm over the
        models). With ``by="query_lang"`` or ``"resource"``: per group, through
        :func:`bordir.metrics.perlang_compare.compare_by`.

        ``metric`` defaults to ``cst_cs`` without ``by`` and to the per-language
        measure ``controller_agreement`` with it (the CS metrics pool all
        languages; see :data:`~bordir.metrics.perlang_measures.PERLANG_MEASURES`).
        """
        from . import numbers

        return numbers.compare(
            self,
            mode_a,
            mode_b,
            by,
            metric=metric,
            model=model,
            n_resamples=n_resamples,
            seed=seed,
        )

    def report(
        self,
        out: str | os.PathLike[str] | None = None,
        *,
        n_resamples: int = DEFAULT_RESAMPLES,
        seed: int | None = None,
    ) -> Path:
        """Save the run to ``out`` (default: where it lives) and write the report there; returns ``report.html``."""
        from ..report import build_report

        if out is not None and (self.path is None or Path(out).resolve() != self.path.resolve()):
            self.save(out)
        if self.path is None:
            raise ConfigError(
                "this run is not saved yet; pass a directory: run.report('runs/exp1')"
            )
        return build_report(self.path, n_resamples=n_resamples, seed=seed)


def _info(
    cfg: ExperimentConfig, grid: Any, started: str, status: str = "complete"
) -> dict[str, Any]:
    from ..generation.cost import summarize as summarize_cost

    prep = grid.prepared
    ds, corpus, retrieval = prep.dataset, prep.corpus, prep.retrieval
    rows = grid.rows
    return _plain(
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


def run(
    config: Any,
    cache: str | os.PathLike[str] | None = None,
    *,
    out: str | os.PathLike[str] | None = None,
    progress: bool = True,
    backends: dict[str, Any] | None = None,
    executor: str = "local",
    address: str | None = None,
    batch: bool = False,
    poll: float = 30.0,
) -> Run:
    """Run an experiment and return it in memory (and, with ``out``, write it there as it goes).

    Args:
        config: an :class:`~bordir.experiment.config.Experiment`, an
            :class:`~bordir.experiment.config.ExperimentConfig`, a dict of config
            keys, or the path of a TOML file.
        cache: the response cache file (default: the config's ``cache``, else
            ``$BORDIR_CACHE/responses.sqlite3``). The cache is always used: a re-run
            re-bills nothing. Its path is recorded in ``run.info["cache"]``.
        out: a run directory to write (locked against a second writer; marked
            incomplete until the end; resumable through the cache).
        progress: show progress bars.
        backends: ``{model: backend}`` to use instead of building them.
        executor: ``"local"`` or ``"ray"`` (the grid sharded over a Ray cluster; same
            rows; see ``docs/scale.md``).
        address: the Ray cluster for ``executor="ray"`` (default: ``$RAY_ADDRESS``,
            else a local one).
        batch: send the uncached calls through the provider's batch API (about half the
            price; needs ``out``), wait for them, polling every ``poll`` seconds, and write the
            run as online calls would (see ``docs/batch.md`` and :mod:`bordir.generation.batch`).
    """
    from .record import RunDirWriter
    from .runner import execute_grid, responses_frame

    cfg = ExperimentConfig.coerce(config)
    if cache is not None:
        cfg = cfg.override(cache=os.fspath(cache))
    if batch:
        from ..generation.batch.collect import run_batched

        return run_batched(cfg, out, backends=backends, poll=poll, progress=progress)
    started = now_iso()
    if out is None:
        grid = execute_grid(
            cfg, progress=progress, backends=backends, executor=executor, address=address
        )
        responses = _normalized(responses_frame(grid.rows))
        return Run(
            cfg,
            responses,
            grid.prepared.retrieval,
            _info(cfg, grid, started),
            grid.prepared.dataset,
        )
    out_path = Path(out)
    with RunDirWriter(out_path) as w:

        def prepared(
            prep: Any,
        ) -> None:  # inputs loaded and retrieval done: now the directory changes
            w.start(
                {
                    "bordir_version": __version__,
                    "config": _plain({"c": cfg.to_dict()})["c"],
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
            backends=backends,
            on_prepared=prepared,
            on_batch=lambda rows: w.responses(responses_frame(rows)),
            executor=executor,
            address=address,
            parts_dir=out_path / "parts",
        )
        responses = _normalized(responses_frame(grid.rows))
        w.responses(responses)
        info = _info(cfg, grid, started)
        w.finish(info)
    return Run(cfg, responses, grid.prepared.retrieval, info, grid.prepared.dataset, path=out_path)


def load_run(path: str | os.PathLike[str]) -> Run:
    """Load a run directory (checked: complete, dataset and corpus unchanged, record and table agreeing)."""
    from ..retrieval.run import load_hits
    from .rundir import load_run as load_rundir

    rd = load_rundir(path, check_corpus=True)
    responses = pd.read_parquet(Path(path) / "responses.parquet")
    hits_path = Path(path) / "hits.parquet"
    hits = load_hits(hits_path) if hits_path.is_file() else None
    return Run(rd.config, responses, hits, rd.info, rd.dataset, path=path)
