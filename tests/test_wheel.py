"""The built wheel carries the languages registry: `bordir list languages` works from it."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
import zipfile

import pytest

from .conftest import REPO


@pytest.mark.slow
def test_wheel_installs_and_lists_languages(tmp_path):
    dist = tmp_path / "dist"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(dist),
            str(REPO),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = dist.glob("bordir-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "bordir/_resources/languages/languages.tsv" in names
    assert "bordir/_resources/languages/wikipedia.tsv" in names  # the generated Wikipedia languages
    assert "bordir/data/demo/corpus/passages.jsonl" in names
    assert (
        "bordir/data/demo/embeddings/e5-small-485e7eb92f/sha256-1dc61eb4a3d5d10d.npz" in names
    )  # shipped e5-small
    assert "bordir/_resources/annotations/gold/demo.jsonl" in names
    assert "bordir/generation/templates/direct.txt" in names
    assert "bordir/py.typed" in names

    # the wheel's dependencies are what pyproject.toml declares
    meta = (
        zipfile.ZipFile(wheel)
        .read(next(n for n in names if n.endswith(".dist-info/METADATA")))
        .decode()
    )
    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    required = [line.split(":", 1)[1].strip() for line in meta.splitlines()
                if line.startswith("Requires-Dist:") and "extra ==" not in line]  # fmt: skip
    assert sorted(required) == sorted(declared)

    # a virtual environment of its own, with the wheel installed by pip (its console script and
    # data files), and this environment's packages behind it for the dependencies: a path in a
    # .pth file (not this environment's own .pth hooks, so not its editable bordir)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    here = next(p for p in sys.path if p.endswith("site-packages"))
    (site,) = (venv / "lib").glob("python3*/site-packages")
    (site / "outer.pth").write_text(here + "\n", encoding="utf-8")
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps",
         str(wheel)],
        check=True, capture_output=True,
    )  # fmt: skip
    where = subprocess.run(
        [str(py), "-c", "import bordir; print(bordir.__file__)"],
        capture_output=True, text=True, cwd=tmp_path, check=True,
    ).stdout.strip()  # fmt: skip
    assert where.startswith(str(site)), where
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run(
        [str(venv / "bin" / "bordir"), "list", "languages"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    assert r.returncode == 0, r.stderr
    assert "Hebrew" in r.stdout and "55 curated, 287 generated (49 query languages)" in r.stdout
    r = subprocess.run(
        [str(venv / "bin" / "bordir"), "data", "info", "demo", "--json"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    assert r.returncode == 0, r.stderr
