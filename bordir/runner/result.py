"""The in-memory run: :class:`Run` (responses, hits, run record), saved and loaded exactly (:func:`load_run`).

:func:`bordir.run` returns a :class:`Run`; :func:`load_run` reads one back from
its run directory. Its numbers (``scores()``, ``summary()``, ``compare()``) are
computed by :mod:`bordir.metrics.summary.tidy`, its report by :mod:`bordir.report`.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pandas as pd

from .._io.json_write import jsonable
from ..errors import ConfigError
from ..experiment.config import ExperimentConfig
from ..metrics.summary.tidy import RUN_RESAMPLES

if TYPE_CHECKING:  # pragma: no cover
    from ..experiment.rundir import RunDir

__all__ = ["Run", "load_run", "normalized", "plain"]


def normalized(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` as it reads back from Parquet, so a saved and loaded run compares equal."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    buf = io.BytesIO()
    pq.write_table(pa.Table.from_pandas(df, preserve_index=False), buf)
    buf.seek(0)
    return pq.read_table(buf).to_pandas()


def plain(info: Mapping[str, Any]) -> dict[str, Any]:
    """``info`` as strict JSON reads it back (what ``run.json`` holds)."""
    return cast(
        "dict[str, Any]",
        json.loads(json.dumps(jsonable(info), ensure_ascii=False, allow_nan=False)),
    )


class Run:
    """A finished (or loaded) run.

    Attributes:
        config: the :class:`~bordir.experiment.config.ExperimentConfig`.
        responses: one row per (query, mode, model, run) (see :mod:`~bordir.runner.runner`).
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
        from ..experiment.writer import RunDirWriter

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

    # -- numbers (computed in :mod:`bordir.metrics.summary.tidy`) ----------------------------------
    def scores(self) -> pd.DataFrame:
        """Every CS metric per (model, mode, run), with counts and a signature (one tidy row each)."""
        from ..metrics.summary import tidy

        return tidy.scores(self.responses, self.dataset, policy=self.config.policy)

    def summary(self, *, n_resamples: int = RUN_RESAMPLES, seed: int | None = None) -> pd.DataFrame:
        """Mean over runs with its t-interval and the cluster-bootstrap interval, per (model, mode, metric).

        The numbers are the report's (:func:`bordir.metrics.summary.build.build_metrics`).
        """
        from ..metrics.summary import tidy

        return tidy.summary(self._scored(), self.responses, n_resamples=n_resamples, seed=seed)

    def compare(
        self,
        mode_a: str,
        mode_b: str,
        by: str | None = None,
        *,
        metric: str | None = None,
        model: str | None = None,
        n_resamples: int = RUN_RESAMPLES,
        seed: int | None = None,
        min_territories: int | None = None,
        alpha: float = 0.05,
    ) -> Any:
        """Paired comparison from ``mode_a`` to ``mode_b`` on the common territories: diff = B − A.

        The sign rule is bordir's everywhere (``bordir compare --modes A,B`` too): the change
        going from A (the baseline) to B. ``metric`` defaults to ``controller_agreement``, the
        default of ``bordir compare`` (:data:`~bordir.metrics.perlang.measures.DEFAULT_MEASURE`).

        A per-language measure (``controller_agreement``, ``in_group_rate`` …) goes through
        :func:`bordir.metrics.perlang.compare.compare_by`: with ``by="query_lang"`` or
        ``"resource"`` one row per group, without ``by`` one row (group ``*``) with every
        language pooled. A CS metric (``cst_cs``, ``delta_cs``, ``non_control_cs`` …; pooled over
        languages by definition, no ``by``) gives one row per model (Holm over the models). Both
        return the same columns (:data:`~bordir.metrics.perlang.compare.COMPARE_COLUMNS`: ``a``,
        ``b``, ``value_a``, ``value_b``, ``diff``, ``ci_low``, ``ci_high``, ``p_value``,
        ``p_holm``, ``status`` …) and follow one rule (:mod:`bordir.metrics.intervals.paired_rule`):
        fewer than ``min_territories`` paired territories (default 6 at ``alpha`` 0.05, below which
        the sign-flip test cannot reach ``alpha``) is ``too few to judge``; a judged comparison has
        its permutation p-value, and its paired bootstrap interval from 30 paired territories
        (``ci_refused`` says why there is none below).
        """
        from ..metrics.summary import tidy

        return tidy.compare(
            self.responses,
            self.dataset,
            mode_a,
            mode_b,
            by,
            policy=self.config.policy,
            metric=metric,
            model=model,
            n_resamples=n_resamples,
            seed=seed,
            min_territories=min_territories,
            alpha=alpha,
        )

    def _scored(self) -> RunDir:
        """The run as the summary and the report read it: validated responses, given option order."""
        from ..experiment.rundir import RunDir
        from ..metrics.order.items import given_order
        from ..metrics.responses import validate_responses

        return RunDir(
            path=self.path or Path("."),
            info=self.info,
            config=self.config,
            dataset=self.dataset,
            responses=validate_responses(given_order(self.responses), self.dataset),
        )

    def report(
        self,
        out: str | os.PathLike[str] | None = None,
        *,
        n_resamples: int = RUN_RESAMPLES,
        seed: int | None = None,
        plots: bool = True,
    ) -> Path:
        """Save the run to ``out`` (default: where it lives) and write the report there; returns ``report.html``.

        ``plots=False``: the same numbers, tables and page without figures (:func:`bordir.report.build_report`).
        """
        from ..report import build_report

        if out is not None and (self.path is None or Path(out).resolve() != self.path.resolve()):
            self.save(out)
        if self.path is None:
            raise ConfigError(
                "this run is not saved yet; pass a directory: run.report('runs/exp1')"
            )
        return build_report(self.path, n_resamples=n_resamples, seed=seed, plots=plots)

    def view(
        self, out: str | os.PathLike[str] | None = None, *, inline: bool | None = None
    ) -> Path:
        """Save the run to ``out`` (default: where it lives) and write its explorer there (``view.html``).

        In Jupyter the page is shown inline; the path is returned everywhere (:func:`bordir.view.show`).
        """
        from ..view import show

        if out is not None and (self.path is None or Path(out).resolve() != self.path.resolve()):
            self.save(out)
        if self.path is None:
            raise ConfigError("this run is not saved yet; pass a directory: run.view('runs/exp1')")
        return show(self.path, inline=inline)


def load_run(path: str | os.PathLike[str]) -> Run:
    """Load a run directory (checked: complete, dataset and corpus unchanged, record and table agreeing)."""
    from ..experiment.rundir import read_run_dir
    from ..retrieval.run import load_hits

    rd = read_run_dir(path, check_corpus=True)
    responses = pd.read_parquet(Path(path) / "responses.parquet")
    hits_path = Path(path) / "hits.parquet"
    hits = load_hits(hits_path) if hits_path.is_file() else None
    return Run(rd.config, responses, hits, rd.info, rd.dataset, path=path)
