"""Offline parts of the Wikipedia fetcher: titles, paragraphs, language check, Chinese conversion."""

from __future__ import annotations

import sys

import pytest

from bordir.errors import ConfigError, DataError, MissingExtraError
from bordir.langid.check import check, expected_codes
from bordir.loaders import load_demo
from bordir.records import Territory
from bordir.wiki.paragraphs import (
    paragraphs_from_blocks,
    paragraphs_from_wikitext,
    wikitext_parser,
)
from bordir.wiki.titles import load_title_fixes, read_title_fixes
from bordir.wiki.zh import convert

from ..mediawiki_server import CRIMEA_2022_WIKITEXT, MIXED_RU_PARAGRAPH, PAGES

# --- titles -----------------------------------------------------------------------------------


def test_shipped_fixes_include_the_bordirlines_ones():
    fixes = load_title_fixes()
    assert fixes.title("Dokdo") == "Liancourt Rocks"
    assert fixes.title("Palestine") == "State of Palestine"
    assert fixes.title("Georgia") == "Georgia (country)"
    assert fixes.title("Republic of China") == "Taiwan"
    assert fixes.title("People's Republic of China") == "China"
    assert len(fixes) >= 20


def test_titles_split_fix_and_deduplicate():
    fixes = load_title_fixes()
    t = Territory("Imia/Kardak", ("Greece", "Turkey"), "Unknown")
    assert fixes.titles_for(t) == ("Imia/Kardak", "Greece", "Turkey")
    senkaku = load_demo().territory("Senkaku Islands")
    assert fixes.titles_for(senkaku) == ("Senkaku Islands", "Taiwan", "China", "Japan")


def test_user_fixes_extend_and_override(tmp_path):
    f = tmp_path / "fixes.tsv"
    f.write_text(
        "# mine\nname\ttitle\nCrimea\tCrimean Peninsula\nDokdo\tDokdo (islands)\n", encoding="utf-8"
    )
    fixes = load_title_fixes(f)
    assert (
        fixes.title("Crimea") == "Crimean Peninsula" and fixes.title("Dokdo") == "Dokdo (islands)"
    )
    assert fixes.sources[-1] == str(f) and fixes.sha256 != load_title_fixes().sha256


@pytest.mark.parametrize(
    "content, message",
    [
        ("title\nCrimea\n", "missing column"),
        ("name\ttitle\nCrimea\t\n", "empty value"),
        ("# only a comment\n", "no header line"),
    ],
)
def test_bad_fixes_file_names_the_line(tmp_path, content, message):
    f = tmp_path / "bad.tsv"
    f.write_text(content, encoding="utf-8")
    with pytest.raises(DataError, match=message) as e:
        read_title_fixes(f)
    assert str(f) in str(e.value)


# --- paragraphs -------------------------------------------------------------------------------


def test_extract_paragraphs_filter_index_and_sections():
    page = PAGES[("en", "Crimea")]
    # the blocks wikipedia-api gives for this extract
    blocks = [("", page.extract.split("\n\n\n== History")[0])]
    ps = paragraphs_from_blocks(
        blocks + [("History", "In 1954 the Crimean Oblast was transferred to the Ukrainian SSR.")]
    )
    assert [p.index for p in ps] == [0, 1, 2]  # "Crimea" (6 characters) dropped before indexing
    assert ps[2].section == "History"
    assert (
        paragraphs_from_blocks([("", "x" * 20 + "\n" + "y" * 21)])[0].text == "y" * 21
    )  # <= 20 dropped


def test_duplicate_within_an_article_keeps_its_index_slot():
    ps = paragraphs_from_blocks(
        [
            (
                "",
                "A paragraph that repeats itself.\nAnother paragraph of some length.\n"
                "A paragraph that repeats itself.\nThe last paragraph of the text.",
            )
        ]
    )
    assert [p.index for p in ps] == [0, 1, 3]


