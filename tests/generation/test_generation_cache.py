"""The SQLite response cache: round trips, what is stored, threads and two processes at once."""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
import sqlite3
import threading

import pytest

from bordir.errors import DataError
from bordir.generation.cache import ResponseCache, default_cache_path
from bordir.generation.types import Document, GenerationRequest, GenerationResult, Message


def req(i: int, model: str = "mock/echo", **kw) -> GenerationRequest:
    return GenerationRequest(
        model=model, messages=(Message("system", "Answer."), Message("user", f"Q{i}")), **kw
    )


def ok(text: str, model: str = "mock/echo", **kw) -> GenerationResult:
    return GenerationResult(
        text=text, model=model, input_tokens=7, output_tokens=2, latency_s=0.3, attempts=2, **kw
    )


def test_round_trip_keeps_every_field(tmp_path):
    request = GenerationRequest(
        model="cohere/command-r-08-2024",
        messages=(Message("user", "Крим є територією A) Росії чи B) України?"),),
        temperature=0.5,
        seed=4321,
        response_format="citation",
        options=("A) Росії", "B) України"),
        documents=(Document(1, "d1", "uk", "текст"),),
    )
    result = ok(
        "B) України [1]",
        model="cohere/command-r-08-2024",
        option_logprobs=(-0.1, -2.5),
        native_citations=((1,), (1, 2)),
        finish_reason="stop",
        meta={"id": "x"},
    )
    with ResponseCache(tmp_path / "c.sqlite3") as cache:
        assert cache.get(request) is None
        assert cache.put(request, result) is True
        got = cache.get(request)
    assert got.cached is True and got.attempts == 0 and got.latency_s == 0.0
    assert got == dataclasses.replace(result, cached=True, attempts=0, latency_s=0.0)


def test_failed_results_are_not_stored(tmp_path):
    with ResponseCache(tmp_path / "c.sqlite3") as cache:
        assert (
            cache.put(
                req(1), GenerationResult(text="", model="mock/echo", error="HTTP 500", attempts=7)
            )
            is False
        )
        assert cache.get(req(1)) is None and len(cache) == 0 and req(1) not in cache


def test_key_is_the_request_key(tmp_path):
    with ResponseCache(tmp_path / "c.sqlite3") as cache:
        cache.put(req(1, seed=1), ok("A"))
        assert cache.get(req(1, seed=2)) is None
        assert cache.get(req(1, temperature=0.7, seed=1)) is None
        assert cache.get(req(1, seed=1)).text == "A"
        assert req(1, seed=1) in cache and "not a request" not in cache
        assert cache.contains_keys([req(1, seed=1).cache_key(), req(1, seed=2).cache_key()]) == {
            req(1, seed=1).cache_key()
        }


def test_row_layout_and_wal_mode(tmp_path):
    path = tmp_path / "c.sqlite3"
    with ResponseCache(path) as cache:
        cache.put(req(1), ok("A"))
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    key, model, created, request, result = conn.execute(
        "SELECT key, model, created, request, result FROM responses"
    ).fetchone()
    assert key == req(1).cache_key() and model == "mock/echo" and created > 1.7e9
    assert json.loads(request) == req(1).key_payload()
    assert GenerationResult.from_json(result).text == "A"
    conn.close()


def test_reopen_keeps_entries_and_many_keys(tmp_path):
    path = tmp_path / "c.sqlite3"
    with ResponseCache(path) as cache:
        for i in range(1200):
            cache.put(req(i), ok(f"t{i}"))
    with ResponseCache(path) as cache:
        assert len(cache) == 1200
        assert (
            len(cache.contains_keys(req(i).cache_key() for i in range(1500))) == 1200
        )  # > one IN chunk
        assert cache.get(req(1199)).text == "t1199"
        assert cache.delete(req(0)) is True and cache.delete(req(0)) is False and len(cache) == 1199
        assert cache.integrity_check() == "ok"


