"""Issue 12.4: the small shared helpers that replace copies: Holm (one implementation), the required-columns check,
the progress bar, and strict JSON for every `--json` output."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bordir._io.columns import column_names, require_columns
from bordir._progress import progress_bar, progress_disabled
from bordir.cli import main as cli_main
from bordir.errors import DataError
from bordir.stats import holm, holm_pvalues

REPO = Path(__file__).resolve().parents[1]


def _strict_loads(text: str):
    """json.loads that refuses NaN, Infinity and -Infinity (as a strict JSON parser does)."""

    def refuse(token: str):
        raise ValueError(f"non-standard JSON constant {token}")

    return json.loads(text, parse_constant=refuse)


# --- Holm (its differential tests: tests/stats/test_holm.py) ---------------------------------------


def test_one_holm_behind_both_call_sites():
    """The per-language comparisons and the citation flags use the same implementation (bordir.stats)."""
    import bordir.citations.flags as flags
    import bordir.metrics.perlang.compare as perlang

    assert perlang.holm is holm and flags.holm_pvalues is holm_pvalues
    assert not hasattr(flags, "holm_adjust")  # one name, one signature (metrics.holm_adjust)


# --- required columns -----------------------------------------------------------------------------


def test_require_columns_names_file_line_field_and_what_is_expected():
    with pytest.raises(DataError) as e:
        require_columns(
            ["a"], ("a", "b", "c"), path="t.csv", line=1, expected="a t file has a, b, c"
        )
    assert str(e.value) == "t.csv:1: field 'b': missing column(s) b, c; a t file has a, b, c"
    assert (e.value.path, e.value.line, e.value.field) == ("t.csv", 1, "b")
    with pytest.raises(DataError, match=r"^responses: missing column\(s\) b$"):
        require_columns(pd.DataFrame({"a": [1]}), ("a", "b"), path="responses", name_field=False)
    require_columns(pd.DataFrame({"a": [1], "b": [2]}), ("a", "b"))  # nothing missing: no error


def test_column_names_of_every_table_kind(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({"x": [1], "y": [2]})
    pq.write_table(table, tmp_path / "t.parquet")
    for t in (
        table,
        table.schema,
        pq.ParquetFile(tmp_path / "t.parquet"),
        pd.DataFrame({"x": [1], "y": [2]}),
        ["x", "y"],
        {"x", "y"},
    ):
        assert sorted(column_names(t)) == ["x", "y"], type(t)


def test_no_hand_written_missing_column_checks_left():
    """The sites issue 12 names go through require_columns / columns_error."""
    for rel in (
        "bordir/corpus/readers/table.py",
        "bordir/metrics/legacy/response_table.py",
        "bordir/metrics/responses.py",
        "bordir/citations/viewpoint.py",
        "bordir/citations/experiment.py",
        "bordir/wiki/titles.py",
        "bordir/audit/reader.py",
        "bordir/retrieval/run.py",
        "bordir/annotations/io.py",
        "bordir/languages.py",
    ):
        text = (REPO / rel).read_text(encoding="utf-8")
        assert 'f"missing column(s)' not in text, rel


# --- progress bars --------------------------------------------------------------------------------


def test_progress_defaults(monkeypatch):
    monkeypatch.delenv("BORDIR_PROGRESS", raising=False)
    assert progress_disabled(False) is True
    assert progress_disabled(True) is None and progress_disabled(None) is None  # on a terminal only
    monkeypatch.setenv("BORDIR_PROGRESS", "0")
    assert progress_disabled(True) is True
    monkeypatch.setenv("BORDIR_PROGRESS", "1")
    assert progress_disabled(True) is False and progress_disabled(False) is True


def test_progress_bar_writes_to_stderr_only_when_asked(monkeypatch, capsys):
    monkeypatch.setenv("BORDIR_PROGRESS", "1")
    with progress_bar(True, total=2, desc="demo", unit="step") as bar:
        bar.update(2)
    cap = capsys.readouterr()
    assert cap.out == "" and re.search(r"demo: 100%.*2/2", cap.err)
    monkeypatch.delenv("BORDIR_PROGRESS")
    with progress_bar(True, total=2, desc="demo") as bar:  # stderr is not a terminal here
        bar.update(2)
    assert capsys.readouterr().err == ""


def test_every_progress_bar_goes_through_the_helper():
    for path in (REPO / "bordir").rglob("*.py"):
        if path.name == "_progress.py":
            continue
        text = path.read_text(encoding="utf-8")
        assert "from tqdm" not in text and "import tqdm" not in text, path


# --- strict JSON on every --json output -----------------------------------------------------------


def test_echo_json_never_prints_nan(capsys):
    from bordir.cli._output import echo_json

    echo_json(
        {
            "nan": float("nan"),
            "inf": np.float64("inf"),
            "arr": np.array([1.0, np.nan]),
            "int": np.int64(3),
            "na": pd.NA,
            "path": Path("x"),
        }
    )
    assert _strict_loads(capsys.readouterr().out) == {
        "nan": None,
        "inf": None,
        "arr": [1.0, None],
        "int": 3,
        "na": None,
        "path": "x",
    }


def test_every_json_output_goes_through_jsonable():
    """`--json` prints through echo_json (jsonable, allow_nan=False) or jsonable + allow_nan=False."""
    for path in sorted((REPO / "bordir" / "cli").glob("*.py")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if "json.dumps(" in line:
                assert "jsonable(" in line and "allow_nan=False" in line, f"{path.name}: {line}"


def _legacy_table(path: Path, nc_answer: str) -> Path:
    path.write_text(
        "Territory,Claimants,Claimant_Codes,Controller,Controller_Code,Responses_d,Response_en,"
        "Response_Controller\n"
        f"X,A;B,a;b,A,a,\"{{'a': 'A', 'b': '{nc_answer}'}}\",A,A\n",
        encoding="utf-8",
    )
    return path


def test_score_json_with_undefined_delta_is_strict_json(tmp_path, capsys):
    """Non-control CS = 0 in every run: ΔCS is undefined (NaN inside); the output stays strict JSON."""
    files = [str(_legacy_table(tmp_path / f"r{i}.csv", "B")) for i in range(2)]
    assert cli_main(["score", "borderlines-table", *files, "--json"]) == 0
    doc = _strict_loads(capsys.readouterr().out)
    assert doc["summary"]["delta_cs_norm"]["mean"] is None


@pytest.mark.parametrize(
    "argv",
    [
        ["list", "metrics", "--json"],
        ["list", "fusions", "--json"],
        ["list", "policies", "--json"],
        ["data", "info", "demo", "--json"],
    ],
)
def test_json_outputs_parse_strictly(argv, capsys):
    assert cli_main(argv) == 0
    _strict_loads(capsys.readouterr().out)
