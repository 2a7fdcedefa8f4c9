"""Test generation: document sources (a real PDF, HTML, Markdown, the demo corpus), chunking, readability,
the strategies (complex, negative by both methods, coverage to every chunk, baseline), the JSONL format,
and the LLM generator and document writer through the loopback OpenAI-protocol server."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from bordir.errors import DataError
from bordir.generation.cache import ResponseCache
from bordir.retrieval.analysis import analyze
from bordir.testgen import chunks_from_file, generate_suite, load_chunks, read_suite, write_suite
from bordir.testgen.generators import LLMGenerator
from bordir.testgen.keywords import present
from bordir.testgen.phrases import IDK, is_yes_no
from bordir.testgen.readability import complexity
from bordir.testgen.suite import complexity_order
from bordir.testgen.testcase import read_tests

from ..loopback import loopback  # noqa: F401  (fixture)

PAGES = [
    [
        "The Zorbian Strait separates two large islands. Ferries have crossed it since 1887.",
        "Its deepest point, the Quorl Trench, reaches 1,240 metres below the surface.",
    ],
    [
        "Fishing cooperatives manage the strait's herring stocks through seasonal quotas.",
        "A lighthouse built of basalt guards the northern entrance.",
    ],
]


def write_pdf(path, pages=PAGES):
    """A real PDF with fpdf2: one page per list, one paragraph per string."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("helvetica", size=11)
    for paras in pages:
        pdf.add_page()
        for para in paras:
            pdf.multi_cell(0, 6, para)
            pdf.ln(6)
    pdf.output(str(path))
    return path


@pytest.fixture(scope="module")
def demo_chunks():
    return load_chunks(["demo"])


def test_pdf_chunks_keep_page_and_index(tmp_path):
    chunks = chunks_from_file(write_pdf(tmp_path / "strait.pdf"))
    assert [c.page for c in chunks] == [1, 1, 2, 2] and [c.index for c in chunks] == [0, 1, 2, 3]
    assert [c.chunk_id for c in chunks] == [f"strait#{i}" for i in range(4)]
    assert chunks[0].text == PAGES[0][0] and chunks[3].text == PAGES[1][1]
    assert {c.doc for c in chunks} == {"strait"} and chunks[0].source.endswith("strait.pdf")
    by_tokens = chunks_from_file(tmp_path / "strait.pdf", by="tokens", max_tokens=12)
    assert all(len(analyze(c.text, "en")) <= 12 or "." not in c.text[:-1] for c in by_tokens)
    assert len(by_tokens) > 4
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4 not really")
    with pytest.raises(DataError, match="broken.pdf"):
        chunks_from_file(tmp_path / "broken.pdf")


def test_html_markdown_and_text_sources(tmp_path):
    (tmp_path / "page.html").write_text(
        "<html><head><title>x</title><style>p{}</style></head><body><nav>Menu</nav><h1>Ohrid</h1>"
        "<p>Lake Ohrid is <b>deep</b>.</p><div>It is old.</div><script>var a;</script></body></html>"
    )
    (tmp_path / "notes.md").write_text(
        "# Prespa\n\nLake **Prespa** lies [higher](http://x).\n\n- It has islands.\n"
    )
    (tmp_path / "plain.txt").write_text("Одна строка.\n\nДругая строка.", encoding="utf-8")
    html = chunks_from_file(tmp_path / "page.html")
    assert [c.text for c in html] == ["Ohrid\nLake Ohrid is deep.", "It is old."]  # headings merged
    md = chunks_from_file(tmp_path / "notes.md")
    assert [c.text for c in md] == ["Prespa\nLake Prespa lies higher.", "It has islands."]
    txt = chunks_from_file(tmp_path / "plain.txt", lang="ru")
    assert [c.text for c in txt] == ["Одна строка.", "Другая строка."] and txt[0].lang == "ru"
    both = load_chunks([tmp_path], lang="en")  # a folder of files
    assert {c.doc for c in both} == {"page", "notes", "plain"}
    with pytest.raises(DataError, match="unknown document type"):
        chunks_from_file(tmp_path / "x.docx") if (tmp_path / "x.docx").write_text("x") else None


def test_demo_corpus_chunks(demo_chunks):
    assert len(demo_chunks) == 383 and len({c.chunk_id for c in demo_chunks}) == 383
    assert len({c.lang for c in demo_chunks}) == 15
    c = demo_chunks[0]
    assert (
        c.chunk_id == "en:crimea_en_p0"
        and c.doc == "en:Crimea"
        and dict(c.meta)["doc_id"] == "crimea_en_p0"
    )


