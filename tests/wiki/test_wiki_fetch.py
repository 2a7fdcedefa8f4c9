"""`bordir corpus fetch` end to end against the loopback MediaWiki server: provenance, flags, resume, CLI."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from bordir.cli import main as cli_main
from bordir.corpus import CorpusStore, load_corpus, read_manifest
from bordir.errors import ConfigError
from bordir.loaders import load_demo
from bordir.wiki import RetryPolicy, fetch_corpus
from bordir.wiki.client import WikiClient
from bordir.wiki.paragraphs import paragraphs_from_blocks
from bordir.wiki.zh import convert

from ..mediawiki_server import MIXED_RU_PARAGRAPH, PAGES, Fault, MediaWikiServer, mediawiki  # noqa: F401

TERRITORIES = ["Crimea", "Kuril Islands", "Golan Heights", "Senkaku Islands"]
PROVENANCE = (
    "lang",
    "edition",
    "title",
    "page_id",
    "revision_id",
    "fetched_at",
    "url",
    "permalink",
)


def _fetch(server, out, territories=TERRITORIES, **kw):
    kw.setdefault("policy", RetryPolicy(rpm=None))
    return fetch_corpus(
        load_demo(), out, territories=territories, endpoint=server.endpoint, progress=False, **kw
    )


@pytest.fixture(scope="module")
def fetched(tmp_path_factory):
    """One full fetch of four demo territories (shared by the read-only tests)."""
    out = tmp_path_factory.mktemp("wiki") / "corpus"
    with pytest.MonkeyPatch.context() as mp, MediaWikiServer() as server:
        mp.setenv("NO_PROXY", "127.0.0.1,localhost")
        mp.setenv("no_proxy", "127.0.0.1,localhost")
        report = _fetch(server, out)
        requests = list(server.requests)
    return out, report, requests


def _expected_texts() -> dict[tuple[str, str], str]:
    """(lang, doc_id) → text, computed from the fixture pages independently of the fetcher.

    Every line of an extract is a paragraph; the section headings are short enough to fall
    under the length filter, so line-by-line indexing gives the fetcher's indices.
    """
    out = {}
    for (edition, _), page in PAGES.items():
        langs = {"he": ["iw"], "zh": ["zhs", "zht"]}.get(edition, [edition])
        for para in paragraphs_from_blocks([("", page.extract)]):
            assert not para.text.startswith("=")
            for lang in langs:
                prefix = f"{lang}." if lang in ("zhs", "zht") else ""
                out[(lang, f"{prefix}{page.pageid}_p{para.index}")] = convert(para.text, lang)
    return out


def test_every_article_has_provenance_in_manifest_and_meta(fetched):
    out, report, _ = fetched
    m = read_manifest(out)
    articles = {(a["lang"], a["page_id"]): a for a in m["articles"]}
    assert len(articles) == len(m["articles"]) == sum(r["articles"] for r in report.rows)
    for a in m["articles"]:
        assert all(a.get(k) not in (None, "") for k in PROVENANCE), a
        assert a["url"].startswith("http://127.0.0.1:") and a["permalink"].endswith(
            f"oldid={a['revision_id']}"
        )
    corpus = load_corpus(out, verify=True)
    for p in corpus:
        meta = dict(p.meta)
        art = articles[(p.lang, int(meta["page_id"]))]
        assert (meta["edition"], meta["revision_id"], meta["fetched_at"], meta["url"]) == (
            art["edition"],
            str(art["revision_id"]),
            art["fetched_at"],
            art["url"],
        )
    assert {a["edition"] for a in m["articles"]} == {"en", "ru", "uk", "ja", "ar", "he", "zh"}
    assert m["parameters"]["source"] == "wikipedia" and m["parameters"]["as_of"] is None
    assert m["runs"][-1]["status"] == "complete" and m["runs"][-1]["user_agent"].startswith(
        "bordir/"
    )


def test_paragraphs_load_back_identical(fetched):
    out, report, _ = fetched
    corpus = load_corpus(out)
    assert report.passages == len(corpus) and report.content_hash == corpus.content_hash()
    again = CorpusStore.open(out).load()
    assert list(again) == list(corpus)
    # the texts are the fixture's paragraphs, with the BordIRLines ids
    expected = _expected_texts()
    got = {p.key: p.text for p in corpus}
    assert got == {k: expected[k] for k in got}
    assert (
        "en",
        "5726_p5",
    ) not in got  # the repeated paragraph of en "Crimea" (index 5) is not stored twice
    assert ("en", "5726_p6") in got and corpus.get("en", "5726_p6").section == "Geography"


def test_language_flags(fetched):
    out, report, _ = fetched
    corpus = load_corpus(out)
    flagged = [p for p in corpus if dict(p.meta)["lang_flag"] != "ok"]
    assert [(p.lang, p.text) for p in flagged] == [("ru", MIXED_RU_PARAGRAPH)]
    assert dict(flagged[0].meta)["lang_detected"] == "en"
    assert {r["lang"]: r["flagged"] for r in report.rows} == {
        "en": 0,
        "ar": 0,
        "iw": 0,
        "ja": 0,
        "ru": 1,
        "uk": 0,
        "zhs": 0,
        "zht": 0,
    }
    assert read_manifest(out)["counts"]["flagged"] == 1


def test_pools_scripts_and_shared_articles(fetched):
    out, _, _ = fetched
    corpus = load_corpus(out)
    # the Russian article "Россия" is stored once (for Crimea) and is in the Kuril Islands pool too
    kuril_ru = corpus.pool("Kuril Islands", "ru")
    assert [p.doc_id for p in kuril_ru] == [
        "2002_p0",
        "2002_p1",
        "2004_p0",
        "2004_p1",
        "2005_p0",
        "2005_p1",
    ]
    assert corpus.get("ru", "2002_p0").territory == "Crimea"
    assert corpus.territories_of("ru", "2002_p0") == ("Crimea", "Kuril Islands")
    # RTL and no-space pools
    assert [p.title for p in corpus.pool("Golan Heights", "iw")] == ["רמת הגולן"] * 2
    assert corpus.pool("Golan Heights", "ar")[0].text.startswith("مرتفعات الجولان")
    assert corpus.pool("Kuril Islands", "ja")[0].text.startswith("千島列島は")
    # zhs and zht from the same zh page, converted, with prefixed ids
    zhs, zht = corpus.pool("Senkaku Islands", "zhs"), corpus.pool("Senkaku Islands", "zht")
    assert [p.doc_id for p in zhs][:2] == ["zhs.7001_p0", "zhs.7001_p1"]
    assert [p.doc_id.replace("zht.", "zhs.") for p in zht] == [p.doc_id for p in zhs]
    assert zhs[0].text.startswith("钓鱼台列屿") and zht[0].text.startswith("釣魚臺列嶼")
    assert zhs[0].title == "钓鱼台列屿" and zht[2].title == "臺灣"
    for t, lang in {(t, p.lang) for p in corpus for t in corpus.territories_of(p.lang, p.doc_id)}:
        texts = [p.text for p in corpus.pool(t, lang)]
        assert len(texts) == len(set(texts)), (t, lang)
        assert all(p.lang == lang for p in corpus.pool(t, lang))


def test_missing_pages_and_missing_links_are_recorded(fetched):
    out, report, _ = fetched
    units = {(u["territory"], u["lang"], u["title"]): u for u in read_manifest(out)["units"]}
    assert units[("Golan Heights", "en", "Israel")]["status"] == "missing"
    assert units[("Golan Heights", "iw", "Israel")]["status"] == "missing"
    assert units[("Golan Heights", "iw", "Syria")]["status"] == "no_langlink"
    assert "no link into he.wikipedia" in units[("Golan Heights", "iw", "Syria")]["detail"]
    assert units[("Senkaku Islands", "ja", "Taiwan")]["status"] == "no_langlink"
    rows = {r["lang"]: r for r in report.rows}
    assert (
        rows["iw"]["missing"] == 1
        and rows["iw"]["no_langlink"] == 1
        and rows["iw"]["articles"] == 1
    )


def test_zh_page_fetched_once_for_both_scripts(fetched):
    _, _, requests = fetched
    zh = [
        (r.edition, r.params["titles"])
        for r in requests
        if r.edition == "zh" and r.params.get("prop") == "extracts"
    ]
    assert len(zh) == len(set(zh)) == 4


@pytest.mark.slow
def test_interrupted_run_resumes_without_refetching(tmp_path, mediawiki):
    out = tmp_path / "c"
    done = []

    def stop_after_three(territory, lang):
        done.append((territory, lang))
        if len(done) == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _fetch(mediawiki, out, on_pool=stop_after_three)
    m = read_manifest(out)
    assert m["runs"][-1]["status"] == "interrupted" and not (out / ".lock").exists()
    stored = {(a["edition"], a["title"]) for a in m["articles"]}
    assert {(u["territory"], u["lang"]) for u in m["units"]} == set(done)
    mediawiki.reset()
    report = _fetch(mediawiki, out)
    assert report.pools_skipped == 3 and report.pools_fetched == 10  # 13 pools in all
    refetched = set(mediawiki.titles_requested("extracts")) & stored
    assert refetched == set()
    assert read_manifest(out)["runs"][-1]["status"] == "complete"
    # the same corpus as an uninterrupted run (fetch times aside)
    mediawiki.reset()
    one_shot = _fetch(mediawiki, tmp_path / "one")
    a, b = load_corpus(out), load_corpus(tmp_path / "one")
    assert report.content_hash == one_shot.content_hash

    def strip(ps):
        return [replace(p, meta=tuple(kv for kv in p.meta if kv[0] != "fetched_at")) for p in ps]

    assert strip(a) == strip(b) and a.extra_pools == b.extra_pools
    # a third run has nothing to do and makes no request
    mediawiki.reset()
    again = _fetch(mediawiki, out)
    assert again.pools_fetched == 0 and mediawiki.requests == []


def test_429_and_500_during_a_fetch(tmp_path, mediawiki):
    waits: list[float] = []
    mediawiki.push(
        Fault(429, retry_after="3", match={"titles": "Russia"}), Fault(500, match={"edition": "uk"})
    )
    client = WikiClient(
        endpoint=mediawiki.endpoint, policy=RetryPolicy(rpm=None, base=0.01), sleep=waits.append
    )
    report = fetch_corpus(
        load_demo(), tmp_path / "c", territories=["Crimea"], client=client, progress=False
    )
    client.close()
    assert report.retries == 2 and 3.0 in waits
    mediawiki.reset()
    clean = _fetch(mediawiki, tmp_path / "clean", territories=["Crimea"])
    assert report.content_hash == clean.content_hash


def test_as_of_fetch_records_revisions(tmp_path, mediawiki):
    report = _fetch(mediawiki, tmp_path / "c", territories=["Crimea"], as_of="2023-05-15")
    m = read_manifest(tmp_path / "c")
    assert (
        m["parameters"]["as_of"] == "2023-05-15T23:59:59Z"
        and m["parameters"]["text_format"] == "wikitext"
    )
    arts = {(a["lang"], a["title"]): a for a in m["articles"]}
    assert arts[("en", "Crimea")]["revision_id"] == 900
    assert arts[("en", "Crimea")]["revision_timestamp"] == "2022-11-01T10:00:00Z"
    assert "oldest revision" in arts[("uk", "Крим")]["note"] and any(
        "Крим" in w for w in report.warnings
    )
    corpus = load_corpus(tmp_path / "c")
    assert dict(corpus.get("en", "5726_p0").meta)["revision_timestamp"] == "2022-11-01T10:00:00Z"
    assert "as_of:2023-05-15T23:59:59Z" in report.signature
    with pytest.raises(ConfigError, match="was fetched with as_of='2023-05-15T23:59:59Z'"):
        _fetch(mediawiki, tmp_path / "c", territories=["Crimea"])


def test_library_errors_before_any_request(tmp_path, mediawiki):
    with pytest.raises(ConfigError, match="demo has no territory 'Atlantis'"):
        _fetch(mediawiki, tmp_path / "c", territories=["Atlantis"])
    with pytest.raises(ConfigError, match="--langs: languages/ has no entry 'xx'"):
        _fetch(mediawiki, tmp_path / "c", langs="claimants+xx")
    with pytest.raises(ConfigError, match="is not a date"):
        _fetch(mediawiki, tmp_path / "c", as_of="15/05/2023")
    assert mediawiki.requests == [] and not (tmp_path / "c").exists()


def test_refuses_to_resume_into_a_foreign_corpus(tmp_path, mediawiki):
    from bordir.corpus import save_corpus
    from bordir.loaders import load_demo_corpus

    save_corpus(load_demo_corpus(), tmp_path / "c")
    with pytest.raises(ConfigError, match="not fetched from Wikipedia"):
        _fetch(mediawiki, tmp_path / "c", territories=["Crimea"])


# --- the CLI ------------------------------------------------------------------------------------


@pytest.fixture
def cli(capsys):
    """Run ``bordir ...`` in-process through bordir.cli.main (errors → one line, exit 2)."""
    from bordir.cli.corpus import corpus_group
    from bordir.cli.main import cli as group

    if "corpus" not in group.commands:  # until bordir/cli/main.py registers it
        group.add_command(corpus_group)

    def run(*args: str) -> tuple[int, str, str]:
        code = cli_main(list(args))
        out, err = capsys.readouterr()
        return code, out, err

    return run


def test_cli_fetch_summary_info_and_resume(tmp_path, mediawiki, cli):
    out = str(tmp_path / "c")
    base = (
        "corpus",
        "fetch",
        "--dataset",
        "demo",
        "--endpoint",
        mediawiki.endpoint,
        "--out",
        out,
        "--rpm",
        "0",
    )
    code, stdout, err = cli(*base, "--territories", "Crimea")
    assert code == 0, err
    header = stdout.splitlines()[0].split()
    assert header == [
        "lang",
        "pools",
        "articles",
        "paragraphs",
        "flagged",
        "missing",
        "no_langlink",
    ]
    assert "signature: corpus:c|hash:sha256-" in stdout and "wrote 25 passages" in stdout
    # the server goes down in the middle of the next run: one line, exit 2, the finished pools kept
    mediawiki.fail_all(503)
    code, stdout, err = cli(*base, "--territories", "Crimea,Golan Heights", "--max-retries", "0")
    assert (
        code == 2
        and err.count("\n") == 1
        and err.startswith("bordir: error: ")
        and "HTTP 503" in err
    )
    mediawiki.heal()
    code, stdout, err = cli(*base, "--territories", "Crimea,Golan Heights", "--json")
    assert code == 0, err
    summary = json.loads(stdout)
    assert summary["pools_skipped"] == 3 and summary["pools_fetched"] == 3
    assert summary["signature"].startswith("corpus:c|hash:") and summary["passages"] == len(
        load_corpus(out)
    )
    code, stdout, err = cli("corpus", "info", out, "--json")
    info = json.loads(stdout)
    assert (
        code == 0
        and info["passages"] == summary["passages"]
        and info["signature"] == summary["signature"]
    )
    statuses = [r["status"] for r in info["runs"]]
    assert (
        statuses[0] == "complete"
        and statuses[1].startswith("failed: ")
        and statuses[2] == "complete"
    )
    code, stdout, _ = cli("corpus", "info", out)
    assert code == 0 and "content_hash: sha256-" in stdout and "ru" in stdout


def test_cli_as_of(tmp_path, mediawiki, cli):
    code, stdout, err = cli(
        "corpus",
        "fetch",
        "--dataset",
        "demo",
        "--territories",
        "Crimea",
        "--as-of",
        "2023-05-15",
        "--endpoint",
        mediawiki.endpoint,
        "--out",
        str(tmp_path / "c"),
        "--rpm",
        "0",
    )
    assert code == 0, err
    assert "warning: uk 'Крим': no revision at or before 2023-05-15T23:59:59Z" in stdout
    assert "as_of:2023-05-15T23:59:59Z" in stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (("--territories", "Atlantis"), "bordir: error: demo has no territory 'Atlantis'"),
        (
            ("--territories", "Crimea", "--langs", "claimants+xx"),
            "bordir: error: --langs: languages/ has no entry 'xx'",
        ),
        (
            ("--territories", "Crimea", "--as-of", "May 2023"),
            "bordir: error: --as-of 'May 2023' is not a date",
        ),
    ],
)
def test_cli_errors_are_one_line(tmp_path, mediawiki, cli, args, message):
    code, stdout, err = cli(
        "corpus",
        "fetch",
        "--dataset",
        "demo",
        "--endpoint",
        mediawiki.endpoint,
        "--out",
        str(tmp_path / "c"),
        *args,
    )
    assert code == 2 and err.count("\n") == 1 and err.startswith(message), err
    assert mediawiki.requests == []


def test_cli_unreachable_server_is_one_line(tmp_path, cli):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code, _, err = cli(
        "corpus",
        "fetch",
        "--dataset",
        "demo",
        "--territories",
        "Crimea",
        "--max-retries",
        "0",
        "--endpoint",
        f"http://127.0.0.1:{port}/{{edition}}/w/api.php",
        "--out",
        str(tmp_path / "c"),
    )
    assert code == 2 and err.count("\n") == 1
    assert err.startswith(f"bordir: error: cannot reach http://127.0.0.1:{port}/en/w/api.php")


def test_cli_info_on_other_formats(tmp_path, cli):
    from bordir.loaders.demo import demo_dir

    code, stdout, _ = cli("corpus", "info", str(demo_dir() / "corpus" / "passages.jsonl"), "--json")
    assert code == 0 and json.loads(stdout)["format"] == "jsonl"
    path = tmp_path / "all_docs.json"
    path.write_text(json.dumps({"en": {"1_p0": "A paragraph of some length."}}), encoding="utf-8")
    code, stdout, _ = cli("corpus", "info", str(path))
    assert code == 0 and "passages: 1" in stdout


def test_cli_with_the_real_borderlines_territories(tmp_path, mediawiki, cli, shared_borderlines):
    code, stdout, err = cli(
        "corpus",
        "fetch",
        "--dataset",
        "borderlines",
        "--path",
        str(shared_borderlines),
        "--territories",
        "Crimea",
        "--endpoint",
        mediawiki.endpoint,
        "--out",
        str(tmp_path / "c"),
        "--rpm",
        "0",
        "--json",
    )
    assert code == 0, err
    assert {r["lang"] for r in json.loads(stdout)["per_language"]} == {"en", "ru", "uk"}
