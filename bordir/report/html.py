"""``report.html``: one self-contained page (inline CSS, PNGs as data URIs, tables as HTML).

It fetches nothing, so it opens from a file, a mail attachment or an
artifact store. A small inline script marks the page when it has loaded:
``<body data-ready="1" data-images-loaded=… data-images-total=…
data-tables-visible=… data-tables-total=…>`` (images with a nonzero natural
width, tables with a nonzero height); the browser test reads these. Every
text the page did not write itself (model names, territories, titles, replies,
paths, config values) is escaped with ``html.escape`` where it is written, and
the page's Content-Security-Policy (:func:`bordir.view.page.csp_meta`) runs
that one script only: a section holds HTML, never a script of its own.

Example:
    >>> data_uri(b"x", "image/png")
    'data:image/png;base64,eA=='
"""

from __future__ import annotations

import base64
import html
import json
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..view.page import csp_meta
from .plots import PLOTS
from .tables import Table

__all__ = ["render_html", "render_page", "write_html", "data_uri", "toc", "NO_PLOTS_NOTE"]

_CSS = """
:root { color-scheme: light; }
body { font-family: "DejaVu Sans", system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #1d1d1f;
       background: #fafafa; line-height: 1.45; }
main { max-width: 1240px; margin: 0 auto; padding: 24px 28px 64px; background: #fff; }
h1 { font-size: 1.6em; margin: 0 0 4px; }
h2 { font-size: 1.2em; margin: 32px 0 10px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
.sub { color: #555; margin: 0 0 16px; }
code, .sig { font-family: "DejaVu Sans Mono", ui-monospace, monospace; font-size: 0.85em; }
.sig { word-break: break-all; background: #f3f3f3; padding: 2px 4px; border-radius: 3px; }
table.data { border-collapse: collapse; margin: 8px 0 20px; font-size: 0.82em; max-width: 100%; }
table.data caption { caption-side: top; text-align: left; color: #444; padding: 4px 0 8px; }
table.data th, table.data td { border: 1px solid #d4d4d4; padding: 3px 5px; }
table.data th { white-space: normal; vertical-align: bottom; }
table.data td.n { white-space: normal; }
table.data .ci { white-space: nowrap; }
table.data td.t { overflow-wrap: break-word; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; }
nav.toc { position: sticky; top: 0; z-index: 5; display: flex; flex-wrap: wrap; align-items: baseline;
          gap: 2px 12px; font-size: 0.85em; margin: 8px 0 16px; padding: 6px 12px; background: #f6f8fa;
          border: 1px solid #e3e6ea; box-shadow: 0 2px 4px rgba(0,0,0,.06); }
nav.toc ol { display: flex; flex-wrap: wrap; gap: 2px 14px; margin: 0; padding: 0; list-style: none; }
h2, h3, figure, table { scroll-margin-top: 72px; }
details.untested > summary, details.unclear > summary { cursor: pointer; color: #444; }
section.summary { border: 1px solid #cfd8e3; background: #f7fafd; padding: 4px 16px 8px; margin: 12px 0; }
section.summary h2 { margin-top: 12px; }
section.summary h3 { font-size: 1em; margin: 12px 0 4px; }
section.summary ul { margin: 4px 0 8px; padding-left: 20px; }
section.summary ul.findings li { font-weight: 600; }
section.summary table.data { margin: 4px 0 8px; }
table.data .n { text-align: right; }
table.data .t, table.kv th, table.kv td { text-align: left; }
table.data thead th { background: #eef2f6; }
table.data tbody tr:nth-child(even) { background: #f8f9fb; }
table.kv td { text-align: left; white-space: normal; overflow-wrap: anywhere; }
figure { margin: 12px 0 28px; }
figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { color: #444; font-size: 0.9em; margin-top: 4px; }
ul.warn li { color: #8a4b00; }
details { margin: 8px 0; }
"""

_SCRIPT = """
window.addEventListener("load", function () {
  var imgs = Array.prototype.slice.call(document.images);
  var tables = Array.prototype.slice.call(document.querySelectorAll("table"));
  var b = document.body;
  b.dataset.imagesTotal = String(imgs.length);
  b.dataset.imagesLoaded = String(imgs.filter(function (i) { return i.complete && i.naturalWidth > 0; }).length);
  b.dataset.tablesTotal = String(tables.length);
  b.dataset.tablesVisible = String(tables.filter(function (t) { return t.offsetHeight > 0; }).length);
  b.dataset.ready = "1";
});
"""


