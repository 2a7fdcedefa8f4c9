"""pyproject.toml: ``all`` installs every feature extra, ``dev`` every extra the tests use."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"
META = {"all", "dev", "docs", "demo"}  # extras made of other extras, or not a feature
NOT_IN_DEV = {"bge", "ray"}  # heavy (torch, ray): their tests skip without them


def _extras() -> dict[str, list[str]]:
    if not PYPROJECT.is_file():
        pytest.skip("no pyproject.toml (installed package)")
    return tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["optional-dependencies"]


def _included(reqs: list[str]) -> set[str]:
    out: set[str] = set()
    for r in reqs:
        m = re.fullmatch(r"bordir\[([^\]]+)\]", r.strip())
        if m:
            out |= {e.strip() for e in m.group(1).split(",")}
    return out


def test_all_includes_every_feature_extra():
    extras = _extras()
    assert set(extras) - META <= _included(extras["all"]), sorted(
        set(extras) - META - _included(extras["all"])
    )


def test_dev_includes_every_extra_but_the_heavy_ones():
    extras = _extras()
    missing = set(extras) - META - NOT_IN_DEV - _included(extras["dev"])
    assert not missing, sorted(missing)
    assert "docs" in _included(extras["dev"])  # make docs


def test_extras_cover_every_report_section_and_testgen_detection():
    import tomllib

    extras = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())[
        "project"
    ]["optional-dependencies"]

    def closure(name: str) -> set[str]:
        out = set()
        for req in extras[name]:
            if req.startswith("bordir["):
                for sub in req[len("bordir[") : -1].split(","):
                    out |= closure(sub.strip())
            else:
                out.add(req.split(">")[0].split("=")[0].split("<")[0].split("[")[0].strip().lower())
        return out

    demo = closure("demo")
    assert {"matplotlib", "scipy", "statsmodels", "langdetect", "llama-cpp-python", "bm25s"} <= demo
    assert "langdetect" in closure("testgen")
