"""Loopback HTTP servers (127.0.0.1) speaking the four search-enabled assistant APIs, with planted source biases.

One :class:`SearchAPIServer` answers:

* ``POST /v1/responses`` — OpenAI Responses API (``web_search_call`` + ``message`` with ``url_citation``);
* ``POST /chat/completions`` — Perplexity (``citations`` and ``search_results``, ``usage.cost``);
* ``POST /v1beta/models/<model>:generateContent`` — Gemini (``groundingMetadata`` with redirect URIs
  ``https://vertexaisearch.cloud.google.com/grounding-api-redirect/<token>``, ``groundingSupports``);
* ``POST /v1/messages`` — Anthropic (``server_tool_use``, ``web_search_tool_result``, ``text`` with
  ``web_search_result_location`` citations);
* ``GET /grounding-api-redirect/<token>`` — a 302 to the source the token stands for (for ``audit resolve``).

Every answer cites 2–5 sources drawn (seeded by the request body and how often it was asked) from
pools whose weights depend on the question's language: a planted bias whose expected shares are
known (:func:`expected_country_share`). ``fail_next(code, n)`` makes the next ``n`` API requests
fail with ``code`` (429 carries ``Retry-After: 0``). Only requests from 127.0.0.1 are served.
The HTTP plumbing (thread, port, JSON answers) is :mod:`tests.http_base`.
"""

from __future__ import annotations

import hashlib
import random
import re
import threading
from typing import Any

from ..http_base import JSONHandler, LocalHTTPServer

__all__ = ["SearchAPIServer", "POOLS", "LANG_COUNTRY", "expected_country_share", "OWN_WEIGHT"]

# country -> (hosts of sources from it, the language they are in)
POOLS: dict[str, tuple[list[str], str]] = {
    "RU": (
        [
            "https://ria.ru/20240301/krym.html",
            "https://tass.ru/politika/123",
            "https://www.rt.com/russia/5/",
            "https://www.kremlin.ru/events/1",
        ],
        "ru",
    ),
    "UA": (
        [
            "https://www.ukrinform.ua/rubric-crimea/1",
            "https://www.pravda.com.ua/news/2",
            "https://www.president.gov.ua/news/3",
            "https://kyivindependent.com/crimea",
        ],
        "uk",
    ),
    "GB": (
        [
            "https://www.bbc.com/news/world-1",
            "https://www.reuters.com/world/2",
            "https://www.theguardian.com/world/3",
        ],
        "en",
    ),
    "US": (
        [
            "https://www.nytimes.com/2024/1",
            "https://apnews.com/article/2",
            "https://www.state.gov/reports/3",
        ],
        "en",
    ),
    "JP": (["https://www3.nhk.or.jp/news/1", "https://www.mofa.go.jp/territory/2"], "ja"),
    "CN": (["https://www.chinadaily.com.cn/world/1", "https://www.gov.cn/xinwen/2"], "zhs"),
    "AZ": (["https://apa.az/en/1", "https://president.az/articles/2"], "az"),
    "AM": (["https://armenpress.am/eng/news/1", "https://www.gov.am/en/2"], "hy"),
    "ES": (["https://elpais.com/espana/1", "https://www.lamoncloa.gob.es/2"], "es"),
    "MA": (["https://www.maroc.ma/fr/1", "https://www.mapexpress.ma/2"], "ar"),
    "AR": (["https://www.clarin.com/politica/1", "https://www.casarosada.gob.ar/2"], "es"),
    "IN": (["https://www.thehindu.com/news/1", "https://www.mea.gov.in/2"], "hi"),
    "PK": (["https://www.dawn.com/news/1", "https://mofa.gov.pk/2"], "ur"),
    "IL": (["https://www.timesofisrael.com/1", "https://www.gov.il/he/2"], "iw"),
    "GR": (["https://www.ekathimerini.com/1", "https://www.mfa.gr/2"], "el"),
    "TR": (["https://www.aa.com.tr/tr/1", "https://www.trtworld.com/2"], "tr"),
    "SD": (["https://suna-sd.net/1", "https://www.sudantribune.com/2"], "ar"),
    "SS": (["https://www.eyeradio.org/1", "https://www.goss.gov.ss/2"], "en"),
}
LANG_COUNTRY = {"ru": "RU", "uk": "UA", "ja": "JP", "zhs": "CN", "zht": "CN", "az": "AZ", "hy": "AM", "es": "ES",
                "ar": "MA", "hi": "IN", "ur": "PK", "iw": "IL", "el": "GR", "tr": "TR"}  # fmt: skip
