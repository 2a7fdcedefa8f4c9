"""A MediaWiki-compatible API server on 127.0.0.1, for the Wikipedia fetcher's tests.

It serves ``GET /{edition}/w/api.php`` the way Wikipedia's API answers the
queries bordir makes, in the recorded response format (``formatversion=1``
pages keyed by page id, as wikipedia-api requests; ``formatversion=2`` page
lists, as bordir's revisions client requests):

- ``prop=info`` (``inprop=url``), ``prop=extracts`` (``explaintext``, sections as
  ``== Title ==``), ``prop=langlinks`` (``llprop=url``) and
  ``prop=revisions`` (``rvstart``/``rvdir``/``rvlimit``, ``rvslots=main``,
  ``rvprop=ids|timestamp|content``), alone or combined with ``|``;
- ``redirects=1`` (a ``redirects`` block and the target page), title
  normalization (``_`` → space, first letter upper case), missing pages
  (``"-1": {"missing": ""}`` / ``{"missing": true}``).

The fixture wiki (:data:`PAGES`) has a handful of articles in seven editions
and four scripts: en; ru and uk (Cyrillic); ar and he (right-to-left); ja and
zh (no spaces between words; zh mixing Traditional and Simplified). It has
a missing page (en "Israel"), pages without a link into a wanted edition (en
"Syria" → he, en "Taiwan" → ja …), a redirect (en "Crimean Peninsula"), a
paragraph that is deliberately English inside the Russian article "Крым", and
revisions before and after 2023-05-15 (uk "Крим" was created after it).

Faults: :meth:`MediaWikiServer.push` queues faults (each taken by the next
matching request); :meth:`MediaWikiServer.fail_all` makes every request fail
until :meth:`heal`. Every request is recorded (edition, params, headers).
The HTTP plumbing (thread, port, JSON answers) is :mod:`tests.http_base`.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit

from .http_base import JSONHandler, LocalHTTPServer, server_fixture

__all__ = [
    "Page",
    "PAGES",
    "REDIRECTS",
    "Fault",
    "Request",
    "MediaWikiServer",
    "mediawiki",
    "CRIMEA_2022_WIKITEXT",
    "MIXED_RU_PARAGRAPH",
]


@dataclass(frozen=True)
class Revision:
    revid: int
    timestamp: str
    content: str


@dataclass(frozen=True)
class Page:
    pageid: int
    extract: str
    lastrevid: int
    langlinks: dict[str, str] = field(default_factory=dict)
    revisions: tuple[Revision, ...] = ()
    """Oldest first; default: one revision from 2021 whose wikitext is the extract."""

    def all_revisions(self) -> tuple[Revision, ...]:
        if self.revisions:
            return self.revisions
        # plain text is valid wikitext; paragraphs become blank-line separated
        wikitext = "\n\n".join(ln for ln in self.extract.split("\n") if ln.strip())
        return (Revision(self.lastrevid, "2021-01-01T00:00:00Z", wikitext),)


MIXED_RU_PARAGRAPH = (
    "Major towns (English names): Simferopol, Sevastopol, Kerch, Yevpatoria, Yalta and Feodosia "
    "are the largest settlements of the peninsula by population."
)

CRIMEA_2022_WIKITEXT = """{{Short description|Peninsula in Eastern Europe}}
{{Infobox peninsula
| name = Crimea
| area = 27,000 km2
}}
[[File:Crimea relief map.png|thumb|right|Relief map of [[Crimea]]]]
'''Crimea''' is a [[peninsula]] in [[Eastern Europe]], on the northern coast of the [[Black Sea]].<ref>{{cite book|title=Atlas of Europe}}</ref> It is almost entirely surrounded by the Black Sea and the smaller [[Sea of Azov]].

Crimea

== History ==
In antiquity the coast was home to [[Greek colonisation|Greek colonies]], and later the [[Crimean Khanate]] ruled the peninsula.<ref name="kh"/>

{| class="wikitable"
! Year !! Population
|-
| 2014 || 2,284,000
|}

