"""The bundled demo dataset loads, validates, and has the shape the docs promise."""

from __future__ import annotations

import unicodedata
from collections import Counter

import pytest

from bordir import languages
from bordir.loaders import load_demo, load_demo_corpus

DEMO = load_demo()
CORPUS = load_demo_corpus()

SCRIPT_PREFIX = {  # unicodedata name prefixes of the letters each script must contain
    "Arab": "ARABIC",
    "Hebr": "HEBREW",
    "Cyrl": "CYRILLIC",
    "Deva": "DEVANAGARI",
    "Armn": "ARMENIAN",
    "Grek": "GREEK",
    "Hans": "CJK",
    "Hant": "CJK",
    "Jpan": "CJK",
    "Latn": "LATIN",
}


def test_demo_validates_and_counts():
    DEMO.validate()
    assert len(DEMO.territories) == 12
    assert sum(not t.controller_known for t in DEMO.territories) == 2
    assert DEMO.warnings == ()


def test_every_territory_has_control_and_claimant_queries():
    for t in DEMO.territories:
        qs = {q.lang: q for q in DEMO.queries_for(t.name)}
        assert qs["en"].is_control
        assert set(qs) == set(DEMO.claimant_langs(t.name)) | {"en"}, t.name
        for q in qs.values():
            assert q.claimants == t.claimants
            assert len(q.options) == len(t.claimants)
            for i, opt in enumerate(q.options):
                assert f"{chr(65 + i)}) {opt}" in q.text, (q.query_id, opt)


def test_every_language_is_in_the_registry():
    reg = languages.registry()
    for code in (
        {q.lang for q in DEMO.queries}
        | {p.lang for p in CORPUS}
        | {c.lang for c in DEMO.countries.values()}
    ):
        assert code in reg


@pytest.mark.parametrize("territory", [t.name for t in DEMO.territories])
def test_corpus_pools(territory):
    for lang in set(DEMO.claimant_langs(territory)) | {"en"}:
        pool = CORPUS.pool(territory, lang)
        assert 8 <= len(pool) <= 15, (territory, lang, len(pool))
        about = Counter(dict(p.meta)["about"] for p in pool)
        assert about["territory"] >= 6 and about["claimant"] >= 2, (territory, lang, about)
        assert len({p.text for p in pool}) == len(pool)  # no duplicates within a pool
        assert all(len(p.text) > 20 and "\n" not in p.text for p in pool)


def test_passages_are_in_their_language_script():
    for p in CORPUS:
        script = languages.get(p.lang).script
        letters = [c for c in p.text if c.isalpha()]
        names = Counter(unicodedata.name(c, "?").split()[0] for c in letters)
        main = names.most_common(1)[0][0]
        expected = SCRIPT_PREFIX[script]
        if script == "Jpan":
            assert main in {"CJK", "HIRAGANA", "KATAKANA"}, p.doc_id
        else:
            assert main == expected, (p.doc_id, main, expected)


def test_framing_differs_between_editions():
    uk = " ".join(p.text for p in CORPUS.pool("Crimea", "uk"))
    ru = " ".join(p.text for p in CORPUS.pool("Crimea", "ru"))
    assert "окупов" in uk  # Ukrainian edition: occupied
    assert "Республик" in ru  # Russian edition: the Republic of Crimea


def test_corpus_hash_is_stable():
    """The hash recomputed independently from the bundled file's records (not from the loader)."""
    import hashlib
    import json

    from bordir.loaders.demo import demo_dir

    h = hashlib.sha256()
    lines = (demo_dir() / "corpus" / "passages.jsonl").read_text(encoding="utf-8").splitlines()
    for line in filter(str.strip, lines):
        rec = json.loads(line)
        for part in (rec["lang"], rec["doc_id"], rec.get("territory", ""), rec["text"]):
            h.update(part.encode("utf-8") + b"\x1f")
        h.update(b"\x1e")
    expected = "sha256-" + h.hexdigest()[:16]
    assert CORPUS.content_hash() == expected == load_demo_corpus().content_hash()
    assert CORPUS.content_hash().startswith("sha256-")
