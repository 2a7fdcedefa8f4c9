"""Issue 51.5: the test-run and audit outputs lead with their summary, and no page names a path of the
user's machine in its header (the directory's name instead).

The pages are opened in headless Chromium at 1,280 × 860: the summary is the first thing under the
title, on the first screen.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow  # the session's output directories (real CLI runs), a browser

_LEAD = """() => {
  const s = document.querySelector('header section#summary');
  if (!s) return null;
  const r = s.getBoundingClientRect(), tabs = document.querySelector('#tabs').getBoundingClientRect();
  return {top: r.top, bottom: r.bottom, tabsTop: tabs.top, text: s.innerText,
          header: document.querySelector('header').innerText};
}"""


def _lead(page, path):
    pg = page.open(path.as_uri())
    return pg.evaluate(_LEAD)


def test_a_judged_test_run_leads_with_its_fail_rates(page, testgen_dir):
    lead = _lead(page, testgen_dir / "view.html")
    assert lead is not None, "no summary at the top of the test run's page"
    assert lead["bottom"] <= lead["tabsTop"] and lead["top"] < 300, lead
    assert "Findings that hold" in lead["text"] and "decided tests fail" in lead["text"]
    assert "What cannot be judged" in lead["text"]
    # the judge's second repeat is lenient on half of the tests: its repeats disagree, and it says so
    assert "not reliable enough" in lead["text"] or "ties" in lead["text"]
    assert str(testgen_dir.parent) not in lead["header"]


def test_an_audit_leads_with_its_flagged_cells(page, audit_dir):
    lead = _lead(page, audit_dir / "view.html")
    assert lead is not None, "no summary at the top of the audit's page"
    assert lead["bottom"] <= lead["tabsTop"] and lead["top"] < 300, lead
    assert "Over-cited: en documents, sw queries" in lead["text"]  # the planted over-citation
    assert str(audit_dir.parent) not in lead["header"] and "log.jsonl" in lead["header"]
    md = (audit_dir / "audit.md").read_text(encoding="utf-8")
    assert md.index("## Summary") < md.index("## Definitions") < md.index("## Flags")
    summary = md.split("## Summary", 1)[1].split("## Definitions", 1)[0]
    assert "Over-cited: en documents, sw queries" in summary and "What cannot be judged" in summary
    assert str(audit_dir.parent) not in md.split("## Summary", 1)[0]


def test_the_run_page_header_names_the_directory(page, mock_run):
    pg = page.open((mock_run / "view.html").as_uri())
    header = pg.locator("header").inner_text()
    assert mock_run.name in header and str(mock_run.parent) not in header
    meta = pg.evaluate("() => JSON.parse(document.getElementById('bordir-data').textContent).meta")
    assert meta["dir"] == mock_run.name  # nor in the data the page carries
