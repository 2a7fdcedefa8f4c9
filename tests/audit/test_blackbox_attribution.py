"""Black-box attribution: URLs taken apart, countries, languages, lists, the registry, offline PSL."""

from __future__ import annotations

import socket

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bordir.audit.blackbox.attribution import Attributor
from bordir.audit.blackbox.countries import GENERIC_CCTLDS, IDN_CCTLDS, country_code, tld_country
from bordir.audit.blackbox.lists import DomainLists
from bordir.audit.blackbox.publishers import TYPES, check_entries, load_publishers
from bordir.audit.blackbox.urls import parse_url
from bordir.errors import DataError


def test_attribution_needs_no_network(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("a socket was opened")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    a = Attributor()
    r = a.attribute(
        pa.array(["https://news.bbc.co.uk/x", "https://www.gov.uk/y", "http://example.com.au/z"])
    )
    assert [a.hosts[h].domain for h in r.host_id] == ["bbc.co.uk", "www.gov.uk", "example.com.au"]
    assert [a.hosts[h].country for h in r.host_id] == ["GB", "GB", "AU"]


@pytest.mark.parametrize(
    "url,domain,country,rule",
    [
        ("https://кремль.рф/a", "xn--e1ajeds9e.xn--p1ai", "RU", "cctld:xn--p1ai (рф)"),
        ("http://user:pw@WWW.Minfin.Gov.Ru:8080/x", "gov.ru", "RU", "gov_sld:gov.ru"),
        ("https://meduza.io/feature", "meduza.io", "LV", "publisher:meduza.io"),
        ("https://startup.io/a", "startup.io", None, "generic_cctld:io"),
        ("https://ukrinform.com.co/x", "ukrinform.com.co", "CO", "cctld:co (second level com.co)"),
        ("http://10.1.2.3/x", "10.1.2.3", None, "ip_host"),
        ("http://[2001:db8::1]:80/x", "2001:db8::1", None, "ip_host"),
        ("https://www.nato.int/a", "nato.int", "intl", "sponsored_tld:int"),
        ("https://www.state.gov/r", "state.gov", "US", "sponsored_tld:gov"),
        ("https://en.wikipedia.org/wiki/Crimea", "wikipedia.org", None, "publisher:wikipedia.org"),
        (
            "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AB",
            "vertexaisearch.cloud.google.com",
            None,
            "unresolved_redirect",
        ),
        ("http://localhost:8000/x", "localhost", None, "no_public_suffix"),
    ],
)
def test_each_url_gets_its_domain_country_and_rule(url, domain, country, rule):
    a = Attributor()
    r = a.attribute(pa.array([url]))
    assert r.reason[0] == ""
    h = a.hosts[r.host_id[0]]
    assert (h.domain, h.country, h.rule) == (domain, country, rule)


def test_bad_urls_are_given_their_reason_and_nothing_else():
    a = Attributor()
    urls = pa.array(
        [
            "javascript:alert(1)",
            "data:text/html,x",
            "/wiki/Crimea",
            "",
            None,
            "mailto:a@b.c",
            "http:///x",
            "www.example.com:80/x",
            "https://ok.com",
        ]
    )
    r = a.attribute(urls)
    assert list(r.reason) == [
        "unsafe_scheme",
        "unsafe_scheme",
        "relative_url",
        "empty_url",
        "not_a_string",
        "unsupported_scheme",
        "no_host",
        "relative_url",
        "",
    ]
    assert r.canonical.to_pylist()[:-1] == [None] * 8


def test_credentials_are_masked_and_tracking_parameters_ignored():
    a = Attributor()
    r = a.attribute(
        pa.array(
            ["https://bob:hunter2@site.ru/a?utm_source=x&id=1&fbclid=z#f", "https://site.ru/a?id=1"]
        )
    )
    assert "hunter2" not in r.shown[0].as_py() and "***@site.ru" in r.shown[0].as_py()
    assert r.canonical.to_pylist() == ["https://site.ru/a?id=1", "https://site.ru/a?id=1"]


@pytest.mark.parametrize(
    "url,lang,rule",
    [
        ("https://ru.wikipedia.org/wiki/Крым", "ru", "subdomain:ru"),
        ("https://uk.wikipedia.org/wiki/Крим", "uk", "subdomain:uk"),
        ("https://uk.reuters.com/article/x", "en", "publisher:reuters.com"),
        ("https://www.dw.com/ru/krym/a-1", "ru", "path:ru"),
        ("https://www.bbc.com/ukrainian/news-1", "uk", "path:ukrainian"),
        ("https://russian.rt.com/world/1", "ru", "subdomain:russian"),
        ("https://example.com/page?hl=zh-TW", "zht", "param:hl"),
        ("https://news.sky.com/uk", "und", "none"),
        ("https://example.com/new/article", "und", "none"),
    ],
)
def test_language_from_the_url(url, lang, rule):
    a = Attributor()
    r = a.attribute(pa.array([url]))
    assert (r.lang[0], r.lang_rule[0]) == (lang, rule)


def test_language_from_a_snippet_when_the_url_says_nothing():
    a = Attributor()
    r = a.attribute(
        pa.array(["https://ria.ru/a", "https://ria.ru/b"]),
        pa.array(
            [
                "Крым — полуостров на севере Чёрного моря, который Россия аннексировала в 2014 году.",
                None,
            ]
        ),
    )
    assert list(r.lang) == ["ru", "und"] and list(r.lang_rule) == ["snippet", "none"]


def test_user_lists_match_domain_and_subdomains(tmp_path):
    p = tmp_path / "sanctions.csv"
    p.write_text("domain,note\nria.ru,x\nhttps://www.sputnikglobe.com/,y\n", encoding="utf-8")
    lists = DomainLists.load([f"sanctioned={p}"])
    a = Attributor(lists=lists)
    r = a.attribute(
        pa.array(
            [
                "https://ria.ru/a",
                "https://crimea.ria.ru/b",
                "https://notria.ru/c",
                "https://sputnikglobe.com/x",
            ]
        )
    )
    assert [a.hosts[h].lists for h in r.host_id] == [
        ("sanctioned",),
        ("sanctioned",),
        (),
        ("sanctioned",),
    ]


def test_a_bad_domain_list_row_names_file_and_line(tmp_path):
    p = tmp_path / "l.csv"
    p.write_text("domain\nrt.com\nnot a domain\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"l\.csv:3: field 'domain'"):
        DomainLists.load([f"x={p}"])


def test_the_publisher_registry_has_no_duplicate_nor_conflict_and_a_source_each():
    reg = load_publishers()
    assert reg.version and len(reg) >= 90
    for p in reg.entries.values():
        assert p.source.startswith("https://") and p.type in TYPES
        cc, _, _ = tld_country(p.domain, p.domain.rsplit(".", 1)[-1])
        assert not p.country or cc in (None, p.country) or p.country in ("intl", "EU")
    with pytest.raises(DataError, match="listed twice"):
        check_entries(
            [
                {
                    "domain": "a.com",
                    "name": "A",
                    "country": "US",
                    "type": "agency",
                    "source": "https://x",
                }
            ]
            * 2,
            "t",
        )
    with pytest.raises(DataError, match="conflicts with its TLD"):
        check_entries(
            [
                {
                    "domain": "a.ru",
                    "name": "A",
                    "country": "US",
                    "type": "agency",
                    "source": "https://x",
                }
            ],
            "t",
        )
    with pytest.raises(DataError, match="must not change the country"):
        check_entries(
            [
                {
                    "domain": "a.com",
                    "name": "A",
                    "country": "US",
                    "type": "agency",
                    "source": "https://x",
                },
                {
                    "domain": "b.a.com",
                    "name": "B",
                    "country": "GB",
                    "type": "agency",
                    "source": "https://x",
                },
            ],
            "t",
        )


def test_country_tables():
    assert {v[0] for v in IDN_CCTLDS.values()} <= {
        *__import__("bordir.audit.blackbox.countries", fromlist=["x"]).countries(),
        "EU",
    }
    for tld, (_cc, u) in IDN_CCTLDS.items():
        assert u.encode("idna").decode() == tld, tld
    assert "io" in GENERIC_CCTLDS and country_code("People's Republic of China") == "CN"


_SHARED = Attributor()


@settings(max_examples=200, deadline=None)
@given(
    st.one_of(
        st.text(max_size=40),
        st.from_regex(
            r"(https?|ftp|javascript):(//)?[a-zA-Zа-я0-9.:@\[\]-]{0,20}(/[a-z0-9/._-]{0,10})?(\?[a-z=&_]{0,12})?",
            fullmatch=True,
        ),
    )
)
def test_the_column_attributor_agrees_with_parse_url(url):
    a = _SHARED
    r = a.attribute(pa.array([url]))
    p = parse_url(url)
    if isinstance(p, str):
        assert r.reason[0] == p
    else:
        assert (
            r.reason[0] == ""
            and a.hosts[r.host_id[0]].host == p.host
            and r.canonical[0].as_py() == p.canonical
        )
