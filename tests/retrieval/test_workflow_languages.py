"""Issue 11.4: every Wikipedia language: curated + generated registry, aliases, BM25 analysis by script."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bordir import languages
from bordir.cli import main as cli_main
from bordir.corpus import Corpus
from bordir.errors import UnknownLanguageError
from bordir.records import Passage
from bordir.retrieval.analysis import analyze
from bordir.retrieval.base import get_retriever

GERMAN = [
    "Die Kurilen sind eine Inselkette im Nordpazifik zwischen Hokkaido und Kamtschatka.",
    "Die Insel Krim liegt im Schwarzen Meer; seit 2014 wird die Halbinsel von Russland verwaltet.",
    "Die Golanhöhen sind ein Hochplateau im Nahen Osten, das Israel seit 1967 besetzt hält.",
    "Der Bodensee liegt zwischen Deutschland, Österreich und der Schweiz.",
]
CATALAN = [
    "Les illes Kurils formen un arxipèlag volcànic entre el Japó i la península de Kamtxatka.",
    "Crimea és una península de la mar Negra administrada per Rússia des de 2014.",
    "Els alts del Golan són un altiplà ocupat per Israel des de la guerra de 1967.",
    "Andorra és un petit país dels Pirineus entre França i Espanya.",
]


@pytest.mark.parametrize(
    ("lang", "texts", "query", "want"),
    [
        ("de", GERMAN, "Welche Halbinseln verwaltete Russland?", 1),
        ("de", GERMAN, "Wer besetzte die Hochplateaus?", 2),
        ("ca", CATALAN, "Quines penínsules administra Rússia?", 1),
        ("ca", CATALAN, "arxipèlags volcànics del Japó", 0),
    ],
)
def test_bm25_on_german_and_catalan_retrieves_the_right_paragraph(lang, texts, query, want):
    corpus = Corpus([Passage(f"{lang}{i}", lang, t, territory="T") for i, t in enumerate(texts)])
    bm25 = get_retriever("bm25")
    bm25.fit(corpus)
    scores = np.asarray(bm25.score(query, lang, list(corpus)))
    assert int(scores.argmax()) == want, (scores, analyze(query, lang))


def test_stemmed_words_meet_across_inflections():
    assert analyze("Halbinseln", "de") == analyze("Halbinsel", "de")
    assert languages.get("ca").stemmer == "catalan" and languages.get("eu").tokenizer == "snowball"
    assert languages.get("lt").stemmer == "lithuanian" and languages.get("pl").stemmer == "polish"


def test_fallback_by_script():
    assert languages.get("be").tokenizer == "whitespace" and languages.get("be").script == "Cyrl"
    for code in ("bo", "zh-yue", "wuu", "shn"):
        assert languages.get(code).tokenizer == "bigram", code
    assert analyze("粵語係一種語言", "zh-yue") == ["粵語", "語係", "係一", "一種", "種語", "語言"]
    assert languages.get("ckb").direction == "rtl" and languages.get("dv").direction == "rtl"


def test_over_300_wikipedia_languages_curated_rows_kept():
    every = languages.all_languages(generated=True)
    assert len(every) > 300 and len({l.wiki for l in every if l.wiki}) > 300
    assert len(languages.all_languages()) == 55 and all(
        l.curated for l in languages.all_languages()
    )
    assert all(
        not l.curated and l.resource == "" and l.joshi_class is None
        for l in languages.generated_languages()
    )
    assert languages.get("iw").curated and languages.get("iw").resource


@pytest.mark.parametrize(
    ("alias", "code"),
    [
        ("zh", "zhs"),
        ("he", "iw"),
        ("iw", "iw"),
        ("zh-Hant", "zht"),
        ("zh-TW", "zht"),
        ("zh-Hans-CN", "zhs"),
        ("pt-BR", "pt"),
        ("en-GB", "en"),
        ("de_AT", "de"),
        ("DEU", "de"),
        ("nb", "no"),
        ("yue", "zh-yue"),
        ("fil", "tl"),
        ("sr-Latn", "sr"),
    ],
)
def test_aliases(alias, code):
    assert languages.get(alias).code == code


def test_unknown_code_errors_with_close_matches():
    with pytest.raises(
        UnknownLanguageError, match=r"languages/ has no entry 'xx'; known codes: ar, az, "
    ):
        languages.get("xx")
    with pytest.raises(UnknownLanguageError, match=r"did you mean .*\bde\b"):
        languages.get("German")
    with pytest.raises(UnknownLanguageError, match=r"did you mean .*\bca\b"):
        languages.get("Catala")


def test_list_languages_shows_curated_and_generated(capsys):
    assert cli_main(["list", "languages", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    by = {r["code"]: r for r in rows}
    assert by["iw"]["curated"] and not by["de"]["curated"] and len(rows) > 300
    assert cli_main(["list", "languages"]) == 0
    out = capsys.readouterr().out
    assert "55 curated" in out and "generated" in out


def test_generated_table_is_reproducible(tmp_path):
    """languages/generate.py (langcodes + language-data) writes exactly the committed wikipedia.tsv."""
    pytest.importorskip("langcodes")
    pytest.importorskip("language_data")
    pytest.importorskip("Stemmer")
    import importlib.util

    from bordir._io.resources import resource_dir

    spec = importlib.util.spec_from_file_location(
        "gen", resource_dir("languages").parent / "languages" / "generate.py"
    )
    if spec is None or not (resource_dir("languages") / "generate.py").exists():
        pytest.skip("languages/generate.py is not shipped in this install")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)  # type: ignore[union-attr]
    committed = languages.generated_path().read_text(encoding="utf-8")
    gen.OUT = tmp_path / "wikipedia.tsv"
    assert gen.main() == 0
    assert gen.OUT.read_text(encoding="utf-8") == committed
