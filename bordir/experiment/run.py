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
from ..metrics.signature import Signature
from .config import ExperimentConfig
from .provenance import git_revision, now_iso, package_versions

__all__ = ["Run", "run", "load_run"]

DEFAULT_RESAMPLES = 1000


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

    # -- numbers -------------------------------------------------------------------------------
    def _given(self) -> pd.DataFrame:
        """The responses asked in the given option order (all of them unless ``option_orders`` was set)."""
        from ..metrics.order import given_order

        return given_order(self.responses)

    def _rundir(self):
        from ..metrics.responses import validate_responses
        from ..report.rundir import RunDir

        resp = validate_responses(self._given(), self.dataset)
        return RunDir(
            path=self.path or Path("."),
            info=self.info,
            config=self.config,
            dataset=self.dataset,
            responses=resp,
        )

    def _signature(self, model: str, mode: str) -> Signature:
        sub = self.responses[(self.responses["model"] == model) & (self.responses["mode"] == mode)]
        sigs = sub["signature"].dropna().astype(str).unique() if "signature" in sub.columns else []
        if len(sigs) == 1:
            return Signature.parse(sigs[0])
        return Signature.build("responses", mode=mode, gen=model, policy=self.config.policy)

    def _metric_signature(self, metric: str, model: str, mode: str, /, **extra: Any) -> Signature:
        base = self._signature(model, mode)
        fields = {k: v for k, v in base.fields if k != "version"}
        fields.update({k: v for k, v in extra.items() if v is not None})
        return Signature.build(metric, **fields, version=base.get("version"))

    def scores(self) -> pd.DataFrame:
        """Every CS metric per (model, mode, run), with counts and a signature (one tidy row each)."""
        from ..metrics.scoring import score_responses

        df = score_responses(self._given(), self.dataset, policy=self.config.policy)
        df["signature"] = [
            str(self._metric_signature(m, model, mode))
            for m, model, mode in zip(df["metric"], df["model"], df["mode"])
        ]
        return df

    def summary(
        self, *, n_resamples: int = DEFAULT_RESAMPLES, seed: int | None = None
    ) -> pd.DataFrame:
        """Mean over runs with its t-interval and the cluster-bootstrap interval, per (model, mode, metric).

        Reuses the report's computation (:func:`bordir.report.metrics.build_metrics`).
        """
        from ..metrics.uncertainty import resolve_seed
        from ..report.metrics import CI_RUNS, build_metrics

        seed = resolve_seed(seed)
        metrics = build_metrics(self._rundir(), n_resamples=n_resamples, seed=seed)
        rows = []
        for model, modes in metrics["results"].items():
            for mode, cell in modes.items():
                for m, e in cell["metrics"].items():
                    ci, boot = e["ci95"] or [None, None], e["boot95"] or [None, None]
                    sig = self._metric_signature(
                        m, model, mode, runs=e["n_runs"], ci=CI_RUNS, boot=n_resamples, seed=seed
                    )
                    rows.append(
                        {
                            "model": model,
                            "mode": mode,
                            "metric": m,
                            "n_runs": e["n_runs"],
                            "mean": e["mean"],
                            "low": ci[0],
                            "high": ci[1],
                            "boot_low": boot[0],
                            "boot_high": boot[1],
                            "note": e["note"],
                            "signature": str(sig),
                        }
                    )
        return pd.DataFrame(
            rows,
            columns=[
                "model",
                "mode",
                "metric",
                "n_runs",
                "mean",
                "low",
                "high",
                "boot_low",
                "boot_high",
                "note",
                "signature",
            ],
        )

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
        from ..metrics.cs import territory_tables
        from ..metrics.uncertainty import holm_adjust, paired_comparison, pool_runs, resolve_seed
        from ..retrieval.modes import Mode

        a, b = Mode.parse(mode_a).value, Mode.parse(mode_b).value
        models = [model] if model else list(dict.fromkeys(self.responses["model"]))
        seed = resolve_seed(seed)
        if by is not None:
            from ..metrics.perlang_compare import compare_by
            from ..metrics.perlang_measures import DEFAULT_MEASURE

            return compare_by(
                self._given(),
                self.dataset,
                a,
                b,
                by=by,
                metric=metric or DEFAULT_MEASURE,
                model=model,
                resamples=n_resamples,
                seed=seed,
                policy=self.config.policy,
            )
        metric = metric or "cst_cs"
        tables = territory_tables(self._given(), self.dataset, policy=self.config.policy)
        found = []
        for mdl in models:
            ta = [s for key, s in tables.items() if key.model == mdl and key.mode == a]
            tb = [s for key, s in tables.items() if key.model == mdl and key.mode == b]
            if not ta or not tb:
                raise ConfigError(
                    f"model {mdl!r} has no responses in mode {a if not ta else b!r}; "
                    f"modes present: {', '.join(dict.fromkeys(self.responses['mode']))}"
                )
            found.append(
                (
                    mdl,
                    paired_comparison(
                        pool_runs(ta),
                        pool_runs(tb),
                        metric,
                        label_a=a,
                        label_b=b,
                        n_resamples=n_resamples,
                        n_permutations=n_resamples,
                        seed=seed,
                    ),
                    max(len(ta), len(tb)),
                )
            )
        adjusted = holm_adjust([pc for _, pc, _ in found])
        rows = []
        for (mdl, _, n_runs), pc in zip(found, adjusted):
            sig = self._metric_signature(
                metric,
                mdl,
                a,
                mode=None,
                cmp=f"{a}-vs-{b}",
                runs=n_runs,
                boot=n_resamples,
                perm=n_resamples,
                seed=seed,
                holm="yes",
            )
            rows.append(
                {
                    "model": mdl,
                    "metric": metric,
                    "mode_a": a,
                    "mode_b": b,
                    "value_a": pc.value_a,
                    "value_b": pc.value_b,
                    "diff": pc.diff,
                    "low": pc.low,
                    "high": pc.high,
                    "p_value": pc.p_value,
                    "p_holm": pc.p_holm,
                    "n_territories": pc.n_territories,
                    "signature": str(sig),
                }
            )
        return pd.DataFrame(rows)

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
    """
    from .record import RunDirWriter
    from .runner import execute_grid, responses_frame

    cfg = ExperimentConfig.coerce(config)
    if cache is not None:
        cfg = cfg.override(cache=os.fspath(cache))
    started = now_iso()
    if out is None:
        grid = execute_grid(cfg, progress=progress, backends=backends)
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
        )
        responses = _normalized(responses_frame(grid.rows))
        w.responses(responses)
        info = _info(cfg, grid, started)
        w.finish(info)
    return Run(cfg, responses, grid.prepared.retrieval, info, grid.prepared.dataset, path=out_path)


def load_run(path: str | os.PathLike[str]) -> Run:
    """Load a run directory (checked: complete, dataset and corpus unchanged, record and table agreeing)."""
    from ..report.rundir import load_run as load_rundir
    from ..retrieval.run import load_hits

    rd = load_rundir(path, check_corpus=True)
    responses = pd.read_parquet(Path(path) / "responses.parquet")
    hits_path = Path(path) / "hits.parquet"
    hits = load_hits(hits_path) if hits_path.is_file() else None
    return Run(rd.config, responses, hits, rd.info, rd.dataset, path=path)
