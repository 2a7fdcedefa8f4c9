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

from .conftest import invoke_cli
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
