"""Reports of a run directory: ``metrics.json``, ``tables/``, ``plots/`` and a self-contained ``report.html``.

:func:`build_report` reads what ``bordir run`` wrote (``run.json``,
``responses.parquet``) and writes, into the same directory:

* ``metrics.json`` (:mod:`~bordir.metrics.summary.build`): every metric per
  model × mode, overall and per query language, with t-intervals over runs,
  cluster-bootstrap intervals over territories, counts and signatures; outcome
  rates; paired comparisons of every IR mode against ``no_ir`` (Holm);
* ``tables/`` (:mod:`~bordir.report.tables`): the main and comparison tables as
  Markdown, LaTeX and CSV;
* ``plots/`` (:mod:`~bordir.report.plots`): PNG and SVG (matplotlib, the
  ``stats`` extra);
* ``report.html`` (:mod:`~bordir.report.html`): all of it on one page, led by its summary
  (:mod:`~bordir.report.summary`: the findings that hold with their intervals, what cannot be
  judged and why, the dropped pairs; ``summary`` in ``metrics.json``) and a table of contents;
* a per-language section (:mod:`~bordir.report.perlang`): ``perlang`` in
  ``metrics.json``, ``tables/perlang_*.csv``, ``plots/perlang_*``: mode
  comparisons per query language with forest plots and heatmaps;
* the methodology sections (:mod:`~bordir.report.methodology`): option order
  (position bias, pick rates, order-debiased CS; runs with several orders),
  power per language, variance decomposition, answer language — keys
  ``option_order``, ``power``, ``variance``, ``answer_lang`` in ``metrics.json``;
* for a run in the citation response format, a citation section
  (:mod:`~bordir.report.citations`): ``citations`` in ``metrics.json``,
  ``tables/citations.*``, ``plots/citation_inclusion.*``.

Every file is written into a temporary folder and the whole set is renamed into place, listed
in ``outputs.json`` with the digest of the record it was computed from
(:class:`~bordir.runrecord.outputs.OutputWriter`, under the directory's shared lock): a report
killed half-way, or racing a re-run, never leaves new numbers beside an old page.

Example:
    >>> from bordir.report import build_report
    >>> build_report("/nonexistent/run")
    Traceback (most recent call last):
    ...
    bordir.errors.DataError: /nonexistent/run: no such directory; not a bordir output directory: expected the record.json that `bordir run`, `bordir testbed`, `bordir testrun` or `bordir audit` writes (an older bordir wrote none: run its command again, the response cache answers every call)
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .._fork import Pending, start
from .._io.json_write import write_json
from ..experiment.rundir import RunDir, read_run_dir
from ..metrics.summary.build import build_metrics
from ..stats import DEFAULT_RESAMPLES
from .html import NO_PLOTS_NOTE, write_html
from .plots import write_plots
from .tables import build_tables, write_tables

__all__ = ["build_report", "REPORT_OUTPUTS"]

REPORT_OUTPUTS = ("metrics.json", "tables", "plots", "report.html", "view.html")
"""The output set of ``bordir report`` on a run directory (replaced as a whole)."""


def build_report(
    run_dir: str | os.PathLike[str],
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = None,
    plots: bool = True,
) -> Path:
    """Write the report files into ``run_dir`` and return the path of ``report.html``.

    Args:
        run_dir: a directory written by ``bordir run`` (``run.json``, ``responses.parquet``).
        n_resamples: bootstrap resamples and permutations (default 2000).
        seed: bootstrap / permutation seed (default ``$BORDIR_SEED`` or 12345);
            recorded in every signature.
        plots: draw the plots (PNG and SVG under ``plots/``, embedded in the page). ``False``
            writes the same numbers, tables and page without figures, and the page says so.

    Raises:
        DataError: the run directory is missing or malformed.
        MissingExtraError: scipy, statsmodels or matplotlib is missing
            (``pip install 'bordir[stats]'``).
    """
    from ..runrecord.outputs import OutputWriter
    from .perlang import perlang_report  # per-language comparisons, forest plots, heatmaps

    with OutputWriter(run_dir, by="bordir report") as w:
        run = read_run_dir(run_dir)
        # The per-language section is the largest: it is drawn in a child process while this one
        # does the rest, when the process may use more than one CPU (the same files either way).
        pending_per_lang = start(
            perlang_report, run, w.stage, n_resamples=n_resamples, seed=seed, draw=plots
        )
        try:
            _build(run, w.stage, pending_per_lang, n_resamples=n_resamples, seed=seed, draw=plots)
        finally:
            pending_per_lang.cancel()  # a no-op once its result is in
        w.commit(replaces=REPORT_OUTPUTS)
    return Path(run_dir) / "report.html"


def _build(
    run: RunDir,
    out: Path,
    pending_per_lang: Pending[Any],
    *,
    n_resamples: int,
    seed: int | None,
    draw: bool,
) -> Path:
    metrics = build_metrics(run, n_resamples=n_resamples, seed=seed)
    tables = build_tables(metrics)
    plots = write_plots(metrics, out / "plots") if draw else {}
    write_tables(tables, out / "tables")
    sections = []
    if (
        run.config.response_format == "citation"
    ):  # citation rate vs inclusion rate (bordir.citations)
        from .citations import citation_report

        cit = citation_report(run, out, n_resamples=n_resamples, seed=seed, draw=draw)
        metrics = {**metrics, "citations": cit.json}
        sections.append(cit.html)
    if run.config.response_format == "open":  # free answers and the forced-vs-free gap
        from .free import free_report

        fr = free_report(run, out, n_resamples=n_resamples, seed=seed)
        metrics = {**metrics, "free": fr.json}
        sections.append(fr.html)
    from .methodology import methodology_sections  # option order, power, variance, answer language

    meth_json, meth_html = methodology_sections(
        run, out, n_resamples=n_resamples, seed=seed, draw=draw
    )
    from .view_links import write_view_beside  # view.html: the samples behind every linked number

    note = write_view_beside(run.path, out)  # read from the run while the per-language child works
    per_lang = pending_per_lang.result()
    metrics = {**metrics, "perlang": per_lang.json, **meth_json}
    sections[0:0] = [*([] if draw else [NO_PLOTS_NOTE]), per_lang.html, *meth_html]
    if note:
        import html

        sections.append(f'<p class="warn">{html.escape(note)}</p>')
    from .summary import report_summary  # what the page leads with (also in metrics.json)

    metrics = {**metrics, "summary": report_summary(metrics)}
    if "free" in metrics:  # the summary states the gap, or what cannot be judged (report/free.py)
        from .free import free_findings

        found, quiet = free_findings(metrics["free"])
        summary = metrics["summary"]
        summary["findings"] = [*found, *summary["findings"]]
        summary["cannot_judge"] = [*quiet, *summary["cannot_judge"]]
    write_json(metrics, out / "metrics.json")
    return write_html(metrics, tables, plots, out / "report.html", sections=sections)
