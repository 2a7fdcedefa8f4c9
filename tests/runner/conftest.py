"""Fixtures the grid tests share: the demo dataset as a BorderLines directory, a Crimea-only corpus."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bordir.loaders.demo import demo_dir


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> Path:
    """The demo dataset copied as a BorderLines directory (no corpus, no embeddings)."""
    root = tmp_path_factory.mktemp("bl") / "borderlines"
    shutil.copytree(
        demo_dir(), root, ignore=shutil.ignore_patterns("corpus", "embeddings", "README.md")
    )
    return root


@pytest.fixture(scope="module")
def crimea_corpus(tmp_path_factory) -> Path:
    """A corpus of the demo's Crimea passages only: every other territory has none."""
    from bordir.corpus import load_corpus

    path = tmp_path_factory.mktemp("corpus") / "crimea.jsonl"
    rows = [
        {"doc_id": p.doc_id, "lang": p.lang, "territory": p.territory, "title": p.title,
         "text": p.text}
        for p in load_corpus("demo")
        if p.territory == "Crimea"
    ]  # fmt: skip
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    return path


def experiment_toml(path: Path, **fields) -> Path:
    """``[experiment]`` with ``fields`` written to ``path``."""
    lines = ["[experiment]", *(f"{k} = {json.dumps(v)}" for k, v in fields.items())]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
