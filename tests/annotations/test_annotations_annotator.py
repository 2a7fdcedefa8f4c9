"""The LLM annotator: answer parsing, the real openai client against the loopback server, and the real local model."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from bordir.annotations import annotate, annotation_pairs, load_gold, load_labels, parse_label
from bordir.annotations.annotator import (
    build_annotation_request,
    option_text,
    prompt_id,
    render_prompt,
)
from bordir.cli.annotate import agreement_cmd, annotate_cmd
from bordir.generation.cache import ResponseCache
from bordir.loaders import load_demo, load_demo_corpus
from bordir.retrieval.run import retrieve

from ..loopback import Fault, loopback  # noqa: F401  (fixture)

CLAIMANTS = ("Russia", "Ukraine")


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Relevance: relevant\nViewpoint: Ukraine", ("labelled", "relevant", "Ukraine")),
        (
            "**Relevance:** Partially relevant\n**Viewpoint:** neutral",
            ("labelled", "partially_relevant", "neutral"),
        ),
        (
            'Sure! {"relevance": "not relevant", "viewpoint": "N/A"}',
            ("labelled", "not_relevant", "not_applicable"),
        ),
        (
            '```json\n{"Relevance": "relevant", "Stance": "supports Russia"}\n```',
            ("labelled", "relevant", "Russia"),
        ),
        (
            "Relevance: not_relevant\nViewpoint: Russia",
            ("labelled", "not_relevant", "not_applicable"),
        ),
        ("Relevance: relevant\nViewpoint: Spain", ("unparsed", None, None)),
        ("Relevance: relevant", ("unparsed", None, None)),
        ("Relevance: relevant\nViewpoint: not_applicable", ("unparsed", None, None)),
        ("Relevance: very\nViewpoint: neutral", ("unparsed", None, None)),
        ("The document discusses Crimea.", ("unparsed", None, None)),
        ("", ("unparsed", None, None)),
    ],
)
def test_parse_label(text, expected):
    p = parse_label(text, CLAIMANTS)
    assert (p.outcome, p.relevance, p.viewpoint) == expected
    assert (p.note != "") == (
        expected[0] == "unparsed" or "Russia" in text and "not_relevant" in text
    )


def test_the_prompt_names_the_territory_claimants_and_document():
    ds, corpus = load_demo(), load_demo_corpus()
    q, p = ds.query("Senkaku_Islands_ja"), corpus.get("zht", "senkaku_islands_zht_p1")
    text = render_prompt(q, p)
    assert "Territory: Senkaku Islands" in text and p.text in text and q.text in text
    assert (
        "Republic of China | People's Republic of China | Japan | neutral | not_applicable" in text
    )
    req = build_annotation_request(q, p, model="local/x", rank_classification=True)
    assert len(req.options) == 2 * 4 + 1 and req.options[-1] == option_text(
        "not_relevant", "not_applicable"
    )
    assert (
        req.temperature == 0.0
        and req.cache_key() != build_annotation_request(q, p, model="local/x").cache_key()
    )


@pytest.fixture(scope="module")
def hits():
    ds = load_demo()
    queries = [ds.query(q) for q in ("Crimea_uk", "Ceuta_ar", "Kuril_Islands_ja")]
    return retrieve(
        ds,
        load_demo_corpus(),
        "bm25",
        modes="qlang,rel_langs",
        k=2,
        queries=queries,
        progress=False,
    )


def test_annotation_pairs_are_distinct_top_k(hits):
    pairs = annotation_pairs(hits.hits, k=2)
    assert len(pairs) == len(set(pairs)) and 0 < len(pairs) <= 3 * 2 * 2
    assert annotation_pairs(hits.hits, k=2, modes=["qlang"]) == [
        p
        for p in pairs
        if p[1] == {"Crimea_uk": "uk", "Ceuta_ar": "ar", "Kuril_Islands_ja": "ja"}[p[0]]
    ]


def _gold_answering_server(server, *, garble: str):
    """Program the loopback server to answer like the gold labels (JSON or two lines), garbling one document."""
    gold = load_gold("demo")
    corpus = load_demo_corpus()
    by_text = {corpus.get(l.doc_lang, l.doc_id).text: l for l in gold}
    garble_text = corpus.get(*garble).text if garble else None

    def reply(body: dict) -> str:
        prompt = body["messages"][-1]["content"]
        doc = re.search(
            r"Document \(language: \w+\):\n(.*?)\n\nLabel the document", prompt, re.S
        ).group(1)
        if doc == garble_text:
            return "I would rather not label this one."
        l = by_text[doc]
        if len(doc) % 2:
            return json.dumps({"relevance": l.relevance, "viewpoint": l.viewpoint})
        return f"Relevance: {l.relevance}\nViewpoint: {l.viewpoint}"

    server.reply.text = reply


def test_annotate_through_the_loopback_openai_server(loopback, monkeypatch, tmp_path, hits):  # noqa: F811
    monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", loopback.openai_url)
    ds, corpus = load_demo(), load_demo_corpus()
    pairs = annotation_pairs(hits.hits, k=2)
    garble = (pairs[1][1], pairs[1][2])
    _gold_answering_server(loopback, garble=garble)
    loopback.push(Fault.status(400, body="bad request"))  # the first call fails for good
    with ResponseCache(tmp_path / "cache.sqlite3") as cache:
        run = annotate(
            pairs,
            dataset=ds,
            corpus=corpus,
            model="openai-compatible/gpt-4o",
            cache=cache,
            concurrency=1,
            progress=False,
        )
        assert run.calls == {"requests": len(pairs), "cached": 0, "failed": 1}
        outcomes = [l.outcome for l in run.labels]
        assert outcomes[0] == "failed" and "HTTP 400" in run.labels[0].note
        assert outcomes[1] == "unparsed" and run.labels[1].raw.startswith("I would rather")
        assert set(outcomes[2:]) <= {"labelled", "unparsed"} and outcomes.count("labelled") >= len(
            pairs
        ) - 2 - (sum(1 for p in pairs[2:] if (p[1], p[2]) == garble))
        assert str(run.signature).startswith(
            "annotate|gen:openai-compatible/gpt-4o|prompt:relevance_viewpoint@sha256-"
        )
        # the labels file validates, and the labelled pairs agree with the gold
        path = run.labels.write(tmp_path / "llm.jsonl")
        back = load_labels(path, dataset=ds, corpus=corpus)
        gold = load_gold("demo").lookup("relevance")
        assert all(gold[l.pair] == l.relevance for l in back if l.outcome == "labelled")
        body = loopback.bodies("/v1/chat/completions")[-1]
        assert body["temperature"] == 0.0 and body["model"] == "gpt-4o"
        # a re-run is served from the cache, except the failed call (failures are not cached)
        n = loopback.count
        again = annotate(
            pairs,
            dataset=ds,
            corpus=corpus,
            model="openai-compatible/gpt-4o",
            cache=cache,
            progress=False,
        )
        assert loopback.count == n + 1 and again.calls["cached"] == len(pairs) - 1
        assert again.labels[0].outcome == "labelled"


def test_cli_annotate_then_agreement_through_the_loopback_server(
    loopback, monkeypatch, tmp_path, hits
):  # noqa: F811
    monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", loopback.openai_url)
    hits_path = hits.to_parquet(tmp_path / "hits.parquet")
    pairs = annotation_pairs(hits.hits, k=2)
    _gold_answering_server(loopback, garble=(pairs[0][1], pairs[0][2]))
    out = tmp_path / "llm.jsonl"
    res = CliRunner().invoke(
        annotate_cmd,
        [
            str(hits_path),
            "--backend",
            "openai-compatible/gpt-4o",
            "--out",
            str(out),
            "--k",
            "2",
            "--cache",
            str(tmp_path / "c.sqlite3"),
        ],
    )
    assert res.exit_code == 0, res.output
    assert (
        f"wrote {len(pairs)} labels to {out}" in res.output and "signature: annotate|" in res.output
    )
    labels = load_labels(out, dataset=load_demo(), corpus=load_demo_corpus())
    counts = labels.outcome_counts()
    assert counts["unparsed"] >= 1 and counts["labelled"] + counts["unparsed"] == len(pairs)
    meta = json.loads((tmp_path / "llm.jsonl.meta.json").read_text())
    assert (
        meta["signature"].startswith("annotate|")
        and meta["k"] == 2
        and meta["retrieval"].startswith("retrieval|ret:bm25|")
    )

    gold = load_gold("demo")
    wanted = {l.pair for l in labels}
    gold_path = gold.__class__([l for l in gold if l.pair in wanted], name="gold").write(
        tmp_path / "gold.jsonl"
    )
    res = CliRunner().invoke(agreement_cmd, [str(gold_path), str(out), "--resamples", "50"])
    assert res.exit_code == 0, res.output
    row = next(l for l in res.output.splitlines() if l.startswith("relevance  all"))
    assert row.split()[4] == "1.000"  # accuracy on the labelled pairs
    assert f"llm: {counts['labelled']} labelled, {counts['unparsed']} unparsed/failed" in res.output


@pytest.mark.slow
def test_annotate_with_the_real_local_model(local_model):
    ds, corpus = load_demo(), load_demo_corpus()
    pairs = [
        ("Crimea_uk", "uk", "crimea_uk_p0"),
        ("Crimea_en", "en", "crimea_en_p9"),
    ]  # two pairs: ~10 s on 2 CPUs
    run = annotate(pairs, dataset=ds, corpus=corpus, model="local/gemma-3-270m", progress=False)
    assert str(run.signature).startswith("annotate|gen:local/gemma-3-270m|prompt:" + prompt_id())
    assert "method:rank_classification" in str(run.signature)
    # rank classification always yields a valid label (whether it is right is another matter: the model is poor)
    for l in run.labels:
        assert l.outcome == "labelled" and l.raw == option_text(l.relevance, l.viewpoint)
        assert l.viewpoint in ("Russia", "Ukraine", "neutral", "not_applicable")
