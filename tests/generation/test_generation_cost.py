"""Price table, per-call cost, per (model, language) summaries and dry-run estimates."""

from __future__ import annotations

import math
import tomllib

import pytest

from bordir.errors import ConfigError, DataError
from bordir.generation.cache import ResponseCache
from bordir.generation.cost import (
    INPUT_ESTIMATE_NOTE,
    SHIPPED_PRICES,
    cost,
    estimate,
    estimate_call_tokens,
    estimate_input_tokens,
    load_prices,
    summarize,
)
from bordir.generation.types import GenerationRequest, GenerationResult, Message


def req(text: str, model: str = "openai/gpt-4o-mini", max_tokens: int = 64) -> GenerationRequest:
    return GenerationRequest(
        model=model,
        messages=(Message("system", "Answer."), Message("user", text)),
        max_tokens=max_tokens,
    )


def res(
    model: str = "openai/gpt-4o-mini", i: int | None = 1000, o: int | None = 100, **kw
) -> GenerationResult:
    return GenerationResult(text="A", model=model, input_tokens=i, output_tokens=o, **kw)


@pytest.fixture(autouse=True)
def _no_user_prices(monkeypatch):
    monkeypatch.delenv("BORDIR_PRICES", raising=False)


def test_shipped_table_is_dated_and_covers_the_models():
    raw = tomllib.loads(SHIPPED_PRICES.read_text(encoding="utf-8"))
    assert raw["meta"]["as_of"] and "edit me" in raw["meta"]["note"].lower()
    assert "EDIT ME" in SHIPPED_PRICES.read_text(encoding="utf-8")
    prices = load_prices()
    for model in (
        "openai/gpt-4o",
        "openai/gpt-4o-mini",
        "cohere/command-r-08-2024",
        "cohere/command-r7b-12-2024",
    ):
        price = prices.lookup(model)
        assert price is not None and price.input > 0 and price.output > price.input
    for model in ("local/gemma-3-270m", "mock/echo", "mock/fixed:A) x"):
        assert prices.lookup(model).input == prices.lookup(model).output == 0.0
    assert prices.lookup("openai/gpt-5-imaginary") is None
    assert prices.as_of == raw["meta"]["as_of"] and "prices.toml" in repr(prices)


def test_cost_of_a_result():
    prices = load_prices()
    p = prices.lookup("openai/gpt-4o")
    assert cost(res("openai/gpt-4o", 2000, 300), prices) == pytest.approx(
        (2000 * p.input + 300 * p.output) / 1e6
    )
    assert (
        cost(res("openai/gpt-4o", 2000, 300, cached=True), prices) == 0.0
    )  # nothing paid in this run
    assert cost(res("local/gemma-3-270m", 5000, 50), prices) == 0.0
    assert cost(res("acme/unknown"), prices) is None
    assert cost(res(i=None, o=None), prices) is None  # usage not reported
    failed = GenerationResult(text="", model="openai/gpt-4o", error="HTTP 500", attempts=7)
    assert cost(failed, prices) == 0.0
    dated = res("gpt-4o-2024-08-06", 1000, 0)
    assert cost(dated, prices) is None and cost(
        dated, prices, model="openai/gpt-4o"
    ) == pytest.approx(p.input / 1000)


def test_user_file_overrides_model_by_model(tmp_path, monkeypatch):
    user = tmp_path / "my-prices.toml"
    user.write_text(
        '[meta]\nas_of = "2030-01-01"\n'
        '[models."openai/gpt-4o"]\ninput = 1.0\noutput = 2\n'
        '[models."openai-compatible/*"]\ninput = 0.5\noutput = 0.5\n'
        '[models."openai-compatible/big-*"]\ninput = 3\noutput = 4\n',
        encoding="utf-8",
    )
    for prices in (
        load_prices(user),
        (monkeypatch.setenv("BORDIR_PRICES", str(user)), load_prices())[1],
    ):
        assert (
            prices.lookup("openai/gpt-4o").input == 1.0
            and prices.lookup("openai/gpt-4o").output == 2.0
        )
        assert (
            prices.lookup("openai/gpt-4o-mini").input
            == load_prices(SHIPPED_PRICES).lookup("openai/gpt-4o-mini").input
        )
        assert prices.lookup("openai-compatible/small").input == 0.5
        assert (
            prices.lookup("openai-compatible/big-llama").input == 3.0
        )  # most specific pattern wins
        assert prices.as_of == "2030-01-01" and str(user) in prices.sources
    assert cost(res("openai/gpt-4o", 1_000_000, 1_000_000), user) == pytest.approx(3.0)


