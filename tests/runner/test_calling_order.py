"""A model's calls of every mode go to the executor together, in the order of their prompts' text."""

from __future__ import annotations

import pytest

import bordir
from bordir.generation.backend import Backend
from bordir.generation.types import GenerationResult
from bordir.runner.shard import calling_order

CONFIG = {
    "models": ["mock/first"],
    "modes": ["no_ir", "qlang", "qlang+en", "en_only"],
    "runs": 2,
    "k": 2,
    "langs": ["en", "ru", "uk"],
    "concurrency": 1,  # one call at a time: the backend sees the calling order itself
}


class _Recording(Backend):
    """Answers option A and keeps every request it was called with, in order."""

    provider = "mock"
    max_concurrency = 1

    def __init__(self) -> None:
        super().__init__("first")
        self.seen: list = []

    def generate(self, request):
        self.seen.append(request)
        return GenerationResult(text=request.options[0], model=request.model)


def _text(request) -> list[tuple[str, str]]:
    return [(m.role, m.content) for m in request.messages]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    rec = _Recording()
    cache = tmp_path_factory.mktemp("order") / "cache.sqlite3"
    run = bordir.run(CONFIG, cache=cache, progress=False, backends={"mock/first": rec})
    return rec, run, cache


def test_calls_are_made_in_the_order_of_their_text_across_modes(recorded):
    rec, run, _ = recorded
    texts = [_text(r) for r in rec.seen]
    assert texts == sorted(texts)
    # one executor pass for all modes: every distinct request is called once, and a prompt of
    # qlang+en is called right after the qlang prompt it begins with (not a whole mode later)
    assert len({r.cache_key() for r in rec.seen}) == len(rec.seen)
    modes = [str(m) for m in CONFIG["modes"]]
    assert set(run.responses["mode"]) == set(modes)
    by_key = {}
    for i, r in enumerate(rec.seen):
        by_key.setdefault(_text(r)[1][1][:200], []).append(i)
    assert any(len(ix) > 1 and ix == list(range(ix[0], ix[0] + len(ix))) for ix in by_key.values())


def test_repeats_across_modes_count_as_cached_and_a_warm_rerun_calls_nothing(recorded):
    rec, run, cache = recorded
    df = run.responses
    # an English query's en_only prompt is its qlang prompt: called once, and the later mode's
    # rows say cached, as when each mode went to the executor (and the cache) on its own
    calls = run.info["calls"]
    assert calls["requests"] - calls["cached"] == len(rec.seen)
    assert calls["cached"] > 0
    en = df[(df["query_lang"] == "en") & (df["mode"] == "en_only")]
    assert len(en) and en["cached"].all()
    assert not df[df["mode"] == "no_ir"]["cached"].any()
    # a warm re-run calls nothing and says every request was cached
    again = _Recording()
    warm = bordir.run(CONFIG, cache=cache, progress=False, backends={"mock/first": again})
    assert again.seen == [] and warm.info["calls"]["cached"] == warm.info["calls"]["requests"]
    assert warm.responses.drop(columns=["latency_s", "cached"]).equals(
        df.drop(columns=["latency_s", "cached"])
    )


def test_calling_order_is_stable_for_equal_texts():
    from bordir.generation import GenerationRequest, Message

    reqs = [
        GenerationRequest(model="m", messages=(Message("user", t),), seed=s)
        for s, t in enumerate(["b", "a", "b", "a"])
    ]
    assert calling_order(reqs) == [1, 3, 0, 2]
