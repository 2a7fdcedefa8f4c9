"""The MediaWiki clients against the loopback server: real wikipedia-api and httpx requests on 127.0.0.1."""

from __future__ import annotations

import socket

import pytest

from bordir.wiki.client import WikiClient, user_agent
from bordir.wiki.retry import FetchError, RetryPolicy, Throttle

from ..mediawiki_server import Fault, MediaWikiServer, mediawiki  # noqa: F401  (fixture)


@pytest.fixture
def waits():
    return []


def _client(server: MediaWikiServer, waits: list, **policy) -> WikiClient:
    return WikiClient(
        endpoint=server.endpoint,
        contact="tests@example.org",
        policy=RetryPolicy(rpm=None, **policy),
        sleep=waits.append,
    )


def test_info_langlinks_and_extract(mediawiki, waits):
    with _client(mediawiki, waits) as c:
        info = c.info("en", "Crimea")
        assert (info.title, info.page_id, info.revision_id) == ("Crimea", 5726, 1500)
        assert info.url == mediawiki.url + "/en/wiki/Crimea"
        assert c.langlinks("en", "Crimea") == {"ru": "Крым", "uk": "Крим"}
        raw = c.current("en", "Crimea", info=info)
    assert raw.format == "extract" and raw.permalink.endswith("/en/w/index.php?oldid=1500")
    assert [t for t, _ in raw.blocks] == ["", "History", "Annexation", "Geography"]
    assert raw.blocks[2][1].startswith("In February and March 2014")
    assert mediawiki.titles_requested("extracts") == [
        ("en", "Crimea")
    ]  # one extracts request, not two
    # wikipedia-api made the first three requests, against the loopback server
    first = mediawiki.requests[0]
    assert (
        first.edition == "en"
        and first.params["prop"] == "info"
        and first.params["format"] == "json"
    )
    assert first.headers["user-agent"].startswith(user_agent("tests@example.org"))
    assert (
        "Wikipedia-API/" in first.headers["user-agent"]
        and "tests@example.org" in first.headers["user-agent"]
    )


def test_redirect_and_missing_page(mediawiki, waits):
    with _client(mediawiki, waits) as c:
        assert c.info("en", "Crimean_Peninsula").title == "Crimea"
        assert c.info("en", "Israel") is None
        assert c.langlinks("en", "Israel") == {}
        assert c.current("en", "Israel") is None
        assert c.as_of("en", "Israel", "2023-05-15T23:59:59Z") is None


def test_rtl_and_no_space_editions(mediawiki, waits):
    with _client(mediawiki, waits) as c:
        he = c.current("he", "רמת הגולן")
        ja = c.current("ja", "千島列島")
    assert he.page_id == 6001 and he.blocks[0][1].startswith("רמת הגולן")
    assert ja.blocks[0][1].split("\n")[1].startswith("日本は")


def test_as_of_picks_the_revision_before_the_date(mediawiki, waits):
    with _client(mediawiki, waits) as c:
        old = c.as_of("en", "Crimea", "2023-05-15T23:59:59Z")
        new = c.as_of("en", "Crimea", "2024-12-31T23:59:59Z")
        late = c.as_of("uk", "Крим", "2023-05-15T23:59:59Z")
    assert (old.revision_id, old.revision_timestamp, old.format) == (
        900,
        "2022-11-01T10:00:00Z",
        "wikitext",
    )
    assert "{{Infobox peninsula" in old.text and old.note == ""
    assert new.revision_id == 1500
    assert late.revision_id == 3501 and "oldest revision (2024-01-10T12:00:00Z)" in late.note
    revs = [r for r in mediawiki.requests if "revisions" in r.params.get("prop", "")]
    assert (
        revs[0].params["rvdir"] == "older" and revs[0].params["rvstart"] == "2023-05-15T23:59:59Z"
    )
    assert revs[-1].params["rvdir"] == "newer" and "rvstart" not in revs[-1].params
    assert revs[0].headers["user-agent"] == user_agent("tests@example.org")


