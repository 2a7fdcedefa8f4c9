"""``collect``: put a question set to search-enabled assistants through bordir's executor and write the black-box log.

Each (question, model, sample) is one :class:`~bordir.generation.types.GenerationRequest`
whose cache key holds the model, the question and the sample number, so:

* **resumable, nothing paid twice**: answers are stored in the response cache the moment they
  arrive; a re-run (after a crash, Ctrl-C, a cost cap) calls only what is missing;
* **rate limits, retries, time limits**: the executor's (:class:`~bordir.generation.call_limits.ExecutorOptions`);
* **cost cap**: the calls go in chunks; before each chunk, the money spent (the provider's own
  figure when it gives one, else tokens × price + searches × fee: :data:`SEARCH_PRICES`) plus the
  chunk's worst case must stay under ``max_cost``, else the run stops and says what is left;
* **dry run**: the calls that would be made (cached ones are free) and their worst-case cost;
* the log: one JSON line per answer, the parsed record (question, language, group, territory,
  claimants, model, answer, cited URLs with title and snippet) and, beside it, ``raw``: the
  response as the API sent it. Keys come from the environment only and are masked in every
  stored text; the log, the manifest and the cache never hold them.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...._io.atomic import atomic_write_text
from ....errors import ConfigError
from ....generation.cache import ResponseCache
from ....generation.call_limits import ExecutorOptions
from ....generation.executor import execute
from ....generation.types import GenerationRequest, GenerationResult, Message
from ..providers import parse_response
from .apis import search_backend
from .questions import Question

__all__ = [
    "SEARCH_PRICES",
    "SearchPrice",
    "CollectPlan",
    "CollectResult",
    "plan_collect",
    "collect",
]


@dataclass(frozen=True)
class SearchPrice:
    """USD per 1M input / output tokens, per search call, and the search-result tokens a call may add."""

    input: float
    output: float
    per_search: float
    search_tokens: int
    source: str


SEARCH_PRICES: dict[str, SearchPrice] = {
    "openai-search": SearchPrice(
        0.40,
        1.60,
        0.010,
        8000,
        "https://openai.com/api/pricing/ (gpt-4.1-mini; web search tool call)",
    ),
    "perplexity": SearchPrice(
        1.00,
        1.00,
        0.005,
        0,
        "https://docs.perplexity.ai/getting-started/pricing (sonar; request fee, low context)",
    ),
    "gemini": SearchPrice(
        0.30,
        2.50,
        0.035,
        0,
        "https://ai.google.dev/gemini-api/docs/pricing (2.5 Flash; grounding with Google Search)",
    ),
    "anthropic": SearchPrice(
        3.00,
        15.00,
        0.010,
        10000,
        "https://docs.anthropic.com/en/docs/about-claude/pricing (Sonnet; web search)",
    ),
}
"""Worst-case prices per API (as of 2026-07; edit me, or pass ``prices=``): list prices of the default model of each."""


@dataclass(frozen=True)
class Call:
    """One (question, model, sample) and its request."""

    question: Question
    model: str
    sample: int
    request: GenerationRequest


@dataclass
class CollectPlan:
    """What a collection would do: calls, cached, to call, worst-case cost of what is to call."""

    calls: list[Call]
    cached: int
    worst_usd: dict[str, float]

    @property
    def to_call(self) -> int:
        return len(self.calls) - self.cached


@dataclass
class CollectResult:
    """What a collection did (the manifest ``collect.json``)."""

    answered: int = 0
    failed: list[dict[str, Any]] = field(default_factory=list)
    not_asked: int = 0
    spent_usd: float = 0.0
    stopped: str = ""
    log: str = ""


def _worst(call: Call, prices: dict[str, SearchPrice]) -> float:
    p = prices[call.model.split("/", 1)[0]]
    tokens_in = len(call.question.text) / 2 + 50 + p.search_tokens
    return (tokens_in * p.input + call.request.max_tokens * p.output) / 1e6 + 3 * p.per_search


def _spent(call: Call, r: GenerationResult, prices: dict[str, SearchPrice]) -> float:
    if r.cached or not r.ok:
        return 0.0
    reported = r.meta.get("cost_usd")
    if isinstance(reported, int | float):
        return float(reported)
    p = prices[call.model.split("/", 1)[0]]
    searches = r.meta.get("searches") or 1
    return (
        (r.input_tokens or 0) * p.input + (r.output_tokens or 0) * p.output
    ) / 1e6 + searches * p.per_search


def plan_collect(
    questions: Sequence[Question], models: Sequence[str], *, samples: int = 1, max_tokens: int = 1024,
    cache: ResponseCache | None = None, prices: dict[str, SearchPrice] | None = None,
) -> CollectPlan:  # fmt: skip
    """The calls of a collection and their worst-case cost (nothing is sent)."""
    prices = prices or SEARCH_PRICES
    calls = []
    for m in models:
        api = m.split("/", 1)[0]
        if api not in prices:
            raise ConfigError(f"no price for the search API {api!r}; give one (prices=)")
        for q in questions:
            for k in range(samples):
                req = GenerationRequest(model=m, messages=(Message("user", q.text),), max_tokens=max_tokens,
                                        extra=(("sample", str(k)), ("search", "web")))  # fmt: skip
                calls.append(Call(q, m, k, req))
    cached_keys = (
        cache.contains_keys({c.request.cache_key() for c in calls}) if cache is not None else set()
    )
    worst: dict[str, float] = {}
    n_cached = 0
    for c in calls:
        if c.request.cache_key() in cached_keys:
            n_cached += 1
            continue
        worst[c.model] = worst.get(c.model, 0.0) + _worst(c, prices)
    return CollectPlan(calls, n_cached, worst)


def _record(call: Call, r: GenerationResult) -> dict[str, Any]:
    raw = r.meta.get("raw") or {}
    parsed = parse_response(raw, r.meta.get("format"))
    q = call.question
    return {
        "id": f"{q.id}:{call.model}:{call.sample}",
        "group": q.group,
        "question": q.text,
        "query_lang": q.lang,
        "territory": q.territory,
        "claimants": list(q.claimants),
        "claimant_langs": list(q.claimant_langs),
        "model": call.model,
        "provider": parsed.provider,
        "sample": call.sample,
        "answer": parsed.answer,
        "urls": [{"url": c.url, "title": c.title, "snippet": c.snippet} for c in parsed.citations],
        "searches": parsed.searches,
        "cost_usd": parsed.cost_usd,
        "raw": raw,
    }


def collect(
    plan: CollectPlan, out: str | os.PathLike[str], *, cache: ResponseCache, max_cost: float,
    options: ExecutorOptions | None = None, prices: dict[str, SearchPrice] | None = None,
    backend_options: dict[str, dict[str, Any]] | None = None, progress: bool = False, chunk: int = 32,
) -> CollectResult:  # fmt: skip
    """Make the calls of ``plan`` (see the module docs) and write the log to ``out`` (JSONL) and ``out`` + ``.json``."""
    prices = prices or SEARCH_PRICES
    if not (max_cost >= 0 and math.isfinite(max_cost)):
        raise ConfigError(f"max_cost must be a number of USD >= 0, got {max_cost!r}")
    res = CollectResult(log=str(out))
    results: dict[str, GenerationResult] = {}
    by_model: dict[str, list[Call]] = {}
    for c in plan.calls:
        by_model.setdefault(c.model, []).append(c)
    for model, calls in by_model.items():
        fresh = []
        for c in calls:  # answers in the cache are read, not asked (no key needed for them)
            hit = cache.get_key(c.request.cache_key())
            if hit is not None:
                results[c.request.cache_key()] = hit
            else:
                fresh.append(c)
        if not fresh:
            continue
        backend = search_backend(model, **(backend_options or {}).get(model.split("/", 1)[0], {}))
        try:
            for i in range(0, len(fresh), chunk):
                part = fresh[i : i + chunk]
                worst = sum(_worst(c, prices) for c in part)
                if res.spent_usd + worst > max_cost:
                    res.not_asked += len(fresh) - i
                    res.stopped = (f"cost cap: {res.spent_usd:.4f} USD spent, the next {len(part)} calls may cost up to "
                                   f"{worst:.4f}; --max-cost {max_cost:g} reached")  # fmt: skip
                    break
                got = execute(
                    backend,
                    [c.request for c in part],
                    options=options,
                    cache=cache,
                    progress=progress,
                    desc=model,
                )
                for c, r in zip(part, got):
                    results[c.request.cache_key()] = r
                    res.spent_usd += _spent(c, r, prices)
        finally:
            backend.close()
    lines = []
    for c in plan.calls:
        got_r = results.get(c.request.cache_key())
        if got_r is None:
            continue
        if not got_r.ok:
            res.failed.append(
                {
                    "id": f"{c.question.id}:{c.model}:{c.sample}",
                    "model": c.model,
                    "error": got_r.error,
                }
            )
            continue
        lines.append(json.dumps(_record(c, got_r), ensure_ascii=False))
        res.answered += 1
    atomic_write_text(Path(out), "\n".join(lines) + ("\n" if lines else ""))
    return res
