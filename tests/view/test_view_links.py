"""From numbers to samples: every metric link of ``report.html`` lands on the rows its number comes from.

For every link of the report (CS cells, deltas, mode comparisons, per-language comparison rows,
citation cells, testbed rates), in Chromium: the rows the link selects are exactly the rows an
independent filter in Python selects (the server's numpy engine, or pandas on ``items.parquet``),
and the number recomputed from them in the page equals the value the report shows. One link is
followed by a click, as a reader would.
"""

from __future__ import annotations

import html
import math
import re
from pathlib import Path
from urllib.parse import unquote

import numpy as np
import pandas as pd
import pytest

from bordir.view.query import SEP, RunQuery
from bordir.view.run_data import RUN_FACETS, load_run_data

pytestmark = pytest.mark.slow  # a whole run and its report (session fixtures), a browser


def report_links(report: Path) -> list[str]:
    return [
        html.unescape(h)
        for h in re.findall(r'href="(view\.html#[^"]*)"', report.read_text(encoding="utf-8"))
    ]


def link_params(link: str, facets: list[str]) -> dict[str, str]:
    out = {}
    for part in link.split("#", 1)[1].split("&"):
        k, v = part.split("=", 1)
        out[k] = SEP.join(unquote(x) for x in v.split(",")) if k in facets else unquote(v)
    return out


def check_run_links(page, run: Path, kinds: set[str]) -> int:
    links = report_links(run / "report.html")
    assert kinds <= {link_params(h, [])["metric"].split(":")[0] for h in links}
    rq = RunQuery(load_run_data(run))
    keys = [f.key for f in RUN_FACETS]
    pg = page.open((run / "view.html").as_uri())
    got = pg.evaluate(
        "links => links.map(h => window.bordirView.numbersFor(h.slice(h.indexOf('#'))))", links
    )
    for link, res in zip(links, got):
        mask, _ = rq.filter(
            {k: v.split(SEP) for k, v in link_params(link, keys).items() if k in keys}
        )
        assert res["ids"] == np.flatnonzero(mask).tolist(), link  # the rows the number comes from
        assert res["value"] is not None and math.isclose(
            res["value"], res["expect"], abs_tol=1e-9
        ), (link, res["value"])
    return len(links)


def test_every_link_of_a_run_report(page, mock_report):
    assert check_run_links(page, mock_report, {"cs", "cmp", "pl"}) > 300


def test_every_link_of_a_citation_run_report(page, cite_run):
    assert check_run_links(page, cite_run, {"cs", "cit"}) > 10


def test_following_a_link_from_the_report(page, mock_report):
    pg = page.open((mock_report / "report.html").as_uri(), ready="body[data-ready='1']")
    link = pg.locator("#table-main tbody tr").nth(7).locator("a").first
    shown = link.inner_text().split(" ")[0]
    link.click()
    pg.wait_for_selector("body[data-numbers-ready='1']", timeout=15000)
    assert pg.url.split("#")[0].endswith("view.html")
    assert pg.locator("#recomputed-match").inner_text() == "✓ the same"
    assert pg.locator("#recomputed-value").inner_text() == shown
    params = link_params(pg.url, [f.key for f in RUN_FACETS])
    resp = load_run_data(mock_report).facets
    want = np.ones(len(resp["model"]), dtype=bool)
    for k in ("model", "mode", "order", "role"):
        if k in params:
            want &= np.asarray(resp[k]) == params[k]
    assert int(pg.locator("#count").get_attribute("data-total")) == int(want.sum())


def test_every_link_of_a_testbed_report(page, testbed_dir):
    from bordir.testbeds.metrics import indicators

    links = report_links(testbed_dir / "report.html")
    assert len(links) > 50
    items = pd.read_parquet(testbed_dir / "items.parquet")
    pg = page.open((testbed_dir / "view.html").as_uri())
    got = pg.evaluate(
        "links => links.map(h => window.bordirView.numbersFor(h.slice(h.indexOf('#'))))", links
    )
    for link, res in zip(links, got):
        p = link_params(link, [])
        sel = (items["model"] == p["model"]) & (items["setting"] == p["setting"])
        sel &= np.array([f"{r:g}" == p["noise"] for r in items["noise_rate"]])
        if "lang" in p:
            sel &= items["lang"] == p["lang"]
        assert res["ids"] == np.flatnonzero(sel.to_numpy()).tolist(), link
        _, metric, policy = p["metric"].split(":")
        num, den = indicators(items[sel], metric, policy)
        assert math.isclose(res["value"], num.sum() / den.sum()) and math.isclose(
            res["value"], res["expect"]
        ), link


@pytest.mark.parametrize(
    "fragment", ["#tab=samples&q=%E0%A4%A", "#tab=%zz", "#lang=%", "#tab=matrix&mt=%FF"]
)
def test_a_link_with_a_malformed_escape_still_opens_the_page(page, mock_run, fragment):
    """A hand-made or cut link (``%E0%A4%A``): the page opens, the escape kept as it is.

    Before: ``URIError: URI malformed`` and a page that never loaded."""
    pg = page.open((mock_run / "view.html").as_uri() + fragment)  # fails unless data-ready
    assert pg.evaluate("() => document.body.dataset.ready") == "1"
