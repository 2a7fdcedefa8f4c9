"""Territorial-dispute testbeds built from the demo dataset and corpus: pools, counts, pairs, counterfactual edits."""

from __future__ import annotations

import json
import math

import pytest

from bordir.loaders import load_demo, load_demo_corpus
from bordir.testbeds.construct import build_docs, instance_rng
from bordir.testbeds.counterfactual import find_mentions, mentions
from bordir.testbeds.territorial import territorial_questions


@pytest.fixture(scope="module")
def demo():
    return load_demo(), load_demo_corpus()


def _by_key(corpus):
    return {(p.lang, p.doc_id): p for p in corpus}


def test_noise_pools_same_language_and_cross_lingual(demo):
    ds, corpus = demo
    docs = _by_key(corpus)
    controllers = {t.name: t.controller for t in ds.territories}
    for xling in (False, True):
        qs, skipped = territorial_questions(ds, corpus, "noise", seed=5, xling=xling)
        assert len({q.lang for q in qs}) >= 12  # every demo language with a known controller
        assert {s["reason"] for s in skipped} == {"controller Unknown: no answer to score"}
        for q in qs:
            ((query, truth, _),) = q.mc
            assert query.claimants[truth] == controllers[query.territory]
            for d in q.positive:
                p = docs[(d.lang, d.doc_id)]
                assert (
                    p.lang == q.lang
                    and p.territory == query.territory
                    and dict(p.meta)["about"] == "territory"
                )
                assert mentions(p.text, query.options, truth, q.lang)
            for d in q.negative:
                p = docs[(d.lang, d.doc_id)]
                assert (p.lang != q.lang) if xling else (p.lang == q.lang)
                assert p.territory != query.territory or dict(p.meta)["about"] == "claimant"
            for r in (0.0, 0.2, 0.4, 0.6, 0.8):
                got = build_docs(q, r, rng=instance_rng(q, 5))
                neg = sum(d.kind == "negative" for d in got)
                want_neg = math.ceil(5 * r)
                if want_neg <= len(q.negative) and 5 - want_neg <= len(q.positive):
                    assert neg == want_neg and len(got) == 5, (q.id, r)


def test_rejection_sets_hold_no_positive(demo):
    ds, corpus = demo
    for xling in (False, True):
        qs, _ = territorial_questions(ds, corpus, "rejection", seed=5, xling=xling)
        for q in qs:
            got = build_docs(q, 1.0, rng=instance_rng(q, 5))
            assert got and all(d.kind == "negative" for d in got)
            territory = q.mc[0][0].territory
            assert all(
                p.territory != territory or dict(p.meta)["about"] == "claimant"
                for p in (corpus.get(d.lang, d.doc_id) for d in got)
            )


def test_integration_pairs_share_no_claimant_and_every_part_is_represented(demo):
    ds, corpus = demo
    qs, _ = territorial_questions(ds, corpus, "integration", seed=5)
    assert len(qs) >= 10 and {"en", "ar", "es"} <= {q.lang for q in qs}
    for q in qs:
        (q1, t1, _), (q2, t2, _) = q.mc
        assert not set(q1.claimants) & set(q2.claimants) and q1.lang == q2.lang == q.lang
        assert len(q.answer) == 2 and q.query.startswith("1. ") and "\n2. " in q.query
        assert q.cluster == "+".join(sorted((q1.territory, q2.territory)))
        for r in (0.0, 0.2, 0.4, 0.8):
            got = build_docs(q, r, rng=instance_rng(q, 5))
            assert {d.part for d in got if d.kind == "positive"} == {0, 1}
            assert all(
                corpus.get(d.lang, d.doc_id).territory not in (q1.territory, q2.territory)
                or dict(corpus.get(d.lang, d.doc_id).meta)["about"] == "claimant"
                for d in got
                if d.kind == "negative"
            )


def test_counterfactual_edits_name_another_claimant_in_the_paragraph_language(demo):
    ds, corpus = demo
    qs, skipped = territorial_questions(ds, corpus, "counterfactual", seed=5)
    assert len({q.lang for q in qs}) >= 12
    for q in qs:
        ((query, truth, fake),) = q.mc
        assert fake != truth and q.fakeanswer == (
            tuple(dict.fromkeys((query.options[fake], query.claimants[fake]))),
        )
        assert len(q.positive) == len(q.positive_wrong)
        for orig, wrong in zip(q.positive, q.positive_wrong):
            assert (
                wrong.original == orig.text == corpus.get(orig.lang, orig.doc_id).text
            )  # the original is kept
            assert wrong.text != orig.text and wrong.lang == orig.lang == q.lang
            before = [
                m.index
                for m in find_mentions(orig.text, query.options, q.lang)
                if m.index in (truth, fake)
            ]
            after = [
                m.index
                for m in find_mentions(wrong.text, query.options, q.lang)
                if m.index in (truth, fake)
            ]
            assert after == [
                fake if i == truth else truth for i in before
            ]  # the two claimants are swapped
    ru = next(q for q in qs if q.lang == "ru")
    assert "Украина" in ru.positive_wrong[0].text or "Япония" in ru.positive_wrong[0].text
    assert all(s["reason"] for s in skipped)


def test_questions_are_seeded(demo):
    ds, corpus = demo
    a, _ = territorial_questions(ds, corpus, "noise", seed=1)
    b, _ = territorial_questions(ds, corpus, "noise", seed=1)
    c, _ = territorial_questions(ds, corpus, "noise", seed=2)
    assert a == b and a != c


def test_a_corpus_file_runs_through_load_corpus(tmp_path, monkeypatch):
    """A corpus path goes through bordir.load_corpus; queries and controllers come from --dataset (demo)."""
    from bordir.loaders.demo import demo_dir
    from bordir.testbeds.runner import TestbedConfig, run_testbed

    monkeypatch.setenv("BORDIR_CACHE", str(tmp_path / "cache"))
    path = demo_dir() / "corpus" / "passages.jsonl"
    cfg = TestbedConfig(
        testbed="rejection",
        data=str(path),
        models=("mock/fixed:Informations insuffisantes",),
        langs=("es",),
        n_resamples=50,
    )
    out = run_testbed(cfg, tmp_path / "out", progress=False)
    scores = json.loads((out / "scores.json").read_text(encoding="utf-8"))
    by = {(g["lang"], g["setting"]): g["metrics"] for g in scores["groups"]}
    # the French phrase is a rejection for bordir (every language's phrases), not for rgb in Spanish
    assert by[("es", "rejection")]["bordir"]["rejection_rate"]["value"] == 1.0
    assert by[("es", "rejection")]["rgb"]["rejection_rate"]["value"] == 0.0
    assert by[("es", "rejection")]["bordir"]["hallucination_rate"]["value"] == 0.0
