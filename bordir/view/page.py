"""``view.html``: one self-contained page — CSS, JavaScript and the data inline; nothing fetched.

The data go in a ``<script type="application/json" id="bordir-data">`` element
(``</`` escaped, so no string in the data can end the element); the page's
script (``assets/view.js`` and ``assets/numbers.js``, shipped with bordir)
reads it. A served page (``bordir view DIR --serve``) is the same page with
the metadata only: its script asks the server for pages of rows.

When the page has loaded it sets ``<body data-ready="1">`` (and
``data-matrix-ready``, ``data-table-ready``, ``data-panel-ready``); the browser
tests wait for these.

Example:
    >>> html = render_page({"kind": "audit", "title": "t", "dir": "/x", "facets": [], "columns": [],
    ...                     "warnings": ["a <b>"]}, rows=None)
    >>> html.startswith("<!DOCTYPE html>") and "a &lt;b&gt;" in html and "http" not in html.split("<body")[1]
    True
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .run_data import Facet

__all__ = ["render_page", "embed_json", "asset", "page_meta", "table_columns"]


@cache
def asset(name: str) -> str:
    """The text of ``bordir/view/assets/<name>``."""
    return resources.files(__package__).joinpath("assets", name).read_text(encoding="utf-8")


def table_columns(
    labels: Mapping[str, str], *, numeric: Mapping[str, int | None] | None = None
) -> tuple[dict[str, Any], ...]:
    """The columns of a page's table: the row number (``#``), then one per ``key: label`` of ``labels``.

    A key of ``numeric`` is a number column (``"num": True``), shown with the digits it maps
    to (None: as it is).

    >>> table_columns({"lang": "lang", "n": "answers"}, numeric={"n": 3})
    ({'key': 'id', 'label': '#', 'num': True}, {'key': 'lang', 'label': 'lang'}, {'key': 'n', 'label': 'answers', 'num': True, 'digits': 3})
    """
    numeric = numeric or {}
    out: list[dict[str, Any]] = [{"key": "id", "label": "#", "num": True}]
    for key, label in labels.items():
        col: dict[str, Any] = {"key": key, "label": label}
        if key in numeric:
            col["num"] = True
            if numeric[key] is not None:
                col["digits"] = numeric[key]
        out.append(col)
    return tuple(out)


def page_meta(
    kind: str,
    out: Path,
    subtitle: str,
    facets: Iterable[Facet],
    columns: Iterable[Mapping[str, Any]],
    labels: tuple[str, str, str],
    *,
    warnings: list[str],
    models: Sequence[str] = (),
    **extra: Any,
) -> dict[str, Any]:
    """The metadata of the page of an output directory ``out`` other than a run's (testbed, test run, audit).

    ``labels`` are the searched column, what the search box searches and what the rows are
    (``("verdict", "verdicts", "Cells")``); ``extra`` entries stand after them.
    """
    search, search_label, rows_label = labels
    return {
        "kind": kind,
        "dir": str(out),
        "title": f"bordir view: {out.name}",
        "subtitle": subtitle,
        "facets": [f.as_dict() for f in facets],
        "columns": list(columns),
        "search": search,
        "search_label": search_label,
        "rows_label": rows_label,
        **extra,
        "models": list(models),
        "modes": [],
        "warnings": warnings,
    }


def embed_json(data: Any) -> str:
    """``data`` as JSON that is safe inside a ``<script>`` element.

    >>> embed_json({"a": "</script><!--"})
    '{"a":"<\\\\/script>\\\\u003c!--"}'
    """
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("</", "<\\/").replace("<!--", "\\u003c!--")


def _intro(meta: dict[str, Any]) -> str:
    e = html.escape
    kind = meta["kind"]
    if kind == "run":
        ds = meta.get("dataset") or {}
        return (
            f"Run <code>{e(meta['dir'])}</code>: {len(meta.get('models', []))} model(s), "
            f"{len(meta.get('modes', []))} mode(s), {e(str(meta.get('runs')))} run(s), policy "
            f"{e(str(meta.get('policy')))}, format {e(str(meta.get('response_format')))}. "
            f'Dataset <span class="sig">{e(str(ds.get("signature", "")))}</span>.'
        )
    return f"{e(meta.get('subtitle', kind))} <code>{e(meta['dir'])}</code>."


def _matrix_section() -> str:
    return """<section id="sec-matrix" role="tabpanel" aria-labelledby="tab-matrix" hidden>
<h2>Territory matrix</h2>
<p class="muted">One territory: rows are query languages (the claimants' first, then English, then the
rest), columns the modes of the run. Each cell is the answer most samples give (every run and option
order), coloured by claimant, ★ the controller, with how many of the samples agree; unparsed, refused,
multiple and failed answers show as themselves. Click a cell (or focus it and press Enter; arrow keys
move between cells) to open every sample behind it.</p>
<div class="controls" id="matrix-controls"></div>
<div class="legend" id="matrix-legend" aria-label="colours"></div>
<div id="matrix-box"></div>
</section>"""


def _samples_section(meta: dict[str, Any]) -> str:
    e = html.escape
    what = e(meta.get("search_label", "replies"))
    return f"""<section id="sec-samples" role="tabpanel" aria-labelledby="tab-samples" hidden>
<div class="layout">
<aside class="facets" id="facets" aria-label="Filters"></aside>
<div>
<div class="controls">
<label for="search">Search {what}<input type="search" id="search" placeholder="text in the {what}"></label>
<button type="button" id="clear">Clear filters</button>
</div>
<p class="count" id="count" aria-live="polite"></p>
<div class="numbers" id="numbers" aria-live="polite"></div>
<div id="table-box"></div>
<div class="pager"><button type="button" id="prev">Previous page</button><span id="pageinfo"></span>
<button type="button" id="next">Next page</button></div>
</div>
</div>
</section>"""


def render_page(meta: dict[str, Any], rows: dict[str, Any] | None) -> str:
    """The page for ``meta`` (what the page says and needs) and ``rows`` (None: a served page)."""
    e = html.escape
    warnings = "".join(f'<p class="warn" role="note">{e(w)}</p>' for w in meta.get("warnings", []))
    if meta.get("judge_calibration"):  # a judged directory: the judge's calibration per language
        from ..report.judge_calibration import calibration_html

        warnings += calibration_html(meta["judge_calibration"])
    data = {"meta": meta, "rows": rows}
    sections = (_matrix_section() if meta["kind"] == "run" else "") + _samples_section(meta)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<link rel="icon" href="data:,">\n'
        f"<title>{e(meta['title'])}</title>\n<style>{asset('view.css')}</style>\n</head>\n<body>\n"
        f"<header><h1>{e(meta['title'])}</h1><p>{_intro(meta)}</p>{warnings}</header>\n"
        '<nav class="tabs" id="tabs" role="tablist" aria-label="Views"></nav>\n'
        f"<main>\n{sections}\n</main>\n"
        '<aside id="panel" role="dialog" aria-labelledby="panel-title" hidden></aside>\n'
        f'<script type="application/json" id="bordir-data">{embed_json(data)}</script>\n'
        f"<script>{asset('numbers.js')}</script>\n<script>{asset('view.js')}</script>\n"
        "</body>\n</html>\n"
    )
