"""Non-finite numbers on the pages: ``null`` in the embedded data, ``–`` on screen, never an internal error.

An audit cell with one answer has a ratio interval with no upper bound (``inf`` in ``rates.csv``);
``bordir view`` of it used to fail with ``internal error: … Out of range float values are not JSON
compliant``. The audit here is real: a log on disk with a one-answer cell (query language ``yo``),
``bordir audit`` and ``bordir view`` through the CLI, the page opened in Chromium.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pandas as pd
import pytest

from bordir.view.page import embed_json
from bordir.view.query import dumps

from ..conftest import invoke_cli


def _data(page: Path) -> dict:
    text = page.read_text(encoding="utf-8")
    m = re.search(r'<script type="application/json" id="bordir-data">(.*?)</script>', text, re.S)
    assert m
    return json.loads(m.group(1))


@pytest.fixture(scope="module")
def small_audit(tmp_path_factory) -> Path:
    """``bordir audit`` + ``bordir view`` of 40 records: 39 in Swahili, one in Yoruba (a one-answer cell)."""
    root = tmp_path_factory.mktemp("audit-one")
    log = root / "log.jsonl"
    with log.open("w", encoding="utf-8") as f:
        for i in range(40):
            lang = "sw" if i < 39 else "yo"
            docs = [{"id": f"r{i}d{j}", "lang": dl} for j, dl in enumerate(("en", "sw", "fr"))]
            rec = {"id": f"a{i}", "query": f"q {i}", "query_lang": lang, "documents": docs,
                   "response": "x", "response_lang": lang, "citations": [docs[i % 3]["id"]]}  # fmt: skip
            f.write(json.dumps(rec) + "\n")
    out = root / "audit"
    res = invoke_cli("audit", str(log), "--out", str(out), "--resamples", "50", "--no-plots")
    assert res.returncode == 0, res.stderr
    rates = pd.read_csv(out / "rates.csv")
    assert math.isinf(rates[rates["query_lang"] == "yo"]["ratio_high"].max())  # the planted cell
    res = invoke_cli("view", str(out))
    assert res.returncode == 0 and "internal error" not in res.stderr, res.stderr
    return out


def test_infinite_bounds_are_null_in_the_page(small_audit):
    data = _data(small_audit / "view.html")
    cols = data["rows"]["cols"]
    lang = [cols["query_lang"]["d"][c] for c in cols["query_lang"]["c"]]
    high = cols["ratio_high"]["n"]
    yo = [i for i, q in enumerate(lang) if q == "yo"]
    assert yo and all(high[i] is None for i in yo)
    assert all(h is None or math.isfinite(h) for h in high)


def test_embedding_helper_nulls_every_non_finite_number():
    nested = {"a": [1.0, float("inf"), {"b": float("-inf"), "c": float("nan")}], "d": (0.5,)}
    for text in (embed_json(nested), dumps(nested).decode("utf-8")):
        assert json.loads(text) == {"a": [1.0, None, {"b": None, "c": None}], "d": [0.5]}
        assert "Infinity" not in text and "NaN" not in text


@pytest.mark.slow  # a browser
def test_the_cell_shows_a_dash(small_audit, browser):
    from .conftest import Page

    data = _data(small_audit / "view.html")
    cols = data["rows"]["cols"]
    lang = [cols["query_lang"]["d"][c] for c in cols["query_lang"]["c"]]
    doc = [cols["doc_lang"]["d"][c] for c in cols["doc_lang"]["c"]]
    cell = next(i for i, (q, d) in enumerate(zip(lang, doc)) if q == "yo" and d == "en")
    pg = Page(browser)
    p = pg.open((small_audit / "view.html").as_uri() + f"#tab=samples&open={cell}")
    p.wait_for_selector("body[data-panel-ready='1']")
    text = p.locator("#panel").inner_text()
    assert re.search(r"ratio \[95% CI\]\s+3\.000 \[\d\.\d{3}, –\]", text), text
    p.close()
    assert not pg.errors, pg.errors
