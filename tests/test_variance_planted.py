"""Variance decomposition on planted designs: territory-driven, run-driven, and a judge axis."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bordir.metrics import territory_tables
from bordir.metrics.intervals.variance import components, decompose, pseudo_values, variance_table

from .test_power_planted import synthetic


def _responses(ds, kind: str, runs: int = 6, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    terrs = [t.name for t in ds.territories]
    fixed = {t: rng.random() < 0.5 for t in terrs}
    run_rate = [
        0.1 if rng.random() < 0.5 else 0.9 for _ in range(runs)
    ]  # a run-wide swing (seed effect)
    rows = []
    for q in ds.queries:
        for run in range(runs):
            # territory: each territory's answer is fixed across runs; run: every answer of a run leans one way
            agree = (
                fixed[q.territory] if kind == "territory" else bool(rng.random() < run_rate[run])
            )
            rows.append(
                dict(
                    query_id=q.query_id,
                    territory=q.territory,
                    query_lang=q.lang,
                    is_control=q.is_control,
                    mode="no_ir",
                    model="m",
                    run=run,
                    outcome="answered",
                    choice=0 if agree else 1,
                )
            )
    return pd.DataFrame(rows)


def test_pseudo_values_average_to_the_metric_of_each_run():
    ds = synthetic(40, 0)
    tables = territory_tables(_responses(ds, "run", runs=3), ds)
    runs = [tables[k] for k in sorted(tables)]
    for metric in ("kb_cs", "non_control_cs", "cst_cs", "delta_cs_abs"):
        y = pseudo_values(runs, metric)
        expect = [r.value(metric) for r in runs]
        assert y.mean(axis=0) == pytest.approx(expect)


def test_a_model_fixed_per_territory_is_territory_dominated():
    ds = synthetic(60, 0)
    df = variance_table(
        territory_tables(_responses(ds, "territory"), ds),
        metrics=("kb_cs",),
        n_resamples=200,
        seed=2,
    )
    row = df.iloc[0]
    assert row["dominant"] == "territory" and row["clear"] and row["advice"] == "more territories"
    assert row["share_territory"] > 0.95 and row["share_run"] == pytest.approx(0.0, abs=1e-9)
    assert row["share_territory_low"] <= row["share_territory"] <= row["share_territory_high"]
    assert "kb_cs_variance" in row["signature"] and "terr:60" in row["signature"]


def test_a_model_sampling_every_answer_is_run_dominated():
    ds = synthetic(60, 0)
    row = variance_table(
        territory_tables(_responses(ds, "run", runs=12), ds), metrics=("kb_cs",), n_resamples=200
    ).iloc[0]
    assert row["dominant"] == "run" and row["share_run"] > 0.5
    assert row["clear"] and row["share_run_low"] > 0.5 and row["advice"] == "more runs"
    few = variance_table(
        territory_tables(_responses(ds, "run", runs=2), ds), metrics=("kb_cs",), n_resamples=200
    ).iloc[0]
    assert not few["clear"] and few["advice"] == "unclear: more of both"  # 2 runs cannot tell


def test_judge_axis_and_single_run():
    rng = np.random.default_rng(5)
    y = rng.normal(0, 0.05, (30, 4, 3)) + rng.normal(0, 1.0, (1, 1, 3))  # judges disagree a lot
    d = decompose(y, n_resamples=100, seed=1)
    assert d.dominant == "judge" and d.n_judges == 3 and d.advice == "more judges or annotators"
    single = components(rng.normal(size=(10, 1)))
    assert np.isnan(single["run"]) and single["territory"] > 0
    assert decompose(rng.normal(size=(10, 1)), n_resamples=20).share["run"] is None
