"""Issue 11.2: the notebook path of docs/quickstart.md ("From a notebook") runs as shown, in at most 8 lines."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "quickstart.md"


def _notebook_block() -> str:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## From a notebook", 1)[1].split("\n## ", 1)[0]
    return re.search(r"```pycon\n(.*?)```", section, re.S).group(1)


def test_notebook_is_at_most_8_lines():
    lines = [l for l in _notebook_block().splitlines() if l.startswith(">>> ")]
    assert 0 < len(lines) <= 8


@pytest.mark.slow
def test_notebook_runs_as_shown(tmp_path, monkeypatch):
    pytest.importorskip("scipy")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("BORDIR_SEED", raising=False)
    parser = doctest.DocTestParser()
    test = parser.get_doctest(_notebook_block(), {}, "quickstart-notebook", str(DOC), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    out: list[str] = []
    runner.run(test, out=out.append)
    assert runner.failures == 0, "".join(out)
    assert (tmp_path / "runs" / "notebook" / "run.json").is_file()
