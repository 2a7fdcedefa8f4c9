"""The report summary states the power beside every "no difference" and "too few to judge" (issue 50, item 6).

A real run on the demo dataset (``mock/first``: every mode answers alike, so no comparison with
``no_ir`` differs, and 12 territories are too few per language), reported by ``bordir report``:
the summary in metrics.json, the HTML's first screen and the terminal lines all give the power
the tests had.
"""

from __future__ import annotations

import json
import re

import pytest

from ..conftest import invoke_cli

pytest.importorskip("matplotlib")

POWER = re.compile(r"power against a 10-point difference \d+(–\d+)?%, against 20 points \d+")


@pytest.fixture(scope="module")
def reported(tmp_path_factory):
    import bordir

    out = tmp_path_factory.mktemp("power") / "run"
    cfg = {"models": ["mock/first"], "modes": ["no_ir", "qlang"], "runs": 2, "k": 2}
    bordir.run(cfg, cache=out.parent / "c.sqlite3", out=out, progress=False)
    res = invoke_cli("report", str(out), "--resamples", "100", "--no-plots")
    assert res.returncode == 0, res.stderr
    return out, res.stdout


@pytest.mark.slow
def test_no_difference_and_too_few_carry_their_power(reported):
    out, stdout = reported
    s = json.loads((out / "metrics.json").read_text())["summary"]
    quiet = [c for c in s["cannot_judge"] if "no difference" in c or "too few to judge" in c]
    assert quiet, s["cannot_judge"]
    for c in quiet:
        assert POWER.search(c) or "had they been tested, power against 10 points" in c, c
    page = (out / "report.html").read_text(encoding="utf-8")
    first = page[page.index('id="summary"') :][:20000]
    assert "power against a 10-point difference" in first
    terminal = [line for line in stdout.splitlines() if "no difference" in line]
    assert terminal and any("power" in line for line in stdout.splitlines())
