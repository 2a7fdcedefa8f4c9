"""`bordir runs` is a leaderboard (issue 25.6): one row per run directory and mode, sorted by the
metric asked for, `--json` with signatures, exit 2 on a directory that is not a run."""

from __future__ import annotations

import json
import re

import pytest

from ..conftest import invoke_cli


@pytest.mark.slow  # a whole run, report, testbed or audit
def test_bordir_runs_is_a_leaderboard(demo_run_mock, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    demo_run_mock.save(a)
    demo_run_mock.save(b)
    out = invoke_cli("runs", str(a), str(b), "--sort", "cst_cs")
    assert out.returncode == 0, out.stderr
    head = out.stdout.splitlines()[0].split()
    assert head[:4] == ["run", "model", "mode", "runs"] and "ΔCS" in head
    rows = [l for l in out.stdout.splitlines()[2:] if l.startswith((str(a), str(b)))]
    assert len(rows) == 2 * 3  # two directories × three modes
    cells = [re.split(r"\s{2,}", l.strip()) for l in rows]
    col = re.split(r"\s{2,}", out.stdout.splitlines()[0].strip()).index("Cst CS")
    cst = [float(c[col].split()[0]) for c in cells]
    assert cst == sorted(cst, reverse=True)  # --sort cst_cs: highest first
    js = invoke_cli("runs", str(a), "--json")
    doc = json.loads(js.stdout)
    assert {r["metric"] for r in doc} == {"kb_cs", "cst_cs", "delta_cs"}
    assert all(r["signature"] and r["run"] == str(a) for r in doc)
    bad = invoke_cli("runs", str(tmp_path / "nothing"))
    assert bad.returncode == 2
