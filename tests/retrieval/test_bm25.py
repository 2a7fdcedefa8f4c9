"""BM25: per-language analysis and the bm25s-backed retriever, on the bundled demo corpus."""

from __future__ import annotations

import re
import sys
import unicodedata

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bordir.errors import ConfigError, MissingExtraError, UnknownLanguageError
from bordir.loaders import load_demo, load_demo_corpus
from bordir.records import Passage
from bordir.retrieval.analysis import analyze, analyzer
from bordir.retrieval.base import get_retriever
from bordir.retrieval.bm25 import BM25Retriever

bm25s = pytest.importorskip("bm25s")

DEMO = load_demo()
CORPUS = load_demo_corpus()


@pytest.fixture(scope="module")
def bm25() -> BM25Retriever:
    r = BM25Retriever()
    r.fit(CORPUS)
    return r


def about(p: Passage) -> str:
    return dict(p.meta)["about"]


# --- analysis ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "forms"),
    [
        ("ru", ["Крымский Россия", "Крымского России", "крымскими Россией"]),
        ("en", ["disputed islands", "Disputes island", "dispute Islands"]),
        ("es", ["las Malvinas británicas", "la Malvina británico"]),
    ],
)
def test_snowball_stemming_conflates_inflections(lang, forms):
    stems = {tuple(analyze(f, lang)[-2:]) for f in forms}
    assert len(stems) == 1, stems
    words = forms[0].casefold().split()[-2:]
    assert list(stems.pop()) != words  # the stemmer did change the words


def test_whitespace_languages_are_not_stemmed():
    assert analyze("Автономна Республіка Крим", "uk") == ["автономна", "республіка", "крим"]


@pytest.mark.parametrize(
    ("lang", "text", "expected"),
    [
        ("zhs", "钓鱼岛", ["钓鱼", "鱼岛"]),
        ("zht", "釣魚臺列嶼", ["釣魚", "魚臺", "臺列", "列嶼"]),
        ("ja", "尖閣諸島、沖縄県", ["尖閣", "閣諸", "諸島", "沖縄", "縄県"]),
        (
            "ja",
            "島 と EEZ 200",
            ["島", "と", "eez", "200"],
        ),  # runs of one letter; Latin/digits kept as words
        ("zhs", "中国东海GDP增长", ["中国", "国东", "东海", "gdp", "增长"]),
    ],
)
def test_bigram_scripts(lang, text, expected):
    assert analyze(text, lang) == expected


def test_bigrams_on_demo_paragraphs():
    for lang in ("zhs", "zht", "ja"):
        for p in CORPUS:
            if p.lang == lang:
                tokens = analyze(p.text, lang)
                cjk = [t for t in tokens if not t.isascii()]
                assert cjk and all(1 <= len(t) <= 2 for t in cjk), p.doc_id


def _space_separated_words(text: str) -> list[str]:
    words = (
        w.strip("".join(PUNCT)) for w in re.split(r"[\s\-\u05be/]+", text)
    )  # u05be: Hebrew maqaf
    return [w for w in words if w]


PUNCT = {chr(c) for c in range(0x3000) if unicodedata.category(chr(c))[0] in "PS"}


@pytest.mark.parametrize("lang", ["iw", "ar", "ur"])
def test_rtl_scripts_split_on_spaces(lang):
    pools = [p for p in CORPUS if p.lang == lang]
    assert pools
    for p in pools:
        words = _space_separated_words(p.text)
        tokens = analyze(p.text, lang)
        assert len(tokens) == len(words), (p.doc_id, tokens, words)
        if (
            lang != "ar"
        ):  # Hebrew and Urdu are not stemmed: the tokens are the words (Hebrew acronyms unquoted)
            assert tokens == [
                re.sub(r"(?<=\w)[\"'](?=\w)", "", w) if lang == "iw" else w for w in words
            ]


def test_combining_marks_stay_inside_words():
    # Devanagari vowel signs and Hebrew points are marks (Mn/Mc), not word characters for `re`
    assert analyze("বাংলা ভাষা", "bn") == ["বাংলা", "ভাষা"]
    assert len(analyze("हिन्दी भाषा", "ne")) == 2
    assert analyze("שָׁלוֹם עוֹלָם", "iw") == ["שָׁלוֹם", "עוֹלָם"]


