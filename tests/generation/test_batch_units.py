"""Unit tests of the batch pieces: the line format, the state file, batch prices and estimates."""

from __future__ import annotations

import json

import pytest

from bordir.errors import DataError
from bordir.generation.batch.requests import (
    body_of,
    custom_id_for,
    parse_output_line,
    request_line,
)
from bordir.generation.batch.state import BatchRecord, BatchState
from bordir.generation.cost import cost, estimate, load_prices, summarize
from bordir.generation.types import GenerationRequest, GenerationResult, Message

REQ = GenerationRequest(
    model="openai/gpt-4o", messages=(Message("user", "x" * 400),), max_tokens=100
)


def _ok(request, body):
    return GenerationResult(text=body["choices"][0]["message"]["content"], model=request.model)


def test_request_line_is_the_batch_wire_format():
    line = request_line(body_of({"model": "m", "messages": [], "extra_body": {"top_p": 1}}), "c1")
    assert line == {
        "custom_id": "c1",
        "method": "POST",
        "url": "/v1/chat/completions",
        "body": {"model": "m", "messages": [], "top_p": 1},
    }
    assert custom_id_for("f" * 64) == "bordir-" + "f" * 40


@pytest.mark.parametrize(
    "line, error",
    [
        (
            {
                "custom_id": "c",
                "response": {
                    "status_code": 200,
                    "body": {"choices": [{"message": {"content": "A)"}}]},
                },
                "error": None,
            },
            None,
        ),
        (
            {
                "custom_id": "c",
                "response": {"status_code": 429, "body": {"error": {"message": "slow"}}},
                "error": None,
            },
            "m/x: HTTP 429 in the batch: slow",
        ),
        (
            {
                "custom_id": "c",
                "response": None,
                "error": {"code": "batch_cancelled", "message": "gone"},
            },
            "m/x: batch request batch_cancelled: gone",
        ),
        (
            {"custom_id": "c", "response": None, "error": None},
            "m/x: batch output line without a response",
        ),
    ],
)
def test_output_lines_become_results(line, error):
    key, res = parse_output_line(line, {"c": "K"}, model="m/x", to_result=_ok)
    assert key == "K" and res.error == error
    if error is None:
        assert res.text == "A)"


def test_unknown_custom_id_has_no_key():
    key, _ = parse_output_line(
        {"custom_id": "zz", "error": {"code": "x"}}, {}, model="m/x", to_result=None
    )
    assert key is None


def test_state_round_trip_pending_and_malformed(tmp_path):
    st = BatchState.load(tmp_path)
    st.add(BatchRecord("b1", "openai/m", "openai", "f1", {"c1": "k1", "c2": "k2"}))
    st.save()
    back = BatchState.load(tmp_path)
    assert back.pending_keys() == {"k1", "k2"} and back.succeeded_keys() == set()
    rec = back.batches[0]
    back.write_results(
        "b1",
        {
            "k1": GenerationResult(text="A", model="openai/m"),
            "k2": GenerationResult(text="", model="openai/m", error="boom"),
        },
    )
    rec.collected, rec.failed_keys = True, ["k2"]
    back.save()
    again = BatchState.load(tmp_path)
    assert again.pending() == [] and again.succeeded_keys() == {"k1"}
    assert again.summary() == {
        "batches": 1,
        "pending": 0,
        "submitted": 2,
        "completed": 1,
        "failed": 1,
    }
    assert again.results()["k1"].text == "A" and not again.results()["k2"].ok
    again.path.write_text(json.dumps({"version": 99, "batches": []}))
    with pytest.raises(DataError, match="not a bordir batch-state file"):
        BatchState.load(tmp_path)


def test_batch_prices_from_entries_and_discounts(tmp_path):
    prices = load_prices()
    assert prices.batch_lookup("openai/gpt-4o").input == 1.25
    assert prices.batch_lookup("openai/o3-unlisted") is None  # no online price: no batch price
    assert prices.batch_lookup("cohere/command-r-08-2024") is None
    user = tmp_path / "p.toml"
    user.write_text(
        '[models."openai/new"]\ninput = 2.0\noutput = 8.0\n[batch_discount]\n"openai/*" = 0.4\n'
    )
    p = load_prices(user).batch_lookup("openai/new")
    assert (p.input, p.output) == pytest.approx((0.8, 3.2))
    user.write_text('[batch_discount]\n"openai/*" = 2\n')
    with pytest.raises(DataError, match="factor <= 1"):
        load_prices(user)
    user.write_text('[models."openai/x"]\ninput = 1\noutput = 1\nbatch_input = "half"\n')
    with pytest.raises(DataError, match="batch_input"):
        load_prices(user)


def test_cost_summary_and_estimate_at_batch_prices():
    req = GenerationRequest(model="openai/gpt-4o", messages=(Message("user", "Q"),))
    online = GenerationResult(text="A", model="openai/gpt-4o", input_tokens=1000, output_tokens=100)
    batched = GenerationResult(
        text="A",
        model="openai/gpt-4o",
        input_tokens=1000,
        output_tokens=100,
        meta={"batch": "batch_1"},
    )
    assert cost(batched) == pytest.approx(cost(online) / 2)
    (row,) = summarize([(req, online, "uk"), (req, batched, "uk")])
    assert row.calls == 2 and row.batch_calls == 1
    assert row.cost_usd == pytest.approx(cost(online) * 1.5)
    cohere = GenerationRequest(model="cohere/command-r-08-2024", messages=(Message("user", "Q"),))
    (row,) = summarize(
        [
            (
                cohere,
                GenerationResult(
                    text="A", model="x", input_tokens=10, output_tokens=1, meta={"batch": "b"}
                ),
                "en",
            )
        ]
    )
    assert "no batch price" in row.note
    est = estimate([REQ], ["en"], batch=True)
    assert est.rows[0].max_cost_usd == pytest.approx(0.000625)
    assert any("batch prices" in n for n in est.notes)
    assert "no batch price" in estimate([cohere], ["en"], batch=True).rows[0].note
