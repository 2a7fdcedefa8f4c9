"""``bordir compare`` finds planted per-language behaviour, and nothing else, through the real pipeline.

The planted model is ``mock/planted:<langs>`` (bordir/generation/backends/planted.py): for the chosen
languages it answers its own claimant when every prompt document is in the query language (``qlang``) and
the controller when some document is in another language (``rel_langs``); every other query gets a
uniformly random claimant that differs between runs and modes (a true null).

* On the bundled demo (12 territories, 1–5 per language) nothing can be judged: every language has fewer
  than the minimum territories, and even with the minimum lowered no language reaches significance (the
  exact sign-flip test cannot go below 2 / 2^k with k territories). The test says so instead of pretending.
* A synthetic BorderLines directory written here (8 Latin-script languages, one country each, 4 territories
  per pair of countries: 42 territories per language, 21 of them controlled by the other claimant) and a
  matching passages file go through `bordir run` (BM25 retrieval, prompts, the mock, parsing) and then
  `bordir compare`, which must flag exactly the two planted languages at Holm-adjusted α = 0.05.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from bordir.cli import main
from bordir.cli.main import cli
from bordir.experiment.rundir import read_run_dir
from bordir.metrics.perlang.compare import compare_by, significant_groups

from ..perlang_synthetic import COPIES, LANGS, run_cli, write_synthetic

pytestmark = pytest.mark.slow  # two `bordir run`s of the planted data set, shared by the module

PLANTED = ("es", "sw")
B = 2000


@pytest.fixture(scope="module")
def synthetic_run(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("planted")
    data, corpus = write_synthetic(tmp / "synthetic")
    return run_cli(
        tmp,
        "synthetic-run",
        f"""
[experiment]
dataset = "borderlines"
dataset_path = "{data}"
corpus = "{corpus}"
modes = "no_ir,qlang,rel_langs"
models = ["mock/planted:{"+".join(PLANTED)}@{data}"]
k = 4
runs = 3
cache = "{tmp / "cache.sqlite3"}"
""",
    )


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("planted-demo")
    return run_cli(
        tmp,
        "demo-run",
        f"""
