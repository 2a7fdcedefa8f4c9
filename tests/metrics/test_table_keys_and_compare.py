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
def run(demo_run_mock):
    """The session's mock run of the demo (planted, no_ir / qlang / rel_langs; tests/conftest.py)."""
    return demo_run_mock


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


def test_cli_compare_json_names_the_sides_as_given(run, tmp_path):
    """``bordir compare --modes A,B``: a is A, b is B, and diff = B − A (B was labelled ``a`` before)."""
    import json

    from ..conftest import invoke_cli

    saved = tmp_path / "run"
    bordir.Run(run.config, run.responses, run.hits, run.info, run.dataset).save(saved)
    out = invoke_cli("compare", str(saved), "--modes", "no_ir,qlang", "--resamples", "50", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["diff"] == "qlang − no_ir"
    lib = run.compare("qlang", "no_ir", by="query_lang", n_resamples=50).set_index("group")
    for r in doc["rows"]:
        assert (r["a"], r["b"]) == ("no_ir", "qlang")
        want = lib.loc[r["group"]]
        assert (
            r["n_territories_a"] == want["n_territories_b"] and r["n_items_b"] == want["n_items_a"]
        )
        if r["n_territories"]:
            assert r["value_a"] == pytest.approx(want["value_b"]) and r["value_b"] == pytest.approx(
                want["value_a"]
            )
            assert r["diff"] == pytest.approx(r["value_b"] - r["value_a"])


def test_cli_compare_states_the_power_of_groups_not_judged(run, tmp_path):
    """Issue 28.5: the demo's languages are all too few to judge; each says the power it would have had."""
    import json

    from ..conftest import invoke_cli

    saved = tmp_path / "run"
    bordir.Run(run.config, run.responses, run.hits, run.info, run.dataset).save(saved)
    out = invoke_cli("compare", str(saved), "--modes", "no_ir,qlang", "--resamples", "50")
    assert out.returncode == 0, out.stderr
    head = out.stdout.splitlines()[0]
    assert head.rstrip().endswith("power 10/20") and "power 10/20: the power (%)" in out.stdout
    doc = json.loads(
        invoke_cli(
            "compare", str(saved), "--modes", "no_ir,qlang", "--resamples", "50", "--json"
        ).stdout
    )
    assert doc["power_effects"] == [0.1, 0.2]
    for r in doc["rows"]:
        assert {"power_10", "power_20", "power_alpha"} <= set(r)
        if r["status"] == "too few to judge":
            assert r["power_alpha"] == 0.05 and 0 <= r["power_10"] <= r["power_20"] <= 1
            if r["n_territories"] <= 5:  # the sign-flip test cannot reject with 5 territories
                assert r["power_20"] == 0.0
