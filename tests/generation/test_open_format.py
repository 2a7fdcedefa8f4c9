"""The open response format: the territory question without options, in every BorderLines query language."""

from __future__ import annotations

import csv

import pytest

from bordir.errors import ConfigError
from bordir.generation.open_question import (
    check_open_languages,
    open_languages,
    open_question,
    open_templates,
    territory_name,
    territory_names_of,
)
from bordir.generation.prompts import (
    DEFAULT_MAX_TOKENS,
    as_documents,
    build_request,
    prompt_id,
    render,
)
from bordir.loaders import load_demo
from bordir.records import Query


def _borderlines_templates(root):
    with open(root / "templates_q.tsv", encoding="utf-8") as f:
        return {r["code"]: r["template"] for r in csv.DictReader(f, delimiter="\t")}


def test_one_question_per_borderlines_language_derived_from_its_template(shared_borderlines):
    templates = _borderlines_templates(shared_borderlines)
    assert set(open_languages()) == set(templates) and len(templates) == 49
    for code, tmpl in templates.items():
        y, z = tmpl.index("YY"), tmpl.index("ZZ") + 2
        frame = (tmpl[:y] + "{options}" + tmpl[z:]).replace("XX", "{territory}")
        assert open_templates()[code].frame == frame, code  # the frame is BorderLines' own template


def test_every_borderlines_language_renders_without_options(shared_borderlines):
    from bordir.loaders.borderlines import load_borderlines

    ds = load_borderlines(str(shared_borderlines), repair=True)
    seen = {}
    for q in ds.queries:  # all 720: every query's territory name is read with its language's frame
        text = open_question(q)
        assert "A)" not in text and "B)" not in text, q.query_id
        rest = text.replace(territory_name(q), "")  # a territory may be named after a claimant
        assert not any(o in rest for o in q.options if len(o) > 3), (q.query_id, text)
        seen.setdefault(q.lang, text)
    assert len(seen) == 49
    for lang, text in seen.items():  # each renders in a full prompt, with and without documents
        q = next(q for q in ds.queries if q.lang == lang)
        user = render(q, (), response_format="open", no_ir=True)[1].content
        assert text in user and "Options:" not in user
        docs = as_documents(["x"], lang=lang)
        assert text in render(q, docs, response_format="open")[1].content


def test_demo_queries_render_with_the_shipped_territory_names():
    ds = load_demo()
    names = territory_names_of(ds)
    texts = {q.query_id: open_question(q, names=names) for q in ds.queries}
    assert texts["Crimea_ru"] == "Территорией какой страны является Крым?"
    assert texts["Ceuta_ar"] == "سبتة هي أراضي أي دولة؟"
    assert all("A)" not in t for t in texts.values())


def test_a_query_off_its_template_is_refused_naming_it():
    q = load_demo().query("Ceuta_ar")
    with pytest.raises(ConfigError, match=r"query Ceuta_ar \(ar\).*territory_names.tsv"):
        open_question(q)


def test_a_language_without_a_template_is_refused_at_plan_time():
    from bordir.runner.grid import check_open_queries

    ds = load_demo()
    q = Query("Dokdo_dz", "Dokdo", "dz", "Dokdo A) X B) Y", ("X", "Y"), ("Japan", "South Korea"))
    with pytest.raises(ConfigError, match="no question template for query language dz"):
        check_open_queries([q], ds)
    with pytest.raises(ConfigError, match="dz, xx"):
        check_open_languages(["xx", "dz", "ru"])


def test_open_request_has_no_options_and_its_own_max_tokens():
    q = load_demo().query("Crimea_uk")
    names = territory_names_of(load_demo())
    r = build_request(
        q, (), model="local/gemma-3-270m", response_format="open", no_ir=True, territory_names=names
    )
    assert r.options == () and r.max_tokens == DEFAULT_MAX_TOKENS["open"] == 256
    assert r.response_format == "open"
    assert (
        "Чи є" not in r.messages[1].content
        and "Крим є територією якої країни?" in r.messages[1].content
    )
    direct = build_request(q, (), model="local/gemma-3-270m", no_ir=True)
    assert direct.options and direct.cache_key() != r.cache_key()
    assert prompt_id(response_format="open").startswith("fmt:open|")
    with pytest.raises(ConfigError, match="English"):
        render(
            q, (), response_format="open", no_ir=True, instruction_lang="ru", territory_names=names
        )
