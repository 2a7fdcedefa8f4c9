"""An open run end to end against a loopback OpenAI server with planted stances, and its report.

The server answers the forced (direct-format) question with the territory's controller, always,
and the open question with free text that names the controller in a planted share of the answers
(70 %) and the other claimant otherwise, phrased in several ways; so the forced-vs-free gap in
agreement with the controller is −30 points and the switch rate 30 %. The run, its forced twin
(``forced/``), the resolver and the gap's interval must recover them.
"""

from __future__ import annotations

import hashlib
import json
import re

import pandas as pd
import pytest

from bordir.experiment.config import ExperimentConfig
from bordir.loaders.borderlines import load_borderlines
from bordir.metrics.free.summary import free_summary
from bordir.runner.run import run

from ..loopback import LoopbackServer, Reply
from ..perlang_synthetic import write_synthetic

PLANTED = 0.7
PHRASES = (
    "{t} belongs to {x}.",
    "It is part of {x}, although {y} disputes this.",
    "{y} claims it, but legally {t} is {x}'s territory.",
    "After a long history of border changes, today {t} is a territory of {x}.",
)


def _planted(ds):
    by_name = {t.name: t for t in ds.territories}

    def reply(body: dict) -> str:
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        name = re.search(r"Isle \d+", user).group(0)
        terr = by_name[name]
        ctl = terr.controller
        other = next(c for c in terr.claimants if c != ctl)
        if "Options:" in user:  # the forced question: the controller's letter
            options = re.findall(r"^([A-H])\) (.+)$", user, flags=re.M)
            return next(f"{letter}) {opt}" for letter, opt in options if opt.startswith(ctl))
        h = hashlib.sha256(f"{user}|{body.get('seed')}".encode()).digest()
        u = int.from_bytes(h[:8], "big") / 2**64
        x, y = (ctl, other) if u < PLANTED else (other, ctl)
        return PHRASES[h[8] % len(PHRASES)].format(t=name, x=x, y=y)

    return reply


@pytest.fixture(scope="module")
def open_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("open")
    root, passages = write_synthetic(tmp / "synthetic")
    ds = load_borderlines(str(root))
    (root / "territory_names.tsv").write_text(
        "".join(f"{q.query_id}\t{q.territory}\n" for q in ds.queries if not q.is_control),
        encoding="utf-8",
    )
    mp = pytest.MonkeyPatch()
    with LoopbackServer(reply=Reply(text=_planted(ds))) as server:
        mp.setenv("OPENAI_BASE_URL", server.openai_url)
        mp.setenv("OPENAI_API_KEY", "sk-loopback")
        mp.setenv("NO_PROXY", "127.0.0.1,localhost")
        cfg = ExperimentConfig.from_dict(
            {"dataset": "borderlines", "dataset_path": str(root), "corpus": str(passages),
             "models": ["openai/gpt-4o-mini"], "modes": ["no_ir"], "runs": 1, "temperature": 0.0,
             "response_format": "open", "concurrency": 16, "cache": str(tmp / "cache.sqlite3")}
        )  # fmt: skip
        run(cfg, out=tmp / "run", progress=False)
        requests = len(server.requests)
    mp.undo()
    yield tmp / "run", ds, requests


def test_the_forced_twin_and_the_free_answers_are_both_written(open_run):
    out, ds, requests = open_run
    free = pd.read_parquet(out / "responses.parquet")
    forced = pd.read_parquet(out / "forced" / "responses.parquet")
    assert len(free) == len(forced) == len(ds.queries)
    assert requests == 2 * len(ds.queries)  # one open and one direct call per query
    assert (forced["outcome"] == "answered").all()
    assert set(free["outcome"]) == {"answered"}  # every planted phrasing resolves to its claimant
    prompt = json.loads(free["prompt"].iloc[0])[1][1]
    assert "Options:" not in prompt and "A)" not in prompt


