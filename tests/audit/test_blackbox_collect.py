"""``bordir audit collect`` against loopback servers of the four search APIs, then the audit of what it wrote."""

from __future__ import annotations

import json
import sqlite3

import pytest

from bordir.cli import main
from bordir.loaders import load_demo

from .search_servers import SearchAPIServer

MODELS = [
    "openai-search/gpt-4.1-mini",
    "perplexity/sonar",
    "gemini/gemini-2.5-flash",
    "anthropic/claude-sonnet-4-5",
]
SECRETS = {
    "OPENAI_API_KEY": "sk-loopback-SECRET-1",
    "PERPLEXITY_API_KEY": "pplx-SECRET-2",
    "GEMINI_API_KEY": "gem-SECRET-3",
    "ANTHROPIC_API_KEY": "ant-SECRET-4",
}


@pytest.fixture
def server(monkeypatch):
    for k, v in {**SECRETS, "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1"}.items():
        monkeypatch.setenv(k, v)
    with SearchAPIServer(lang_of={q.text: q.lang for q in load_demo().queries}) as srv:
        yield srv


def _args(srv, tmp_path, *extra):
    args = [
        "audit",
        "collect",
        "--territories",
        "all",
        "--cache",
        str(tmp_path / "cache.sqlite"),
        "--out",
        str(tmp_path / "log.jsonl"),
    ]
    for m in MODELS:
        args += ["--model", m]
    for api in ("openai-search", "perplexity", "gemini", "anthropic"):
        args += ["--base-url", f"{api}={srv.url}"]
    return [*args, *extra]


def test_dry_run_counts_calls_and_cost_and_sends_nothing(server, tmp_path, capsys):
    assert main(_args(server, tmp_path, "--dry-run", "--json")) == 0
    info = json.loads(capsys.readouterr().out)
    assert (
        info["calls"] == 34 * 4
        and info["to_call"] == 136
        and info["worst_case_usd"] > 0
        and server.api_calls() == 0
    )
    assert len(info["languages"]) >= 10
    assert main(_args(server, tmp_path)) == 2  # no --max-cost: refused
    assert "give --max-cost" in capsys.readouterr().err and server.api_calls() == 0