NO_PLOTS_NOTE = (
    '<p class="warn" id="no-plots">The plots were not drawn (<code>bordir report --no-plots</code>): '
    "every number and table is here; run <code>bordir report</code> without it for the figures.</p>"
)
"""What the page says in place of its figures when the report is built with ``plots=False``."""


def data_uri(content: bytes, mime: str) -> str:
    """``data:<mime>;base64,…``."""
    return f"data:{mime};base64,{base64.b64encode(content).decode('ascii')}"


def _kv(rows: Sequence[tuple[str, Any]]) -> str:
    e = html.escape
    body = "\n".join(f"<tr><th>{e(k)}</th><td>{v}</td></tr>" for k, v in rows)
    return f'<table class="data kv">\n<tbody>\n{body}\n</tbody>\n</table>'


def _config_section(metrics: Mapping[str, Any]) -> str:
    e = html.escape
    run = metrics["run"]
    cfg = run.get("config") or {}
    ds = run.get("dataset") or {}
    s = metrics["settings"]

    def j(v: Any) -> str:
        return e(", ".join(map(str, v)) if isinstance(v, (list, tuple)) else str(v))

    rows = [
        (
            "dataset",
            f'{e(str(cfg.get("dataset")))} <span class="sig">{e(str(ds.get("signature", "")))}</span>',
        ),
        ("models", j(metrics["models"])),
        ("modes", j(metrics["modes"])),
        ("retriever, k", f"{e(str(cfg.get('retriever')))}, k = {e(str(cfg.get('k')))}"),
        (
            "response format, system",
            f"{e(str(cfg.get('response_format')))}, {e(str(cfg.get('system')))}",
        ),
        (
            "temperature, runs (seeds)",
            f"{e(str(cfg.get('temperature')))}, {len(cfg.get('seeds') or [])} "
            f"({j(cfg.get('seeds') or [])})",
        ),
        ("scoring policy", e(str(s["policy"]))),
        (
            "intervals",
            e(
                f"ci95: {s['ci95']['method']} (ddof = 1); boot95: {s['boot95']['method']}, "
                f"{s['boot95']['n_resamples']} resamples, seed {s['boot95']['seed']}"
                + (
                    f"; terr95: {s['terr95']['method']}; † fewer than {s['terr95']['min_clusters']} "
                    f"territories ({s['terr95']['coverage']})"
                    if s.get("terr95")
                    else ""
                )
            ),
        ),
        (
            "comparisons",
            e(f"{s['comparisons']['test']}; CI: {s['comparisons']['ci95']}; Holm across all"),
        ),
        ("queries, responses", f"{e(str(run.get('queries')))}, {e(str(run.get('responses')))}"),
        ("calls", e(json.dumps(run.get("calls")))),
        ("bordir, git", f"{e(str(run.get('bordir_version')))}, {e(str(run.get('git_revision')))}"),
        ("run started, finished", f"{e(str(run.get('started')))}, {e(str(run.get('finished')))}"),
        (
            "retrieval",
            f'<span class="sig">{e(str((run.get("retrieval") or {}).get("signature")))}</span>',
        ),
        ("report signature", f'<span class="sig">{e(metrics["signature"])}</span>'),
    ]
    full = e(json.dumps(cfg, indent=2, ensure_ascii=False))
    return (
        _kv(rows)
        + f"\n<details><summary>Full config (run.json)</summary><pre>{full}</pre></details>"
    )


def _list(items: Sequence[str], cls: str = "") -> str:
    if not items:
        return "<p>None.</p>"
    attr = f' class="{cls}"' if cls else ""
    return f"<ul{attr}>\n" + "\n".join(f"<li>{html.escape(i)}</li>" for i in items) + "\n</ul>"


def _signatures(metrics: Mapping[str, Any]) -> str:
    e = html.escape
    lines = []
    for _model, modes in metrics["results"].items():
        for _mode, cell in modes.items():
            lines.append(f'<li><span class="sig">{e(cell["signature"])}</span>')
            if cell.get("run_signatures"):
                runs = ", ".join(f'<span class="sig">{e(s)}</span>' for s in cell["run_signatures"])
                lines.append(f"<br>responses: {runs}")
            lines.append("</li>")
    return (
        "<details open><summary>One per model × mode (each metric's signature is this with its own name; "
        "see metrics.json)</summary>\n<ul>\n" + "\n".join(lines) + "\n</ul></details>"
    )


