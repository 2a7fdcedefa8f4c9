from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ..conftest import REPO, invoke_cli, run_cli


def test_help_lists_commands():
    r = run_cli("--help")
    assert r.returncode == 0
    for cmd in ("list", "data"):
        assert cmd in r.stdout


def test_version():
    import bordir

    r = run_cli("--version")
    assert r.returncode == 0 and bordir.__version__ in r.stdout


@pytest.mark.slow
def test_list_languages_table_and_json():
    r = invoke_cli("list", "languages")
    assert r.returncode == 0
    assert "iw" in r.stdout and "Hebrew" in r.stdout and "49 query languages" in r.stdout
    rows = json.loads(invoke_cli("list", "languages", "--json").stdout)
    assert {"code", "wiki", "langdetect", "tokenizer", "stemmer", "resource"} <= set(rows[0])
    assert len([r for r in rows if r["query_language"]]) == 49


@pytest.mark.slow
def test_list_datasets():
    rows = json.loads(invoke_cli("list", "datasets", "--json").stdout)
    assert {r["name"] for r in rows} == {"borderlines", "bordirlines", "demo", "nomiracl"}


@pytest.mark.slow
def test_data_info_real_borderlines(shared_borderlines):
    r = invoke_cli("data", "info", "borderlines", "--path", str(shared_borderlines), "--json")
    assert r.returncode == 0, r.stderr
    info = json.loads(r.stdout)
    assert (info["territories"], info["queries"], info["query_languages"]) == (251, 720, 49)
    assert info["queries_per_language"]["zht"] == 81
    assert any("Suriname" in w for w in info["warnings"])
    repaired = json.loads(
        invoke_cli(
            "data", "info", "borderlines", "--path", str(shared_borderlines), "--repair", "--json"
        ).stdout
    )
    assert repaired["repairs"] and not any("Suriname" in w for w in repaired["warnings"])


@pytest.mark.slow
def test_data_info_demo_human_readable():
    r = invoke_cli("data", "info", "demo")
    assert r.returncode == 0
    assert "territories: 12" in r.stdout and "corpus_passages:" in r.stdout


def test_unknown_dataset_is_one_line_exit_2():
    r = run_cli("data", "info", "nope")
    assert r.returncode == 2
    assert (
        r.stderr.strip()
        == "bordir: error: unknown dataset 'nope'; known: borderlines, bordirlines, demo, nomiracl"
    )


@pytest.mark.slow
def test_missing_directory_is_one_line_exit_2(tmp_path):
    r = run_cli("data", "info", "borderlines", "--path", str(tmp_path / "missing"))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "not a directory" in r.stderr


def test_usage_error_exits_2():
    r = run_cli("list", "colours")
    assert r.returncode == 2 and "Traceback" not in r.stderr


def test_import_is_light():
    """``import bordir`` must not pull pandas, numpy or the CLI."""
    code = "import sys, bordir; bad = [m for m in ('pandas', 'numpy', 'click', 'datasets') if m in sys.modules]; print(bad)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_public_api_is_pinned():
    """``bordir.__all__`` against the literal list of tests/test_public_api.py, and every name of it
    served by the lazy loader (``dir(bordir)`` is built from ``__all__``, so it proves nothing)."""
    import bordir

    from ..test_public_api import PUBLIC

    assert sorted(bordir.__all__) == sorted(PUBLIC)
    assert set(bordir.__all__) == {"__version__", *bordir._LAZY}
    for name in bordir.__all__:
        getattr(bordir, name)
