"""``bordir view`` without a browser: what the page holds, the checks at view time, and bad input.

Everything is read back from the real files of a mock-backend run of the demo (``mock_run``): the
page's embedded data against ``responses.parquet`` and ``hits.parquet``, the recomputed cache keys
against the real response cache, the re-parsed rules against the recorded answers.
"""

from __future__ import annotations

import json
import re
import shutil
import socket
from pathlib import Path

import pandas as pd
import pytest

from bordir.errors import ConfigError, DataError
from bordir.runrecord import read_record
from bordir.view import STATIC_MAX_ROWS, VIEWS, view_of, write_view
from bordir.view.page import embed_json
from bordir.view.run_data import load_run_data
from bordir.view.run_details import KEY_ABSENT, KEY_PROMPT_DIFFERS, KEY_VERIFIED, RunDetails

from ..conftest import invoke_cli
from ..rundirs import rerecord

pytestmark = pytest.mark.slow  # a whole run and its report (session fixtures), a browser


def page_data(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    m = re.search(r'<script type="application/json" id="bordir-data">(.*?)</script>', text, re.S)
    assert m
    return json.loads(m.group(1))


def column(data: dict, name: str) -> list:
    c = data["rows"]["cols"][name]
    return [None if i < 0 else c["d"][i] for i in c["c"]] if "d" in c else c["n"]


def test_page_is_self_contained_and_holds_every_row(mock_run):
    page = mock_run / "view.html"
    text = page.read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)=["']https?:""", text)  # no CDN, nothing fetched
    assert "fetch(" not in text.split("RemoteStore")[0]  # the local store fetches nothing
    data = page_data(page)
    resp = pd.read_parquet(mock_run / "responses.parquet")
    assert data["rows"]["n"] == len(resp)
    assert column(data, "reply") == resp["raw_text"].tolist()
    assert column(data, "prompt") == resp["prompt"].tolist()
    assert column(data, "order") == resp["option_order"].tolist()
    assert set(column(data, "order")) == {"given", "reversed"}
    answered = resp["outcome"] == "answered"
    assert [a for a, ok in zip(column(data, "answer"), answered) if ok] == resp.loc[
        answered, "choice_name"
    ].tolist()


def test_documents_carry_rank_and_score_from_the_hits(mock_run):
    data = page_data(mock_run / "view.html")
    hits = pd.read_parquet(mock_run / "hits.parquet").set_index(["query_id", "mode", "doc_id"])
    resp = pd.read_parquet(mock_run / "responses.parquet")
    n = 0
    for qid, mode, docs in zip(resp["query_id"], resp["mode"], column(data, "docs")):
        for d in json.loads(docs):
            h = hits.loc[(qid, mode, d[0])]
            assert (d[1], d[5]) == (h["doc_lang"], int(h["rank"])) and d[6] == pytest.approx(
                h["score"]
            )
            n += 1
    assert n > 1000


def test_cache_keys_are_verified_and_rules_agree(mock_run):
    data = load_run_data(mock_run)
    details = RunDetails(data).columns()
    failed = (data.frame["outcome"] == "failed").tolist()
    assert {k for k, f in zip(details["keystat"], failed) if not f} == {KEY_VERIFIED}
    assert {k for k, f in zip(details["keystat"], failed) if f} <= {
        KEY_ABSENT
    }  # failed calls are not cached
    assert all(details["rule_ok"])
    # the seed is in the key: the runs of one (query, mode, model, order) are different calls
    keys = data.frame.assign(key=details["key"], order=data.facets["order"])
    per = keys.groupby(["query_id", "mode", "model", "order"])["key"].nunique()
    assert (per == 2).all()
    rules = set(details["rule"])
    assert any(r.startswith("strict 1: leading choice") for r in rules)


