from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("BORDIR_SHARED", REPO.parent / "shared"))
SHARED_BORDERLINES = SHARED / "data" / "borderlines"


@pytest.fixture(scope="session")
def shared_borderlines() -> Path:
    """The real BorderLines files in ../shared (skip when absent, as in a user's clone)."""
    if not (SHARED_BORDERLINES / "disputed_territories.csv").is_file():
        pytest.skip("../shared/data/borderlines is not present")
    return SHARED_BORDERLINES


def run_cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run the real CLI in a subprocess (``python -m bordir``)."""
    return subprocess.run(
        [sys.executable, "-m", "bordir", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        cwd=REPO,
    )


@pytest.fixture(autouse=True)
def _hf_offline(tmp_path_factory, monkeypatch):
    cache = tmp_path_factory.getbasetemp() / "hf-cache"
    monkeypatch.setenv("HF_HOME", str(cache))
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
