"""``bordir view`` on a black-box audit: every answer behind a cell, its URLs with their attribution and rules, text as text."""

from __future__ import annotations

import json

import pytest

from bordir.cli import main

from ..view.conftest import CHROMIUM_ARGS, Page, chromium_path


@pytest.fixture(scope="module")
def audit_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("bbview")
    log = d / "log.jsonl"
    evil = "<script>document.title='pwned'</script><img src=x onerror=alert(1)>"
    with open(log, "w", encoding="utf-8") as fh:
        for g in range(12):
            for lang in ("ru", "uk"):
                urls = (
                    ["https://ria.ru/a", "https://en.wikipedia.org/wiki/Crimea"]
                    if lang == "ru"
                    else ["https://www.ukrinform.ua/x", f"https://example.com/{evil}"]
                )
                fh.write(
                    json.dumps(
                        {
                            "id": f"{g}-{lang}",
                            "question": f"Q {evil}",
                            "lang": lang,
                            "answer": f"answer {evil}",
                            "urls": urls,
                            "group": g,
                            "model": "m",
                            "claimants": ["RU", "UA"],
                        },
                        ensure_ascii=False,
                    )
                    + "\n"
                )
    out = d / "audit"
    assert (
        main(
            [
                "audit",
                str(log),
                "--out",
                str(out),
                "--resamples",
                "100",
                "--permutations",
                "100",
                "--no-plots",
            ]
        )
        == 0
    )
    assert main(["view", str(out)]) == 0
    return out


def test_the_page_embeds_the_answers_once_and_escapes_them(audit_dir):
    html = (audit_dir / "view.html").read_text(encoding="utf-8")
    assert "</script><img" not in html  # no string of the log can end the data element
    assert html.count('"id":"0-ru"') == 1


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (the dev extra)"
    )
    exe = chromium_path()
    if exe is None:
        pytest.skip("no chromium binary (apt-get install chromium)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
        yield b
        b.close()


def test_a_cell_opens_on_its_answers_with_attribution_and_rules(audit_dir, browser):
    pg = Page(browser)
    page = pg.open((audit_dir / "view.html").as_uri())
    page.fill("#search", "RU")
    page.wait_for_function("() => +document.getElementById('count').dataset.total < 40")
    page.wait_for_selector("body[data-table-ready='1']")
    texts = page.evaluate(
        "Array.from(document.querySelectorAll('#samples tbody tr')).map(r => Array.from(r.cells).map(c => c.innerText))"
    )
    hit = [i for i, cells in enumerate(texts) if cells[1:5] == ["m", "ru", "country", "RU"]]
    assert hit, texts
    target = page.locator("#samples tbody tr").nth(hit[0])
    target.click()
    page.wait_for_selector("body[data-panel-ready='1']")
    panel = page.locator("#panel").inner_text()
    assert "Answers behind the cell (12)" in panel
    assert "ria.ru" in panel and "cctld:ru" in panel and "publisher:wikipedia.org" in panel
    assert (
        "<script>document.title='pwned'</script>" in page.locator("#panel").inner_text()
        or "answer <script>" in panel
    )
    assert page.title() != "pwned"
    assert page.locator("#panel tr.cited").count() == 12  # the RU URL of each answer is marked
    assert not pg.errors, pg.errors
    pg.page.close()