=== 2014 ===
In 2014 Russian forces seized the peninsula; a disputed referendum was followed by [[Annexation of Crimea by the Russian Federation|annexation]].<!-- hidden comment -->

== Geography ==
The peninsula covers about 27,000 square kilometres and is connected to the mainland by the [[Isthmus of Perekop]].

__NOTOC__
[[Category:Peninsulas of Europe]]
[[ru:Крым]]
"""

_CRIMEA_EN = (
    "Crimea is a peninsula in Eastern Europe, on the northern coast of the Black Sea, almost entirely surrounded "
    "by the Black Sea and the smaller Sea of Azov.\n"
    "It has been occupied by Russia since 2014, although Ukraine and most of the international community "
    "consider it Ukrainian territory.\n"
    "Crimea\n\n\n"
    "== History ==\n"
    "In antiquity the coast was home to Greek colonies, and later the Crimean Khanate ruled the peninsula until "
    "the Russian Empire annexed it in 1783.\n"
    "In 1954 the Crimean Oblast was transferred from the Russian SFSR to the Ukrainian SSR.\n\n"
    "=== Annexation ===\n"
    "In February and March 2014 Russian forces seized the peninsula, and a disputed referendum was followed by "
    "annexation.\n"
    "It has been occupied by Russia since 2014, although Ukraine and most of the international community "
    "consider it Ukrainian territory.\n\n\n"
    "== Geography ==\n"
    "The peninsula covers about 27,000 square kilometres and is connected to the mainland by the Isthmus of Perekop."
)

PAGES: dict[tuple[str, str], Page] = {
    # --- en -------------------------------------------------------------------------------
    ("en", "Crimea"): Page(
        5726,
        _CRIMEA_EN,
        1500,
        {"ru": "Крым", "uk": "Крим"},
        (
            Revision(900, "2022-11-01T10:00:00Z", CRIMEA_2022_WIKITEXT),
            Revision(1500, "2024-03-01T08:00:00Z", _CRIMEA_EN.replace("\n", "\n\n")),
        ),
    ),
    ("en", "Russia"): Page(
        25391,
        "Russia is a country spanning Eastern Europe and North Asia, and the largest country in the world by area.\n"
        "Its capital and largest city is Moscow, and Russian is the sole official language of the federation.",
        1501,
        {"ru": "Россия", "uk": "Росія", "ja": "ロシア"},
    ),
    ("en", "Ukraine"): Page(
        31750,
        "Ukraine is a country in Eastern Europe, the second-largest European country after Russia, which borders "
        "it to the east and north-east.\n"
        "Its capital and largest city is Kyiv, and Ukrainian is the official language of the country.",
        1502,
        {"ru": "Украина", "uk": "Україна"},
    ),
    ("en", "Kuril Islands"): Page(
        58046,
        "The Kuril Islands are a volcanic archipelago that stretches about 1,300 kilometres from Hokkaido in Japan "
        "to Kamchatka in Russia.\n\n\n"
        "== Dispute ==\n"
        "Russia administers all of the islands, while Japan claims the four southernmost islands, which it calls "
        "the Northern Territories.",
        1503,
        {"ru": "Курильские острова", "ja": "千島列島"},
    ),
    ("en", "Japan"): Page(
        15573,
        "Japan is an island country in East Asia, located in the Pacific Ocean off the northeast coast of the "
        "Asian mainland.\n"
        "Its capital and largest city is Tokyo, and the country is divided into forty-seven prefectures.",
        1504,
        {"ru": "Япония", "ja": "日本", "zh": "日本"},
    ),
    ("en", "Golan Heights"): Page(
        12964,
        "The Golan Heights is a basaltic plateau at the southwest corner of Syria, bordering Israel, Lebanon and "
        "Jordan.\n"
        "Israel has occupied the western two-thirds of the plateau since the Six-Day War of 1967 and annexed it "
        "in 1981.",
        1505,
        {"ar": "مرتفعات الجولان", "he": "רמת הגולן"},
    ),
    ("en", "Syria"): Page(
        7515849,
        "Syria is a country in West Asia, bordered by the Mediterranean Sea to the west, Turkey to the north and "
        "Iraq to the east.\n"
        "Its capital is Damascus, one of the oldest continuously inhabited cities in the world.",
        1506,
        {"ar": "سوريا"},  # deliberately no "he" link
    ),
    ("en", "Senkaku Islands"): Page(
        158532,
        "The Senkaku Islands are a group of uninhabited islands in the East China Sea, administered by Japan and "
        "claimed by China and Taiwan.\n"
        "In China they are known as the Diaoyu Islands, and in Taiwan as the Tiaoyutai Islands.",
        1507,
        {"zh": "釣魚臺列嶼", "ja": "尖閣諸島"},
    ),
    ("en", "Taiwan"): Page(
        25734,
        "Taiwan, officially the Republic of China, is a country in East Asia at the junction of the East and "
        "South China Seas.\n"
        "Its capital is Taipei, and Mandarin is the main language of the island's government and schools.",
        1508,
        {"zh": "臺灣"},
    ),
    ("en", "China"): Page(
        5405,
        "China, officially the People's Republic of China, is a country in East Asia and the second most populous "
        "country in the world.\n"
        "Its capital is Beijing, and its most populous city and financial centre is Shanghai.",
        1509,
        {"zh": "中华人民共和国"},
    ),
    # --- ru -------------------------------------------------------------------------------
    ("ru", "Крым"): Page(
        2001,
        "Крым — полуостров на юге Восточной Европы, омываемый Чёрным и Азовским морями; на востоке Керченский "
        "пролив отделяет его от Таманского полуострова.\n"
        "С 2014 года полуостров контролируется Россией, однако Украина и большинство государств — членов ООН "
        "считают Крым частью территории Украины.\n\n\n"
        "== История ==\n"
        "В древности на побережье полуострова существовали греческие колонии, а в позднем Средневековье здесь "
        "находилось Крымское ханство.\n" + MIXED_RU_PARAGRAPH,
        2501,
    ),
    ("ru", "Россия"): Page(
        2002,
        "Россия — государство в Восточной Европе и Северной Азии, крупнейшее в мире по площади территории.\n"
        "Столица и крупнейший город страны — Москва, государственный язык — русский.",
        2502,
    ),
    ("ru", "Украина"): Page(
        2003,
        "Украина — государство в Восточной Европе, второе по площади государство Европы после России.\n"
        "Столица и крупнейший город страны — Киев, государственный язык — украинский.",
        2503,
    ),
    ("ru", "Курильские острова"): Page(
        2004,
        "Курильские острова — цепь вулканических островов между полуостровом Камчатка и островом Хоккайдо.\n"
        "Япония оспаривает принадлежность четырёх южных островов, которые она называет Северными территориями.",
        2504,
    ),
    ("ru", "Япония"): Page(
        2005,
        "Япония — островное государство в Восточной Азии, расположенное в Тихом океане к востоку от материка.\n"
        "Столица и крупнейший город страны — Токио, страна делится на сорок семь префектур.",
        2505,
    ),
    # --- uk -------------------------------------------------------------------------------
    ("uk", "Крим"): Page(
        3001,
        "Крим — півострів на півдні України, що омивається Чорним і Азовським морями; від материка його відділяє "
        "вузький Перекопський перешийок.\n"
        "З 2014 року півострів окупований Російською Федерацією; Україна та більшість держав світу вважають Крим "
        "українською територією.\n\n\n"
        "== Історія ==\n"
        "У давнину на узбережжі півострова існували грецькі колонії, а пізніше тут виникло Кримське ханство, яке "
        "стало васалом Османської імперії.",
        3501,
        {},
        (
            Revision(
                3501,
                "2024-01-10T12:00:00Z",
                "'''Крим''' — півострів на півдні [[Україна|України]], що омивається Чорним і Азовським морями; "
                "від материка його відділяє вузький Перекопський перешийок.\n\n"
                "== Історія ==\n"
                "У давнину на узбережжі півострова існували грецькі колонії, а пізніше тут виникло Кримське "
                "ханство, яке стало васалом Османської імперії.",
            ),
        ),
    ),
    ("uk", "Росія"): Page(
        3002,
        "Росія — держава у Східній Європі та Північній Азії, найбільша у світі за площею території.\n"
        "Столиця і найбільше місто країни — Москва, державна мова — російська.",
        3502,
    ),
    ("uk", "Україна"): Page(
        3003,
        "Україна — держава у Східній Європі, друга за площею країна Європи після Росії.\n"
        "Столиця і найбільше місто країни — Київ, державна мова — українська.",
        3503,
    ),
    # --- ja -------------------------------------------------------------------------------
    ("ja", "千島列島"): Page(
        4001,
        "千島列島は、北海道の根室海峡からカムチャツカ半島の南端までの間に連なる列島である。\n"
        "日本は南部の四島を北方領土と呼び、ロシアによる実効支配に対して返還を求めている。",
        4501,
    ),
    ("ja", "ロシア"): Page(
        4002,
        "ロシア連邦は、東ヨーロッパから北アジアにまたがる国家であり、面積は世界で最も大きい。\n"
        "首都はモスクワであり、公用語はロシア語である。",
        4502,
    ),
    ("ja", "日本"): Page(
        4003,
        "日本国は、東アジアに位置する島国であり、太平洋の北西部に連なる列島から成る。\n"
        "首都は東京であり、全国は四十七の都道府県に分けられている。",
        4503,
    ),
    ("ja", "尖閣諸島"): Page(
        4004,
        "尖閣諸島は、東シナ海の南西部に位置する無人島の島々であり、日本が実効支配している。\n"
        "中華人民共和国と中華民国はそれぞれ領有権を主張している。",
        4504,
    ),
    # --- ar (RTL) -------------------------------------------------------------------------
    ("ar", "مرتفعات الجولان"): Page(
        5001,
        "مرتفعات الجولان هضبة تقع في جنوب غرب سوريا، وتحدها إسرائيل ولبنان والأردن.\n"
        "احتلت إسرائيل معظم الهضبة في حرب عام 1967 وأعلنت ضمها في عام 1981.",
        5501,
    ),
    ("ar", "سوريا"): Page(
        5002,
        "سوريا دولة عربية تقع في غرب آسيا، يحدها البحر الأبيض المتوسط من الغرب وتركيا من الشمال.\n"
        "عاصمتها دمشق، وهي من أقدم المدن المأهولة باستمرار في العالم.",
        5502,
    ),
    # --- he (RTL) -------------------------------------------------------------------------
    ("he", "רמת הגולן"): Page(
        6001,
        "רמת הגולן היא רמה בזלתית בדרום-מערב סוריה, הגובלת בישראל, בלבנון ובירדן.\n"
        "ישראל כבשה את רוב הרמה במלחמת ששת הימים בשנת 1967 והחילה עליה את החוק הישראלי בשנת 1981.",
        6501,
    ),
    # --- zh (no spaces; Traditional and Simplified mixed, as on zh.wikipedia) -------------
    ("zh", "釣魚臺列嶼"): Page(
        7001,
        "釣魚臺列嶼是位於東海南部的一組無人島嶼，目前由日本實際控制。\n"
        "中華人民共和國和中華民國都主張擁有這些島嶼的主權。",
        7501,
    ),
    ("zh", "臺灣"): Page(
        7002,
        "臺灣是位於東亞的島嶼，西隔臺灣海峽與中國大陸相望，首都為臺北市。\n"
        "中華民國政府自一九四九年起遷至臺灣，並管轄臺灣、澎湖、金門及馬祖。",
        7502,
    ),
    ("zh", "中华人民共和国"): Page(
        7003,
        "中华人民共和国是位于东亚的国家，首都为北京，是世界上人口第二多的国家。\n"
        "全国划分为省、自治区、直辖市和特别行政区等行政区域。",
        7503,
    ),
    ("zh", "日本"): Page(
        7004,
        "日本國是位於東亞的島國，由北海道、本州、四國、九州四個主要島嶼及眾多小島組成。\n"
        "日本的首都是東京，全國分為四十七個都道府縣。",
        7504,
    ),
}
"""(edition, title) → page."""

REDIRECTS: dict[tuple[str, str], str] = {("en", "Crimean Peninsula"): "Crimea"}


@dataclass(frozen=True)
class Fault:
    """What the server answers instead of one matching request."""

    code: int
    retry_after: str | None = None
    match: dict[str, str] = field(default_factory=dict)
    """Only requests whose params (plus ``edition``) contain these values take this fault."""

    def matches(self, edition: str, params: dict[str, str]) -> bool:
        have = {**params, "edition": edition}
        return all(have.get(k) == v for k, v in self.match.items())


@dataclass
class Request:
    edition: str
    params: dict[str, str]
    headers: dict[str, str]
    status: int
    at: float


def _norm(title: str) -> str:
    t = title.replace("_", " ").strip()
    return t[:1].upper() + t[1:] if t else t


class _Handler(JSONHandler):
    owner: MediaWikiServer
    content_type = "application/json; charset=utf-8"

    def do_GET(self) -> None:
        owner = self.owner
        parts = urlsplit(self.path)
        segs = parts.path.strip("/").split("/")
        params = dict(parse_qsl(parts.query, keep_blank_values=True))
        headers = self.header_dict()
        if len(segs) != 3 or segs[1:] != ["w", "api.php"]:
            self.send_json(404, {"error": {"code": "notfound", "info": self.path}})
            return
        edition = segs[0]
        fault = owner._take_fault(edition, params)
        if fault is not None:
            status, payload = fault.code, {"error": {"code": "http", "info": f"HTTP {fault.code}"}}
            extra = {"Retry-After": fault.retry_after} if fault.retry_after is not None else {}
        else:
            status, payload, extra = owner.answer(edition, params)
        with owner._lock:
            owner.requests.append(Request(edition, params, headers, status, time.time()))
        self.send_json(status, payload, extra)


class MediaWikiServer(LocalHTTPServer):
    """A threaded MediaWiki API server on 127.0.0.1 (random port); start/stop or use as a context manager."""

    handler = _Handler
    name = "mediawiki"

    def __init__(
        self,
        pages: dict[tuple[str, str], Page] | None = None,
        redirects: dict[tuple[str, str], str] | None = None,
    ) -> None:
        super().__init__()
        self.pages = dict(PAGES if pages is None else pages)
        self.redirects = dict(REDIRECTS if redirects is None else redirects)
        self.requests: list[Request] = []
        self._faults: list[Fault] = []
        self._fail_all: int | None = None
        self._lock = threading.Lock()

    # -- programming -----------------------------------------------------------------------
    def push(self, *faults: Fault) -> None:
        with self._lock:
            self._faults.extend(faults)

    def fail_all(self, code: int = 503) -> None:
        self._fail_all = code

    def heal(self) -> None:
        self._fail_all = None

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self._faults.clear()
        self._fail_all = None

    def titles_requested(self, prop: str | None = None) -> list[tuple[str, str]]:
        """(edition, title) of the answered requests (status 200), optionally only those asking for ``prop``."""
        return [
            (r.edition, r.params.get("titles", ""))
            for r in self.requests
            if r.status == 200 and (prop is None or prop in r.params.get("prop", "").split("|"))
        ]

    # -- addresses -------------------------------------------------------------------------
    @property
    def endpoint(self) -> str:
        """The endpoint template for bordir: ``http://127.0.0.1:<port>/{edition}/w/api.php``."""
        return self.url + "/{edition}/w/api.php"

    # -- answering -------------------------------------------------------------------------
    def _take_fault(self, edition: str, params: dict[str, str]) -> Fault | None:
        if self._fail_all is not None:
            return Fault(self._fail_all)
        with self._lock:
            for i, f in enumerate(self._faults):
                if f.matches(edition, params):
                    return self._faults.pop(i)
        return None

    def answer(self, edition: str, params: dict[str, str]) -> tuple[int, Any, dict[str, str]]:
        if not any(e == edition for e, _ in self.pages):
            return 404, {"error": {"code": "nosuchwiki", "info": f"no wiki {edition}"}}, {}
        if params.get("action") != "query":
            return 200, {"error": {"code": "badvalue", "info": "only action=query is served"}}, {}
        fv2 = params.get("formatversion") == "2"
        props = [p for p in params.get("prop", "").split("|") if p]
        requested = params.get("titles", "")
        title = _norm(requested)
        query: dict[str, Any] = {}
        if title != requested:
            query["normalized"] = [{"from": requested, "to": title}]
        if params.get("redirects") and (edition, title) in self.redirects:
            target = self.redirects[(edition, title)]
            query["redirects"] = [{"from": title, "to": target}]
            title = target
        page = self.pages.get((edition, title))
        if page is None:
            entry: dict[str, Any] = {"ns": 0, "title": title, "missing": True if fv2 else ""}
            query["pages"] = [entry] if fv2 else {"-1": entry}
            return 200, {"batchcomplete": True if fv2 else "", "query": query}, {}
        base = self.url + f"/{edition}/wiki/"
        entry = {"pageid": page.pageid, "ns": 0, "title": title}
        for prop in props:
            if prop == "info":
                url = base + quote(title.replace(" ", "_"))
                entry.update(
                    {
                        "contentmodel": "wikitext",
                        "pagelanguage": edition,
                        "pagelanguagehtmlcode": edition,
                        "pagelanguagedir": "rtl" if edition in ("ar", "he") else "ltr",
                        "touched": "2024-05-01T00:00:00Z",
                        "lastrevid": page.lastrevid,
                        "length": len(page.extract),
                    }
                )
                if "url" in params.get("inprop", ""):
                    entry.update(
                        {"fullurl": url, "editurl": url + "?action=edit", "canonicalurl": url}
                    )
            elif prop == "extracts":
                entry["extract"] = page.extract
            elif prop == "langlinks":
                links = [
                    {
                        "lang": lang,
                        "url": self.url + f"/{lang}/wiki/" + quote(t.replace(" ", "_")),
                        ("title" if fv2 else "*"): t,
                    }
                    for lang, t in sorted(page.langlinks.items())
                ]
                if links:
                    entry["langlinks"] = links
            elif prop == "revisions":
                revs = self._revisions(page, params)
                if revs:
                    entry["revisions"] = [self._rev_json(r, params, fv2) for r in revs]
            else:
                return 200, {"error": {"code": "badvalue", "info": f"unknown prop {prop}"}}, {}
        query["pages"] = [entry] if fv2 else {str(page.pageid): entry}
        return 200, {"batchcomplete": True if fv2 else "", "query": query}, {}

    @staticmethod
    def _revisions(page: Page, params: dict[str, str]) -> list[Revision]:
        revs = list(page.all_revisions())
        limit = int(params.get("rvlimit", "1"))
        if params.get("rvdir", "older") == "newer":
            start = params.get("rvstart")
            chosen = [r for r in revs if start is None or r.timestamp >= start]
        else:
            start = params.get("rvstart")
            chosen = [r for r in reversed(revs) if start is None or r.timestamp <= start]
        return chosen[:limit]

    @staticmethod
    def _rev_json(r: Revision, params: dict[str, str], fv2: bool) -> dict[str, Any]:
        out: dict[str, Any] = {"revid": r.revid, "parentid": 0, "timestamp": r.timestamp}
        if "content" in params.get("rvprop", ""):
            slot = {"contentmodel": "wikitext", "contentformat": "text/x-wiki"}
            slot["content" if fv2 else "*"] = r.content
            out["slots"] = {"main": slot}
        return out


mediawiki = server_fixture("mediawiki", MediaWikiServer)
"""The fixture, for test modules (``from .mediawiki_server import mediawiki``): a started
:class:`MediaWikiServer` with the fixture wiki."""