def test_default_path_from_env(tmp_path, monkeypatch):
    monkeypatch.setenv(
        "BORDIR_CACHE", str(tmp_path / "x")
    )  # bordir's cache folder (embeddings live there too)
    assert default_cache_path() == tmp_path / "x" / "responses.sqlite3"
    with ResponseCache() as cache:
        assert cache.path == tmp_path / "x" / "responses.sqlite3" and cache.path.is_file()
    monkeypatch.delenv("BORDIR_CACHE")
    assert default_cache_path().parts[-3:] == (".cache", "bordir", "responses.sqlite3")


def test_not_a_cache_file(tmp_path):
    bogus = tmp_path / "bogus.sqlite3"
    bogus.write_bytes(b"this is not sqlite at all, just some bytes" * 100)
    with pytest.raises(DataError, match="not a bordir response cache"):
        ResponseCache(bogus)
    other = tmp_path / "other.sqlite3"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE responses (k TEXT)")
    conn.commit()
    conn.close()
    with pytest.raises(DataError, match="expected schema"):
        ResponseCache(other)


def test_closed_cache_refuses(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite3")
    cache.close()
    with pytest.raises(RuntimeError, match="closed"):
        cache.get(req(1))


def test_threads_share_one_cache(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite3")
    errors: list[BaseException] = []

    def work(t: int) -> None:
        try:
            for i in range(50):
                r = req(1000 * t + i)
                cache.put(r, ok(f"{t}-{i}"))
                assert cache.get(r).text == f"{t}-{i}"
                cache.get(req(1000 * ((t + 1) % 8) + i))  # another thread's key, present or not
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors
    assert len(cache) == 400 and cache.integrity_check() == "ok"
    cache.close()


def _process_worker(path: str, proc: int, barrier, out) -> None:
    cache = ResponseCache(path)
    barrier.wait()
    seen_other = 0
    for i in range(200):
        r = req(i, model=f"mock/p{proc}")
        cache.put(r, ok(f"p{proc}-{i}", model=f"mock/p{proc}"))
        got = cache.get(r)
        if got is None or got.text != f"p{proc}-{i}":
            out.put(f"process {proc}: entry {i} not read back: {got!r}")
            return
        if cache.get(req(i, model=f"mock/p{1 - proc}")) is not None:
            seen_other += 1
    cache.close()
    out.put(seen_other)


@pytest.mark.slow
def test_two_processes_at_once(tmp_path):
    path = tmp_path / "shared.sqlite3"
    ctx = multiprocessing.get_context("spawn")
    barrier, out = ctx.Barrier(2), ctx.Queue()
    procs = [ctx.Process(target=_process_worker, args=(str(path), p, barrier, out)) for p in (0, 1)]
    for p in procs:
        p.start()
    reports = [out.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    assert all(isinstance(r, int) for r in reports), reports
    with ResponseCache(path) as cache:
        assert len(cache) == 400
        for proc in (0, 1):
            for i in range(200):
                assert cache.get(req(i, model=f"mock/p{proc}")).text == f"p{proc}-{i}"
        assert cache.integrity_check() == "ok"
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()


def test_a_results_stored_text_is_what_dataclasses_asdict_gave():
    """to_json reads the fields as they are (no deep copy); the stored text must not change."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    text = st.text(max_size=20)
    results = st.builds(
        GenerationResult,
        text=text,
        model=text,
        error=st.none() | text,
        input_tokens=st.none() | st.integers(0, 10**6),
        latency_s=st.floats(0, 100),
        option_logprobs=st.none() | st.tuples(st.floats(-50, 0), st.floats(-50, 0)),
        native_citations=st.none() | st.tuples(st.tuples(st.integers(0, 9))),
        meta=st.dictionaries(text, text | st.lists(st.integers()), max_size=3),
    )

    @settings(max_examples=200, deadline=None)
    @given(results)
    def check(r: GenerationResult) -> None:
        d = dataclasses.asdict(r)
        d.pop("cached")
        assert r.to_json() == json.dumps(d, ensure_ascii=False, sort_keys=True)
        assert GenerationResult.from_json(r.to_json(), cached=False) == r

    check()
