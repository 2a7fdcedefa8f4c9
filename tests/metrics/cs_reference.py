"""The row-by-row CS scorer that the vectorised engine replaced, kept as a reference.

:func:`territory_tables` and :func:`legacy_stats` loop over territories in
Python and call :func:`~bordir.metrics.cs.territory.territory_stats` for each,
exactly as bordir 0.1 scored (:mod:`bordir.metrics.cs.tables` and
:mod:`bordir.metrics.legacy.response_table` now compute the same tables with numpy group-bys).
They exist for the differential tests (``tests/metrics/test_metrics_columnar.py``) and for
``benchmarks/metrics.py``, which measures the speed-up; nothing else should call
them.
"""

from __future__ import annotations

import ast
import csv
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from bordir.metrics.cs.table import TerritoryStats, build_stats
from bordir.metrics.cs.territory import fix_responses_d, territory_stats
from bordir.metrics.responses import (
    GROUP_KEYS,
    Policy,
    TableKey,
    answer_control,
    answer_pick,
    check_policy,
    validate_responses,
)

if TYPE_CHECKING:  # pragma: no cover
    from bordir.dataset import BorderLines

__all__ = ["territory_tables", "legacy_stats", "read_response_table"]


def territory_tables(
    responses: pd.DataFrame,
    dataset: BorderLines,
    *,
    policy: Policy = "strict",
    validate: bool = True,
) -> dict[TableKey, TerritoryStats]:
    """Row-by-row :func:`bordir.metrics.cs.tables.territory_tables` (the reference)."""
    check_policy(policy)
    df = validate_responses(responses, dataset) if validate else responses
    skip = policy == "strict"
    order = {t.name: i for i, t in enumerate(dataset.territories)}
    out: dict[TableKey, TerritoryStats] = {}
    for (model, mode, run), group in sorted(
        df.groupby(list(GROUP_KEYS), sort=False), key=lambda kv: kv[0]
    ):
        key = TableKey(str(model), str(mode), int(run))
        rows = []
        by_terr = sorted(group.groupby("territory", sort=False), key=lambda kv: order[kv[0]])
        for name, g in by_terr:
            terr = dataset.territory(name)
            claim_codes = dataset.claimant_langs(name)
            responses_d: dict[str, Any] = {}
            response_en: Any = "None" if policy == "reference" else None
            for lang, ctl, outcome, choice in sorted(
                zip(g["query_lang"], g["is_control"], g["outcome"], g["choice"]),
                key=lambda r: (r[0], r[1]),
            ):
                if ctl:
                    response_en = answer_control(outcome, int(choice), terr.claimants, policy)
                responses_d[lang] = answer_pick(outcome, int(choice), terr.claimants, policy)
            responses_d = fix_responses_d(responses_d, claim_codes)
            rows.append(
                territory_stats(
                    name,
                    terr.controller,
                    dataset.controller_lang(name),
                    responses_d,
                    response_en,
                    skip_missing=skip,
                    n_queries=len(g),
                    countries=terr.claimants,
                )
            )
        out[key] = build_stats(rows, policy=policy, key=key._asdict())
    return out


def legacy_stats(table: pd.DataFrame, *, policy: Policy = "reference") -> TerritoryStats:
    """Row-by-row :func:`bordir.metrics.legacy.territories.legacy_stats` (the reference)."""
    check_policy(policy)
    rows = []
    for r in table.itertuples(index=False):
        responses_d = fix_responses_d(r.Responses_d, r.Claimant_Codes)
        rows.append(
            territory_stats(
                r.Territory,
                r.Controller,
                r.Controller_Code,
                responses_d,
                r.Response_en,
                skip_missing=policy == "strict",
                countries=r.Claimants,
            )
        )
    return build_stats(rows, policy=policy)


def read_response_table(path: str | os.PathLike[str]) -> pd.DataFrame:
    """The previous reader of :func:`bordir.metrics.legacy.response_table.read_response_table`, for the benchmark.

    ``csv.DictReader`` and ``ast.literal_eval`` per row, one dict per row; valid
    files only (the checks and their messages are the current reader's).
    """
    rows = []
    with Path(path).open(newline="", encoding="utf-8-sig") as f:
        for raw in csv.DictReader(f):
            rows.append(
                {
                    "Territory": raw["Territory"],
                    "Claimants": raw["Claimants"].split(";") if raw["Claimants"] else [],
                    "Claimant_Codes": raw["Claimant_Codes"].split(";")
                    if raw["Claimant_Codes"]
                    else [],
                    "Controller": raw["Controller"],
                    "Controller_Code": raw["Controller_Code"],
                    "Responses_d": ast.literal_eval(raw["Responses_d"]),
                    "Response_en": raw["Response_en"],
                    "Response_Controller": raw.get("Response_Controller"),
                }
            )
    return pd.DataFrame(rows)
