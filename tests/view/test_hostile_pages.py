"""Nothing a run holds runs in the reader's browser: every page of every kind of output, hostile values in every field.

The table is :data:`tests.view.hostile.KINDS`: each kind of output directory (an experiment
run, a citation-format run, an RGB testbed, a NoMIRACL testbed, a test run with its judge, a
citation audit, a black-box audit of answers and cited URLs) is built through the real CLI from hostile inputs — a model name served by a
loopback OpenAI-compatible server, its replies and errors, a dataset, a corpus, a log, a source
file, the directory's own path — and each of its pages (``report.html``, ``view.html``, the
page ``bordir view --serve`` serves) is opened in headless Chromium, in every state that renders
something (each tab, the matrix and its cell panel, the table, the facets, and the panel of the
first row that holds each hostile value). The test fails when

* anything runs or is fetched: a dialog, a console message (a refused script is one), a page
  error, a request to anything but the page itself, its ``data:`` images or (served) its API;
* the payload became markup: the DOM is walked, and every element must be one the pages write
  (an ``<img>`` only from ``data:image/``), every attribute name a plain name, none an event
  handler, no URL ``javascript:``, no comment node, the scripts exactly the page's own;
* a field does not reach a page its row says shows it, as text (so that the test cannot pass
  because a value was dropped); ``whole`` fields show the payload itself, ``<`` and all.

The SVG plots written beside the pages (model names in their titles and legends) are parsed too:
no script, no foreign object, no event handler, no ``javascript:`` link.

**Adding a kind of run or a section**: a new kind is one builder in ``tests/view/hostile.py``
registered with ``@kind(name, pages, *fields)``; an experiment run with other settings (the
free-answer format, say) is one line there, ``experiment_kind("free-run",
response_format="free", modes=["qlang"])``. A new section of an existing page needs nothing
(the page is walked whole, every state), but a new field it shows is one :class:`Field` line
in its kind's list, naming the pages where it must appear (a black-box audit's new view:
its builder, its ``@kind`` line, its fields). A new page type is one entry in :data:`PAGES`
(its file, how many scripts it holds).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import pytest

from bordir.view.server import ViewServer

from .hostile import KINDS, Field, Kind, verbatim

pytestmark = pytest.mark.slow  # a dozen real runs through the CLI, a browser

ALLOWED_TAGS = frozenset(
    "html head meta title style link body main header nav section aside article div p span "
    "strong em small code pre br wbr h1 h2 h3 h4 ul ol li dl dt dd table caption thead tbody tr "
    "th td a figure figcaption img details summary button input label fieldset legend select "
    "option script mark".split()
)
"""Every element bordir's pages write; anything else in the DOM came from a payload."""

PAGES: dict[str, dict[str, Any]] = {
    "report": {"file": "report.html", "scripts": 1},
    "view": {"file": "view.html", "scripts": 3},  # the data (application/json), numbers.js, view.js
    "served": {"file": None, "scripts": 3},
}

WALK = r"""() => {
  const bad = [], texts = [], attrs = [];
  const urlAttrs = ["href", "src", "action", "formaction", "xlink:href", "srcdoc", "data", "poster"];
  const w = document.createTreeWalker(document, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT | NodeFilter.SHOW_COMMENT);
  let n;
  while ((n = w.nextNode())) {
    if (n.nodeType === Node.COMMENT_NODE) { bad.push("a comment: " + n.data.slice(0, 80)); continue; }
    if (n.nodeType === Node.TEXT_NODE) {
      const p = n.parentNode && n.parentNode.nodeName;
      if (p !== "SCRIPT" && p !== "STYLE") texts.push(n.data);
      continue;
    }
    const tag = n.nodeName.toLowerCase();
    if (!ALLOWED.includes(tag)) bad.push("an element <" + tag + "> " + n.outerHTML.slice(0, 120));
    for (const a of Array.from(n.attributes)) {
      const name = a.name.toLowerCase(), v = a.value;
      if (!/^[a-z][a-z0-9_.:-]*$/.test(name)) bad.push("an attribute named " + JSON.stringify(a.name) + " on <" + tag + ">");
      if (name.startsWith("on")) bad.push("an event handler " + name + "=" + JSON.stringify(v.slice(0, 80)) + " on <" + tag + ">");
      if (urlAttrs.includes(name) && /^\s*(javascript|vbscript):/i.test(v)) bad.push("a script URL " + name + "=" + v.slice(0, 80));
      if (tag === "img" && name === "src" && !v.startsWith("data:image/")) bad.push("an image from " + v.slice(0, 80));
      if (tag === "link" && name === "href" && v !== "data:,") bad.push("a link to " + v.slice(0, 80));
      attrs.push(v);
    }
    if ((tag === "input" || tag === "select") && n.value) attrs.push(n.value);
  }
  const scripts = Array.from(document.scripts).map(s => [s.type, s.text.length]);
  return { bad: bad, text: texts.join(""), attrs: attrs.join("\n"), scripts: scripts };
}""".replace("ALLOWED", json.dumps(sorted(ALLOWED_TAGS)))

