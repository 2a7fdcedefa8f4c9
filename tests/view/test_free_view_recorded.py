"""The explorer's free answers say what the run counted: an echo of the prompt's documents stays ``echo``.

The run resolves each free answer with its prompt (an answer copying a retrieved document is
``echo``, :mod:`bordir.generation.parse.echo`); the explorer re-resolves the text alone to find the
deciding span. A ``mock/echo`` model in ``qlang`` (documents in the prompt) answers with the prompt
itself: the page must show the run's ``echo``, not the claimant the document names, and no span.
"""

from __future__ import annotations

import re

import pandas as pd
import pytest

from bordir.view.free_view import free_section

from .conftest import _toml, invoke_cli

pytestmark = pytest.mark.slow  # a run through the CLI


def test_an_echo_the_run_counted_is_shown_as_echo(tmp_path):
    cfg = _toml(
        tmp_path / "open.toml",
        {
            "dataset": "demo",
            "corpus": "demo",
            "models": ["mock/echo"],
            "modes": ["qlang"],
            "runs": 1,
            "k": 2,
            "limit": 3,
            "response_format": "open",
            "cache": str(tmp_path / "cache.sqlite3"),
        },
    )
    out = tmp_path / "run"
    res = invoke_cli("run", str(cfg), "--out", str(out), "--no-progress")
    assert res.returncode == 0, res.stderr
    free = pd.read_parquet(out / "responses.parquet")
    echoed = free[free["outcome"] == "echo"]
    assert len(echoed) >= 3, free["outcome"].value_counts()
    html = free_section(out)
    rows = re.findall(r"<tr><td>(.*?)</td>.*?</tr>", html, flags=re.S)
    assert len(rows) == len(free)
    for row in re.findall(r"<tr>.*?</tr>", html, flags=re.S)[1:]:
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, flags=re.S)
        qid = cells[0]
        recorded = free.loc[free["query_id"] == qid, "outcome"].iloc[0]
        shown = cells[4]
        assert shown == ("claimant" if recorded == "answered" else recorded), (qid, shown)
        if recorded == "echo":
            assert "<mark>" not in cells[7] and cells[5] == ""