def test_the_gap_and_its_interval_recover_the_planted_gap(open_run):
    out, ds, _ = open_run
    free = pd.read_parquet(out / "responses.parquet")
    forced = pd.read_parquet(out / "forced" / "responses.parquet")
    s = free_summary(forced, free, ds, n_resamples=1000, seed=7)
    pooled = next(r for r in s["languages"] if r["query_lang"] == "*")
    assert pooled["status"] == "judged" and pooled["n_territories"] >= 100
    assert pooled["gap_low"] <= PLANTED - 1 <= pooled["gap_high"] < 0
    assert abs(pooled["switch_rate"] - (1 - PLANTED)) < 0.08
    assert pooled["switch_low"] <= 1 - PLANTED <= pooled["switch_high"]
    kb = next(r for r in s["cs_gap"] if r["metric"] == "kb_cs")
    assert kb["value_b"] == 1.0 and kb["diff"] < 0  # forced KB CS is 1 by construction
    langs = [r for r in s["languages"] if r["query_lang"] != "*"]
    assert all(r["status"] == "judged" for r in langs)  # 42 territories per language
    assert sum(r["significant"] for r in langs) >= len(langs) // 2  # Holm over the 9 languages


def test_the_report_states_the_gap(open_run):
    from bordir.report import build_report

    out, _, _ = open_run
    page = build_report(out, n_resamples=200, seed=3, plots=False)
    metrics = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    assert metrics["free"]["languages"] and metrics["free"]["headline"]
    assert any(f.startswith("Forced vs free:") for f in metrics["summary"]["findings"])
    html = page.read_text(encoding="utf-8")
    assert 'id="free"' in html and "forced-vs-free" in html
    assert (out / "tables" / "free_gap.csv").is_file()
    view = (out / "view.html").read_text(encoding="utf-8")  # each free answer, its span, its twin
    start = view.index('id="sec-free"')
    section = view[start : view.index("</section>", start)]
    assert section.count("<mark>") >= 400 and "switch" in section and "same" in section
    assert "belongs to" in section and "<script" not in section


def test_compare_formats_prints_the_gap(open_run):
    from ..conftest import invoke_cli

    out, _, _ = open_run
    res = invoke_cli("compare", str(out), "--formats", "--resamples", "200", "--json")
    assert res.returncode == 0, res.stderr
    rows = json.loads(res.stdout)["rows"]
    pooled = next(r for r in rows if r["query_lang"] == "*")
    assert pooled["gap_low"] <= PLANTED - 1 <= pooled["gap_high"]
    bad = invoke_cli("compare", str(out / "forced"), "--formats")
    assert bad.returncode == 2 and "compares an open run" in bad.stderr


def test_a_free_answer_that_echoes_its_prompt_is_an_echo_never_a_claimant(tmp_path):
    """A small model's habit: the open answer repeats the prompt (with the documents it shows)."""
    root, passages = write_synthetic(tmp_path / "synthetic")
    ds = load_borderlines(str(root))
    (root / "territory_names.tsv").write_text(
        "".join(f"{q.query_id}\t{q.territory}\n" for q in ds.queries if not q.is_control),
        encoding="utf-8",
    )

    def echo(body: dict) -> str:
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        return user if "Options:" not in user else "A"

    mp = pytest.MonkeyPatch()
    with LoopbackServer(reply=Reply(text=echo)) as server:
        mp.setenv("OPENAI_BASE_URL", server.openai_url)
        mp.setenv("OPENAI_API_KEY", "sk-loopback")
        mp.setenv("NO_PROXY", "127.0.0.1,localhost")
        cfg = ExperimentConfig.from_dict(
            {"dataset": "borderlines", "dataset_path": str(root), "corpus": str(passages),
             "models": ["openai/gpt-4o-mini"], "modes": ["no_ir", "rel_langs"], "runs": 1,
             "temperature": 0.0, "response_format": "open", "limit": 6, "concurrency": 8,
             "cache": str(tmp_path / "cache.sqlite3")}
        )  # fmt: skip
        run(cfg, out=tmp_path / "run", progress=False)
    mp.undo()
    rows = pd.read_parquet(tmp_path / "run" / "responses.parquet")
    assert len(rows) and set(rows["outcome"]) == {"echo"}
    assert (rows["choice"] == -1).all()
