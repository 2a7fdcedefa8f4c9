"""The page data of a run directory: metadata, and every row with its facets and sample details.

:func:`run_page` turns a :class:`~bordir.view.run_data.RunData` into what
:func:`~bordir.view.page.render_page` embeds. The rows are dictionary-coded
columns (:mod:`~bordir.view.columns`): the facets of :data:`~bordir.view.run_data.RUN_FACETS`,
the given-order ``choice`` (for the numbers) and the details of
:mod:`~bordir.view.run_details`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from .columns import coded, numbers
from .dispatch import ViewKind
from .page import table_columns
from .run_data import RUN_FACETS, RunData
from .run_details import DETAIL_COLUMNS, KEY_PROMPT_DIFFERS, RunDetails

__all__ = ["run_meta", "run_page", "RUN_COLUMNS"]

RUN_COLUMNS: tuple[dict[str, Any], ...] = table_columns(
    {
        "territory": "territory",
        "lang": "lang",
        "mode": "mode",
        "model": "model",
        "run": "run",
        "order": "order",
        "answer": "answer",
        "agree": "agrees",
        "cited": "cited langs",
        "reply": "reply",
    },
    numeric={"run": None},
)
"""The columns of a run's sample table."""

_NUMERIC = {"seed", "pos", "rule_ok", "in_tok", "out_tok", "latency", "cost", "cached"}


def run_meta(data: RunData) -> dict[str, Any]:
    """The page metadata of a run (also what a served page gets)."""
    meta = data.meta()
    meta.update(
        columns=list(RUN_COLUMNS), search="reply", search_label="replies", rows_label="Samples"
    )
    return meta


def facet_columns(data: RunData) -> dict[str, Any]:
    """The facet columns and the given-order choice, coded."""
    cols: dict[str, Any] = {f.key: coded(data.facets[f.key]) for f in RUN_FACETS}
    cols["choice"] = numbers(data.frame["choice"].fillna(-1).astype(np.int64).to_numpy())
    return cols


def detail_columns(details: dict[str, list[Any]]) -> dict[str, Any]:
    """The sample details, coded (numbers as numbers)."""
    return {
        c: numbers(details[c], digits=6 if c in ("latency", "cost") else None)
        if c in _NUMERIC
        else coded(details[c])
        for c in DETAIL_COLUMNS
    }


def detail_warnings(details: dict[str, list[Any]]) -> list[str]:
    """What the page must say about the rebuilt prompts and the re-parsed replies."""
    out = []
    differs = sum(1 for s in details["keystat"] if s == KEY_PROMPT_DIFFERS)
    if differs:
        out.append(
            f"{differs} sample(s): the prompt rebuilt from the dataset, corpus and templates differs from the "
            "recorded one, so no cache key is shown for them; the page shows the recorded prompt"
        )
    bad = sum(1 for ok in details["rule_ok"] if not ok)
    if bad:
        out.append(
            f"{bad} sample(s): re-parsing the reply with this bordir does not give the recorded answer "
            "(the parser changed since the run); their rule is marked"
        )
    return out


def run_page(data: RunData) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(meta, rows)`` of the static page."""
    details = RunDetails(data).columns()
    meta = run_meta(data)
    meta["warnings"] = [*meta["warnings"], *detail_warnings(details)]
    rows = {"n": data.n_rows, "cols": {**facet_columns(data), **detail_columns(details)}}
    return meta, rows


def _page_of(path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    from .run_data import load_run_data

    return run_page(load_run_data(path))


def _rows_of(path: Path) -> int:
    """The rows of the run's ``responses.parquet`` (what a static page would embed)."""
    import pyarrow.parquet as pq

    from .files import parquet_schema

    parquet_schema(path / "responses.parquet", hint="re-run `bordir run` or restore the file")
    return int(pq.ParquetFile(path / "responses.parquet").metadata.num_rows)


VIEW = ViewKind(page=_page_of, rows=_rows_of)
"""The page of a ``bordir run`` directory (:data:`bordir.view.dispatch.VIEWS` ``run``)."""
