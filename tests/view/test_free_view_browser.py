"""The explorer's free-answer section in headless Chromium, on a real open-format run.

A mock-backend run of the demo in the ``open`` format (two models answering fixed free text, two
modes) is written by the real CLI with its forced twin (``forced/``) and its ``view.html``. The page
is opened from ``file://``: every free answer of ``responses.parquet`` is a row, shown whole; the
``<mark>`` in it holds exactly the span the resolver records for that answer (and the resolver's
outcome is the one the run recorded); the forced twin's answer to the same question is in the row;
no console error (the ``page`` fixture).
"""

from __future__ import annotations

import pandas as pd
import pytest

from bordir.generation.parse.free import FreeResolver
from bordir.loaders import load_demo

from .conftest import _toml, cli_ok, invoke_cli

pytestmark = pytest.mark.slow  # a run through the CLI, a browser

TEXTS = (
    "Crimea has a long history. Today it is administered by Russia, but most countries "
    "recognize it as part of Ukraine.",
    'I would rather not take sides on this <question> & its "answers".',
)


@pytest.fixture(scope="module")
def open_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("free-view")
    cfg = _toml(
        root / "open.toml",
        {
            "dataset": "demo",
            "corpus": "demo",
            "models": [f"mock/fixed:{t}" for t in TEXTS],
            "modes": ["no_ir", "qlang"],
            "runs": 1,
            "k": 2,
            "limit": 2,
            "response_format": "open",
            "cache": str(root / "cache.sqlite3"),
        },
    )
    out = root / "run"
    res = invoke_cli("run", str(cfg), "--out", str(out), "--no-progress")
    assert res.returncode == 0, res.stderr
    cli_ok("view", str(out))
    return out


def test_each_free_answer_its_deciding_span_and_its_forced_twin_are_shown(page, open_run):
    free = pd.read_parquet(open_run / "responses.parquet")
    forced = pd.read_parquet(open_run / "forced" / "responses.parquet")
    keys = ["model", "mode", "query_id", "run"]
    both = free.merge(forced, on=keys, how="left", suffixes=("", "_f"))
    assert len(both) == len(free) >= 8 and both["outcome_f"].notna().all()
    ds = load_demo()
    resolver = FreeResolver(ds)
    pg = page.open((open_run / "view.html").as_uri())
    rows = pg.locator("#free-answers tbody tr")
    assert rows.count() == len(free)
    marked = 0
    for i, r in enumerate(both.itertuples(index=False)):
        row = rows.nth(i)
        cells = row.locator("td").all_inner_texts()
        q = ds.query(r.query_id)
        res = resolver.resolve(r.raw_text, q)
        recorded = "answered" if res.outcome == "claimant" else res.outcome
        assert recorded == r.outcome  # the resolution shown is the run's own
        assert cells[0] == r.query_id and cells[2] == r.mode and cells[4] == res.outcome
        answer = row.locator("td.free-answer")
        assert answer.inner_text() == r.raw_text  # the whole answer, as text
        marks = answer.locator("mark")
        a, b = res.span
        if b > a:
            assert marks.count() == 1
            assert marks.inner_text() == r.raw_text[a:b]  # exactly the deciding span
            marked += 1
        else:
            assert marks.count() == 0
        named = q.claimants[int(r.choice_f)] if r.outcome_f == "answered" else r.outcome_f
        assert cells[8].startswith(str(named)) and str(r.raw_text_f)[:40] in cells[8]
    assert marked >= len(free) // 2  # the administered/recognized answers mark their sentence
    assert pg.locator("#free-answers mark").count() == marked
    assert pg.locator("#free-answers question").count() == 0  # '<question>' stayed text
