"""``view.html``: one self-contained page — CSS, JavaScript and the data inline; nothing fetched.

The data go in a ``<script type="application/json" id="bordir-data">`` element
(written by :func:`embed_json`: ``<``, ``>`` and ``&`` escaped, so no string in the data
can end the element; non-finite numbers as ``null``); the page's
script (``assets/view.js`` and ``assets/numbers.js``, shipped with bordir)
reads it. A served page (``bordir view DIR --serve``) is the same page with
the metadata only: its script asks the server for pages of rows.

When the page has loaded it sets ``<body data-ready="1">`` (and
``data-matrix-ready``, ``data-table-ready``, ``data-panel-ready``); the browser
tests wait for these. Every text the page did not write itself is escaped on the server
(``html.escape``) or set as text by the script (``textContent``, never ``innerHTML``), and the
page carries a Content-Security-Policy (:func:`csp_meta`) that runs its own two scripts only.

Example:
    >>> html = render_page({"kind": "audit", "title": "t", "dir": "/x", "facets": [], "columns": [],
    ...                     "warnings": ["a <b>"]}, rows=None)
    >>> html.startswith("<!DOCTYPE html>") and "a &lt;b&gt;" in html and "http" not in html.split("<body")[1]
    True
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .run_data import Facet

__all__ = ["render_page", "embed_json", "csp_meta", "asset", "page_meta", "table_columns"]


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
        "dir": out.resolve().name,  # the directory's name: no path of the user's machine in a shared page
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


_SCRIPT_SAFE = (
    ("<", "\\u003c"),
    (">", "\\u003e"),
    ("&", "\\u0026"),
    ("\u2028", "\\u2028"),
    ("\u2029", "\\u2029"),
)


def embed_json(data: Any, *, default: Callable[[Any], Any] | None = None) -> str:
    r"""``data`` as JSON for a page: safe inside a ``<script>`` element, numbers all finite.

    The one helper every page (and the served explorer's API) embeds data with: ``<``, ``>``,
    ``&``, U+2028 and U+2029 become ``\uXXXX`` escapes (they occur only inside JSON strings,
    so the text parses to the same data), so no string can end the element, open a comment or
    a tag, or end a line in a script; a non-finite number (NaN, an infinite interval bound)
    becomes ``null``, which the pages show as ``–``. ``default``: as :func:`json.dumps`'s.

    >>> print(embed_json({"a": "</script><!--", "b": float("inf"), "c": [chr(0x2028) + "&"]}))
    {"a":"\u003c/script\u003e\u003c!--","b":null,"c":["\u2028\u0026"]}
    """
    try:
        text = json.dumps(
            data, ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=default
        )
    except ValueError:  # NaN or ±inf somewhere (rare: walk the data only then)
        from .._io.json_write import jsonable

        text = json.dumps(
            jsonable(data),
            ensure_ascii=False,
            separators=(",", ":"),
            allow_nan=False,
            default=default,
        )
    for char, escape in _SCRIPT_SAFE:
        if char in text:
            text = text.replace(char, escape)
    return text


def csp_meta(scripts: Iterable[str]) -> str:
    """The ``<meta>`` Content-Security-Policy of a page whose only scripts are ``scripts`` (their texts).

    A second wall behind the escaping: the browser runs an inline script only when its text
    hashes to one of these, and no inline event handler (``onerror=…``), ``javascript:`` URL,
    plugin, frame, form or ``<base>`` at all; images only from ``data:``, requests only to the
    page's own origin (the served explorer's API). A page that adds a script adds its text here.

    >>> print(csp_meta(["x()"]))  # doctest: +ELLIPSIS
    <meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-...='; ...">
    """
    import base64
    import hashlib

    hashes = " ".join(
        f"'sha256-{base64.b64encode(hashlib.sha256(s.encode('utf-8')).digest()).decode('ascii')}'"
        for s in dict.fromkeys(scripts)
    )
    policy = (
        f"default-src 'none'; script-src {hashes}; style-src 'unsafe-inline'; img-src data:; "
        "connect-src 'self'; base-uri 'none'; form-action 'none'"
    )
    return f'<meta http-equiv="Content-Security-Policy" content="{policy}">'


def _intro(meta: dict[str, Any]) -> str:
    e = html.escape
    kind = meta["kind"]
    if kind == "run":
        ds = meta.get("dataset") or {}
        return (
            f"Run <code>{e(Path(meta['dir']).name)}</code>: {len(meta.get('models', []))} model(s), "
            f"{len(meta.get('modes', []))} mode(s), {e(str(meta.get('runs')))} run(s), policy "
            f"{e(str(meta.get('policy')))}, format {e(str(meta.get('response_format')))}. "
            f'Dataset <span class="sig">{e(str(ds.get("signature", "")))}</span>.'
        )
    return f"{e(meta.get('subtitle', kind))} <code>{e(Path(meta['dir']).name)}</code>."


def _lead(meta: dict[str, Any]) -> str:
    """The summary a page of a test run or an audit leads with (``meta["lead"]``), escaped."""
    lead = meta.get("lead")
    if not lead:
        return ""
    e = html.escape

    def ul(items: list[str], cls: str) -> str:
        if not items:
            return '<p class="muted">None.</p>'
        return f'<ul class="{cls}">' + "".join(f"<li>{e(str(i))}</li>" for i in items) + "</ul>"

    return (
        '<section id="summary" class="lead" aria-labelledby="summary-title">'
        '<h2 id="summary-title">Summary</h2><h3>Findings that hold</h3>'
        + ul(list(lead.get("findings") or []), "findings")
        + "<h3>What cannot be judged, and why</h3>"
        + ul(list(lead.get("cannot_judge") or []), "cannot")
        + "</section>"
    )


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
        f"{csp_meta([asset('numbers.js'), asset('view.js')])}\n"
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<link rel="icon" href="data:,">\n'
        f"<title>{e(meta['title'])}</title>\n<style>{asset('view.css')}</style>\n</head>\n<body>\n"
        f"<header><h1>{e(meta['title'])}</h1><p>{_intro(meta)}</p>{_lead(meta)}{warnings}</header>\n"
        '<nav class="tabs" id="tabs" role="tablist" aria-label="Views"></nav>\n'
        f"<main>\n{sections}\n</main>\n"
        '<aside id="panel" role="dialog" aria-labelledby="panel-title" hidden></aside>\n'
        f'<script type="application/json" id="bordir-data">{embed_json(data)}</script>\n'
        f"<script>{asset('numbers.js')}</script>\n<script>{asset('view.js')}</script>\n"
        "</body>\n</html>\n"
    )
