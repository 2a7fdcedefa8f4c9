"""The run explorer in a real headless Chromium (Playwright on the system Chromium).

The page of a mock-backend run of the demo (``mock_run``) is opened from ``file://``; the tests click
matrix cells, use the keyboard, apply filters, search, sort and reload from the URL, and compare what
is on screen with ``responses.parquet`` read by pandas. The ``page`` fixture fails a test whose page
logged a console error.
"""

from __future__ import annotations

import json
from collections import Counter

import pandas as pd
import pytest

from bordir.view.run_data import load_run_data

from .conftest import Page, screenshot

pytestmark = pytest.mark.slow  # a whole run and its report (session fixtures), a browser


@pytest.fixture(scope="module")
def rows(mock_run) -> pd.DataFrame:
    data = load_run_data(mock_run)
    df = pd.DataFrame({k: v for k, v in data.facets.items()})
    df["reply"] = data.frame["raw_text"].fillna("")
    df["prompt"] = data.frame["prompt"]
    df["doc_ids"] = data.frame["doc_ids"]
    df["id"] = range(len(df))
    return df


def test_matrix_cell_opens_every_sample_behind_it(page, mock_run, rows):
    pg = page.open((mock_run / "view.html").as_uri() + "#mt=Crimea&mm=mock%2Fplanted%3Aru%2Buk")
    pg.wait_for_selector("body[data-matrix-ready='1']")
    heads = [t.strip() for t in pg.locator("#matrix tbody th.lang").all_inner_texts()]
    assert [h.split("\n")[0] for h in heads][:3] == [
        "ru",
        "uk",
        "en",
    ]  # the claimants first, then English
    assert pg.locator("#matrix thead th").all_inner_texts()[1:] == [
        "no_ir", "qlang", "qlang+en", "en_only", "rel_langs", "swap_docs",
    ]  # fmt: skip
    want = rows[(rows.territory == "Crimea") & (rows.model == "mock/planted:ru+uk")]
    for lang in ("ru", "uk", "en"):
        for mode in ("qlang", "rel_langs"):
            cell = want[(want.lang == lang) & (want["mode"] == mode)]
            top, k = Counter(cell.answer).most_common(1)[0]
            text = pg.locator(f'button.cell[data-lang="{lang}"][data-mode="{mode}"]').inner_text()
            assert top in text and f"{k} of {len(cell)}" in text
    assert (
        "★" in pg.locator("#matrix-legend").inner_text()
        and "Russia" in pg.locator("#matrix-legend").inner_text()
    )
    # the README's matrix screenshot comes from the local-model demo run (tests/view/test_view_fit.py)
    pg.click('button.cell[data-lang="uk"][data-mode="rel_langs"]')
    pg.wait_for_selector("body[data-panel-ready='1']")
    behind = want[(want.lang == "uk") & (want["mode"] == "rel_langs")]
    samples = pg.locator("#panel article.sample")
    assert samples.count() == len(behind) == 2
    for i in range(samples.count()):
        art = samples.nth(i)
        r = behind[behind.id == int(art.get_attribute("data-id"))].iloc[0]
        prompt = json.loads(r.prompt)
        assert art.locator("pre.prompt-system").inner_text() == prompt[0][1]
        assert art.locator("pre.prompt-user").inner_text() == prompt[1][1]
        assert art.locator("pre.reply").inner_text() == r.reply
        assert art.locator("table.docs tbody tr").count() == len(r.doc_ids)
        text = art.inner_text()
        assert "verified: the response cache holds this key" in text
        assert (
            "strict 1: leading choice" in text and "signature" in text and "tokens in / out" in text
        )
    pg.set_viewport_size({"width": 1280, "height": 1480})  # the panel down to the parser's rule
    screenshot(pg, "view-sample", "#panel")
    pg.keyboard.press("Escape")
    assert pg.locator("#panel").is_hidden()


def test_second_model_as_a_diff(page, mock_run, rows):
    pg = page.open(
        (mock_run / "view.html").as_uri()
        + "#mt=Crimea&mm=mock%2Fplanted%3Aru%2Buk&mm2=mock%2Ffirst"
    )
    pg.wait_for_selector("body[data-matrix-ready='1']")
    t = rows[rows.territory == "Crimea"]

    def top(model: str, lang: str, mode: str) -> str | None:
        c = t[(t.model == model) & (t.lang == lang) & (t["mode"] == mode)]
        return Counter(c.answer).most_common(1)[0][0] if len(c) else None

    changed = sum(
        1
        for lang in set(t.lang)
        for mode in set(t["mode"])
        if top("mock/planted:ru+uk", lang, mode)
        and top("mock/first", lang, mode)
        and top("mock/planted:ru+uk", lang, mode) != top("mock/first", lang, mode)
    )
    assert changed > 0 and pg.locator("#matrix td.changed").count() == changed
    assert "≠ mock/first" in pg.locator("#matrix td.changed").first.inner_text()


