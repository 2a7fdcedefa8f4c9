"""A leaderboard over run directories: one row per (run, model, mode), the headline metrics with intervals.

:func:`leaderboard` reads each directory's record first: only a complete ``bordir run`` whose
files are the ones it records is shown. Its numbers are its ``metrics.json`` (written by
``bordir report``) when that was computed from the record as it is now
(:func:`~bordir.runrecord.outputs.check_output`), else, without one, the same numbers computed
in memory (:func:`bordir.metrics.summary.build.build_metrics`; nothing is written). Every
directory left out (another kind, an incomplete run, a foreign or stale ``metrics.json``) is
listed in the table's ``attrs["left_out"]`` with the reason. Every cell is a
mean over runs with its 95 % interval over territories (``terr95``) and its t-interval over
runs (for the normalised ΔCS, ``mean`` is the ratio of the counts pooled over runs, the estimate
its ``terr95`` is an interval of); every row carries the cell's signature, so rows of runs that differ in anything that
changes results (dataset, corpus, retriever, k, prompt, temperature …) say so. ``bordir runs
DIR…`` prints it.

Example:
    >>> leaderboard([])
    Traceback (most recent call last):
    ...
    bordir.errors.ConfigError: give at least one run directory (written by `bordir run`)
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from .._io.json_read import read_json
from ..errors import ConfigError, DataError

__all__ = ["leaderboard", "LEADERBOARD_COLUMNS"]

LEADERBOARD_COLUMNS: tuple[str, ...] = (
    "run", "model", "mode", "metric", "label", "mean", "terr_low", "terr_high", "t_low", "t_high",
    "n_runs", "n_territories", "few_territories", "no_interval", "signature",
)  # fmt: skip
"""Columns of :func:`leaderboard` (tidy: one row per run × model × mode × metric)."""


def _metrics_of(path: Path, n_resamples: int, seed: int | None) -> dict[str, Any]:
    """The numbers of the run in ``path`` (see the module docs).

    Raises:
        DataError: it is left out (the message says why).
    """
    from ..runrecord.lock import DirLock
    from ..runrecord.outputs import check_output
    from ..runrecord.record import require_complete

    with DirLock(path, shared=True):  # no run changes it while it is read
        require_complete(path, kind="run")
        saved = check_output(path, "metrics.json")
        if saved is not None:
            data = read_json(saved, missing="run `bordir report` again to rewrite it")
            if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
                raise DataError("no 'results' object (not a report's metrics)", path=saved)
            return data
    from ..experiment.rundir import read_run_dir
    from ..metrics.summary.build import build_metrics

    return build_metrics(read_run_dir(path), n_resamples=n_resamples, seed=seed)


def _no_interval(e: dict[str, Any]) -> str | None:
    """Why a metric with a mean has no interval over territories (None: it has one, or no mean)."""
    if e.get("mean") is None or e.get("terr95"):
        return None
    terr = e.get("territory_interval") or {}
    why = terr.get("refused") or e.get("note")
    return str(why) if why else "no interval over territories for this metric"


def leaderboard(
    dirs: Sequence[str | os.PathLike[str]],
    *,
    metrics: Sequence[str] | None = None,
    n_resamples: int = 1000,
    seed: int | None = None,
) -> pd.DataFrame:
    """One row per (run directory, model, mode, metric) with :data:`LEADERBOARD_COLUMNS`.

    Args:
        dirs: run directories (``bordir run``); ``run`` is each one's path as given.
        metrics: CS metric names (default: the headline ones, ``kb_cs``, ``cst_cs``, ``delta_cs``).
        n_resamples: bootstrap resamples for a directory without ``metrics.json``.
        seed: their seed (default ``$BORDIR_SEED`` or 12345).

    Raises:
        ConfigError: no directory, or an unknown metric.
    """
    from ..metrics.registry import headline_metrics, metric_label

    if not dirs:
        raise ConfigError("give at least one run directory (written by `bordir run`)")
    shown = tuple(metrics or headline_metrics())
    rows = []
    left_out: list[tuple[str, str]] = []
    for d in dirs:
        try:
            m = _metrics_of(Path(d), n_resamples, seed)
        except DataError as exc:
            left_out.append((str(d), str(exc)))
            continue
        known = set(m.get("metrics") or [])
        bad = [x for x in shown if known and x not in known]
        if bad:
            raise ConfigError(
                f"unknown metric(s) {', '.join(bad)}; {d} has {', '.join(sorted(known))}"
            )
        for model, modes in (m.get("results") or {}).items():
            for mode, cell in modes.items():
                for metric in shown:
                    e = cell["metrics"].get(metric) or {}
                    terr = e.get("terr95") or [None, None]
                    ci = e.get("ci95") or [None, None]
                    rows.append(
                        {
                            "run": str(d),
                            "model": model,
                            "mode": mode,
                            "metric": metric,
                            "label": metric_label(metric),
                            # terr95 of the normalised ΔCS is an interval of the pooled ratio: its
                            # estimate goes beside it (t_low / t_high stay the runs' t-interval)
                            "mean": e["pooled"]
                            if metric == "delta_cs_norm" and e.get("pooled") is not None
                            else e.get("mean"),
                            "terr_low": terr[0],
                            "terr_high": terr[1],
                            "t_low": ci[0],
                            "t_high": ci[1],
                            "n_runs": cell.get("n_runs"),
                            "n_territories": (e.get("territory_interval") or {}).get("n_clusters"),
                            "few_territories": bool(
                                (e.get("territory_interval") or {}).get("warning")
                            ),
                            "no_interval": _no_interval(e),
                            "signature": e.get("signature") or cell.get("signature"),
                        }
                    )
    out = pd.DataFrame(rows, columns=list(LEADERBOARD_COLUMNS))
    for col in ("n_runs", "n_territories"):  # counts stay integers (None where undefined)
        out[col] = pd.Series([r[col] for r in rows], index=out.index, dtype=object)
    out.attrs["left_out"] = left_out
    return out