def test_normalisation():
    assert analyze("ＣＲＩＭＥＡ", "uk") == ["crimea"]  # NFKC: full-width Latin
    assert analyze("ΚΡΗΤΗ", "el") == analyze("κρήτη", "el")
    assert analyze("می\u200cخواهم", "fa") == analyze("میخواهم", "fa")  # zero-width non-joiner
    assert analyze("сім'я", "uk") == analyze("сімʼя", "uk") == analyze("сім’я", "uk") == ["сімя"]
    assert analyze('צה"ל', "iw") == analyze("צה״ל", "iw") == ["צהל"]
    assert analyze("Boğazı'ndaki", "tr") == analyze("BOĞAZI", "tr")


def test_unknown_language_names_known_codes():
    with pytest.raises(UnknownLanguageError, match="'xx'; known codes: ar"):
        analyzer("xx")


LANGS = ["en", "ru", "uk", "zhs", "ja", "th", "ar", "iw", "hi", "tr", "el"]


@settings(max_examples=150, deadline=None)
@given(text=st.text(max_size=80), lang=st.sampled_from(LANGS))
def test_analyze_never_returns_empty_tokens_and_is_deterministic(text, lang):
    tokens = analyze(text, lang)
    assert all(isinstance(t, str) and t for t in tokens)
    assert not any(c.isspace() for t in tokens for c in t)
    assert analyze(text, lang) == tokens


@settings(max_examples=50, deadline=None)
@given(
    words=st.lists(
        st.text(st.characters(categories=["Lu", "Ll", "Lo"]), min_size=1, max_size=8).filter(
            lambda w: unicodedata.normalize("NFKC", w).isalpha()  # NFKC may turn Ŀ into L·
        ),
        max_size=6,
    )
)
def test_whitespace_analysis_yields_one_token_per_word(words):
    assert len(analyze(" ".join(words), "uk")) == len(words)


# --- retriever --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "query_id",
    [
        "Crimea_ru",
        "Crimea_uk",
        "Crimea_en",
        "Kuril_Islands_ja",
        "Golan_Heights_iw",
        "Western_Sahara_ar",
        "Jammu_and_Kashmir_hi",
        "Falkland_Islands_es",
    ],
)
def test_on_topic_paragraph_ranks_above_claimant_paragraphs(bm25, query_id):
    q = DEMO.query(query_id)
    pool = CORPUS.pool(q.territory, q.lang)
    assert {about(p) for p in pool} == {"territory", "claimant"}
    scores = bm25.score(q.text, q.lang, pool)
    assert scores.shape == (len(pool),) and scores.dtype == np.float64
    assert about(pool[int(np.argmax(scores))]) == "territory"
    best = {
        a: max(s for s, p in zip(scores, pool) if about(p) == a) for a in ("territory", "claimant")
    }
    assert best["territory"] > best["claimant"]


def _direct_scores(lang: str, query: str, **params) -> tuple[np.ndarray, dict[str, int]]:
    """Reference: bm25s called directly on the same tokens of the same documents."""
    docs = [p for p in CORPUS if p.lang == lang]
    ref = bm25s.BM25(**params)
    ref.index([analyze(p.text, lang) for p in docs], show_progress=False)
    return ref.get_scores(analyze(query, lang)), {p.doc_id: i for i, p in enumerate(docs)}


@pytest.mark.parametrize(
    "query_id", ["Crimea_ru", "Crimea_en", "Senkaku_Islands_zhs", "Kuril_Islands_ja", "Abyei_ar"]
)
def test_scores_equal_bm25s_called_directly(bm25, query_id):
    q = DEMO.query(query_id)
    pool = CORPUS.pool(q.territory, q.lang)
    expected, row = _direct_scores(q.lang, q.text)
    got = bm25.score(q.text, q.lang, pool)
    np.testing.assert_array_equal(got, expected[[row[p.doc_id] for p in pool]].astype(np.float64))


