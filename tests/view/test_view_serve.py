"""``bordir view --serve``: the same page, paged on a real HTTP server on 127.0.0.1.

The served page and the static page show the same counts, facets, rows and numbers for the same URL
state. The numbers the static page computes in JavaScript are held to the server's, which computes
them with bordir's own metric functions (``bordir.metrics``) — a differential test on random
filters. Bad API parameters get one line and status 400.
"""

from __future__ import annotations

import json
import math
import urllib.error
import urllib.request

import numpy as np
import pytest

from bordir.view.query import SEP
from bordir.view.server import ViewServer

pytestmark = pytest.mark.slow  # a whole run and its report (session fixtures), a browser


@pytest.fixture(scope="module")
def server(mock_run):
    with ViewServer(mock_run, port=0) as srv:
        yield srv


STATES = [
    "#tab=samples",
    "#tab=samples&model=mock%2Fplanted%3Aru%2Buk&mode=qlang&order=given&metric=cs%3Akb_cs&role=control%20(en)",
    "#tab=samples&lang=ru,uk&sort=answer&dir=desc&page=1",
    "#tab=samples&q=%D0%A0%D0%BE%D1%81&sort=territory",
    "#tab=samples&outcome=failed,answered&agree=no&sort=run&dir=desc",
    "#tab=samples&model=mock%2Ffirst&mode=qlang,no_ir&order=given&metric=cmp%3Acst_cs%3Aqlang%3Ano_ir",
]


def _snapshot(pg) -> tuple[str, ...]:
    pg.wait_for_selector("body[data-numbers-ready='1']", timeout=15000)
    return tuple(
        pg.locator(s).inner_text() for s in ("#count", "#facets", "#table-box", "#numbers")
    )


def test_served_page_shows_what_the_static_page_shows(page, mock_run, server):
    for state in STATES:
        served = _snapshot(page.open(server.url + state))
        static = _snapshot(page.open((mock_run / "view.html").as_uri() + state))
        assert served == static, state
    pg = page.open(server.url + "#mt=Crimea")
    pg.wait_for_selector("body[data-matrix-ready='1']")
    pg.click('button.cell[data-lang="ru"][data-mode="qlang"]')
    pg.wait_for_selector("body[data-panel-ready='1']")
    assert "verified: the response cache holds this key" in pg.locator("#panel").inner_text()


def test_numbers_in_javascript_equal_bordir_metrics(page, mock_run, server):
    """Random filters: the page's CS numbers (JavaScript) against bordir.metrics (the server)."""
    rng = np.random.default_rng(5)
    q = server.query
    pg = page.open((mock_run / "view.html").as_uri())
    specs = [
        "cs:kb_cs",
        "cs:cst_cs",
        "cs:delta_cs_norm",
        "cmp:non_control_cs:rel_langs:no_ir",
        "pl:in_group_rate:qlang:no_ir:ru",
    ]
    for trial in range(24):
        params: dict[str, str] = {"order": "given"}
        for key in ("territory", "lang", "model", "mode", "run", "outcome"):
            vocab = q.vocab[key]
            if rng.random() < 0.45:
                k = int(rng.integers(1, max(2, len(vocab))))
                params[key] = SEP.join(
                    rng.choice(vocab, size=min(k, len(vocab)), replace=False).tolist()
                )
        if trial % 3 == 0:
            params.update(
                model="mock/planted:ru+uk", mode=SEP.join(["qlang", "no_ir", "rel_langs"])
            )
        params["metric"] = specs[trial % len(specs)]
        want = q.numbers(params)
        link = "#" + "&".join(
            f"{k}=" + ",".join(urllib.request.quote(v, safe="") for v in val.split(SEP))
            for k, val in params.items()
        )
        got = pg.evaluate(
            """h => { history.replaceState(null, '', h);
                       const st = window.bordirView; return JSON.stringify(st.numbersFor(h)); }""",
            link,
        )
        got = json.loads(got)
        assert got["total"] == want["n"], params
        a, b = got["value"], want["metric"]["value"]
        assert (a is None and b is None) or (
            a is not None and b is not None and math.isclose(a, b, abs_tol=1e-12)
        ), (
            params,
            a,
            b,
        )


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def test_api_and_bad_parameters(server):
    status, body = _get(server.url + "api/query?model=mock%2Ffirst&page=2")
    res = json.loads(body)
    assert (
        status == 200
        and res["page"] == 2
        and len(res["rows"]) == 50
        and res["total"]
        == int((np.asarray(server.query.data.facets["model"]) == "mock/first").sum())
    )
    for path, msg in (
        ("api/sample?id=99999999", "id=99999999: no such row"),
        ("api/sample?id=x", "expected a row number"),
        ("api/query?page=x", "page='x': expected a whole number"),
        ("api/query?sort=prompt", "sort='prompt': expected one of"),
        ("api/territory?t=Atlantis", "t='Atlantis': not a territory of this run"),
        ("api/numbers?metric=nope", "metric='nope'"),
    ):
        status, body = _get(server.url + path)
        assert status == 400 and msg in body and "\n" not in body.strip(), (path, body)
    assert _get(server.url + "nowhere")[0] == 404
