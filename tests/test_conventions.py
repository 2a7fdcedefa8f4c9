"""Issue 25.3: one convention everywhere.

* the sign rule: ``run.compare(A, B)``, ``compare_by(A, B)`` and ``bordir compare --modes A,B`` all
  report B − A (the change going from A, the baseline, to B), in every column they print;
* one default metric for the API and the CLI (``controller_agreement``);
* the headline ΔCS is ``delta_cs`` (Control − Non-control) and the normalised reference form is
  ``delta_cs_norm``, in the registry, ``metrics.json``, the tables and the docs (no ``delta_cs_abs``
  is left anywhere).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import bordir

from .conftest import invoke_cli

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def run(demo_run_mock):
    return demo_run_mock


def test_api_compare_is_b_minus_a_for_cs_metrics(run):
    ab = run.compare("qlang", "rel_langs", metric="non_control_cs", n_resamples=50).iloc[0]
    assert (ab["a"], ab["b"]) == ("qlang", "rel_langs")
    assert ab["diff"] == pytest.approx(ab["value_b"] - ab["value_a"])
    ba = run.compare("rel_langs", "qlang", metric="non_control_cs", n_resamples=50).iloc[0]
    assert ba["diff"] == pytest.approx(-ab["diff"])
    # the planted mock follows its documents: rel_langs moves answers to the controller
    assert ab["value_b"] > ab["value_a"] and ab["diff"] > 0


def test_api_and_cli_share_the_sign_and_the_default_metric(run, tmp_path):
    from bordir.metrics.perlang.measures import DEFAULT_MEASURE

    saved = tmp_path / "run"
    bordir.Run(run.config, run.responses, run.hits, run.info, run.dataset).save(saved)
    out = invoke_cli(
        "compare", str(saved), "--modes", "qlang,rel_langs", "--resamples", "50", "--json"
    )
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert (
        doc["metric"] == DEFAULT_MEASURE == "controller_agreement"
        and doc["diff"] == "rel_langs − qlang"
    )
    lib = run.compare("qlang", "rel_langs", by="query_lang", n_resamples=50)
    assert set(lib["metric"]) == {DEFAULT_MEASURE}
    lib = lib.set_index("group")
    for r in doc["rows"]:
        want = lib.loc[r["group"]]
        assert (r["a"], r["b"]) == ("qlang", "rel_langs") == (want["a"], want["b"])
        if r["n_territories"]:
            assert r["diff"] == pytest.approx(want["diff"])
            assert r["diff"] == pytest.approx(r["value_b"] - r["value_a"])
    # without `by` the API pools every language into one row of the same default measure
    pooled = run.compare("qlang", "rel_langs", n_resamples=50)
    assert list(pooled["group"]) == ["*"] and set(pooled["metric"]) == {DEFAULT_MEASURE}
    assert pooled["diff"].iloc[0] == pytest.approx(
        pooled["value_b"].iloc[0] - pooled["value_a"].iloc[0]
    )


def test_the_cli_table_columns_follow_the_sides(run, tmp_path):
    saved = tmp_path / "run"
    bordir.Run(run.config, run.responses, run.hits, run.info, run.dataset).save(saved)
    out = invoke_cli("compare", str(saved), "--modes", "qlang,rel_langs", "--resamples", "50")
    assert out.returncode == 0, out.stderr
    header = out.stdout.splitlines()[0].split()
    assert header.index("qlang") < header.index("rel_langs")
    assert "(rel_langs" in out.stdout.splitlines()[0] and "− qlang)" in out.stdout.splitlines()[0]
    # the notes under the table and the signature are wrapped (they were one 670-character line)
    rule = out.stdout.splitlines()[1]
    tail = [l for l in out.stdout.splitlines() if not l.startswith(("mock/", rule[:3]))][1:]
    assert all(len(l) <= 100 for l in tail), [l for l in tail if len(l) > 100]


def test_headline_delta_has_the_plain_name():
    from bordir.metrics.registry import headline_metrics, metric_label

    assert "delta_cs" in headline_metrics() and "delta_cs_norm" not in headline_metrics()
    assert metric_label("delta_cs") == "ΔCS"
    assert "normalized" in metric_label("delta_cs_norm")


def test_the_normalised_delta_is_normalised():
    import pandas as pd

    from bordir.metrics.cs.aggregate import aggregate
    from bordir.metrics.cs.territory import territory_stats

    row, _ = territory_stats("X", "A", "a", {"a": "A", "b": "B", "c": "A"}, "A")
    s = aggregate(pd.DataFrame([row]))  # Control CS 1, Non-control CS 1/2
    assert s["delta_cs"].value == pytest.approx(1.0 - 0.5)
    assert s["delta_cs_norm"].value == pytest.approx((1.0 - 0.5) / 0.5)


def test_no_old_name_is_left():
    pattern = re.compile(r"delta_cs_abs")
    found = []
    for base in ("bordir", "tests", "benchmarks", "docs"):
        for f in (REPO / base).rglob("*"):
            if f.suffix not in {".py", ".md", ".js", ".html", ".toml", ".json", ".css"}:
                continue
            if "__pycache__" in f.parts or f == Path(__file__):
                continue
            if pattern.search(f.read_text(encoding="utf-8", errors="replace")):
                found.append(str(f.relative_to(REPO)))
    if pattern.search((REPO / "README.md").read_text(encoding="utf-8")):
        found.append("README.md")
    assert not found, f"the unnormalised ΔCS is `delta_cs` now; still `delta_cs_abs` in {found}"


def test_metrics_md_states_the_sign_rule():
    text = (REPO / "docs" / "metrics.md").read_text(encoding="utf-8")
    assert "Sign rule" in text and "B − A" in text


def test_one_percentage_formatter():
    """Every percentage bordir prints goes through bordir._io.percent (issue 49.5: no copies)."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "bordir"
    copies = []
    for p in sorted(root.rglob("*.py")):
        if p.relative_to(root).as_posix() == "_io/percent.py":
            continue
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name.lstrip("_") in ("pct", "percent"):
                body = ast.unparse(node)
                if "_io.percent" not in body and "_pct(" not in body:
                    copies.append(f"{p.relative_to(root)}:{node.lineno}")
    assert not copies, copies