@pytest.mark.slow
def test_flesch_for_english_and_the_proxy_elsewhere(demo_chunks):
    from scipy.stats import spearmanr

    easy = complexity("The cat sat on the mat. The dog ran.", "en")
    hard = complexity(
        "Notwithstanding considerable jurisdictional ambiguity, international arbitration "
        "institutions systematically reinterpreted territorial sovereignty.",
        "en",
    )
    assert easy.method == "flesch" and easy.score > 90 and hard.score < 0
    assert complexity("尖閣諸島は沖縄県に属する。", "ja").method == "proxy"
    en = [c for c in demo_chunks if c.lang == "en"]
    flesch = [complexity(c.text, "en").score for c in en]
    proxy = [complexity(c.text, "en", method="proxy").score for c in en]
    rho = spearmanr(flesch, proxy).statistic
    assert rho > 0.3, rho  # the proxy ranks English chunks like Flesch does (weakly)


@pytest.mark.slow  # seconds of work: the end-to-end tier
def test_complex_strategy_takes_the_hardest_chunks_of_each_language(demo_chunks):
    order = complexity_order(demo_chunks)
    suite = generate_suite(demo_chunks, strategies="complex", n=30, seed=1)
    assert len(suite) == 30 and {t.strategy for t in suite} == {"complex"}
    by_lang = {}
    for c, score, _ in order:
        by_lang.setdefault(c.lang, []).append(score)
    for t in suite:
        scores = sorted(by_lang[t.lang])
        # every complex test's chunk is in the hardest quarter of its language
        assert t.complexity <= scores[len(scores) // 4], (t.lang, t.complexity)
    assert len({t.lang for t in suite}) >= 10


def test_negative_questions_do_not_come_from_their_source_chunk(demo_chunks):
    suite = generate_suite(demo_chunks, strategies="negative", n=40, seed=7)
    by_id = {c.chunk_id: c for c in demo_chunks}
    methods = {t.negative_method for t in suite}
    assert methods == {"absent", "cross"} and len(suite) == 40
    for t in suite:
        src = by_id[t.source_chunk_ids[0]]
        anchor = dict(t.meta)["anchor"]
        assert t.negative and t.keywords == () and t.expected_answer == IDK[t.lang]
        assert not present(src.text, anchor, t.lang), (t.test_id, anchor)  # not in the source chunk
        searchable = [c for c in demo_chunks if c.doc not in t.withheld_docs]
        assert not any(present(c.text, anchor, c.lang) for c in searchable if c.lang == t.lang)
        if t.negative_method == "cross":
            gen = by_id[t.generated_from]
            assert (
                gen.doc != src.doc
                and t.withheld_docs == (gen.doc,)
                and present(gen.text, anchor, t.lang)
            )
        else:
            assert t.generated_from == src.chunk_id and t.withheld_docs == ()


def test_coverage_reaches_every_chunk_of_a_small_corpus(tmp_path):
    write_pdf(tmp_path / "strait.pdf")
    (tmp_path / "lakes.md").write_text(
        "# Lakes\n\nLake Ohrid is among Europe's oldest lakes.\n\n"
        "Lake Prespa drains into Ohrid through karst channels.\n"
    )
    chunks = load_chunks([tmp_path])
    suite = generate_suite(chunks, strategies="coverage", n=2, full_coverage=True, seed=3)
    assert suite.coverage_rate() == 1.0 and set(suite.coverage().values()) == {1}
    assert suite.outcomes["coverage"]["unused_chunks"] == 0
    partial = generate_suite(chunks, strategies="coverage", n=3, seed=3)
    assert len(partial) == 3 and len({t.source_chunk_ids for t in partial}) == 3


def test_mixed_suite_one_test_per_chunk_no_yes_no_and_jsonl_roundtrip(tmp_path, demo_chunks):
    suite = generate_suite(demo_chunks, strategies="complex,negative,coverage", n=50, seed=2)
    assert [
        len([t for t in suite if t.strategy == s]) for s in ("complex", "negative", "coverage")
    ] == [17, 17, 16]
    sources = [t.source_chunk_ids[0] for t in suite]
    assert len(set(sources)) == len(sources)  # each chunk serves one test
    assert not any(is_yes_no(t.question, t.lang) for t in suite)
    assert all(t.keywords for t in suite if not t.negative)
    path = write_suite(suite, tmp_path / "tests.jsonl")
    back = read_suite(path)
    assert back.tests == suite.tests and len(back.chunks) == len(demo_chunks)
    meta = json.loads((tmp_path / "tests.jsonl.meta.json").read_text())
    assert meta["signature"].startswith(
        "testgen|strategies:complex+negative+coverage|n:50|neg:absent+cross|seed:2|"
    )
    again = generate_suite(demo_chunks, strategies="complex,negative,coverage", n=50, seed=2)
    assert again.tests == suite.tests  # deterministic


def test_baseline_draws_with_replacement_and_no_strategy(demo_chunks):
    suite = generate_suite(demo_chunks, strategies="baseline", n=120, seed=5)
    assert len(suite) == 120 and {t.strategy for t in suite} == {"baseline"}
    assert not any(t.negative for t in suite) and all(t.complexity is None for t in suite)
    srcs = [t.source_chunk_ids[0] for t in suite]
    assert len(set(srcs)) < len(
        srcs
    )  # with replacement: 120 draws from 383 chunks repeat (p > 1 - 1e-7)


def test_bad_tests_file_names_line_and_field(tmp_path):
    path = tmp_path / "t.jsonl"
    good = {
        "test_id": "a",
        "lang": "en",
        "strategy": "coverage",
        "question": "What?",
        "expected_answer": "X",
        "keywords": ["X"],
        "source_chunk_ids": ["d#0"],
        "generated_from": "d#0",
    }
    path.write_text(
        json.dumps(good) + "\n" + json.dumps({**good, "test_id": "b", "strategy": "clever"}) + "\n"
    )
    with pytest.raises(DataError, match=r"t.jsonl:2: field 'strategy': expected one of complex"):
        read_tests(path)
    path.write_text(json.dumps({**good, "negative": True}) + "\n")
    with pytest.raises(DataError, match="field 'negative_method'"):
        read_tests(path)


def _llm_server(server):
    """Answer the generator's prompts like a careful LLM (JSON), except one yes/no and one garbled answer."""

    def reply(body):
        prompt = body["messages"][-1]["content"]
        passage = prompt.split("Passage (", 1)[1].split("\n", 1)[1].rsplit("\n\nAnswer with", 1)[0]
        if "Quorl" in passage:
            return "Is the trench deep?"  # not JSON
        if "herring" in passage:
            return json.dumps(
                {"question": "Is herring fished there?", "answer": "Yes.", "keywords": ["herring"]}
            )
        if "does NOT" in prompt:
            return json.dumps({"question": "What is the ferry fare in 1990?"})
        first = passage.split(".")[0]
        return (
            "```json\n"
            + json.dumps(
                {
                    "question": f"What does the passage say about {first.split()[-1]}?",
                    "answer": first + ".",
                    "keywords": first.split()[-2:],
                }
            )
            + "\n```"
        )

    server.reply.text = reply


def test_llm_generator_through_the_loopback_server(loopback, monkeypatch, tmp_path):  # noqa: F811
    monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", loopback.openai_url)
    _llm_server(loopback)
    chunks = chunks_from_file(write_pdf(tmp_path / "strait.pdf"))
    with ResponseCache(tmp_path / "c.sqlite3") as cache:
        gen = LLMGenerator(chunks, "openai-compatible/gen-model", cache=cache)
        suite = generate_suite(
            chunks, strategies="coverage", n=4, full_coverage=True, generator=gen, seed=1
        )
        assert suite.outcomes["coverage"] == {
            "made": 2,
            "unparsed": 1,
            "unused_chunks": 2,
            "yes_no": 1,
        }
        assert {t.source_chunk_ids[0] for t in suite} == {"strait#0", "strait#3"}
        assert all(t.generator == "llm:openai-compatible/gen-model" for t in suite)
        assert suite.meta["signature"].startswith(
            "testgen|strategies:coverage|n:4|full_coverage:yes|seed:1|"
            "gen:openai-compatible/gen-model|temp:0.0|prompt:testgen@sha256-"
        )
        neg = generate_suite(
            chunks, strategies="negative", n=2, generator=gen, seed=1, negative_methods=["absent"]
        )
        assert [t.question for t in neg] == ["What is the ferry fare in 1990?"] * len(neg) and len(
            neg
        ) >= 1
        n = loopback.count
        generate_suite(
            chunks, strategies="coverage", n=4, full_coverage=True, generator=gen, seed=1
        )
        assert loopback.count == n  # every call came from the cache


def test_llm_written_documents_through_the_loopback_server(loopback, monkeypatch, tmp_path):  # noqa: F811
    from bordir.testgen.writer import write_documents

    monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", loopback.openai_url)
    loopback.reply.text = lambda body: (
        "# Озеро Охрид\n\nОхрид — одно из древнейших озёр Европы.\n\n"
        "## Природа\n\nВ озере живут эндемичные виды."
    )
    with ResponseCache(tmp_path / "c.sqlite3") as cache:
        docs = write_documents(
            ["Lake Ohrid"], lang="ru", model="openai-compatible/writer", cache=cache, copies=2
        )
        assert len(docs.documents) == 2 and not docs.failed
        assert [c.text for c in docs.chunks[:2]] == [  # each heading titles its paragraph
            "Озеро Охрид\nОхрид — одно из древнейших озёр Европы.",
            "Природа\nВ озере живут эндемичные виды.",
        ]
        assert {c.lang for c in docs.chunks} == {"ru"} and docs.chunks[
            0
        ].source == "llm:openai-compatible/writer"
        bodies = loopback.bodies("/v1/chat/completions")
        assert all("in Russian" in b["messages"][0]["content"] for b in bodies)
        assert sorted(b.get("seed") for b in bodies) == [0, 1]  # one seed per copy
        paths = docs.save(tmp_path / "docs")
        assert [c.text for c in chunks_from_file(paths[0], lang="ru")][:1] == [
            "Озеро Охрид\nОхрид — одно из древнейших озёр Европы.",
        ]
        suite = generate_suite(docs.chunks, strategies="coverage", n=1, full_coverage=True)
        assert suite.coverage_rate() == 1.0 and all(t.lang == "ru" for t in suite)
    from bordir.cli import testgen as tg_cli

    out = tmp_path / "w.jsonl"
    res = CliRunner().invoke(
        tg_cli.testgen_cmd,
        [
            "--write",
            "Lake Ohrid",
            "--writer",
            "openai-compatible/writer",
            "--write-lang",
            "ru",
            "--strategies",
            "coverage",
            "--full-coverage",
            "--out",
            str(out),
            "--cache",
            str(tmp_path / "c.sqlite3"),
        ],
    )
    assert res.exit_code == 0, res.output
    assert (
        "2 chunks, 100.0% used by a test" in res.output  # a heading and its paragraph: one chunk
        and (tmp_path / "w.docs" / "llm-ru-lake-ohrid-0.md").is_file()
    )
    assert {t.lang for t in read_tests(out)} == {"ru"}


@pytest.mark.slow
def test_cli_testgen_on_the_demo_corpus(tmp_path):
    from bordir.cli import testgen as tg_cli

    out = tmp_path / "tests.jsonl"
    res = CliRunner().invoke(
        tg_cli.testgen_cmd,
        ["demo", "--strategies", "complex,negative,coverage", "--n", "50", "--out", str(out)],
    )
    assert res.exit_code == 0, res.output
    assert (
        "wrote 50 tests to" in res.output
        and "signature: testgen|strategies:complex+negative+coverage|n:50|" in res.output
    )
    assert len(read_tests(out)) == 50 and (tmp_path / "tests.chunks.jsonl").is_file()
    res = CliRunner().invoke(
        tg_cli.testgen_cmd, ["demo", "--strategies", "complex,baseline", "--out", str(out)]
    )
    assert res.exit_code != 0 and "baseline generator has no strategies" in str(res.exception)


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_WORDS = st.lists(
    st.sampled_from(["Crimea", "island", "Sea.", "peninsula,", "1945.", "claim", "the", "Kuril!"]),
    min_size=1,
    max_size=40,
)


@settings(max_examples=50, deadline=None)
@given(
    st.lists(_WORDS, min_size=1, max_size=4),
    st.integers(min_value=1, max_value=12),
    st.sampled_from(["paragraph", "tokens"]),
)
def test_chunking_keeps_every_word_in_order(paragraphs, max_tokens, by):
    from bordir.testgen.chunks import split_text

    text = "\n\n".join(" ".join(p) for p in paragraphs)
    chunks = split_text(text, "en", by=by, max_tokens=max_tokens)
    assert " ".join(chunks).split() == text.split()