SNIPPETS = {
    "ru": "Крым — полуостров на севере Чёрного моря, который Россия аннексировала в 2014 году.",
    "uk": "Крим — півострів у північній частині Чорного моря, тимчасово окупований Росією.",
    "en": "Crimea is a peninsula on the northern coast of the Black Sea, annexed by Russia in 2014.",
    "ja": "クリミア半島は黒海の北岸にある半島で、二〇一四年にロシアが併合した。",
    "zhs": "克里米亚是黑海北岸的一个半岛，二〇一四年被俄罗斯吞并。",
    "az": "Dağlıq Qarabağ Azərbaycanın ərazisidir və orada çoxlu kənd və şəhər var.",
    "hy": "Լեռնային Ղարաբաղը տարածաշրջան է Հարավային Կովկասում, որտեղ շատ գյուղեր կան։",
    "es": "Ceuta es una ciudad autónoma española situada en el norte de África, junto al estrecho.",
    "ar": "الصحراء الغربية إقليم متنازع عليه في شمال غرب أفريقيا على ساحل المحيط الأطلسي.",
    "hi": "जम्मू और कश्मीर भारत का एक केंद्र शासित प्रदेश है जो हिमालय में स्थित है।",
    "ur": "جموں و کشمیر ایک متنازع علاقہ ہے جو پاکستان اور بھارت کے درمیان واقع ہے۔",
    "iw": "רמת הגולן היא רמה בדרום מערב סוריה ובצפון מזרח ישראל, ליד הכנרת.",
    "el": "Τα Ίμια είναι δύο μικρές βραχονησίδες στο ανατολικό Αιγαίο Πέλαγος κοντά στην Κάλυμνο.",
    "tr": "Kardak kayalıkları Ege Denizi'nde Bodrum yakınlarında bulunan iki küçük adadır.",
}
OWN_WEIGHT = 0.5
"""The planted bias: a question in language L cites its country's sources with probability 0.5 per source."""
_WIKI = 0.15


def expected_country_share(lang: str, country: str) -> float:
    """The share of country ``country`` among the sources of an answer asked in ``lang`` (the planted truth)."""
    own = LANG_COUNTRY.get(lang)
    rest = 1 - _WIKI - (OWN_WEIGHT if own else 0.0)
    if country == own:
        return OWN_WEIGHT
    if country in ("GB", "US"):
        return rest / 2
    return 0.0


def _pick(lang: str, rng: random.Random, n: int) -> list[tuple[str, str, str]]:
    own = LANG_COUNTRY.get(lang)
    out = []
    for _ in range(n):
        u = rng.random()
        if u < _WIKI:
            code = {"zhs": "zh", "zht": "zh", "iw": "he"}.get(lang, lang)
            out.append(
                (
                    f"https://{code}.wikipedia.org/wiki/Article_{rng.randrange(50)}",
                    "Wikipedia",
                    lang,
                )
            )
            continue
        u -= _WIKI
        if own and u < OWN_WEIGHT:
            c = own
        else:
            c = rng.choice(["GB", "US"])
        hosts, slang = POOLS[c]
        out.append(
            (rng.choice(hosts) + f"?utm_source=chat&n={rng.randrange(3)}", f"{c} source", slang)
        )
    return out


