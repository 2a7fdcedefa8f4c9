"""Provider batches end to end: the openai backend against a loopback Files + Batch API server.

The demo grid through ``--submit batch`` + ``--collect`` gives the same responses table as
online calls; submission and collection resume across processes; a partly failed or expired
batch re-submits exactly its failed requests; no API key reaches any file; batch calls are
priced at the batch price.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

import bordir
from bordir.experiment.config import ExperimentConfig
from bordir.generation.batch import BatchState
from bordir.generation.cache import ResponseCache
from bordir.runner.batch import collect, submit

from ..batch_server import BatchServer
from ..conftest import invoke_cli, run_cli
from ..loopback import Reply

KEY = "sk-canary-batch-7f3a9c0e1d"
MODEL = "openai/gpt-4o-mini"
GRID = {"models": [MODEL], "modes": ["no_ir", "qlang", "rel_langs"], "runs": 2, "k": 2}
TIMING = ["latency_s"]  # wall time of the call: a batch's answer has no per-call latency


def _letter(body: dict) -> str:
    # answer B for even-length prompts, A otherwise: deterministic, differs between queries
    return "B)" if len(body["messages"][-1]["content"]) % 2 == 0 else "A)"


def _crimea(body: dict) -> bool:
    return "Crimea" in json.dumps(body, ensure_ascii=False)


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    with BatchServer(reply=Reply(text=_letter)) as s:
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", s.openai_url)
        yield s


def _cfg(tmp_path: Path, name: str, **over) -> ExperimentConfig:
    return ExperimentConfig.coerce({**GRID, "cache": str(tmp_path / f"{name}.sqlite3"), **over})


def _toml(path: Path, cfg: ExperimentConfig) -> Path:
    lines = ["[experiment]"] + [
        f"{k} = {json.dumps(v)}" for k, v in {**GRID, "cache": cfg.cache}.items()
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def _env(server: BatchServer) -> dict[str, str]:
    return {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": server.openai_url, "NO_PROXY": "127.0.0.1"}


def _batched(cfg, out, **kw):
    """Submit, then collect with waiting (the in-process path)."""
    submit(cfg, out)
    return collect(cfg, out, wait=True, poll=0.001, progress=False, **kw)


@pytest.mark.slow
def test_batch_path_gives_the_online_responses_table(server, tmp_path):
    online = bordir.run(_cfg(tmp_path, "online"), out=tmp_path / "online", progress=False)
    assert server.chat_calls == len(online.responses) == 34 * 3 * 2 - _skipped(online)
    assert server.batches == {}

    cfg = _cfg(tmp_path, "batch")
    rep = submit(cfg, tmp_path / "batch")
    assert rep.submitted == len(online.responses) and len(rep.batches) == 1
    lines = server.submitted_lines()
    assert {ln["method"] for ln in lines} == {"POST"}
    assert {ln["url"] for ln in lines} == {"/v1/chat/completions"}
    assert all(ln["body"]["model"] == "gpt-4o-mini" for ln in lines)
    got = collect(cfg, tmp_path / "batch", wait=True, poll=0.001, progress=False)
    assert server.chat_calls == len(online.responses)  # the batch path made no online call
    a = pd.read_parquet(tmp_path / "online" / "responses.parquet")
    b = pd.read_parquet(tmp_path / "batch" / "responses.parquet")
    assert list(a.columns) == list(b.columns)
    pd.testing.assert_frame_equal(a.drop(columns=TIMING), b.drop(columns=TIMING))
    assert not b["cached"].any() and (b["outcome"] != "failed").all()
    assert got.run.info["calls"] == online.info["calls"]

    # collected results sit under the online cache keys: an online run on that cache calls nothing
    again = bordir.run(cfg, progress=False)
    assert server.chat_calls == len(online.responses)
    assert again.responses["cached"].all()
    with ResponseCache(cfg.cache) as c1, ResponseCache(tmp_path / "online.sqlite3") as c2:
        assert c1.keys() == c2.keys()


def _skipped(run) -> int:
    return 2 * len(run.info["skipped"])


@pytest.mark.slow
def test_cost_uses_the_batch_price(server, tmp_path):
    online = bordir.run(_cfg(tmp_path, "online"), progress=False)
    got = _batched(_cfg(tmp_path, "batch"), tmp_path / "batch")
    on = {(r["model"], r["lang"]): r for r in online.info["cost"]}
    for r in got.run.info["cost"]:
        o = on[(r["model"], r["lang"])]
        assert r["batch_calls"] == r["calls"] == o["calls"] and o["batch_calls"] == 0
        assert r["input_tokens"] == o["input_tokens"]
        assert r["cost_usd"] == pytest.approx(o["cost_usd"] / 2)  # gpt-4o-mini: 0.075 / 0.30


@pytest.mark.slow
def test_dry_run_with_submit_batch_prices_at_half(server, tmp_path):
    cfg = _toml(tmp_path / "exp.toml", _cfg(tmp_path, "c"))
    out = str(tmp_path / "run")
    plain = invoke_cli("run", str(cfg), "--out", out, "--dry-run", env=_env(server))
    batch = invoke_cli(
        "run", str(cfg), "--out", out, "--dry-run", "--submit", "batch", env=_env(server)
    )
    assert plain.returncode == batch.returncode == 0, plain.stderr + batch.stderr

    def total(text: str) -> float:
        line = next(ln for ln in text.splitlines() if ln.startswith("total:"))
        return float(line.split("$")[1].split()[0])

    assert "at batch prices" in batch.stdout
    assert total(batch.stdout) == pytest.approx(total(plain.stdout) / 2, abs=1e-4)  # 4 decimals
    assert server.batches == {} and server.chat_calls == 0


@pytest.mark.slow
def test_submit_and_collect_resume_across_processes(server, tmp_path):
    cfg = _cfg(tmp_path, "c")
    toml = _toml(tmp_path / "exp.toml", cfg)
    out = str(tmp_path / "run")
    args = ("run", str(toml), "--out", out, "--no-progress")
    env = _env(server)

    none = run_cli(*args, "--collect", env=env)
    assert none.returncode == 2
    assert none.stderr.strip().count("\n") == 0 and "no batch was submitted" in none.stderr
    assert "--submit batch" in none.stderr

    first = run_cli(*args, "--submit", "batch", env=env)
    assert first.returncode == 0, first.stderr
    assert "submitted batch batch_" in first.stdout
    (batch_id,) = server.batches
    n = len(server.submitted_lines())

    second = run_cli(*args, "--submit", "batch", env=env)  # pending: nothing submitted again
    assert second.returncode == 0, second.stderr
    assert (
        list(server.batches) == [batch_id] and f"skipped 0 cached, {n} in pending" in second.stdout
    )

    pending = run_cli(*args, "--collect", env=env)  # a new process: the batch is still running
    assert pending.returncode == 3, pending.stderr
    assert (
        "still pending" in pending.stderr and not (tmp_path / "run" / "responses.parquet").exists()
    )

    done = run_cli(*args, "--collect", "--wait", "--poll", "0.01", env=env)
    assert done.returncode == 0, done.stderr
    df = pd.read_parquet(tmp_path / "run" / "responses.parquet")
    assert len(df) == n and (df["outcome"] != "failed").all()
    state = BatchState.load(tmp_path / "run")
    assert state.summary() == {
        "batches": 1,
        "pending": 0,
        "submitted": n,
        "completed": n,
        "failed": 0,
    }

    third = run_cli(*args, "--submit", "batch", env=env)  # all cached: no new batch
    assert third.returncode == 0 and list(server.batches) == [batch_id]
    assert f"0 requests submitted; skipped {n} cached" in third.stdout
    assert server.chat_calls == 0


@pytest.mark.slow
def test_partly_failed_batch_resubmits_only_the_failed_requests(server, tmp_path):
    cfg = _cfg(tmp_path, "c")
    out = tmp_path / "run"
    server.fail = _crimea
    got = _batched(cfg, out)
    df = got.run.responses
    bad = df[df["outcome"] == "failed"]
    assert len(bad) > 0 and set(bad["territory"]) == {"Crimea"}
    assert all("HTTP 500 in the batch" in e and "--submit batch" in e for e in bad["error"])
    failed_keys = set(BatchState.load(out).batches[0].failed_keys)
    assert len(failed_keys) == len(bad)

    server.fail = None
    rep = submit(cfg, out)
    assert rep.submitted == len(bad) and rep.cached == len(df) - len(bad)
    second = list(server.batches.values())[1]
    resent = [
        json.loads(s) for s in server.files[second.input_file_id]["data"].decode().splitlines()
    ]
    state = BatchState.load(out)
    assert set(state.batches[1].custom_ids.values()) == failed_keys
    assert len(resent) == len(failed_keys)

    final = collect(cfg, out, wait=True, poll=0.001, progress=False)
    assert (final.run.responses["outcome"] != "failed").all()
    assert final.run.responses["cached"].sum() == len(df) - len(bad)
    online = bordir.run(_cfg(tmp_path, "online"), progress=False)
    cols = [c for c in online.responses.columns if c not in TIMING + ["cached"]]
    pd.testing.assert_frame_equal(online.responses[cols], final.run.responses[cols])


def test_expired_batch_keeps_the_answered_and_resubmits_the_rest(server, tmp_path):
    cfg = _cfg(tmp_path, "c", modes=["no_ir"], runs=1)
    out = tmp_path / "run"
    server.expire_after = 5
    got = _batched(cfg, out)
    df = got.run.responses
    assert (df["outcome"] != "failed").sum() == 5
    assert all("batch_expired" in e for e in df.loc[df["outcome"] == "failed", "error"])
    assert got.summary["failed"] == len(df) - 5

    server.expire_after = None
    assert submit(cfg, out).submitted == len(df) - 5
    final = collect(cfg, out, wait=True, poll=0.001, progress=False)
    assert (final.run.responses["outcome"] != "failed").all()


def test_batch_failing_validation_fails_every_request_with_the_reason(server, tmp_path):
    cfg = _cfg(tmp_path, "c", modes=["no_ir"], runs=1)
    server.fail_validation = True
    got = _batched(cfg, tmp_path / "run")
    errs = set(got.run.responses["error"])
    assert (
        len(errs) == 1
        and "not processed (batch failed: invalid_request: validation failed" in errs.pop()
    )
    server.fail_validation = False
    assert submit(cfg, tmp_path / "run").submitted == len(got.run.responses)


def test_no_api_key_in_any_file_written(server, tmp_path):
    cfg = _cfg(tmp_path, "c")
    server.fail = _crimea  # the error lines echo the key
    _batched(cfg, tmp_path / "run")
    assert any(KEY in s["data"].decode() for s in server.files.values())  # the server did echo it
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.name.endswith(".results.jsonl") for p in written)
    for p in written:
        assert KEY.encode() not in p.read_bytes(), p


@pytest.mark.slow
def test_collect_refuses_without_submit_and_wait_needs_a_mode(server, tmp_path):
    cfg = _toml(tmp_path / "exp.toml", _cfg(tmp_path, "c"))
    r = invoke_cli("run", str(cfg), "--out", str(tmp_path / "r"), "--wait", env=_env(server))
    assert r.returncode == 2 and "--wait needs --submit batch or --collect" in r.stderr
    assert "Traceback" not in r.stderr


def test_models_without_a_batch_api_are_called_online_at_collect(server, tmp_path):
    cfg = _cfg(tmp_path, "c", models=[MODEL, "mock/first"], modes=["no_ir"], runs=1)
    rep = submit(cfg, tmp_path / "run")
    assert rep.online_models == ["mock/first"] and len(rep.batches) == 1
    got = collect(cfg, tmp_path / "run", wait=True, poll=0.001, progress=False)
    assert set(got.run.responses["model"]) == {MODEL, "mock/first"}
    assert (got.run.responses["outcome"] != "failed").all()


def test_state_file_is_written_atomically_and_lists_the_map(server, tmp_path):
    cfg = _cfg(tmp_path, "c", modes=["no_ir"], runs=1)
    submit(cfg, tmp_path / "run")
    data = json.loads((tmp_path / "run" / "batch" / "state.json").read_text())
    (b,) = data["batches"]
    assert b["status"] == "validating" and not b["collected"]
    assert all(len(k) == 64 for k in b["custom_ids"].values())
    assert data["summary"]["pending"] == 1
    assert not [p for p in (tmp_path / "run" / "batch").iterdir() if p.name.endswith(".tmp")]
    assert os.path.getsize(tmp_path / "run" / "batch" / "0000.input.jsonl") > 0


@pytest.mark.slow
def test_bordir_run_with_batch_waits_and_returns_the_run(server, tmp_path):
    cfg = _cfg(tmp_path, "c", modes=["no_ir"], runs=1)
    got = bordir.run(cfg, out=tmp_path / "run", batch=True, poll=0.001, progress=False)
    assert len(got.responses) == 34 and (got.responses["outcome"] != "failed").all()
    assert len(server.batches) == 1 and server.chat_calls == 0
    again = bordir.run(cfg, out=tmp_path / "run", batch=True, poll=0.001, progress=False)
    assert len(server.batches) == 1 and again.responses["cached"].all()  # nothing re-submitted
    with pytest.raises(bordir.errors.ConfigError, match="needs a run directory"):
        bordir.run(cfg, batch=True)


@pytest.mark.slow
def test_cli_submit_and_wait_in_one_command(server, tmp_path):
    toml = _toml(tmp_path / "exp.toml", _cfg(tmp_path, "c"))
    out = str(tmp_path / "run")
    env = _env(server)
    server.fail = _crimea
    r = invoke_cli(
        "run", str(toml), "--out", out, "--submit", "batch", "--wait", "--poll", "0.01", env=env
    )
    assert r.returncode == 1, r.stderr  # some calls failed in the batch
    assert "re-submits exactly those" in r.stderr and KEY not in r.stderr + r.stdout
    server.fail = None
    r = invoke_cli(
        "run", str(toml), "--out", out, "--submit", "batch", "--wait", "--poll", "0.01", env=env
    )
    assert r.returncode == 0, r.stderr
    assert len(server.batches) == 2
    df = pd.read_parquet(tmp_path / "run" / "responses.parquet")
    assert (df["outcome"] != "failed").all()


def test_a_batch_cancelled_at_the_provider_fails_its_requests_and_is_resubmitted(server, tmp_path):
    import openai

    cfg = _cfg(tmp_path, "c", modes=["no_ir"], runs=1)
    submit(cfg, tmp_path / "run")
    (batch_id,) = server.batches
    client = openai.OpenAI(api_key=KEY, base_url=server.openai_url, max_retries=0)
    assert client.batches.cancel(batch_id).status == "cancelling"  # e.g. from the dashboard
    got = collect(cfg, tmp_path / "run", wait=True, poll=0.001, progress=False)
    assert BatchState.load(tmp_path / "run").batches[0].status == "cancelled"
    assert (got.run.responses["outcome"] == "failed").all()
    assert all("batch_cancelled" in e for e in got.run.responses["error"])
    assert submit(cfg, tmp_path / "run").submitted == len(got.run.responses)


@pytest.mark.slow
def test_a_batch_unknown_to_the_provider_is_a_one_line_error(server, tmp_path):
    cfg = _cfg(tmp_path, "c", modes=["no_ir"], runs=1)
    toml = _toml(tmp_path / "exp.toml", cfg)
    out = str(tmp_path / "run")
    assert (
        invoke_cli("run", str(toml), "--out", out, "--submit", "batch", env=_env(server)).returncode
        == 0
    )
    with BatchServer() as other:  # another account / endpoint: it has never seen the batch
        r = invoke_cli("run", str(toml), "--out", out, "--collect", env=_env(other))
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0, r.stderr
    assert "retrieving batch batch_" in r.stderr and "HTTP 404" in r.stderr
    assert KEY not in r.stderr and "key ***" in r.stderr  # the server echoed it; bordir masked it
    assert "Traceback" not in r.stderr
    assert BatchState.load(out).pending()  # still pending: --collect against the right server works