@pytest.mark.parametrize(
    ("content", "error", "match"),
    [
        (None, ConfigError, "does not exist"),
        ("[models\nx", DataError, "not valid TOML"),
        (
            '[models."openai/x"]\ninput = -1\noutput = 1\n',
            DataError,
            r"models\.\"openai/x\"\.input'.*>= 0",
        ),
        ('[models."openai/x"]\ninput = 1\n', DataError, r"\.output'.*found None"),
        ('[models."gpt-4o"]\ninput = 1\noutput = 1\n', DataError, "provider/model"),
    ],
)
def test_bad_price_files_say_what_is_wrong(tmp_path, content, error, match):
    path = tmp_path / "p.toml"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(error, match=match):
        load_prices(path)


def test_summary_per_model_and_language():
    prices = load_prices()
    mini = prices.lookup("openai/gpt-4o-mini")
    rows = [
        (req("q1"), res(i=1000, o=10), "uk"),
        (req("q2"), res(i=3000, o=30), "uk"),
        (req("q3"), res(cached=True), "uk"),
        (
            req("q4"),
            GenerationResult(text="", model="openai/gpt-4o-mini", error="x", attempts=7),
            "uk",
        ),
        (req("q1"), res(i=500, o=5), "ru"),
        (req("q1", model="acme/unknown"), res("acme/unknown"), "ru"),
        (req("q1", model="local/gemma-3-270m"), res("local/gemma-3-270m", i=None, o=None), "ru"),
    ]
    out = {(r.model, r.lang): r for r in summarize(rows, prices)}
    assert list(out) == sorted(out)
    uk = out["openai/gpt-4o-mini", "uk"]
    assert (uk.calls, uk.cached, uk.failed, uk.input_tokens, uk.output_tokens) == (
        3,
        1,
        1,
        4000,
        40,
    )
    assert (
        uk.cost_usd == pytest.approx((4000 * mini.input + 40 * mini.output) / 1e6) and uk.note == ""
    )
    assert out["openai/gpt-4o-mini", "ru"].input_tokens == 500
    unknown = out["acme/unknown", "ru"]
    assert (
        unknown.cost_usd is None
        and "no price for 'acme/unknown'" in unknown.note
        and "BORDIR_PRICES" in unknown.note
    )
    local = out["local/gemma-3-270m", "ru"]
    assert local.cost_usd == 0.0 and "reported no token usage" in local.note


def test_token_estimates_are_chars_over_four():
    r = req("x" * 37, max_tokens=50)
    assert estimate_input_tokens(r) == math.ceil((len("Answer.") + 37) / 4)
    assert estimate_call_tokens(r) == estimate_input_tokens(r) + 50
    assert "characters / 4" in INPUT_ESTIMATE_NOTE


def test_estimate_per_language_and_model_with_cache(tmp_path):
    prices = load_prices()
    mini = prices.lookup("openai/gpt-4o-mini")
    requests = [
        req("Крим " * 10),
        req("Крим " * 10),
        req("Crimea " * 10),
        req("Crimée " * 10),
        req("q", model="acme/unknown"),
        req("q", model="local/gemma-3-270m"),
    ]
    langs = ["uk", "uk", "en", "fr", "en", "en"]
    with ResponseCache(tmp_path / "c.sqlite3") as cache:
        cache.put(requests[3], res())
        est = estimate(requests, langs, prices=prices, cache=cache)
    rows = {(r.model, r.lang): r for r in est.rows}
    uk = rows["openai/gpt-4o-mini", "uk"]
    assert (uk.requests, uk.calls, uk.cached) == (2, 1, 0)  # the duplicate is called once
    assert uk.input_tokens == estimate_input_tokens(requests[0]) and uk.max_output_tokens == 64
    assert uk.max_cost_usd == pytest.approx((uk.input_tokens * mini.input + 64 * mini.output) / 1e6)
    fr = rows["openai/gpt-4o-mini", "fr"]
    assert (fr.calls, fr.cached, fr.input_tokens, fr.max_cost_usd) == (
        0,
        1,
        0,
        0.0,
    )  # cached: zero cost
    assert rows["acme/unknown", "en"].max_cost_usd is None and est.max_cost_usd is None
    assert rows["local/gemma-3-270m", "en"].max_cost_usd == 0.0
    assert est.calls == 4 and est.cached == 1
    text = str(est)
    assert (
        "characters / 4" in text
        and "max_tokens" in text
        and "acme/unknown" in text
        and "edit me" in text
    )
    assert text.splitlines()[0].split()[:2] == ["model", "lang"]


def test_estimate_without_cache_and_bad_langs():
    est = estimate([req("a" * 400, max_tokens=100)] * 3, ["sw"] * 3, prices=load_prices())
    (row,) = est.rows
    assert (row.requests, row.calls, row.cached, row.input_tokens, row.max_output_tokens) == (
        3,
        1,
        0,
        102,
        100,
    )
    assert est.max_cost_usd == row.max_cost_usd > 0
    with pytest.raises(ConfigError, match="one language per request"):
        estimate([req("a")], ["en", "uk"])