def test_a_changed_prompt_is_reported_not_hidden(mock_run, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(mock_run, run)
    resp = pd.read_parquet(run / "responses.parquet")
    resp.loc[0, "prompt"] = json.dumps([["system", "edited"], ["user", "edited"]])
    resp.to_parquet(run / "responses.parquet", index=False)
    with pytest.raises(DataError, match="responses.parquet: changed since the run wrote it"):
        write_view(run)  # a file changed after the run is refused
    rerecord(run)  # as if the run had recorded that prompt (a template changed since)
    page = write_view(run)
    data = page_data(page)
    assert column(data, "keystat")[0] == KEY_PROMPT_DIFFERS and column(data, "key")[0] is None
    assert (
        column(data, "prompt")[0] == resp.loc[0, "prompt"]
    )  # the recorded prompt is what is shown
    assert any("differs from the recorded one" in w for w in data["meta"]["warnings"])


def test_kinds(mock_run, testbed_dir, testgen_dir, audit_dir, tmp_path):
    """The kind is the record's, and each kind's page is looked up by it."""
    kinds = [read_record(p).kind for p in (mock_run, testbed_dir, testgen_dir, audit_dir)]
    assert kinds == ["run", "testbed", "testrun", "audit"]
    assert [view_of(read_record(p)) for p in (mock_run, testbed_dir)] == [
        VIEWS.get("run"),
        VIEWS.get("testbed"),
    ]
    with pytest.raises(DataError, match="not a bordir output directory"):
        read_record(tmp_path)


def test_cli_writes_each_kind(mock_run, testbed_dir, testgen_dir, audit_dir, tmp_path):
    for d in (mock_run, testbed_dir, testgen_dir, audit_dir):
        out = tmp_path / f"{d.name}.html"
        res = invoke_cli("view", str(d), "--out", str(out), "--json")
        assert res.returncode == 0, res.stderr
        assert json.loads(res.stdout)["view"] == str(out) and out.stat().st_size > 10_000


def _bad(tmp_path: Path, mock_run: Path, name: str) -> Path:
    d = tmp_path / name
    shutil.copytree(mock_run, d)
    (d / "view.html").unlink()
    return d


def test_bad_input_is_one_line_exit_2_nothing_written(mock_run, tmp_path):
    trunc = _bad(tmp_path, mock_run, "trunc")
    blob = (trunc / "responses.parquet").read_bytes()
    (trunc / "responses.parquet").write_bytes(blob[: len(blob) // 2])
    nohits = _bad(tmp_path, mock_run, "nohits")
    (nohits / "hits.parquet").unlink()
    badhits = _bad(tmp_path, mock_run, "badhits")
    (badhits / "hits.parquet").write_bytes(b"PAR1 not really")
    recorded = _bad(tmp_path, mock_run, "recorded")  # a broken file its record lists as written
    (recorded / "responses.parquet").write_bytes(blob[: len(blob) // 2])
    rerecord(recorded)
    cases = {
        tmp_path: "not a bordir output directory",
        tmp_path / "missing": "no such directory",
        trunc: "responses.parquet: changed since the run wrote it",
        nohits: "hits.parquet: missing, but",
        badhits: "hits.parquet: changed since the run wrote it",
        recorded: "responses.parquet: not a readable Parquet file",
    }
    for d, msg in cases.items():
        res = invoke_cli("view", str(d))
        assert res.returncode == 2, (d, res.stderr)
        assert (
            res.stderr.count("\n") == 1 and msg in res.stderr and "Traceback" not in res.stderr
        ), res.stderr
        assert not (Path(d) / "view.html").exists() or d == tmp_path
    assert not any(
        p.name.startswith(".view.html") for p in tmp_path.rglob("*")
    )  # no temporary left


def test_port_in_use_and_the_static_limit(mock_run):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        res = invoke_cli("view", str(mock_run), "--serve", "--port", str(port))
        assert (
            res.returncode == 2
            and f"--port {port}: port {port} on 127.0.0.1 is in use" in res.stderr
        )
        # over the static limit, view says so and switches to serving (here: onto the busy port)
        res = invoke_cli("view", str(mock_run), "--max-rows", "10", "--port", str(port))
        assert (
            "more than the 10 a static view.html embeds (--max-rows); serving it instead"
            in res.stderr
        )
        assert res.returncode == 2 and "is in use" in res.stderr
    with pytest.raises(ConfigError, match="serve it instead: bordir view DIR --serve"):
        write_view(mock_run, max_rows=10)
    assert STATIC_MAX_ROWS == 200_000


def test_embedded_json_cannot_close_the_script():
    text = embed_json({"reply": "</script><script>alert(1)</script><!--"})
    assert "</script" not in text and "<!--" not in text
    assert json.loads(text)["reply"] == "</script><script>alert(1)</script><!--"


def test_run_view_in_a_notebook(mock_run, tmp_path, monkeypatch):
    import bordir
    from bordir.view import notebook

    run = bordir.load_run(mock_run)
    page = run.view(tmp_path / "saved")  # saved there, and its explorer written beside it
    assert page == tmp_path / "saved" / "view.html" and page.is_file()
    assert page_data(page)["rows"]["n"] == len(run.responses)
    shown = []
    monkeypatch.setattr(notebook, "in_jupyter", lambda: True)
    display = type(
        "M", (), {"HTML": lambda self, h: h, "display": lambda self, x: shown.append(x)}
    )()
    monkeypatch.setitem(__import__("sys").modules, "IPython.display", display)
    monkeypatch.setitem(__import__("sys").modules, "IPython", type("I", (), {"display": display})())
    assert run.view() == page
    assert (
        len(shown) == 1
        and shown[0].startswith("<iframe srcdoc=")
        and "&lt;!DOCTYPE html&gt;" in shown[0]
    )


@pytest.mark.slow
def test_a_real_local_model_run(local_run, browser):
    """The demo with the real gemma model: rank classification, every key verified, in the browser."""
    from .conftest import Page

    data = load_run_data(local_run)
    assert len(data.frame) == 2  # one query, 2 modes, 1 run
    details = RunDetails(data).columns()
    assert set(details["keystat"]) == {KEY_VERIFIED} and all(details["rule_ok"])
    assert all(r.startswith("rank classification: option log-likelihoods") for r in details["rule"])
    pg = Page(browser)
    p = pg.open((local_run / "view.html").as_uri() + "#mt=Crimea")
    p.wait_for_selector("body[data-matrix-ready='1']")
    p.locator("button.cell").first.click()
    p.wait_for_selector("body[data-panel-ready='1']")
    assert "softmax draw at temperature" in p.locator("#panel").inner_text()
    p.close()
    assert not pg.errors, pg.errors
