"""Option orders: permuted queries in every language and both formats; the country, not the letter, is recorded."""

from __future__ import annotations

import pytest

from bordir.errors import ConfigError
from bordir.generation.parse import parse_answer, parse_citation_response
from bordir.generation.prompts import as_documents, build_request
from bordir.loaders import load_borderlines, load_demo
from bordir.option_orders import (
    OptionOrder,
    OrderError,
    option_spans,
    ordered_queries,
    orders_for,
    parse_schemes,
    permute_query,
    row_in_given_order,
)
from bordir.records import Query


def _check_all(queries):
    for q in queries:
        for order in orders_for(len(q.options), "all"):
            p = permute_query(q, order)
            assert sorted(p.options) == sorted(q.options) and p.query_id == q.query_id
            spans = option_spans(p)
            if spans is None:
                continue
            for j, (a, b) in enumerate(spans):
                # the text right after letter j names the option shown at j (possibly inflected)
                assert (
                    p.text[a - 3 : a].strip().startswith(f"{chr(65 + j)})")
                    or p.text[a - 2 : a] == f"{chr(65 + j)})"
                )
                shown = p.options[j]
                assert p.text[a:b].startswith(shown[: max(2, len(shown) // 2)]), (
                    q.query_id,
                    str(order),
                    p.text,
                )
            # answering the letter of a position names the country shown there
            for j in range(len(p.options)):
                pa = parse_answer(p.option_label(j), p)
                assert pa.outcome == "answered" and pa.choice == j
                assert order.to_given(j) == q.claimants.index(p.claimants[j])


def test_every_demo_query_permutes_in_every_order():
    _check_all(load_demo().queries)


def test_every_borderlines_query_permutes(shared_borderlines):
    ds = load_borderlines(shared_borderlines)
    triples, skipped = ordered_queries(ds.queries, "cyclic")
    assert skipped == {} and len(triples) == sum(len(q.options) for q in ds.queries)
    _check_all(ds.queries[::7])


def test_case_endings_stay_with_their_names_or_their_position():
    ds = load_demo()
    rev = OptionOrder.parse("reversed")
    assert (
        permute_query(ds.query("Imia/Kardak_el"), rev).text
        == "Αποτελούν τα Ίμια έδαφος της A) Τουρκίας ή της B) Ελλάδας;"
    )
    assert permute_query(ds.query("Imia/Kardak_tr"), rev).text.startswith(
        "Kardak, A) Türkiye'nin mı yoksa B) Yunanistan'ın"
    )
    q = Query(
        "T_tr",
        "T",
        "tr",
        "Hatay İli, A) Suriye veya B) Türkiye'nin bir bölgesi midir?",
        ("Suriye", "Türkiye"),
        ("Syria", "Turkey"),
    )
    assert (
        permute_query(q, rev).text == "Hatay İli, A) Türkiye veya B) Suriye'nin bir bölgesi midir?"
    )
    q = Query(
        "T_ru",
        "T",
        "ru",
        "Является ли Т территорией A) России или B) Украины?",
        ("Россия", "Украина"),
        ("Russia", "Ukraine"),
    )
    assert permute_query(q, rev).text == "Является ли Т территорией A) Украины или B) России?"


def test_unlocatable_option_is_a_clear_error():
    q = Query(
        "T_xx",
        "T",
        "en",
        "Is T a territory of A) Foo or B) something else?",
        ("Foo", "Bar"),
        ("Foo", "Bar"),
    )
    with pytest.raises(OrderError, match=r"query T_xx: option B 'Bar' is not written after 'B\)'"):
        permute_query(q, "reversed")
    triples, skipped = ordered_queries([q], "reversed")
    assert [str(o) for _, o, _ in triples] == ["given"] and "T_xx" in skipped
    no_markers = Query("T_yy", "T", "en", "Whose is T?", ("Foo", "Bar"), ("Foo", "Bar"))
    assert permute_query(no_markers, "reversed").options == ("Bar", "Foo")


def test_orders_and_schemes():
    assert [str(o) for o in orders_for(3, "reversed")] == ["given", "reversed"]
    assert [str(o) for o in orders_for(3, "given,cyclic")] == ["given", "1,2,0", "2,0,1"]
    assert len(orders_for(4, "all")) == 24 and str(orders_for(4, "all")[0]) == "given"
    assert OptionOrder.parse("reversed", 3).perm == (2, 1, 0)
    assert parse_schemes(" cyclic , given ") == "given,cyclic"
    with pytest.raises(ConfigError, match="not a permutation"):
        OptionOrder((0, 0))
    with pytest.raises(ConfigError, match="unknown scheme"):
        orders_for(2, "random")


@pytest.mark.parametrize("fmt", ["direct", "citation"])
def test_prompt_and_cache_key_differ_and_answers_map_back(fmt):
    ds = load_demo()
    q = ds.query("Senkaku_Islands_ja")
    docs = as_documents(["尖閣諸島は東シナ海の島々。"], lang="ja")
    reqs = {}
    for order in orders_for(3, "cyclic"):
        p = permute_query(q, order)
        req = build_request(
            p, docs, model="mock/first", response_format=fmt, countries=ds.countries
        )
        reqs[str(order)] = req
        # the model answers the option at letter B in every order
        text = (
            p.option_label(1)
            if fmt == "direct"
            else (
                f"Cited Documents: 0\nChosen Option: {p.option_label(1)}\nExplanation: because <doc0>."
            )
        )
        parsed = (
            parse_answer(text, p)
            if fmt == "direct"
            else parse_citation_response(text, p, 1, documents=docs).answer
        )
        row = row_in_given_order(
            {"choice": parsed.choice, "choice_name": p.claimants[parsed.choice]}, order
        )
        assert row["choice_position"] == 1 and row["option_order"] == str(order)
        assert q.claimants[row["choice"]] == row["choice_name"] == p.claimants[1]
    keys = {r.cache_key() for r in reqs.values()}
    prompts = {r.messages[1].content for r in reqs.values()}
    assert len(keys) == len(prompts) == 3
    assert (
        "A) 日本" in reqs["1,2,0"].messages[1].content.split("Options:")[1]
        or "A) 日本" in reqs["2,0,1"].messages[1].content.split("Options:")[1]
    )