def test_parameters_reach_bm25s(bm25):
    params = {"k1": 0.9, "b": 0.4, "method": "robertson"}
    r = BM25Retriever(**params)
    r.fit(CORPUS)
    q = DEMO.query("Crimea_en")
    pool = CORPUS.pool(q.territory, q.lang)
    expected, row = _direct_scores("en", q.text, **params)
    np.testing.assert_array_equal(
        r.score(q.text, q.lang, pool), expected[[row[p.doc_id] for p in pool]]
    )
    assert not np.array_equal(r.score(q.text, q.lang, pool), bm25.score(q.text, q.lang, pool))


def test_query_is_analysed_in_the_documents_language(bm25):
    # the English control query scored against Russian documents: only shared words (none) can match
    q = DEMO.query("Crimea_en")
    ru_pool = CORPUS.pool("Crimea", "ru")
    assert not bm25.score(q.text, "en", ru_pool).any()
    # the Russian query matches stems: "Крым" (query) ~ "Крымский" (documents) only through stemming
    assert bm25.score("Крымскими", "ru", ru_pool).any()


def test_query_without_known_tokens_scores_zero(bm25):
    pool = CORPUS.pool("Crimea", "en")
    assert not bm25.score("", "en", pool).any()
    assert not bm25.score("zzzqqq !!!", "en", pool).any()
    assert bm25.score("anything", "en", ()).shape == (0,)


def test_unknown_document_is_a_config_error(bm25):
    stranger = Passage(doc_id="not_in_corpus_p0", lang="en", text="Crimea")
    pool = (*CORPUS.pool("Crimea", "en"), stranger)
    with pytest.raises(ConfigError, match="'not_in_corpus_p0'.*not in the fitted corpus"):
        bm25.score("Crimea", "en", pool)
    with pytest.raises(ConfigError, match="'ko_p0' in language 'ko'"):
        bm25.score("독도", "ko", [Passage(doc_id="ko_p0", lang="ko", text="독도")])


def test_mixed_languages_and_unfitted_are_config_errors(bm25):
    with pytest.raises(ConfigError, match="one language, found en, ru"):
        bm25.score("Crimea", "en", (*CORPUS.pool("Crimea", "en"), *CORPUS.pool("Crimea", "ru")))
    with pytest.raises(ConfigError, match="before fit"):
        BM25Retriever().score("Crimea", "en", CORPUS.pool("Crimea", "en"))


def test_registry_builds_bm25():
    r = get_retriever("bm25", k1=1.2)
    assert isinstance(r, BM25Retriever)
    assert (r.name, r.cross_lingual, r.default_fusion) == ("bm25", False, "minmax")
    assert r.signature() == {
        "ret": "bm25",
        "k1": "1.2",
        "b": "0.75",
        "method": "lucene",
        "analysis": "registry-2",
        "bm25s": bm25s.__version__,
    }
    assert repr(r).startswith("BM25Retriever(ret=bm25, k1=1.2")


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"k1": -1}, "k1 must be"),
        ({"b": 1.5}, "b must be"),
        ({"method": "okapi"}, "unknown method 'okapi'; choose"),
    ],
)
def test_bad_parameters(params, message):
    with pytest.raises(ConfigError, match=message):
        BM25Retriever(**params)


def test_parameters_are_keyword_only():
    with pytest.raises(TypeError):
        BM25Retriever(1.2)  # type: ignore[misc]


def test_missing_bm25s_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "bm25s", None)
    with pytest.raises(MissingExtraError, match=r"pip install 'bordir\[bm25\]'"):
        BM25Retriever()


def test_language_whose_documents_have_no_tokens():
    from bordir.corpus import Corpus

    corpus = Corpus(
        [
            Passage("a", "en", "Crimea peninsula"),
            Passage("b", "ru", "!!! ---"),
            Passage("c", "ru", ""),
        ]
    )
    r = BM25Retriever()
    r.fit(corpus)
    np.testing.assert_array_equal(r.score("Крым", "ru", corpus[1:]), [0.0, 0.0])
    assert r.score("Crimea", "en", corpus[:1])[0] > 0
