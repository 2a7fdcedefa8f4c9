from __future__ import annotations

import pytest

from bordir import languages
from bordir.errors import DataError, UnknownLanguageError
from bordir.languages import load_registry, registry_path

BORDERLINES_QUERY_LANGS = set(
    "sl ur sw uz vi sq ms km hy da ky mg mn ja el it is ru tl so pt uk sr sn ht bs my ar hr nl bn ne hi "
    "ka az ko id fr es en fa lo iw th tr zht zhs ti tg".split()
)
CLAIMANT_ONLY = {"dz", "to", "mfe", "rw", "ro"}


def test_registry_covers_borderlines():
    reg = languages.registry()
    assert BORDERLINES_QUERY_LANGS | CLAIMANT_ONLY <= set(reg)
    assert {l.code for l in languages.query_languages()} == BORDERLINES_QUERY_LANGS
    assert not any(reg[c].query_language for c in CLAIMANT_ONLY)


def test_borderlines_spellings_map_to_other_systems():
    he = languages.get("iw")
    assert (he.wiki, he.iso639_1, he.bcp47, he.langdetect, he.direction, he.script) == (
        "he",
        "he",
        "he",
        "he",
        "rtl",
        "Hebr",
    )
    zhs, zht = languages.get("zhs"), languages.get("zht")
    assert (zhs.wiki, zhs.wiki_variant, zhs.langdetect, zhs.script) == (
        "zh",
        "zh-hans",
        "zh-cn",
        "Hans",
    )
    assert (zht.wiki, zht.wiki_variant, zht.langdetect, zht.script) == (
        "zh",
        "zh-hant",
        "zh-tw",
        "Hant",
    )
    assert languages.registry().from_langdetect("he") is he
    assert languages.registry().from_langdetect("zh-tw") is zht


@pytest.mark.parametrize("code", ["zhs", "zht", "ja", "th", "lo", "km", "my", "dz"])
def test_scripts_without_spaces_use_bigrams(code):
    assert languages.get(code).tokenizer == "bigram"
    assert languages.get(code).stemmer == ""


def test_tokenizer_and_stemmer_agree():
    for lang in languages.all_languages():
        assert (lang.tokenizer == "snowball") == bool(lang.stemmer), lang.code
        assert lang.resource in {"high", "medium", "low"}
    assert languages.get("ru").stemmer == "russian"
    assert languages.get("en").stemmer == "english"


def test_stemmer_names_exist_in_pystemmer():
    Stemmer = pytest.importorskip("Stemmer")
    algos = set(Stemmer.algorithms())
    for lang in languages.all_languages():
        if lang.stemmer:
            assert lang.stemmer in algos, lang.code


def test_rtl_languages():
    assert {l.code for l in languages.all_languages() if l.direction == "rtl"} >= {
        "ar",
        "iw",
        "ur",
        "fa",
    }


def test_records_are_immutable():
    with pytest.raises(AttributeError):
        languages.get("en").name = "x"  # type: ignore[misc]


def test_unknown_code_lists_valid_ones():
    with pytest.raises(UnknownLanguageError) as exc:
        languages.get("xx")
    msg = str(exc.value)
    assert "'xx'" in msg and "iw" in msg and "zhs" in msg
    assert exc.value.code == "xx"
    assert isinstance(exc.value, KeyError)  # still usable as a mapping miss


def _write(tmp_path, text):
    p = tmp_path / "languages.tsv"
    p.write_text(text, encoding="utf-8")
    return p


def test_bad_registry_file_names_line_and_field(tmp_path):
    lines = registry_path().read_text(encoding="utf-8").splitlines()
    header_idx = next(i for i, l in enumerate(lines) if not l.startswith("#"))
    row = lines[header_idx + 1].split("\t")
    cols = lines[header_idx].split("\t")
    row[cols.index("direction")] = "sideways"
    p = _write(tmp_path, "\n".join(lines[: header_idx + 1] + ["\t".join(row)]) + "\n")
    with pytest.raises(DataError) as exc:
        load_registry(p)
    assert exc.value.line == header_idx + 2
    assert exc.value.field == "direction"
    assert str(p) in str(exc.value) and "sideways" in str(exc.value)


def test_registry_missing_column(tmp_path):
    p = _write(tmp_path, "code\tname\nen\tEnglish\n")
    with pytest.raises(DataError, match="missing column"):
        load_registry(p)


def test_registry_duplicate_code(tmp_path):
    text = registry_path().read_text(encoding="utf-8")
    body = [l for l in text.splitlines() if not l.startswith("#")]
    p = _write(tmp_path, "\n".join(body + [body[1]]) + "\n")
    with pytest.raises(DataError, match="duplicate code"):
        load_registry(p)
