"""Named keys of ``territory_tables`` (issue 11) and ``Run.compare(by=...)``'s default measure."""

from __future__ import annotations

import pandas as pd
import pytest

import bordir
from bordir.loaders import load_demo
from bordir.metrics import TableKey, territory_tables


def _responses() -> pd.DataFrame:
    ds = load_demo()
    rows = []
    for run in (0, 1):
        for mode in ("no_ir", "qlang"):
            for q in ds.queries:
                rows.append(
                    {
                        "query_id": q.query_id,
                        "territory": q.territory,
                        "query_lang": q.lang,
                        "is_control": q.is_control,
                        "mode": mode,
                        "model": "mock/first",
                        "run": run,
                        "outcome": "answered",
                        "choice": 0,
                    }
                )
    return pd.DataFrame(rows)


def test_territory_tables_keys_are_named_and_still_tuples():
    ds = load_demo()
    tables = territory_tables(_responses(), ds)
    keys = list(tables)
    assert len(keys) == 4 and all(isinstance(k, TableKey) for k in keys)
    k = keys[0]
    assert (k.model, k.mode, k.run) == ("mock/first", "no_ir", 0) and type(k.run) is int
    model, mode, run = k  # positional unpacking keeps working
    assert (model, mode, run) == k == ("mock/first", "no_ir", 0)
    assert (
        tables[("mock/first", "qlang", 1)] is tables[TableKey("mock/first", "qlang", 1)]
    )  # plain tuples find it
    assert tables[k].key == k._asdict()


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    cfg = {"models": ["mock/planted:uk+ru"], "modes": ["no_ir", "qlang"], "runs": 1, "k": 2}
    return bordir.run(cfg, cache=tmp_path_factory.mktemp("c") / "c.sqlite3", progress=False)


def test_compare_by_language_defaults_to_a_per_language_measure(run):
    by = run.compare("qlang", "no_ir", by="query_lang", n_resamples=50)
    assert len(by) and set(by["metric"]) == {"controller_agreement"}
    assert by["signature"].str.contains("controller_agreement").all()
    res = run.compare("qlang", "no_ir", by="resource", n_resamples=50)
    assert set(res["metric"]) == {"controller_agreement"}


def test_compare_by_language_with_a_pooled_cs_metric_says_what_to_use(run):
    with pytest.raises(bordir.ConfigError, match="controller_agreement"):
        run.compare("qlang", "no_ir", by="query_lang", metric="cst_cs", n_resamples=50)
    assert len(
        run.compare("qlang", "no_ir", n_resamples=50)
    )  # without by: the pooled CS metric (cst_cs)