def test_keyboard_navigation(page, mock_run):
    pg = page.open((mock_run / "view.html").as_uri())
    pg.wait_for_selector("body[data-matrix-ready='1']")
    first = pg.locator('button.cell[data-row="0"][data-col="0"]')
    first.focus()
    pg.keyboard.press("ArrowRight")
    assert pg.evaluate("document.activeElement.dataset.col") == "1"
    pg.keyboard.press("ArrowDown")
    assert pg.evaluate("document.activeElement.dataset.row") == "1"
    pg.keyboard.press("Enter")
    pg.wait_for_selector("body[data-panel-ready='1']")
    assert pg.evaluate("document.activeElement.id") == "panel-close"
    pg.keyboard.press("Escape")
    assert pg.evaluate("document.activeElement.dataset.col") == "1"  # focus back on the cell
    # every control has a label
    unlabeled = pg.evaluate(
        """Array.from(document.querySelectorAll('select, input')).filter(function (e) {
             return !(e.labels && e.labels.length) && !e.getAttribute('aria-label'); }).length"""
    )
    assert unlabeled == 0
    pg.locator("#tab-matrix").focus()
    pg.keyboard.press("ArrowRight")
    assert pg.locator("#tab-samples").get_attribute("aria-selected") == "true"


def facet(pg, key: str) -> dict[str, int]:
    """The nonzero ``value: count`` pairs a facet shows."""
    pairs = pg.evaluate(
        """k => Array.from(document.querySelectorAll('#facet-' + k + ' label')).map(
             l => [l.querySelector('input').value, +l.querySelector('.n').textContent])""",
        key,
    )
    return {v: n for v, n in pairs if n}


def _count(pg) -> int:
    pg.wait_for_selector("body[data-table-ready='1']")
    return int(pg.locator("#count").get_attribute("data-total"))


def test_filters_search_sort_and_the_url(page, mock_run, rows):
    pg = page.open((mock_run / "view.html").as_uri() + "#tab=samples")
    assert _count(pg) == len(rows)
    pg.locator('#facet-model label:has-text("mock/first") input').check()
    pg.locator('#facet-mode label:has-text("rel_langs") input').check()
    sel = rows[(rows.model == "mock/first") & (rows["mode"] == "rel_langs")]
    assert _count(pg) == len(sel)
    # counts follow the filters: a facet counts with every other filter applied
    assert facet(pg, "lang") == sel.lang.value_counts().to_dict()
    assert facet(pg, "mode") == rows[rows.model == "mock/first"]["mode"].value_counts().to_dict()
    assert facet(pg, "model") == rows[rows["mode"] == "rel_langs"].model.value_counts().to_dict()
    pg.fill("#search", "РОСІЯ")
    pg.wait_for_function(f"() => document.querySelector('#count').dataset.total !== '{len(sel)}'")
    hit = sel[sel.reply.str.lower().str.contains("росія")]
    assert _count(pg) == len(hit) > 0
    pg.fill("#search", "")
    pg.wait_for_function(f"() => document.querySelector('#count').dataset.total === '{len(sel)}'")
    pg.click('button.sort:has-text("answer")')
    pg.click('button.sort:has-text("answer")')  # descending
    pg.wait_for_selector("body[data-table-ready='1']")
    answers = pg.locator("#samples tbody tr td:nth-child(8)").all_inner_texts()
    expect = sorted(sel.answer, reverse=True)[: len(answers)]
    assert answers == expect
    url = pg.url
    assert (
        "model=mock%2Ffirst" in url
        and "mode=rel_langs" in url
        and "sort=answer" in url
        and "dir=desc" in url
    )
    other = Page(page.browser)
    pg2 = other.open(url)
    assert int(pg2.locator("#count").get_attribute("data-total")) == len(sel)
    assert pg2.locator('#facet-model label:has-text("mock/first") input').is_checked()
    assert pg2.locator("#samples tbody tr td:nth-child(8)").all_inner_texts() == answers
    pg2.close()
    assert not other.errors, other.errors
    pg.locator("#samples tbody tr").first.press("Enter")
    pg.wait_for_selector("body[data-panel-ready='1']")
    assert pg.locator("#panel article.sample").count() == 1


def test_numbers_of_the_rows_on_screen_are_the_reports(page, mock_report):
    metrics = json.loads((mock_report / "metrics.json").read_text(encoding="utf-8"))
    pg = page.open(
        (mock_report / "view.html").as_uri()
        + "#tab=samples&model=mock%2Fplanted%3Aru%2Buk&order=given"
    )
    pg.wait_for_selector("body[data-numbers-ready='1']")
    table = pg.locator("#numbers-table tbody tr").all_inner_texts()
    cells = metrics["results"]["mock/planted:ru+uk"]
    assert len(table) == len(cells)
    for line in table:
        model, mode, n, _terr, kb, ctl, non, delta, cst = line.split("\t")
        cell = cells[mode]
        assert int(n) == cell["n_responses"]
        for text, m in (
            (kb, "kb_cs"),
            (ctl, "control_cs"),
            (non, "non_control_cs"),
            (delta, "delta_cs"),
            (cst, "cst_cs"),
        ):
            mean = cell["metrics"][m]["mean"]
            assert text == ("n/a" if mean is None else f"{100 * mean:.1f}"), (mode, m)