class _Handler(JSONHandler):
    owner: SearchAPIServer

    def do_GET(self) -> bool | None:
        if self.client_address[0] != "127.0.0.1":
            return self.send_json(403, {"error": "local only"})
        m = re.match(r"^/grounding-api-redirect/(\w+)$", self.path)
        target = self.owner.tokens.get(m.group(1)) if m else None
        if target is None:
            return self.send_json(404, {"error": "no such redirect"})
        self.send_response(302)
        self.send_header("Location", target)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> bool | None:
        body = self.read_json()
        if self.client_address[0] != "127.0.0.1":
            return self.send_json(403, {"error": "local only"})
        with self.owner.lock:
            self.owner.requests.append((self.path, self.header_dict(), body))
            fail = self.owner.failures.pop(0) if self.owner.failures else None
        if fail is not None:
            message = "slow down" if fail == 429 else "server error"
            retry = {"Retry-After": "0"} if fail == 429 else None
            return self.send_json(fail, {"error": {"message": message}}, retry)
        route = self.owner.route(self.path)
        if route is None:
            return self.no_route()
        return self.send_json(200, route(body))


class SearchAPIServer(LocalHTTPServer):
    """The four APIs on one 127.0.0.1 port (see the module docs); a context manager."""

    handler = _Handler
    name = "search-api"

    def __init__(self, *, lang_of: dict[str, str] | None = None) -> None:
        super().__init__()
        self.lang_of = lang_of or {}  # question text -> language (else: every question is 'en')
        self.requests: list[tuple[str, dict[str, str], Any]] = []
        self.failures: list[int] = []
        self.tokens: dict[str, str] = {}
        self.lock = threading.Lock()
        self._seen: dict[str, int] = {}

    def fail_next(self, code: int, n: int = 1) -> None:
        with self.lock:
            self.failures.extend([code] * n)

    def api_calls(self, prefix: str = "") -> int:
        return sum(1 for p, _, _ in self.requests if p.startswith(prefix))

    # ------------------------------------------------------------------ answers
    def _draw(self, question: str, model: str) -> tuple[str, list[tuple[str, str, str]]]:
        key = hashlib.sha256(f"{model}\x00{question}".encode()).hexdigest()
        with self.lock:
            k = self._seen.get(key, 0)
            self._seen[key] = k + 1
        rng = random.Random(f"{key}:{k}")
        lang = self.lang_of.get(question, "en")
        return lang, _pick(lang, rng, rng.randint(2, 5))

    def route(self, path: str) -> Any:
        if path == "/v1/responses":
            return self._openai
        if path == "/chat/completions":
            return self._perplexity
        if path == "/v1/chat/completions":  # OpenAI's Chat Completions with a search model
            return self._openai_chat
        if re.match(r"^/v1beta/models/[\w.\-]+:generateContent$", path):
            return lambda body: self._gemini(body, path.split("/")[3].split(":")[0])
        if path == "/v1/messages":
            return self._anthropic
        return None

    def _openai(self, body: dict[str, Any]) -> dict[str, Any]:
        lang, srcs = self._draw(body["input"], body["model"])
        text, anns = "", []
        for i, (url, title, _) in enumerate(srcs):
            piece = f"Claim {i + 1} ({lang}). "
            anns.append(
                {
                    "type": "url_citation",
                    "start_index": len(text),
                    "end_index": len(text) + len(piece),
                    "url": url,
                    "title": title,
                }
            )
            text += piece
        return {"id": "resp_lb", "object": "response", "status": "completed", "model": body["model"], "output": [
            {"type": "web_search_call", "id": "ws_lb", "status": "completed",
             "action": {"type": "search", "query": body["input"][:40], "sources": [{"type": "url", "url": u} for u, _, _ in srcs]}},
            {"type": "message", "id": "msg_lb", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "text": text, "annotations": anns, "logprobs": []}]}],
            "usage": {"input_tokens": 900, "output_tokens": 40, "total_tokens": 940, "output_tokens_details": {"reasoning_tokens": 0}}}  # fmt: skip

    def _openai_chat(self, body: dict[str, Any]) -> dict[str, Any]:
        q = body["messages"][-1]["content"]
        lang, srcs = self._draw(q, body["model"])
        text, anns = "", []
        for i, (url, title, _) in enumerate(srcs):
            piece = f"Claim {i + 1} ({lang}) ([{title}]({url}?utm_source=openai)). "
            anns.append({"type": "url_citation", "url_citation": {
                "start_index": len(text), "end_index": len(text) + len(piece),
                "title": title, "url": f"{url}?utm_source=openai"}})  # fmt: skip
            text += piece
        return {"id": "chatcmpl-lb", "object": "chat.completion", "created": 0, "model": body["model"],
                "choices": [{"index": 0, "finish_reason": "stop", "message": {
                    "role": "assistant", "content": text, "refusal": None, "annotations": anns}}],
                "usage": {"prompt_tokens": 12, "completion_tokens": 30, "total_tokens": 42}}  # fmt: skip

    def _perplexity(self, body: dict[str, Any]) -> dict[str, Any]:
        q = body["messages"][-1]["content"]
        lang, srcs = self._draw(q, body["model"])
        text = " ".join(f"Claim [{i + 1}]." for i in range(len(srcs)))
        return {"id": "pplx_lb", "model": body["model"], "object": "chat.completion", "created": 0,
                "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
                "citations": [u for u, _, _ in srcs],
                "search_results": [{"title": t, "url": u, "date": "2024-03-01", "last_updated": "2024-03-02", "snippet": SNIPPETS.get(sl, "")} for u, t, sl in srcs],
                "usage": {"prompt_tokens": 12, "completion_tokens": 30, "total_tokens": 42, "num_search_queries": 1,
                          "search_context_size": "low", "cost": {"input_tokens_cost": 0.0, "output_tokens_cost": 0.0, "request_cost": 0.005, "total_cost": 0.005}}}  # fmt: skip

    def _gemini(self, body: dict[str, Any], model: str) -> dict[str, Any]:
        q = body["contents"][-1]["parts"][0]["text"]
        lang, srcs = self._draw(q, model)
        chunks = []
        for u, _, _ in srcs:
            token = hashlib.sha256(u.encode()).hexdigest()[:24]
            with self.lock:
                self.tokens[token] = u
            host = u.split("/")[2].removeprefix("www.")
            chunks.append(
                {
                    "web": {
                        "uri": f"https://vertexaisearch.cloud.google.com/grounding-api-redirect/{token}",
                        "title": host,
                    }
                }
            )
        text = " ".join(f"Claim {i + 1}." for i in range(len(srcs)))
        supports = [
            {
                "segment": {"startIndex": 9 * i, "endIndex": 9 * i + 8, "text": f"Claim {i + 1}."},
                "groundingChunkIndices": [i],
                "confidenceScores": [0.9],
            }
            for i in range(len(srcs))
        ]
        return {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP",
                                "groundingMetadata": {"webSearchQueries": [q[:40]], "searchEntryPoint": {"renderedContent": "<div></div>"},
                                                      "groundingChunks": chunks, "groundingSupports": supports}}],
                "usageMetadata": {"promptTokenCount": 20, "candidatesTokenCount": 30, "totalTokenCount": 50}, "modelVersion": model}  # fmt: skip

    def _anthropic(self, body: dict[str, Any]) -> dict[str, Any]:
        q = body["messages"][-1]["content"]
        lang, srcs = self._draw(q, body["model"])
        blocks: list[dict[str, Any]] = [
            {"type": "server_tool_use", "id": "srvtoolu_lb", "name": "web_search", "input": {"query": q[:40]}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_lb",
             "content": [{"type": "web_search_result", "url": u, "title": t, "encrypted_content": "enc", "page_age": "1 day"} for u, t, _ in srcs]},
        ]  # fmt: skip
        for i, (u, t, slang) in enumerate(srcs):
            blocks.append(
                {
                    "type": "text",
                    "text": f"Claim {i + 1}. ",
                    "citations": [
                        {
                            "type": "web_search_result_location",
                            "url": u,
                            "title": t,
                            "encrypted_index": "idx",
                            "cited_text": SNIPPETS.get(slang, ""),
                        }
                    ],
                }
            )
        return {"id": "msg_lb", "type": "message", "role": "assistant", "model": body["model"], "content": blocks,
                "stop_reason": "end_turn", "usage": {"input_tokens": 1000, "output_tokens": 40, "server_tool_use": {"web_search_requests": 1}}}  # fmt: skip
