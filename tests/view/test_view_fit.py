"""Issue 51.8: the explorer shows what a selection defines, beside the matrix, with selectors that fit.

* a KB CS link selects the English control rows: the numbers panel shows KB CS only (it showed
  Control CS and ΔCS of those rows, which mean nothing there), in the static and the served page;
* at 1,280 px the sample panel stands beside the matrix, not over it: every cell stays in view;
* every selector shows its widest option whole, clear of its arrow;
* the README's screenshot of the matrix (``docs/img/view-matrix.png``) shows the demo run without
  failed cells (it showed the mock run's hatched "failed" cells). With ``BORDIR_SCREENSHOTS=docs/img``
  and ``BORDIR_DEMO_RUN`` naming a ``bordir demo`` directory, :func:`test_screenshots_of_the_demo_run`
  takes the documentation's screenshots from it.
"""

from __future__ import annotations

import html
import os
import re
from pathlib import Path

import numpy as np
import pytest

from bordir.view.server import ViewServer

from .conftest import Page, screenshot

pytestmark = pytest.mark.slow  # a whole run and its report (session fixtures), a browser

REPO = Path(__file__).resolve().parents[2]
HEADS = (
    "() => Array.from(document.querySelectorAll('#numbers-table thead th')).map(t => t.textContent)"
)


def _first_link(report: Path, metric: str) -> str:
    links = re.findall(r'href="(view\.html#[^"]*)"', report.read_text(encoding="utf-8"))
    return next(html.unescape(h) for h in links if f"metric=cs%3A{metric}&" in html.unescape(h))


def _url(run: Path, link: str) -> str:
    return (run / "view.html").as_uri() + "#" + link.split("#", 1)[1]


def _heads(page: Page, url: str) -> list[str]:
    pg = page.open(url)
    pg.wait_for_selector("body[data-numbers-ready='1']", timeout=30000)
    return pg.evaluate(HEADS)


def test_a_kb_link_shows_the_metric_its_rows_define(page, mock_report):
    link = _first_link(mock_report / "report.html", "kb_cs")
    assert "role=control" in link
    heads = _heads(page, _url(mock_report, link))
    assert heads[4:] == ["KB CS"], heads  # not Control CS, Non-control CS, ΔCS, Cst CS
    assert "do not define" in page.page.locator("#numbers-caption").inner_text()
    # a Control CS link selects every row of its model and mode: all five are defined there
    every = _heads(page, _url(mock_report, _first_link(mock_report / "report.html", "control_cs")))
    assert every[4:] == ["KB CS", "Control CS", "Non-control CS", "ΔCS", "Cst CS"], every


def test_the_served_page_shows_the_same(page, mock_report):
    link = _first_link(mock_report / "report.html", "kb_cs")
    server = ViewServer(mock_report).start()
    try:
        heads = _heads(page, server.url + link.split("view.html", 1)[1])
    finally:
        server.close()
    assert heads[4:] == ["KB CS"], heads


_BESIDE = """() => {
  const panel = document.querySelector('#panel').getBoundingClientRect();
  const box = document.querySelector('#matrix-box');
  const cells = Array.from(document.querySelectorAll('#matrix button.cell')).map(b => b.getBoundingClientRect());
  return {panelLeft: panel.left, panelWidth: panel.width, cells: cells.length,
          covered: cells.filter(r => r.right > panel.left + 0.5).length,
          scrolled: box.scrollWidth > box.clientWidth + 1,
          docScroll: document.documentElement.scrollWidth > document.documentElement.clientWidth};
}"""


def test_the_sample_panel_stands_beside_the_matrix(page, mock_run):
    pg = page.open((mock_run / "view.html").as_uri() + "#mt=Crimea")
    pg.wait_for_selector("body[data-matrix-ready='1']")
    pg.click('button.cell[data-lang="uk"][data-mode="rel_langs"]')
    pg.wait_for_selector("body[data-panel-ready='1']")
    got = pg.evaluate(_BESIDE)
    assert got["cells"] >= 17 and got["panelWidth"] >= 400, got  # 3 languages × 6 modes, one empty
    assert got["covered"] == 0 and not got["scrolled"] and not got["docScroll"], got
    pg.keyboard.press("Escape")  # closed: the page takes the whole width again
    assert pg.evaluate("() => document.body.classList.contains('panel-open')") is False


_SELECTS = """() => Array.from(document.querySelectorAll('select')).map(s => {
  const cs = getComputedStyle(s), c = document.createElement('canvas').getContext('2d');
  c.font = cs.font;
  const widest = Math.max(...Array.from(s.options).map(o => c.measureText(o.text).width));
  return {id: s.id, room: s.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight),
          arrow: parseFloat(cs.paddingRight), widest: widest};
})"""


def test_the_selectors_show_their_widest_option_clear_of_the_arrow(page, mock_run):
    pg = page.open((mock_run / "view.html").as_uri() + "#mt=Crimea&mm=mock%2Fplanted%3Aru%2Buk")
    pg.wait_for_selector("body[data-matrix-ready='1']")
    sel = pg.evaluate(_SELECTS)
    assert {s["id"] for s in sel} >= {"m-territory", "m-model", "m-model2"}
    for s in sel:
        assert s["arrow"] >= 20 and s["room"] >= s["widest"] - 0.5, (
            s
        )  # the text never under the arrow


def test_the_readme_screenshot_shows_no_failed_cells():
    """The hatched background of unparsed / refused / failed cells (#e2e2e2 / #f2f2f2 stripes): one
    cell has about 2,000 of its dark pixels; a few hundred come from antialiased text and borders."""
    from PIL import Image

    img = np.asarray(Image.open(REPO / "docs" / "img" / "view-matrix.png").convert("RGB"))
    hatch = (img == (226, 226, 226)).all(axis=-1).sum()
    assert hatch < 1000, f"{hatch} pixels of hatched (failed) cells in the README's screenshot"
    assert img.shape[1] >= 900  # the whole matrix, six modes


def test_screenshots_of_the_demo_run(browser):
    """The documentation's screenshots, from a ``bordir demo`` directory (``BORDIR_DEMO_RUN``)."""
    demo = os.environ.get("BORDIR_DEMO_RUN")
    if not demo or not os.environ.get("BORDIR_SCREENSHOTS"):
        pytest.skip("set BORDIR_DEMO_RUN (a `bordir demo` directory) and BORDIR_SCREENSHOTS")
    pg = Page(browser)
    try:
        p = pg.open((Path(demo) / "view.html").resolve().as_uri() + "#mt=Crimea")
        p.wait_for_selector("body[data-matrix-ready='1']")
        assert p.locator("#matrix td.cx").count() == 0  # no unparsed, refused or failed cell
        screenshot(p, "view-matrix", "#sec-matrix")
        p.click('button.cell[data-lang="uk"][data-mode="rel_langs"]')
        p.wait_for_selector("body[data-panel-ready='1']")
        p.set_viewport_size({"width": 1280, "height": 1480})
        screenshot(p, "view-sample", "#panel")
    finally:
        pg.page.close()
    assert not pg.errors, pg.errors
