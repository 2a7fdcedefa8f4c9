"""The free-answer resolver: the hand-written set (≥ 95 % per language), the rules one by one, bad input."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from bordir.generation.parse.free import FREE_OUTCOMES, RULES, FreeResolver
from bordir.generation.parse.free.batch import resolve_many
from bordir.generation.parse.free.lexicon import lexicon
from bordir.loaders import load_demo

SET = Path(__file__).parent / "free_answers" / "answers.jsonl"


@pytest.fixture(scope="module")
def resolver():
    return FreeResolver(load_demo())


def test_the_hand_written_set_is_large_and_varied():
    rows = [json.loads(line) for line in SET.read_text(encoding="utf-8").splitlines()]
    langs = {r["answer_lang"] for r in rows}
    kinds = {r["kind"] for r in rows}
    assert len(rows) >= 300 and len(langs) >= 12
    assert {"hedge", "both_sides", "defacto", "negation", "quotation", "refusal", "other_language",
            "long_end", "empty"} <= kinds  # fmt: skip
    # echo is decided against the prompt (tests/generation/test_free_heldout.py has echoes)
    assert {r["expected"] for r in rows} == set(FREE_OUTCOMES) - {"echo"}
    assert len({r["text"] for r in rows}) == len(rows)  # no answer twice


def test_accuracy_per_language_is_at_least_95_percent(resolver):
    ds = load_demo()
    rows = [json.loads(line) for line in SET.read_text(encoding="utf-8").splitlines()]
    hits: dict[str, list[bool]] = defaultdict(list)
    misses = []
    for row in rows:
        r = resolver.resolve(row["text"], ds.query(row["query_id"]))
        ok = r.outcome == row["expected"] and (
            row["expected"] != "claimant" or r.claimant == row["claimant"]
        )
        hits[row["answer_lang"]].append(ok)
        if not ok:
            misses.append((row["id"], row["expected"], r.outcome, r.rule))
        assert r.rule in RULES
    thin = {
        lang: sum(h) / len(h) for lang, h in hits.items() if len(h) >= 9 and sum(h) / len(h) < 0.95
    }
    assert not thin, (thin, misses)


@pytest.mark.parametrize(
    ("qid", "text", "outcome", "claimant", "rule"),
    [
        ("Crimea_en", "Crimea is not part of Russia.", "unparsed", "", "negation_only"),
        ("Crimea_en", "Russia claims Crimea.", "unparsed", "", "claim_only"),
        (
            "Crimea_en",
            "Russia claims it, but Crimea belongs to Ukraine.",
            "claimant",
            "Ukraine",
            "sovereignty",
        ),
        ("Crimea_en", "Crimea is administered by Russia.", "controller_only", "Russia", "control"),
        ("Crimea_en", "It belongs to both Russia and Ukraine.", "several", "", "two_owners"),
        ("Crimea_en", "I cannot answer that.", "refusal", "", "refusal"),
        ("Crimea_en", "Crimea is part of Turkey.", "other_country", "", "other_country"),
        ("Crimea_en", "Ukraine.", "claimant", "Ukraine", "bare_name"),
        ("Crimea_ru", "Крым — российская территория.", "claimant", "Russia", "sovereignty"),
        (
            "Ceuta_es",
            "Ceuta es territorio marroquí ocupado por España.",
            "claimant",
            "Morocco",
            "sovereignty",
        ),
        (
            "Kuril_Islands_en",
            "Die Kurilen gehören zu Russland.",
            "claimant",
            "Russia",
            "sovereignty",
        ),
        (
            "Kuril_Islands_en",
            "Kuriliska öarna tillhör Ryssland.",
            "claimant",
            "Russia",
            "sovereignty",
        ),
        ("Kuril_Islands_en", "Kuriilid kuuluvad Venemaale.", "claimant", "Russia", "bare_name"),
    ],
)
def test_rules(resolver, qid, text, outcome, claimant, rule):
    r = resolver.resolve(text, load_demo().query(qid))
    assert (r.outcome, r.claimant, r.rule) == (outcome, claimant, rule)
    if outcome != "refusal" and r.span != (0, 0):
        assert 0 <= r.span[0] < r.span[1] <= len(text)


def test_the_deciding_span_is_in_the_original_text(resolver):
    text = "Historically complex. اَلْقُدْسُ الشَّرْقِيَّة — In the end, legally, East Jerusalem is Palestinian territory."
    r = resolver.resolve(text, load_demo().query("East_Jerusalem_en"))
    assert r.claimant == "Palestine"
    assert "Palestinian territory" in text[r.span[0] : r.span[1]]


@pytest.mark.parametrize("text", [None, "", "   ", "\n\t \u3000\n"])
def test_empty_or_whitespace_is_its_own_outcome(resolver, text):
    r = resolver.resolve(text, load_demo().query("Crimea_en"))
    assert (r.outcome, r.index, r.rule) == ("empty", -1, "empty")


def test_never_option_a_for_an_answer_naming_nothing(resolver):
    q = load_demo().query("Crimea_en")
    for text in ("Hmm.", "A", "The weather is nice today.", "42"):
        r = resolver.resolve(text, q)
        assert r.outcome != "claimant" and r.index == -1


def test_a_one_megabyte_answer_is_resolved(resolver):
    q = load_demo().query("Crimea_en")
    text = (
        "Crimea is a peninsula with a long history. " * 24_000
    ) + "In the end, Crimea belongs to Ukraine."
    assert len(text) > 1_000_000
    r = resolver.resolve(text, q)
    assert (r.outcome, r.claimant) == ("claimant", "Ukraine") and r.span[1] == len(text)
    one_line = "Russia Ukraine " * 70_000  # a megabyte of names and no sentence end
    assert resolver.resolve(one_line, q).outcome in FREE_OUTCOMES


def test_every_demonym_of_every_curated_language_names_its_country(resolver):
    from bordir.generation.parse.free.countries import country_code
    from bordir.generation.parse.free.fold import quick_fold

    langs = {lang for lang, *_ in lexicon().demonyms}
    assert len(langs) >= 17
    wrong = []
    for lang, country, form, _ in lexicon().demonyms:
        hits = resolver.index.find(quick_fold(form))
        if not hits or hits[0][2] != country_code(country):
            wrong.append((lang, country, form, hits[:1]))
    assert not wrong


def test_resolve_many_matches_one_by_one(resolver):
    ds = load_demo()
    rows = [json.loads(line) for line in SET.read_text(encoding="utf-8").splitlines()][:200]
    texts = [r["text"] for r in rows] * 12
    queries = [ds.query(r["query_id"]) for r in rows] * 12
    many = resolve_many(texts, queries, resolver=resolver)
    assert many == [resolver.resolve(t, q) for t, q in zip(texts, queries)]


def test_the_stance_reader_is_a_recorded_second_pass(tmp_path):
    from bordir.generation.cache import ResponseCache
    from bordir.generation.parse.free.reader import StanceReader

    ds = load_demo()
    q = ds.query("Crimea_en")
    with ResponseCache(tmp_path / "c.sqlite3") as cache:
        reader = StanceReader("mock/fixed:CONTROL Russia", cache=cache, calibration="cal.json")
        r = reader.second_pass("Hard to say, honestly.", q, dataset=ds)
        assert (r.outcome, r.claimant, r.rule) == ("controller_only", "Russia", "llm_reader")
        assert r.evidence == "rules: unparsed (no_country)" and r.reader.startswith("mock/fixed")
        decided = reader.second_pass("Crimea belongs to Ukraine.", q, dataset=ds)
        assert (
            decided.rule == "sovereignty" and decided.reader == ""
        )  # the rules decided: not asked
        odd = StanceReader("mock/fixed:maybe?").second_pass("Hmm.", q, dataset=ds)
        assert (odd.outcome, odd.rule) == ("unparsed", "no_country") and odd.reader.endswith(
            "maybe?"
        )
