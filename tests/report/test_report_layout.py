"""Issue 25.4: the report leads with its finding, has a table of contents, tables that fit at
1,280 px, and plot titles that are not clipped (checked in headless Chromium through Playwright)."""

from __future__ import annotations

import json

import pytest

from ..view.conftest import CHROMIUM_ARGS, chromium_path

pytestmark = pytest.mark.slow  # a whole run and its report, in Chromium


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    pytest.importorskip("matplotlib")
    import bordir
    from bordir.report import plots as report_plots

    out = tmp_path_factory.mktemp("layout") / "run"
    cfg = {"models": ["mock/first"], "modes": ["no_ir", "qlang", "rel_langs", "swap_docs"], "runs": 2,
           "k": 2, "option_orders": "reversed", "order_modes": ["no_ir"]}  # fmt: skip
    bordir.run(cfg, cache=out.parent / "c.sqlite3", out=out, progress=False)
    leftovers: dict[str, list[str]] = {}
    original = report_plots.save_figure

    def checked(fig, folder, name):
        paths = original(fig, folder, name)
        leftovers[name] = report_plots.clipped_titles(fig)
        return paths

    mp = pytest.MonkeyPatch()
    mp.setattr(report_plots, "save_figure", checked)
    try:
        from bordir.report import build_report

        html = build_report(out, n_resamples=100)
    finally:
        mp.undo()
    return out, html, leftovers


def test_no_plot_title_is_clipped(report):
    _, _, leftovers = report
    assert leftovers and not {k: v for k, v in leftovers.items() if v}, leftovers


def test_a_long_title_is_wrapped_not_clipped(tmp_path):
    pytest.importorskip("matplotlib")
    from bordir.report.plots import clipped_titles, load_matplotlib, save_figure

    mpl = load_matplotlib()
    fig = mpl.figure.Figure(figsize=(4, 2), layout="constrained")
    axes = fig.subplots(1, 2, width_ratios=[1, 4])
    axes[0].set_title("openai-compatible/a-long-model-name: pick rate by letter", fontsize=9)
    assert clipped_titles(fig)  # what the pick-rate plot did
    save_figure(fig, tmp_path, "t")
    assert not clipped_titles(fig)


def test_the_summary_leads_and_names_the_finding(report):
    out, html_path, _ = report
    html = html_path.read_text(encoding="utf-8")
    metrics = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    summary = metrics["summary"]
    # mock/first always answers A: every answer changes with the order, none between runs
    assert any(
        f.startswith("Position bias of mock/first") and "order in 100.0 % of pairs" in f
        for f in summary["findings"]
    )
    assert summary["cannot_judge"] and summary["dropped"]["n"] > 0
    body = html.split("<body>", 1)[1]
    assert body.index('id="contents"') < body.index('id="summary"') < body.index('id="tables"')
    assert body.index('id="summary"') < body.index(
        'id="run"'
    )  # the settings come after the results


def _in_a_thread_of_its_own(fn):
    """``fn()`` in a fresh thread: the sync Playwright API refuses to start on a thread where an
    event loop runs (another test of the same worker may hold one: a package-scoped browser of
    tests/view, a doctest's loop); a new thread has none."""
    import threading

    box: dict = {}

    def target():
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the test's thread
            box["error"] = exc

    t = threading.Thread(target=target, name="playwright-layout", daemon=True)
    t.start()
    t.join(timeout=180)
    assert not t.is_alive(), "the browser did not finish within 180 s"
    if "error" in box:
        raise box["error"]
    return box["value"]


_MEASURE = """() => {
  const d = document.documentElement, main = document.querySelector('main');
  const limit = main.getBoundingClientRect().right + 1;
  const wide = [];
  for (const el of document.querySelectorAll('table, figure, img, pre, nav, section')) {
    const r = el.getBoundingClientRect();
    if (r.width && r.right > limit) wide.push((el.id || el.tagName) + ' ' + Math.round(r.right));
  }
  const s = document.querySelector('#summary');
  const f = document.querySelector('#summary ul.findings li');
  const ids = new Set(Array.from(document.querySelectorAll('[id]')).map(e => e.id));
  const links = Array.from(document.querySelectorAll('#contents a')).map(a => a.getAttribute('href').slice(1));
  return {scrollW: d.scrollWidth, clientW: d.clientWidth, wide: wide,
          summaryTop: s.getBoundingClientRect().top + window.scrollY,
          findingBottom: f ? f.getBoundingClientRect().bottom + window.scrollY : null,
          links: links, missing: links.filter(l => !ids.has(l))};
}"""


def in_chromium(html_path, look):
    """``look(page)`` on ``html_path`` loaded in headless Chromium at 1,280 × 800 (skips without one)."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright (the dev extra)")
    exe = chromium_path()
    if exe is None:
        pytest.skip("no chromium binary (apt-get install chromium)")

    def measure():
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
            try:
                page = browser.new_page(viewport={"width": 1280, "height": 800})
                page.goto(html_path.resolve().as_uri())
                page.wait_for_selector("body[data-ready='1']", timeout=30000)
                return look(page)
            finally:
                browser.close()

    return _in_a_thread_of_its_own(measure)


def test_the_page_fits_1280_px_and_the_summary_is_on_the_first_screen(report):
    _, html_path, _ = report
    info = in_chromium(html_path, lambda page: page.evaluate(_MEASURE))
    assert info["scrollW"] <= info["clientW"], info  # no horizontal scroll at 1,280 px
    assert not info["wide"], info["wide"]  # every table and figure fits the page
    assert info["summaryTop"] < 800 and info["findingBottom"] is not None
    assert info["findingBottom"] < 800, info  # the first finding is on the first screen
    assert len(info["links"]) >= 8 and not info["missing"], info
