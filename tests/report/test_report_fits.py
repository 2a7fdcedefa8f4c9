"""Issue 51.5: reports that fit what can be said (checked in the files and in headless Chromium).

* nothing testable per language: one sentence and the forest plots folded in a ``<details>`` (the demo
  drew 18 empty panels), a variance table with no clear cell folded too (42 "unclear" rows);
* a table of contents that stays on screen (sticky) and does not hide the heading it jumps to;
* no absolute path of the user's machine in the header: the directory's name;
* the testbed (and NoMIRACL) report leads with its summary, the run's settings after the results;
* the MDE plot in the units of its table (×100; it was drawn in fractions).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from .test_report_layout import in_chromium

pytestmark = pytest.mark.slow  # whole (mock) runs and their reports, a browser


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """The demo with mock/first (2 runs, three modes): every language has 1–5 territories."""
    pytest.importorskip("matplotlib")
    import bordir
    from bordir.report import build_report
    from bordir.report import plots as report_plots

    out = tmp_path_factory.mktemp("fits") / "deep" / "er" / "exp-fits"
    cfg = {"models": ["mock/first"], "modes": ["no_ir", "qlang", "rel_langs"], "runs": 2, "k": 2}
    bordir.run(cfg, cache=out.parent / "c.sqlite3", out=out, progress=False)
    figures: dict = {}
    original = report_plots.save_figure

    def kept(fig, folder, name):
        figures[name] = fig
        return original(fig, folder, name)

    mp = pytest.MonkeyPatch()
    mp.setattr(report_plots, "save_figure", kept)
    try:
        html = build_report(out, n_resamples=100)
    finally:
        mp.undo()
    return out, html.read_text(encoding="utf-8"), figures


def _inside(html: str, needle: str, opener: str) -> bool:
    """True when ``needle`` stands inside the ``<details>`` that ``opener`` starts."""
    start = html.index(opener)
    return start < html.index(needle) < html.index("</details>", html.index(needle))


def test_nothing_testable_per_language_is_one_sentence_and_folded(report):
    _, html, _ = report
    section = html.split('<h2 id="per-language">', 1)[1].split("<h2 ", 1)[0]
    said = re.findall(r'<p class="untested">(.*?)</p>', section)
    assert len(said) == 1 and "needs 6 to reach p &lt; 0.05" in said[0]
    assert 'id="plot-perlang_forest_0"' in section
    assert _inside(section, 'id="plot-perlang_forest_0"', '<details class="untested">')
    assert not _inside(section, 'id="plot-perlang_heatmap_0"', '<details class="untested">')
    assert section.count("Which query languages' answers each mode moves") == 1  # folded, once


def test_a_variance_table_with_no_clear_cell_is_folded(report, monkeypatch, tmp_path):
    from bordir.experiment.rundir import read_run_dir
    from bordir.metrics.intervals import variance
    from bordir.report.variance import variance_section

    out, html, _ = report
    shown = html.split('<h2 id="variance">', 1)[1].split("<h2 ", 1)[0]
    assert "clearly dominates in" in shown and "<details" not in shown  # something to say: shown
    real = variance.variance_table

    def unclear(*args, **kwargs):  # the demo's local-model run: no component clearly dominates
        df = real(*args, **kwargs)
        return df.assign(clear=False)

    monkeypatch.setattr(variance, "variance_table", unclear)
    section = variance_section(read_run_dir(out), tmp_path, n_resamples=50, seed=1).html
    assert "No component clearly dominates" in section
    assert _inside(section, 'id="table-variance"', '<details class="unclear">')


def test_the_header_names_the_directory_not_its_path(report):
    out, html, _ = report
    header = html.split("<main>", 1)[1].split('<nav class="toc"', 1)[0]
    assert "<code>exp-fits</code>" in header
    assert str(out.parent) not in header and str(out) not in header


def test_the_mde_plot_is_in_the_units_of_its_table(report):
    out, _, figures = report
    table = pd.read_csv(out / "tables" / "power.csv")
    fig = figures["power"]
    axes = [ax for ax in fig.axes if ax.patches]
    assert axes and all(ax.get_ylim() == (0.0, 100.0) for ax in axes)
    for ax, (_, g) in zip(axes, table.groupby("metric", sort=False)):
        heights = [b.get_height() for b in ax.patches]
        want = [100 * v if not np.isnan(v) else 100.0 for v in g["mde"].astype(float)]
        assert heights == pytest.approx(want)


def test_untested_sentence_is_none_when_a_language_was_judged():
    from bordir.report.perlang import untested_sentence

    rows = pd.DataFrame(
        {"by": ["query_lang"] * 2, "status": ["judged", "too few to judge"], "group": ["ru", "uk"],
         "n_territories": [12, 2]}
    )  # fmt: skip
    assert untested_sentence(rows, 6) is None


_TOC = """() => {
  const nav = document.querySelector('#contents');
  window.scrollTo(0, document.documentElement.scrollHeight);
  const end = nav.getBoundingClientRect();
  const link = nav.querySelector('a[href="#variance"]') || nav.querySelectorAll('a')[3];
  link.click();
  const target = document.getElementById(link.getAttribute('href').slice(1)).getBoundingClientRect();
  return {navTop: end.top, navBottom: end.bottom, navH: end.height,
          targetTop: target.top, afterJump: nav.getBoundingClientRect().top};
}"""


def _measure(path):
    def look(page):
        forest = page.locator("#plot-perlang_forest_0")
        hidden = forest.count() == 0 or not forest.is_visible()
        return page.evaluate(_TOC), hidden

    return in_chromium(path, look)


def test_the_table_of_contents_stays_on_screen(report):
    out, _, _ = report
    toc, forest_hidden = _measure(out / "report.html")
    assert 0 <= toc["navTop"] < 2 and toc["navH"] < 90, (
        toc
    )  # at the top, after scrolling to the end
    assert toc["afterJump"] < 2 and toc["targetTop"] >= toc["navBottom"] - 1, (
        toc
    )  # not hidden under it
    assert forest_hidden  # the untested forest is folded away on the page


@pytest.fixture(scope="module")
def testbed_report(tmp_path_factory):
    from ..conftest import invoke_cli

    root = tmp_path_factory.mktemp("tbfits")
    out = root / "some" / "where" / "tb-fits"
    res = invoke_cli(
        "testbed", "noise", "--data", "demo", "--model", "mock/first", "--ratios", "0,0.8",
        "--out", str(out), "--resamples", "20", "--no-progress",
        "--cache", str(root / "c.sqlite3"),
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    res = invoke_cli("report", str(out), "--no-plots")
    assert res.returncode == 0, res.stderr
    return out


def test_the_testbed_report_leads_with_its_summary(testbed_report):
    out = testbed_report
    html = (out / "report.html").read_text(encoding="utf-8")
    body = html.split("<main>", 1)[1]
    assert body.index('id="contents"') < body.index('id="summary"') < body.index('id="tables"')
    assert body.index('id="tables"') < body.index('<h2 id="run">')  # the settings after the results
    summary = body.split('id="summary"', 1)[1].split("</section>", 1)[0]
    assert "Headline: accuracy" in summary and re.search(r"\(\d+/\d+\)", summary)
    assert "What cannot be judged" in summary and "paired comparisons" in summary
    header = body.split('<nav class="toc"', 1)[0]
    assert "<code>tb-fits</code>" in header and str(out.parent) not in header
    toc, _ = _measure(out / "report.html")
    assert 0 <= toc["navTop"] < 2, toc


def test_a_nomiracl_report_leads_with_its_summary(tmp_path):
    from ..conftest import invoke_cli
    from ..nomiracl_files import write_nomiracl

    data = write_nomiracl(tmp_path / "nomiracl", ("sw",), n=3)
    out = tmp_path / "nm"
    res = invoke_cli(
        "testbed", "nomiracl", "--data", f"nomiracl:{data}", "--model", "mock/first", "--lang", "sw",
        "--out", str(out), "--resamples", "20", "--no-progress", "--cache", str(tmp_path / "c.sqlite3"),
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert invoke_cli("report", str(out), "--no-plots").returncode == 0
    body = (out / "report.html").read_text(encoding="utf-8").split("<main>", 1)[1]
    assert body.index('id="summary"') < body.index('id="tables"') < body.index('<h2 id="run">')
    assert "Headline: hallucination_rate" in body or "Headline: " in body