SAMPLES = """async (tags) => {
  /* the first row holding each marker, read through the page's own store */
  const st = window.bordirView, all = await st.store.query({ f: {}, q: "", page: "0" });
  const out = {}, n = all.all;
  for (let i = 0; i < n && Object.keys(out).length < tags.length; i++) {
    const text = JSON.stringify(await st.store.sample(i));
    tags.forEach(t => { if (!(t in out) && text.indexOf(t) >= 0) out[t] = i; });
  }
  return out;
}"""


_BUILT: dict[tuple[Path, str], Path] = {}


@pytest.fixture(scope="module")
def hostile_root(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("hostile")


def built(root: Path, k: Kind) -> Path:
    """The output directory of kind ``k``, built once per test module (its pages share it)."""
    if (root, k.name) not in _BUILT:
        (root / k.name).mkdir(exist_ok=True)
        _BUILT[root, k.name] = k.build(root / k.name)
    return _BUILT[root, k.name]


class Watch:
    """A page that records everything it runs, logs, fails at or fetches."""

    def __init__(self, browser: Any, allowed: Any) -> None:
        self.page = browser.new_page(viewport={"width": 1280, "height": 900})
        self.events: list[str] = []
        self.allowed = allowed
        p = self.page
        p.on("dialog", lambda d: (self.events.append(f"dialog {d.type}: {d.message}"), d.dismiss()))
        p.on("console", lambda m: self.events.append(f"console {m.type}: {m.text}"))
        p.on("pageerror", lambda e: self.events.append(f"page error: {e}"))
        p.on("request", self._request)
        p.on("popup", lambda w: self.events.append(f"popup: {w.url}"))

    def _request(self, req: Any) -> None:
        if not self.allowed(req.url):
            self.events.append(f"request: {req.url[:200]}")


def _states(pg: Any, k: Kind, page: str) -> list[tuple[str, str]]:
    """``(fragment, what to click)`` for every part of the page (read off the loaded page)."""
    if page == "report":
        return [("", "")]
    meta = pg.evaluate("() => JSON.parse(document.getElementById('bordir-data').textContent).meta")
    states = [("", ""), ("#tab=samples", "")]
    if meta["kind"] == "run":
        models = meta.get("models") or []
        diff = "&mm2=" + quote(models[-1], safe="") if len(models) > 1 else ""
        for t in meta.get("territories") or {}:
            states.append(("#tab=matrix&mt=" + quote(t, safe="") + diff, "button.cell"))
    first = pg.evaluate(SAMPLES, [f.tag for f in k.fields])
    states += [(f"#tab=samples&open={i}", "") for i in sorted(set(first.values()))]
    return states


def _wait(p: Any, selector: str, timeout: float = 15000) -> str | None:
    """Wait for ``selector``; what went wrong instead (a page that a payload broke never gets there)."""
    try:
        p.wait_for_selector(selector, timeout=timeout)
    except Exception as exc:  # playwright's TimeoutError
        return f"never reached {selector} ({type(exc).__name__})"
    return None


def _open(w: Watch, url: str, state: str, click: str) -> dict[str, Any]:
    """Load the page afresh at ``state``, click ``click`` (a matrix cell: its panel), walk the DOM."""
    p = w.page
    p.goto("about:blank")
    p.goto(url + state)
    waits = [_wait(p, "body[data-ready='1']")]
    if "open=" in state:
        waits.append(_wait(p, "body[data-panel-ready='1']"))
    if click and not any(waits):
        p.locator(click).first.click()
        waits.append(_wait(p, "body[data-panel-ready='1']"))
    res: dict[str, Any] = p.evaluate(WALK)
    res["bad"] += [w for w in waits if w]
    return res


CASES = [(k, page) for k in KINDS.values() for page in k.pages]


@pytest.mark.parametrize(("k", "page"), CASES, ids=[f"{k.name}-{p}" for k, p in CASES])
def test_hostile_values_stay_text(browser, hostile_root, k: Kind, page: str):
    out = built(hostile_root, k)
    spec = PAGES[page]
    server = ViewServer(out).start() if page == "served" else None
    try:
        url = server.url if server else (out / spec["file"]).as_uri()
        base = urlsplit(url)

        def allowed(u: str) -> bool:
            s = urlsplit(u)
            if s.scheme == "data":
                return True
            if s.scheme == "about" or (s.scheme, s.netloc, s.path) == (
                base.scheme,
                base.netloc,
                base.path,
            ):
                return True
            return (
                server is not None
                and (s.scheme, s.netloc) == (base.scheme, base.netloc)
                and (s.path.startswith("/api/"))
            )

        w = Watch(browser, allowed)
        shown, attrs, problems = [], [], []
        w.page.goto(url)
        states = [("", "")] if _wait(w.page, "body[data-ready='1']") else _states(w.page, k, page)
        for state, click in states:
            res = _open(w, url, state, click)
            problems += [f"{state or 'loaded'}: {b}" for b in res["bad"]]
            own = [s for s in res["scripts"] if s[0] != "application/json"]
            if len(res["scripts"]) != spec["scripts"] or len(own) != spec["scripts"] - (
                page != "report"
            ):
                problems.append(f"{state or 'loaded'}: scripts {res['scripts']}")
            shown.append(res["text"])
            attrs.append(res["attrs"])
        w.page.close()
    finally:
        if server is not None:
            server.close()
    assert not w.events, f"{k.name} {page}: the page ran, logged or fetched: {w.events[:10]}"
    assert not problems, f"{k.name} {page}: payload markup in the DOM: {problems[:10]}"
    text, every = "".join(shown), "".join(shown) + "\n".join(attrs)
    missing = [f for f in k.fields if page in f.pages and f.tag not in every]
    assert not missing, f"{k.name} {page}: never shown: {[f.what for f in missing]}"
    cut = [f for f in k.fields if page in f.pages and f.whole and verbatim(f.tag) not in text]
    assert not cut, f"{k.name} {page}: not shown whole, as text: {[f.what for f in cut]}"


def test_every_kind_has_pages_and_fields():
    """The table itself: every kind names pages the test knows and markers of its own."""
    for k in KINDS.values():
        assert k.pages and set(k.pages) <= set(PAGES), k.name
        tags = [f.tag for f in k.fields]
        assert len(tags) == len(set(tags)), k.name
        assert all(isinstance(f, Field) and set(f.pages) <= set(k.pages) for f in k.fields), k.name


def test_plots_hold_no_markup(hostile_root):
    """The SVG plots beside the pages (model names in titles and legends): no script, no handler.

    matplotlib writes each text as a comment (``<!-- … -->``, escaped) before its glyphs.
    """
    import xml.etree.ElementTree as ET

    svgs = [p for k in KINDS.values() for p in sorted(built(hostile_root, k).glob("plots/*.svg"))]
    assert svgs, "no kind drew a plot"
    shown = set()
    for svg in svgs:
        text = svg.read_text(encoding="utf-8")
        shown |= {f.tag for k in KINDS.values() for f in k.fields if f.tag in text}
        for el in ET.fromstring(text).iter():
            name = el.tag.rsplit("}", 1)[-1]
            assert name not in ("script", "foreignObject", "iframe", "object", "embed"), svg
            for attr, value in el.attrib.items():
                attr = attr.rsplit("}", 1)[-1].lower()
                assert not attr.startswith("on"), (svg, attr)
                assert not value.strip().lower().startswith("javascript:"), (svg, attr)
    assert "MDLA" in shown  # the model names did reach the plots


def test_markdown_outputs_stay_text(browser, hostile_root):
    """Every Markdown file beside the pages (``tables/*.md``, ``audit.md``), rendered as a Markdown
    viewer does (CommonMark with tables; raw HTML passed through) and opened in Chromium: nothing
    runs or is fetched, no payload markup in the DOM, and each payload that reached the file is
    shown whole, as text (before: a model name's ``<script>`` and ``<img onerror>`` were markup).
    """
    markdown_it = pytest.importorskip("markdown_it", reason="markdown-it-py (the testgen extra)")
    render = markdown_it.MarkdownIt("commonmark").enable("table").render
    tags = {f.tag for k in KINDS.values() for f in k.fields}
    files = [p for k in KINDS.values() for p in sorted(built(hostile_root, k).rglob("*.md"))]
    w = Watch(browser, lambda u: urlsplit(u).scheme in ("about", "data"))
    reached, problems = set(), []
    for md in files:
        raw = md.read_text(encoding="utf-8")
        here = {t for t in tags if t in raw}
        reached |= here
        w.page.set_content(f"<!DOCTYPE html><html><head></head><body>{render(raw)}</body></html>")
        res = w.page.evaluate(WALK)
        problems += [f"{md.name}: {b}" for b in res["bad"]]
        problems += [
            f"{md.name}: {t} not shown whole" for t in here if verbatim(t) not in res["text"]
        ]
    w.page.close()
    assert not w.events, f"a Markdown output ran, logged or fetched: {w.events[:10]}"
    assert not problems, problems[:10]
    assert {"MDLA", "AMDL", "LOGF"} <= reached, reached  # the payloads did reach the files
