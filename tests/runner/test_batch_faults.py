"""Provider batches when things go wrong: shuffled and malformed result lines, kills, misuse.

Against the loopback Files + Batch API server (tests/batch_server.py), which, like
OpenAI's, does not keep the input order in its result files: 429 lines and a 200
line whose body is no chat completion fail only their requests; counts grow while
a batch runs; collecting twice changes nothing; a process killed during the
batch creation never makes the batch twice; an online run into a directory with
pending batches and ``--executor ray`` with ``--submit`` are refused on one line.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

import bordir
from bordir.generation.batch import BatchState
from bordir.runner.batch import collect, submit

from ..conftest import invoke_cli
from .test_batch import KEY, TIMING, _batched, _cfg, _env, _toml, server  # noqa: F401 (fixture)


def test_output_order_429_lines_and_a_malformed_200_line_fail_only_their_requests(server, tmp_path):
    # the server shuffles its result files (as OpenAI's do): results match by custom_id, not order
    cfg = _cfg(tmp_path, "c", modes=["qlang"], runs=1)
    out = tmp_path / "run"
    server.fail = lambda body: 429 if "Crimea" in json.dumps(body, ensure_ascii=False) else False
    chat, broken = server.chat, []

    def chat_with_one_malformed(body: dict) -> dict:
        reply = chat(body)
        if not broken and "Crimea" not in json.dumps(body, ensure_ascii=False):
            broken.append(body["messages"][-1]["content"])
            reply["choices"] = []  # a 200 line whose body is no usable chat completion
        return reply

    server.chat = chat_with_one_malformed
    got = _batched(cfg, out)  # before the fix: the malformed line raised out of every --collect
    df = got.run.responses
    (b,) = server.batches.values()
    assert b.output_file_id and b.error_file_id
    out_ids = [ln["custom_id"] for ln in server.submitted_lines()]
    got_ids = [
        json.loads(s)["custom_id"] for s in server.files[b.output_file_id]["data"].split(b"\n") if s
    ]
    assert got_ids != [i for i in out_ids if i in set(got_ids)]  # really out of input order
    bad = df[df["outcome"] == "failed"]
    crimea = bad[bad["territory"] == "Crimea"]
    assert len(crimea) > 0  # the lines naming Crimea in English
    assert all("HTTP 429 in the batch" in e for e in crimea["error"])
    (malformed,) = bad[bad["territory"] != "Crimea"]["error"]
    assert "malformed 200 response in the batch" in malformed and KEY not in malformed
    assert set(BatchState.load(out).batches[0].failed_keys) and len(bad) == len(crimea) + 1

    server.fail, server.chat = None, chat
    assert submit(cfg, out).submitted == len(bad)  # exactly the failed ones, the malformed included
    final = collect(cfg, out, wait=True, poll=0.001, progress=False).run.responses
    online = bordir.run(_cfg(tmp_path, "online", modes=["qlang"], runs=1), progress=False)
    cols = [c for c in online.responses.columns if c not in TIMING + ["cached"]]
    pd.testing.assert_frame_equal(online.responses[cols], final[cols])


def test_counts_grow_while_in_progress_and_collect_twice_changes_nothing(server, tmp_path):
    cfg = _cfg(tmp_path, "c", modes=["no_ir"], runs=1)
    out = tmp_path / "run"
    server.steps = 4
    submit(cfg, out)
    seen = []
    while not (rep := collect(cfg, out, progress=False)).run:
        seen.append(rep.pending[0][1:3])
    assert ("in_progress", 0) in seen and any(s == "in_progress" and n > 0 for s, n in seen)
    first = pd.read_parquet(out / "responses.parquet")
    again = collect(cfg, out, progress=False)  # nothing pending: rebuilt from the cache
    assert again.collected == [] and again.run.responses["cached"].all()
    cols = [c for c in first.columns if c not in TIMING + ["cached"]]
    pd.testing.assert_frame_equal(first[cols], again.run.responses[cols])
    assert len(server.batches) == 1 and server.chat_calls == 0


def test_submit_with_the_ray_executor_is_refused_not_silently_local(server, tmp_path):
    toml = _toml(tmp_path / "exp.toml", _cfg(tmp_path, "c"))
    r = invoke_cli(
        "run", str(toml), "--out", str(tmp_path / "r"), "--submit", "batch", "--executor", "ray",
        env=_env(server),
    )  # fmt: skip
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0, r.stderr
    assert "--executor ray / --address do not apply" in r.stderr and server.batches == {}


@pytest.mark.slow
def test_an_online_run_into_a_directory_with_pending_batches_is_refused(server, tmp_path):
    cfg = _cfg(tmp_path, "c")  # the grid _toml writes
    toml = _toml(tmp_path / "exp.toml", cfg)
    out = str(tmp_path / "run")
    submit(cfg, out)
    r = invoke_cli("run", str(toml), "--out", out, "--no-progress", env=_env(server))
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0, r.stderr
    assert "still pending" in r.stderr and "--collect" in r.stderr
    assert server.chat_calls == 0  # before: every pending request was called (and paid) online
    collect(cfg, out, wait=True, poll=0.001, progress=False)
    r = invoke_cli("run", str(toml), "--out", out, "--no-progress", env=_env(server))
    assert r.returncode == 0, r.stderr  # collected: the online run is all cache hits
    assert server.chat_calls == 0


@pytest.mark.slow
@pytest.mark.parametrize("created", [True, False], ids=["created-then-killed", "killed-before"])
def test_a_submission_killed_during_the_batch_creation_never_creates_it_twice(
    server, tmp_path, monkeypatch, created
):
    from bordir.generation.batch.provider import OpenAIBatchProvider

    cfg = _cfg(tmp_path, "c", modes=["no_ir"], runs=1)
    out = tmp_path / "run"
    real = OpenAIBatchProvider.create

    def killed(self, file_id):
        if created:
            real(self, file_id)  # the provider made the batch; its answer never got recorded
        raise KeyboardInterrupt

    monkeypatch.setattr(OpenAIBatchProvider, "create", killed)
    with pytest.raises(KeyboardInterrupt):
        submit(cfg, out)
    monkeypatch.setattr(OpenAIBatchProvider, "create", real)
    state = BatchState.load(out)
    assert state.batches == [] and len(state.uploads) == 1 and len(server.files) == 1
    assert len(server.batches) == (1 if created else 0)

    if created:  # the next --submit finds it by its input file instead of submitting again
        rep = submit(cfg, out)
        assert rep.recovered == list(server.batches) and rep.submitted == 0
        assert rep.pending == 34
    got = collect(cfg, out, wait=True, poll=0.001, progress=False)  # or --collect creates it
    assert len(server.batches) == 1  # never a second batch, never a second upload
    assert sum(f["meta"]["purpose"] == "batch" for f in server.files.values()) == 1
    assert (got.run.responses["outcome"] != "failed").all() and server.chat_calls == 0
    state = BatchState.load(out)
    assert state.uploads == [] and [b.id for b in state.batches] == list(server.batches)


@pytest.mark.parametrize("lost", ["drop", 502], ids=["connection-closed", "502-after-creating"])
def test_a_lost_answer_to_the_batch_creation_never_creates_a_second_batch(server, tmp_path, lost):
    from bordir.generation.batch.provider import BatchError

    cfg = _cfg(tmp_path, "c", modes=["no_ir"], runs=1)
    out = tmp_path / "run"
    server.after_create.append(lost)  # the provider creates the batch; its answer is lost
    with pytest.raises(BatchError, match="may exist") as info:
        submit(cfg, out)
    assert KEY not in str(info.value)
    assert len(server.batches) == 1
    state = BatchState.load(out)  # the upload is kept: it may have a batch
    assert state.batches == [] and len(state.uploads) == 1
    rep = submit(cfg, out)  # before: uploaded again and created a second batch (billed twice)
    assert rep.recovered == list(server.batches) and rep.submitted == 0
    assert len(server.batches) == 1
    assert sum(f["meta"]["purpose"] == "batch" for f in server.files.values()) == 1
    got = collect(cfg, out, wait=True, poll=0.001, progress=False)
    assert (got.run.responses["outcome"] != "failed").all() and server.chat_calls == 0
    assert len(server.batches) == 1


def test_a_lost_creation_answer_on_the_cli_says_a_batch_may_exist(server, tmp_path):
    toml = _toml(tmp_path / "exp.toml", _cfg(tmp_path, "c"))
    out = str(tmp_path / "run")
    server.after_create.append(502)
    args = ("run", str(toml), "--out", out, "--submit", "batch", "--no-progress")
    r = invoke_cli(*args, env=_env(server))
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0, r.stderr
    assert "may exist" in r.stderr and "HTTP 502" in r.stderr and KEY not in r.stderr
    r = invoke_cli(*args, env=_env(server))  # the next --submit finds it instead of paying again
    assert r.returncode == 0, r.stderr
    assert "recorded batch" in r.stdout and len(server.batches) == 1


def test_a_definite_refusal_of_the_creation_forgets_the_upload(server, tmp_path):
    from bordir.generation.batch.provider import BatchError

    cfg = _cfg(tmp_path, "c", modes=["no_ir"], runs=1)
    out = tmp_path / "run"
    server.after_create.append(400)  # the provider said no: no batch exists
    with pytest.raises(BatchError, match="HTTP 400") as info:
        submit(cfg, out)
    assert "may exist" not in str(info.value)
    assert BatchState.load(out).uploads == [] and server.batches == {}
    assert submit(cfg, out).submitted == 34 and len(server.batches) == 1


def test_bordir_run_into_a_directory_with_a_pending_batch_refuses_inside_the_run(server, tmp_path):
    from bordir.errors import ConfigError

    cfg = _cfg(tmp_path, "c", modes=["no_ir"], runs=1)
    out = tmp_path / "run"
    submit(cfg, out)
    with pytest.raises(ConfigError, match="still pending"):
        bordir.run(cfg, out=out, progress=False)  # the documented Python entry point
    assert server.chat_calls == 0  # before: every pending request was called (and paid) online
    with pytest.raises(ConfigError, match="still pending"):  # whatever cache it is given
        bordir.run(cfg, tmp_path / "other.sqlite3", out=out, progress=False)
    assert server.chat_calls == 0


def test_a_run_sharing_the_cache_skips_the_requests_a_pending_batch_holds(server, tmp_path):
    import re

    cfg = _cfg(tmp_path, "shared")  # the grid _toml writes
    toml = _toml(tmp_path / "exp.toml", cfg)
    out, other = tmp_path / "run", tmp_path / "other"
    submit(cfg, out)
    # another run directory on the same cache: before, every request was paid online again
    r = invoke_cli("run", str(toml), "--out", str(other), "--no-progress", env=_env(server))
    assert server.chat_calls == 0
    assert r.returncode == 1 and re.search(r"\b(\d+) of \1 calls failed", r.stderr), r.stderr
    assert "pending batch" in r.stderr and str(out) in r.stderr and KEY not in r.stderr
    live = bordir.run(cfg, progress=False)  # in memory, same cache: skipped too
    assert server.chat_calls == 0 and (live.responses["outcome"] == "failed").all()
    # a second --submit into the other directory does not create a second batch either
    assert submit(cfg, other).submitted == 0 and len(server.batches) == 1
    collect(cfg, out, wait=True, poll=0.001, progress=False)  # collected: the claims are gone
    r = invoke_cli("run", str(toml), "--out", str(other), "--no-progress", env=_env(server))
    assert r.returncode == 0, r.stderr
    assert server.chat_calls == 0  # everything from the cache
    assert len(server.batches) == 1


def test_claims_of_a_batch_given_up_or_of_a_missing_directory(server, tmp_path):
    import shutil
    import time

    from bordir.generation.batch.claims import held_by_batches
    from bordir.generation.cache import ResponseCache

    cfg = _cfg(tmp_path, "c", modes=["no_ir"], runs=1)
    out = tmp_path / "run"
    submit(cfg, out)
    with ResponseCache(cfg.cache) as cache:
        keys = list(BatchState.load(out).pending_keys())
        held = held_by_batches(cache, keys)
        assert set(held) == set(keys)
        (claim,) = {c.batch for c in held.values()}
        assert claim == next(iter(server.batches))
        # the run directory is gone: the claims hold until the batch's window ends
        shutil.move(out, tmp_path / "elsewhere")
        assert set(held_by_batches(cache, keys)) == set(keys)
        assert held_by_batches(cache, keys, now=time.time() + 26 * 3600) == {}
        # the directory is there but its batch state was moved away: given up
        out.mkdir()
        assert held_by_batches(cache, keys) == {}