@pytest.mark.parametrize("parser", ["mwparserfromhell", "auto"])
def test_wikitext_markup_is_stripped(parser):
    ps = paragraphs_from_wikitext(CRIMEA_2022_WIKITEXT, parser=parser)
    assert [(p.index, p.section) for p in ps] == [
        (0, ""),
        (1, "History"),
        (2, "2014"),
        (3, "Geography"),
    ]
    text = "\n".join(p.text for p in ps)
    for junk in (
        "{{",
        "[[",
        "<ref",
        "Atlas",
        "wikitable",
        "2,284,000",
        "thumb",
        "Category",
        "NOTOC",
        "'''",
        "hidden comment",
        "ru:",
        "Relief map",
    ):
        assert junk not in text, junk
    assert ps[0].text.startswith(
        "Crimea is a peninsula in Eastern Europe, on the northern coast of the Black Sea."
    )
    assert "Greek colonies" in ps[1].text and ps[2].text.endswith("followed by annexation.")


def test_localized_media_and_category_links_are_removed():
    ps = paragraphs_from_wikitext(
        "[[Файл:Krym.png|мини|Карта]]Крым — полуостров на севере Чёрного моря."
        "[[Категория:Полуострова]]\n\n[[קובץ:Golan.jpg|ממוזער|מפה]]רמת הגולן היא רמה בצפון."
        "\n\nSee the [[:Category:Islands|list of islands]] of the world."
    )
    assert [p.text for p in ps] == [
        "Крым — полуостров на севере Чёрного моря.",
        "רמת הגולן היא רמה בצפון.",
        "See the list of islands of the world.",
    ]


def test_missing_mwparserfromhell_fails_with_the_install_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "mwparserfromhell", None)  # import now fails
    with pytest.raises(MissingExtraError, match=r"pip install 'bordir\[wiki\]'"):
        paragraphs_from_wikitext(CRIMEA_2022_WIKITEXT)
    with pytest.raises(MissingExtraError, match=r"pip install 'bordir\[wiki\]'"):
        wikitext_parser()
    with pytest.raises(ConfigError, match="regex fallback was removed"):
        paragraphs_from_wikitext(CRIMEA_2022_WIKITEXT, parser="regex")


def test_unknown_parser():
    with pytest.raises(ConfigError, match="unknown wikitext parser"):
        paragraphs_from_wikitext("x", parser="bs4")


# --- language check ---------------------------------------------------------------------------


def test_mixed_paragraph_is_flagged_and_the_rest_agree():
    for (edition, title), page in PAGES.items():
        lang = {"he": "iw"}.get(edition, edition)
        if edition == "zh":
            continue
        for ps in paragraphs_from_blocks([("", page.extract)]):
            got = check(ps.text, lang)
            want = "mismatch" if ps.text == MIXED_RU_PARAGRAPH else "ok"
            assert got.flag == want, (edition, title, ps.text, got)
    mixed = check(MIXED_RU_PARAGRAPH, "ru")
    assert mixed.detected == "en" and mixed.flag == "mismatch"


def test_detection_is_deterministic():
    text = "Крим — півострів на півдні України, що омивається Чорним і Азовським морями."
    assert len({check(text, "uk") for _ in range(5)}) == 1


def test_chinese_both_scripts_agree_with_both_codes():
    assert expected_codes("zhs") == expected_codes("zht") == {"zh-cn", "zh-tw"}
    trad = PAGES[("zh", "釣魚臺列嶼")].extract.split("\n")[0]
    # langdetect alone calls this Korean; the Hangul prior rules that out
    assert check(convert(trad, "zht"), "zht").flag == "ok"
    assert check(convert(trad, "zhs"), "zhs").detected == "zh-cn"


def test_unsupported_and_undetected():
    assert check("Արցախը լեռնային երկրամաս է Հարավային Կովկասում։", "hy").flag == "unsupported"
    assert check("1967 — 1981 — 2014", "ru").flag == "undetected"


# --- Chinese conversion -----------------------------------------------------------------------


def test_opencc_conversion_directions():
    mixed = "釣魚臺列嶼是位於東海南部的一組無人島嶼，中华人民共和国主张主权。"
    s, t = convert(mixed, "zhs"), convert(mixed, "zht")
    assert "钓鱼台列屿" in s and "中华人民共和国" in s
    assert "釣魚臺列嶼" in t and "中華人民共和國" in t
    assert convert(mixed, "ja") == mixed