def test_collect_retries_resumes_stops_at_its_cost_cap_and_keeps_the_raw_response(
    server, tmp_path, capsys
):
    server.fail_next(429, 2)
    assert (
        main(_args(server, tmp_path, "--max-cost", "1.0", "--json")) == 0
    )  # the cap stops it part-way
    first = json.loads(capsys.readouterr().out)
    assert (
        first["stopped"]
        and 0 < first["answered"] < 136
        and first["not_asked"] == 136 - first["answered"]
    )
    calls_before = server.api_calls()
    assert calls_before == first["answered"] + 2  # two 429s retried
    assert main(_args(server, tmp_path, "--max-cost", "100", "--json")) == 0
    second = json.loads(capsys.readouterr().out)
    assert second["answered"] == 136 and not second["stopped"]
    assert server.api_calls() - calls_before == 136 - first["answered"]  # nothing asked twice
    assert main(_args(server, tmp_path, "--max-cost", "100", "--json")) == 0
    assert server.api_calls() - calls_before == 136 - first["answered"]
    recs = [
        json.loads(line)
        for line in (tmp_path / "log.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    assert len(recs) == 136 and all(r["raw"] and r["urls"] and r["group"] for r in recs)
    assert {r["provider"] for r in recs} == {
        "openai-responses",
        "perplexity",
        "gemini",
        "anthropic",
    }
    blobs = [
        (tmp_path / "log.jsonl").read_text(encoding="utf-8"),
        (tmp_path / "log.jsonl.json").read_text(encoding="utf-8"),
    ]
    con = sqlite3.connect(tmp_path / "cache.sqlite")
    blobs += (
        [str(row) for t in ("responses",) for row in con.execute(f"SELECT * FROM {t}")]
        if con.execute("SELECT name FROM sqlite_master WHERE name='responses'").fetchone()
        else []
    )
    con.close()
    blobs.append((tmp_path / "cache.sqlite").read_bytes().decode("latin-1"))
    for secret in SECRETS.values():
        assert not any(secret in b for b in blobs)
    headers = [h for _, h, _ in server.requests]
    assert any(
        h.get("authorization") == f"Bearer {SECRETS['OPENAI_API_KEY']}" for h in headers
    )  # it was sent, never stored


@pytest.mark.slow
def test_a_collected_log_of_1000_answers_in_10_languages_is_audited_end_to_end(
    server, tmp_path, capsys
):
    assert (
        main(_args(server, tmp_path, "--samples", "8", "--max-cost", "100", "--concurrency", "8"))
        == 0
    )
    recs = [
        json.loads(line)
        for line in (tmp_path / "log.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    assert len(recs) >= 1000 and len({r["query_lang"] for r in recs}) >= 10
    out = tmp_path / "audit"
    assert (
        main(
            [
                "audit",
                str(tmp_path / "log.jsonl"),
                "--out",
                str(out),
                "--resamples",
                "300",
                "--permutations",
                "300",
            ]
        )
        == 0
    )
    data = json.loads((out / "audit.json").read_text(encoding="utf-8"))
    assert data["kind"] == "blackbox" and data["summary"]["valid"] == len(recs)
    assert (out / "plots" / "source_countries.png").stat().st_size and (
        out / "plots" / "claimant_sources.png"
    ).stat().st_size
    # the planted bias: asked in Russian, about half the attributed sources are Russian (Perplexity gives its URLs)
    from .search_servers import expected_country_share

    answers = (
        tmp_path / "by-answer"
    )  # the server draws every answer on its own: answers are the clusters
    assert (
        main(
            [
                "audit",
                str(tmp_path / "log.jsonl"),
                "--out",
                str(answers),
                "--cluster",
                "answer",
                "--no-plots",
            ]
        )
        == 0
    )
    by_answer = json.loads((answers / "audit.json").read_text(encoding="utf-8"))
    row = [
        s
        for s in by_answer["shares"]
        if s["model"] == "perplexity/sonar"
        and s["query_lang"] == "ru"
        and s["dimension"] == "country"
        and s["category"] == "RU"
    ][0]
    assert row["low"] <= expected_country_share("ru", "RU") <= row["high"]
    gem = [
        s
        for s in data["shares"]
        if s["model"] == "gemini/gemini-2.5-flash"
        and s["dimension"] == "country"
        and s["category"] == "unattributed"
        and s["query_lang"] == "*"
    ][0]
    assert gem["share"] == 1.0  # redirects stay unresolved offline
    assert main(["view", str(out)]) == 0
    assert (out / "view.html").stat().st_size > 10_000


def test_gemini_redirects_resolve_only_through_the_explicit_online_step(server, tmp_path, capsys):
    args = _args(server, tmp_path, "--max-cost", "10")
    args = [a for a in args if not a.startswith(("openai-search/", "perplexity/", "anthropic/"))]
    args = [
        a
        for i, a in enumerate(args)
        if not (a == "--model" and args[i + 1] != "gemini/gemini-2.5-flash")
    ]
    assert main(args) == 0
    log = tmp_path / "log.jsonl"
    assert main(["audit", str(log), "--out", str(tmp_path / "a1"), "--no-plots", "--json"]) == 0
    capsys.readouterr()
    data = json.loads((tmp_path / "a1" / "audit.json").read_text(encoding="utf-8"))
    assert data["summary"]["unresolved_redirects"] == data["summary"]["urls"] > 0
    rw = f"https://vertexaisearch.cloud.google.com={server.url}"
    assert (
        main(["audit", "resolve", str(log), "--rewrite", rw, "--out", str(tmp_path / "map.json")])
        == 0
    )
    m = json.loads((tmp_path / "map.json").read_text(encoding="utf-8"))
    assert m and all(
        k.startswith("https://vertexaisearch.cloud.google.com/")
        and not v.startswith("https://vertexaisearch")
        for k, v in m.items()
    )
    assert (
        main(
            [
                "audit",
                str(log),
                "--resolved",
                str(tmp_path / "map.json"),
                "--out",
                str(tmp_path / "a2"),
                "--no-plots",
            ]
        )
        == 0
    )
    data = json.loads((tmp_path / "a2" / "audit.json").read_text(encoding="utf-8"))
    assert (
        data["summary"]["unresolved_redirects"] == 0
        and data["summary"]["unattributed_country"] < data["summary"]["urls"]
    )