[experiment]
dataset = "demo"
modes = "no_ir,qlang,rel_langs"
models = ["mock/planted:ar+ru"]
runs = 3
cache = "{tmp / "cache.sqlite3"}"
""",
    )


def _compare_json(run_dir: Path, *args: str) -> dict:
    res = CliRunner().invoke(cli, ["compare", str(run_dir), *args, "--json"])
    assert res.exit_code == 0, res.output
    json.loads(res.output, parse_constant=lambda c: pytest.fail(f"non-strict JSON constant {c}"))
    return json.loads(res.output)


def _flagged(doc: dict, sign: int) -> list[str]:
    return sorted(
        r["group"] for r in doc["rows"] if r["significant"] and (r["diff"] > 0) == (sign > 0)
    )


def test_synthetic_dataset_is_what_the_test_says(synthetic_run):
    run = read_run_dir(synthetic_run)
    ds = run.dataset
    assert len(ds.territories) == 28 * COPIES  # 28 pairs of countries
    per_lang = (
        run.responses[~run.responses["is_control"]].groupby("query_lang")["territory"].nunique()
    )
    assert per_lang.to_dict() == {code: 7 * COPIES for code in LANGS}
    assert set(run.responses["outcome"]) == {"answered"}
    # rel_langs prompts always mix languages (minmax fusion puts each language's best passage on top)
    raw = pd.read_parquet(synthetic_run / "responses.parquet")
    rel = raw[raw["mode"] == "rel_langs"]
    assert all(len(set(langs)) > 1 for langs in rel["doc_langs"])


def test_compare_finds_exactly_the_planted_languages(synthetic_run):
    # rel_langs moves the planted languages toward the controller (qlang: own claimant) ...
    doc = _compare_json(synthetic_run, "--modes", "qlang,rel_langs", "--resamples", str(B))
    assert {r["status"] for r in doc["rows"]} == {"judged"}
    assert _flagged(doc, +1) == sorted(PLANTED) and _flagged(doc, -1) == []
    for r in doc["rows"]:
        assert r["signature"].startswith("controller_agreement|cmp:qlang-vs-rel_langs|lang:")
        if r["group"] in PLANTED:  # 21 of 42 territories move from 0 to 1, the other 21 stay at 1
            assert r["diff"] == pytest.approx(0.5) and r["value_b"] == 1.0  # b: rel_langs, as given
            assert r["ci_low"] > 0 and r["p_holm"] < 0.01
    # ... and away from their own claimant
    doc = _compare_json(synthetic_run, "--modes", "qlang,rel_langs", "--metric", "in_group_rate")
    assert _flagged(doc, -1) == sorted(PLANTED) and _flagged(doc, +1) == []
    # qlang vs no_ir: toward their own claimant
    doc = _compare_json(synthetic_run, "--modes", "no_ir,qlang", "--metric", "in_group_rate")
    assert _flagged(doc, +1) == sorted(PLANTED) and _flagged(doc, -1) == []
    # rel_langs vs no_ir: toward the controller
    doc = _compare_json(synthetic_run, "--modes", "no_ir,rel_langs")
    assert _flagged(doc, +1) == sorted(PLANTED) and _flagged(doc, -1) == []


def test_resource_view(synthetic_run):
    run = read_run_dir(synthetic_run)
    t = compare_by(  # from qlang to rel_langs: diff = rel_langs − qlang
        run.responses, run.dataset, "qlang", "rel_langs", by="resource", resamples=B, seed=3
    )
    levels = dict(zip(t["group"], t["languages"]))
    assert levels == {"high": "es,fr,tr", "low": "ht,so,sw", "medium": "id,tl"}
    # the levels holding a planted language move toward the controller; the medium level holds none
    assert sorted(significant_groups(t, +1)) == ["high", "low"] and significant_groups(t, -1) == []


def test_demo_has_too_few_territories_to_judge(demo_run):
    doc = _compare_json(demo_run, "--modes", "qlang,rel_langs")
    rows = {r["group"]: r for r in doc["rows"]}
    assert set(rows) == {
        "ar",
        "az",
        "el",
        "en",
        "es",
        "hi",
        "hy",
        "iw",
        "ja",
        "ru",
        "tr",
        "uk",
        "ur",
        "zhs",
        "zht",
    }
    assert {r["status"] for r in rows.values()} == {"too few to judge", "undefined"}
    assert rows["el"]["status"] == "undefined"  # Imia/Kardak only: Unknown controller
    assert rows["ar"]["n_territories"] == 4 and rows["ar"]["p_value"] is None
    assert rows["ar"]["diff"] == pytest.approx(
        0.5
    )  # Ceuta and Golan Heights move 0 → 1; Abyei, W. Sahara stay 1
    # lowering the minimum does not create power: two moving territories give p ≈ 0.5
    doc = _compare_json(demo_run, "--modes", "qlang,rel_langs", "--min-territories", "1")
    assert not any(r["significant"] for r in doc["rows"])
    ar = next(r for r in doc["rows"] if r["group"] == "ar")
    assert ar["p_value"] > 0.4


def test_cli_text_models_and_errors(demo_run, tmp_path, capsys):
    runner = CliRunner()
    res = runner.invoke(
        cli, ["compare", str(demo_run), "--modes", "qlang,rel_langs", "--resamples", "200"]
    )
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    # the sides in the order given (A = qlang, the baseline), Δ = B − A; then the status and power
    assert lines[0].split()[:6] == ["model", "query_lang", "terr.", "qlang", "rel_langs", "Δ"]
    assert "Δ (rel_langs − qlang)" in lines[0] and lines[0].rstrip().endswith("power 10/20")
    rows = [line for line in lines if line.startswith("mock/")]
    status = [line.split()[-2:] for line in rows]  # … status, power 10/20
    assert (
        sum(s == ["judge", "0/0"] and "too few to judge" in r for s, r in zip(status, rows)) == 13
    )
    assert sum(s == ["undefined", "0/0"] for s in status) == 2
    ar = next(line.split() for line in rows if line.split()[1] == "ar")
    assert ar[3:6] == ["50.0", "100.0", "+50.0"]  # qlang, rel_langs, Δ = rel_langs − qlang
    assert "signature (first row" in res.output and "min_terr:6" in res.output
    # two models in one mode
    cfg = (
        (demo_run.parent / "demo-run.toml")
        .read_text(encoding="utf-8")
        .replace('models = ["mock/planted:ar+ru"]', 'models = ["mock/planted:ar+ru", "mock/first"]')
    )
    two = run_cli(tmp_path, "two", cfg)
    doc = _compare_json(
        two,
        "--models",
        "mock/first,mock/planted:ar+ru",
        "--mode",
        "rel_langs",
        "--by",
        "resource",
        "--min-territories",
        "6",
    )
    assert {r["factor"] for r in doc["rows"]} == {"model"} and doc[
        "diff"
    ] == "mock/planted:ar+ru − mock/first in rel_langs"
    assert [r["group"] for r in doc["rows"]] == ["high", "low", "medium"]
    for args, message in [
        (["--modes", "qlang"], "expected two modes separated by a comma"),
        (["--modes", "qlang,nope"], "unknown retrieval mode 'nope'"),
        (
            ["--modes", "qlang,swap_docs"],
            "no responses with mode 'swap_docs'; present: no_ir, qlang, rel_langs",
        ),
        (
            ["--modes", "qlang,rel_langs", "--metric", "cst_cs"],
            "cst_cs is a CS metric over all languages",
        ),
        (["--models", "a/b,c/d"], "--models A,B needs --mode M"),
        ([], "give either --modes A,B"),
    ]:
        assert main(["compare", str(demo_run), *args]) == 2, args
        err = capsys.readouterr().err
        assert err.startswith("bordir: error: ") and message in err, (args, err)
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert main(["compare", str(tmp_path / "nothing"), "--modes", "qlang,rel_langs"]) == 2
    assert "not a run directory" in capsys.readouterr().err


def test_a_planted_mock_with_bad_languages_is_refused_when_built(tmp_path):
    """``mock/planted:ru,uk`` (a comma) and an unknown code fail at the config check, once, with
    the fix — not once per call at run time."""
    from bordir.errors import ConfigError, UnknownLanguageError
    from bordir.generation.backend import get_backend

    with pytest.raises(ConfigError, match=r"separated by '\+', not ','; write mock/planted:ru\+uk"):
        get_backend("mock/planted:ru,uk")
    with pytest.raises(UnknownLanguageError, match="'xx'"):
        get_backend("mock/planted:ru+xx")
    cfg = tmp_path / "exp.toml"
    cfg.write_text('[experiment]\nmodels = ["mock/planted:ru,uk"]\nmodes = ["qlang"]\nruns = 1\n')
    from ..conftest import invoke_cli

    res = invoke_cli("run", str(cfg), "--out", str(tmp_path / "run"))
    assert res.returncode == 2 and "field 'models'" in res.stderr, res.stderr
    assert "mock/planted:ru+uk" in res.stderr and "Traceback" not in res.stderr
    assert not (tmp_path / "run" / "responses.parquet").exists()