_H2 = re.compile(r'<h2 id="([^"]+)"[^>]*>(.*?)</h2>', re.S)


def toc(blocks: Sequence[str]) -> str:
    """A table of contents of every ``<h2 id=…>`` in ``blocks``, in order.

    Example:
        >>> toc(['<h2 id="a">A</h2>', '<p>x</p><h2 id="b">B &amp; C</h2>'])
        '<nav class="toc" id="contents"><strong>Contents</strong><ol><li><a href="#a">A</a></li><li><a href="#b">B &amp; C</a></li></ol></nav>'
    """
    items = [
        (m.group(1), re.sub(r"<[^>]+>", "", m.group(2))) for b in blocks for m in _H2.finditer(b)
    ]
    lis = "".join(f'<li><a href="#{i}">{title}</a></li>' for i, title in items)
    return f'<nav class="toc" id="contents"><strong>Contents</strong><ol>{lis}</ol></nav>'


def render_html(
    metrics: Mapping[str, Any],
    tables: Sequence[Table],
    plots: Mapping[str, tuple[Path, Path]],
    sections: Sequence[str] = (),
) -> str:
    """The page as a string (see the module docs); ``sections``: extra HTML blocks placed after the plots.

    The page leads with its summary (:mod:`bordir.report.summary`: the findings that hold, the
    headline with its intervals, what cannot be judged, the dropped pairs) and a table of
    contents; the run's settings, warnings, notes and signatures come after the results.
    """
    from .summary import report_summary, summary_html

    e = html.escape
    title = f"bordir report: {Path(metrics['run_dir']).name}"
    figs = []
    for name, (png, _svg) in plots.items():
        uri = data_uri(Path(png).read_bytes(), "image/png")
        cap = PLOTS.get(name, name)
        figs.append(
            f'<figure id="plot-{e(name)}"><img src="{uri}" alt="{e(cap)}">'
            f"<figcaption>{e(cap)} (also plots/{e(name)}.svg).</figcaption></figure>"
        )
    summary = metrics.get("summary") or report_summary(metrics)
    body = [
        summary_html(summary, metrics),
        '<h2 id="tables">Tables</h2>',
        *(t.to_html() for t in tables),
        '<h2 id="plots">Plots</h2>',
        *figs,
        *sections,
        '<h2 id="warnings">Warnings</h2>',
        _list(metrics["warnings"], "warn"),
        '<h2 id="run">Run</h2>',
        _config_section(metrics),
        '<h2 id="notes">Notes</h2>',
        _list(metrics["notes"]),
        '<h2 id="signatures">Signatures</h2>',
        _signatures(metrics),
    ]
    subtitle = (
        f"Generated {e(metrics['generated'])} by bordir {e(metrics['bordir_version'])} from "
        f"<code>{e(Path(metrics['run_dir']).name)}</code>. Values ×100 in tables; fractions in "
        "metrics.json."
    )
    return render_page(title, subtitle, [toc(body), *body])


def render_page(title: str, subtitle_html: str, sections: Sequence[str]) -> str:
    """A self-contained page in the report's style (CSS, load script) around ready HTML ``sections``.

    Used by reports of other directory kinds (``bordir/report/testbeds.py``).
    """
    e = html.escape
    return (
        "\n".join(
            [
                "<!DOCTYPE html>",
                '<html lang="en">',
                "<head>",
                '<meta charset="utf-8">',
                csp_meta([_SCRIPT]),  # runs its own load script only
                '<meta name="viewport" content="width=device-width, initial-scale=1">',
                f"<title>{e(title)}</title>",
                f"<style>{_CSS}</style>",
                "</head>",
                "<body>",
                "<main>",
                f"<h1>{e(title)}</h1>",
                f'<p class="sub">{subtitle_html}</p>',
                *sections,
                "</main>",
                f"<script>{_SCRIPT}</script>",
                "</body>",
                "</html>",
            ]
        )
        + "\n"
    )


def write_html(
    metrics: Mapping[str, Any],
    tables: Sequence[Table],
    plots: Mapping[str, tuple[Path, Path]],
    path: str | os.PathLike[str],
    *,
    sections: Sequence[str] = (),
) -> Path:
    """Write :func:`render_html` to ``path`` atomically."""
    path = Path(path)
    from .._io.atomic import atomic_write_text

    atomic_write_text(path, render_html(metrics, tables, plots, sections))
    return path
