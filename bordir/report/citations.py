"""The report's citation section, for runs in the citation response format.

:func:`citation_report` computes :func:`bordir.citations.experiment_citations`
from the run's ``responses.parquet`` and writes ``tables/citations.{md,tex,csv}``
(every query language pooled, per model × mode × document language, pooled and
per-query rates) and ``tables/citations_by_language.csv``, the figure
``plots/citation_inclusion.{png,svg}``, and returns the JSON for
``metrics.json`` (key ``citations``) and the HTML section.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..citations.experiment import REQUIRED_COLUMNS, experiment_citations
from ..citations.tables import ci_text, flag_text, pct
from ..experiment.rundir import RESPONSES_FILE, RunDir
from .html import data_uri
from .tables import Table
from .view_links import cit_link

__all__ = ["CitationReport", "citation_report", "citation_table"]


@dataclass(frozen=True)
class CitationReport:
    """What the citation section adds: JSON for ``metrics.json``, the HTML section, and the files written."""

    json: dict[str, Any]
    html: str
    files: tuple[Path, ...]


def _ratio(r: Any) -> str:
    if r["ratio"] is None or pd.isna(r["ratio"]):
        return "n/a"
    return f"{r['ratio']:.2f} {ci_text(r['ratio_low'], r['ratio_high'], scale=1.0, digits=2)}"


def citation_table(overall: pd.DataFrame, settings: dict[str, Any]) -> Table:
    """Per model × mode × document language (query languages pooled): inclusion, citation, ratio, flag — both rates."""
    headers = (
        "Model",
        "Mode",
        "Doc lang",
        "Docs",
        "Citations",
        "Inclusion",
        "Citation (pooled) [95% CI]",
        "Ratio (pooled) [95% CI]",
        "Flag",
        "Citation (per query)",
        "Ratio (per query) [95% CI]",
        "Flag ",
    )
    rows, links = [], []
    if len(overall):
        pooled = overall[overall["rate"] == "pooled"]
        perq = overall[overall["rate"] == "per_query"].set_index(["model", "mode", "doc_lang"])
        for _, p in pooled.iterrows():
            q = perq.loc[(p["model"], p["mode"], p["doc_lang"])]
            rows.append(
                (
                    str(p["model"]),
                    str(p["mode"]),
                    str(p["doc_lang"]),
                    str(p["n_docs"]),
                    str(p["n_citations"]),
                    pct(p["inclusion_rate_citing"]),
                    f"{pct(p['citation_rate'])} {ci_text(p['citation_rate_low'], p['citation_rate_high'])}",
                    _ratio(p),
                    flag_text(p),
                    pct(q["citation_rate"]),
                    _ratio(q),
                    flag_text(q),
                )
            )
            m, mode, lang = str(p["model"]), str(p["mode"]), str(p["doc_lang"])
            links.append(
                (None,) * 6
                + (
                    cit_link(m, mode, lang, "rate", p["citation_rate"]),
                    cit_link(m, mode, lang, "ratio", p["ratio"]),
                )
            )
    caption = (
        f"Citation rate vs inclusion rate per document language, all query languages pooled, ×100 (ratio: "
        f"citation / inclusion of answers with ≥ 1 citation). Pooled: {settings['rates']['pooled']}; per "
        f"query: {settings['rates']['per_query']}. CIs: {settings['interval']}, {settings['n_resamples']} "
        f"resamples, seed {settings['seed']}. Flag: {settings['flags']['rule']} (clusters: "
        f"territories)."
    )
    return Table(
        "citations", caption, headers, tuple(rows), overall.copy(), left=3, links=tuple(links)
    )


def citation_report(
    run: RunDir, out: Path, *, n_resamples: int, seed: int | None, draw: bool = True
) -> CitationReport:
    """Compute and write the citation section of a citation-format run (see the module docs).

    ``draw=False`` leaves its plot out.
    """
    from ..citations.plots import CITATION_PLOTS, write_citation_plots

    resp = pd.read_parquet(run.path / RESPONSES_FILE)
    keep = [c for c in (*REQUIRED_COLUMNS, "choice_name") if c in resp.columns]
    tables = experiment_citations(resp[keep], n_resamples=n_resamples, seed=seed)
    table = citation_table(tables.overall, tables.settings)
    files = list(table.write(out / "tables"))
    by_lang = out / "tables" / "citations_by_language.csv"
    tables.rates.to_csv(by_lang, index=False)
    files.append(by_lang)
    plots = (
        write_citation_plots(
            tables.rates, ["model", "mode"], out / "plots", names=["citation_inclusion"]
        )
        if len(tables.rates) and draw
        else {}
    )
    e = html.escape
    parts = [
        '<h2 id="citations">Citations</h2>',
        "<p>Which document languages the model cites, relative to how often they are in its prompts "
        "(citation format). Per query language: <code>tables/citations_by_language.csv</code> and "
        "<code>metrics.json</code> (<code>citations</code>).</p>",
        table.to_html(),
    ]
    for name, (png, svg) in plots.items():
        files += [png, svg]
        cap = CITATION_PLOTS[name]
        parts.append(
            f'<figure id="plot-{e(name)}"><img src="{data_uri(Path(png).read_bytes(), "image/png")}" '
            f'alt="{e(cap)}"><figcaption>{e(cap)} (also plots/{e(name)}.svg).</figcaption></figure>'
        )
    a = tables.answers
    if len(a):
        rows = "\n".join(
            f'<tr><td class="t">{e(str(r.model))}</td><td class="t">{e(str(r.mode))}</td>'
            f'<td class="t">{e(str(r.query_lang))}</td><td class="n">{r.n_answers}</td>'
            f'<td class="n">{pct(r.no_citation_rate)} {ci_text(r.no_citation_rate_low, r.no_citation_rate_high)}</td>'
            f'<td class="n">{r.n_out_of_range}</td><td class="n">{pct(r.out_of_range_rate)}</td></tr>'
            for r in a[a["query_lang"] == "*"].itertuples()
        )
        parts.append(
            '<table class="data" id="table-citation-answers"><caption>Answers without any in-range '
            "citation (share of answers with documents, 95% territory-bootstrap CI) and citations to "
            "documents outside the prompt (count, and share of answers with at least one), all query "
            'languages pooled.</caption><thead><tr><th class="t">Model</th><th class="t">Mode</th>'
            '<th class="t">Query lang</th><th class="n">Answers</th><th class="n">No citation</th>'
            '<th class="n">Out-of-range citations</th><th class="n">Answers with out-of-range</th>'
            f"</tr></thead><tbody>\n{rows}\n</tbody></table>"
        )
    return CitationReport(tables.as_dict(), "\n".join(parts), tuple(files))