@pytest.mark.parametrize("path", ["wikipedia-api", "httpx"])
def test_429_waits_for_retry_after_then_succeeds(mediawiki, waits, path):
    mediawiki.push(Fault(429, retry_after="7", match={"titles": "Crimea"}))
    with _client(mediawiki, waits, base=0.01) as c:
        if path == "httpx":
            assert c.as_of("en", "Crimea", "2023-05-15T23:59:59Z").revision_id == 900
        else:
            assert c.info("en", "Crimea").page_id == 5726
        assert c.throttle.retries == 1
    assert waits == [7.0]
    assert [r.status for r in mediawiki.requests] == [429, 200]


@pytest.mark.parametrize("path", ["wikipedia-api", "httpx"])
def test_500_is_retried_with_backoff(mediawiki, waits, path):
    mediawiki.push(Fault(500), Fault(503))
    with _client(mediawiki, waits, base=1.0, cap=8.0) as c:
        if path == "httpx":
            assert c.as_of("ru", "Крым", "2023-05-15T23:59:59Z").page_id == 2001
        else:
            assert c.langlinks("en", "Japan")["ja"] == "日本"
    assert [r.status for r in mediawiki.requests] == [500, 503, 200]
    assert len(waits) == 2 and 0 <= waits[0] <= 1.0 and 0 <= waits[1] <= 2.0


def test_persistent_500_gives_one_clear_error(mediawiki, waits):
    mediawiki.fail_all(500)
    with _client(mediawiki, waits, max_retries=2) as c, pytest.raises(FetchError) as e:
        c.info("en", "Crimea")
    assert e.value.status == 500 and e.value.attempts == 3
    assert "\n" not in str(e.value) and "HTTP 500 after 3 attempt(s)" in str(e.value)
    assert len(mediawiki.requests) == 3


def test_client_error_is_not_retried(mediawiki, waits):
    with _client(mediawiki, waits) as c, pytest.raises(FetchError, match="HTTP 404") as e:
        c.info("xx", "Crimea")  # no such wiki on the server
    assert e.value.attempts == 1 and waits == []


def test_unreachable_server(waits):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed once the block ends: nothing listens there
    c = WikiClient(
        endpoint=f"http://127.0.0.1:{port}/{{edition}}/w/api.php",
        policy=RetryPolicy(rpm=None, max_retries=1),
        sleep=waits.append,
    )
    for call in (
        lambda: c.info("en", "Crimea"),
        lambda: c.as_of("en", "Crimea", "2023-05-15T23:59:59Z"),
    ):
        with pytest.raises(
            FetchError,
            match=r"cannot reach http://127\.0\.0\.1:\d+/en/w/api\.php .*after 2 attempt",
        ) as e:
            call()
        assert "\n" not in str(e.value) and e.value.status is None
    c.close()


def test_bad_endpoint_template():
    from bordir.errors import ConfigError

    with pytest.raises(ConfigError, match="use {edition}"):
        WikiClient(endpoint="https://{lang}.wikipedia.org/w/api.php")


def test_rate_limit_spaces_requests():
    t = [0.0]

    def sleep(s):
        t[0] += s

    th = Throttle(RetryPolicy(rpm=60, max_retries=0), sleep=sleep, clock=lambda: t[0])
    for _ in range(65):
        th.call(lambda: None, url="u")
    assert th.requests == 65 and 4.9 <= t[0] <= 5.1  # a full bucket of 60, then one per second


def test_contact_from_environment(monkeypatch):
    monkeypatch.setenv("BORDIR_WIKI_CONTACT", "mailto:ops@example.org")
    assert user_agent().endswith("; mailto:ops@example.org)")
    monkeypatch.delenv("BORDIR_WIKI_CONTACT")
    assert user_agent().startswith("bordir/") and ";" not in user_agent()


def test_missing_extra_names_the_install_command(monkeypatch):
    import sys

    from bordir.errors import MissingExtraError

    monkeypatch.setitem(sys.modules, "wikipediaapi", None)
    with pytest.raises(MissingExtraError, match=r"pip install 'bordir\[wiki\]'"):
        WikiClient()
