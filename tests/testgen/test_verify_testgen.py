"""Independent checks of the RAG-Tester test generation on documents the other testgen tests do not have.

A three-page PDF written here with fpdf2 (header, footer with page numbers, justified multi-cells, a table),
an HTML page with nav / script / style / footer noise, a Markdown file with tables; chunk provenance,
full coverage and negative questions; and malformed judge outputs, which must be ``unparsed`` (never a pass).
"""

from __future__ import annotations

import pytest

from bordir.testgen import generate_suite, load_chunks, parse_judgment
from bordir.testgen.sources import chunks_from_file

PAGES = [
    [
        "Page one tells of the Zorbian strait. Ferries named Alpha cross it every morning at dawn.",
        "The harbour master of Quorl keeps a ledger of every crossing since 1871.",
    ],
    [
        "Page two describes the Vantrel copper mines. Gamma shafts reach four hundred metres.",
        "Miners of Vantrel speak a dialect full of words for rock.",
    ],
    [
        "Page three is about the Lirra lighthouse. Its lamp was lit first in 1902.",
        "Keepers of Lirra change every seven years by custom.",
    ],
]


def _pdf(path):
    fpdf = pytest.importorskip("fpdf")

    class Doc(fpdf.FPDF):
        def header(self):
            self.set_font("Helvetica", "B", 9)
            self.cell(0, 8, "Gazetteer of imaginary places", align="R")
            self.ln(12)

        def footer(self):
            self.set_y(-12)
            self.set_font("Helvetica", size=8)
            self.cell(0, 8, f"Page {self.page_no()}", align="C")

    pdf = Doc(format=(148, 210))
    pdf.set_margins(18, 14, 18)
    for paras in PAGES:
        pdf.add_page()
        pdf.set_font("Times", size=11)
        for p in paras:
            pdf.multi_cell(0, 6, p, align="J")
            pdf.ln(8)
    pdf.output(str(path))
    return path


@pytest.mark.slow
def test_multi_page_pdf_chunks_carry_their_page(tmp_path):
    pytest.importorskip("pypdf")
    chunks = chunks_from_file(_pdf(tmp_path / "gazetteer.pdf"))
    assert len({c.chunk_id for c in chunks}) == len(chunks)
    assert [c.index for c in chunks] == list(range(len(chunks)))
    text = {p: " ".join(c.text for c in chunks if c.page == p) for p in (1, 2, 3)}
    for page, keys in (
        (1, ("Zorbian", "Quorl")),
        (2, ("Vantrel", "Gamma")),
        (3, ("Lirra", "1902")),
    ):
        for k in keys:
            assert k in text[page], (page, k, text)
            assert all(k not in text[o] for o in (1, 2, 3) if o != page)
    assert all(c.source.endswith("gazetteer.pdf") and c.doc == "gazetteer" for c in chunks)


HTML = """<!doctype html><html><head><title>T</title><style>p {color: red}</style>
<script>var secretToken = "do-not-index"; function track() {}</script></head>
<body><nav><a href="/">Home</a> | <a href="/about">About us</a></nav>
<header><p>Site banner: subscribe now</p></header>
<main><h1>Orsk ferries</h1><p>The Orsk ferry carries <b>sixty</b> cars.</p>
<div class="ad"><script>document.write("buy now")</script></div>
<p>It sails twice a day to Pelm.</p><table><tr><td>Route</td><td>Orsk–Pelm</td></tr></table></main>
<footer>© 2026 Example Corp</footer><noscript>Enable JavaScript</noscript></body></html>"""

MD = """# Tolm valley

| Village | Population |
|---------|-----------:|
| Arvo    | 120        |
| Bessa   | 340        |

The **Tolm** river floods every spring.

## Bridges

- The Arvo bridge is made of stone.
- The Bessa bridge is wooden.
"""


def test_html_and_markdown_noise_is_removed(tmp_path):
    pytest.importorskip("markdown_it")
    (tmp_path / "ferries.html").write_text(HTML, encoding="utf-8")
    (tmp_path / "tolm.md").write_text(MD, encoding="utf-8")
    h = " ".join(c.text for c in chunks_from_file(tmp_path / "ferries.html"))
    for noise in (
        "secretToken",
        "do-not-index",
        "buy now",
        "About us",
        "subscribe",
        "Example Corp",
        "color",
        "JavaScript",
    ):
        assert noise not in h, noise
    assert "The Orsk ferry carries sixty cars." in h and "Pelm" in h
    m = [c.text for c in chunks_from_file(tmp_path / "tolm.md")]
    joined = " ".join(m)
    assert "|" not in joined and "---" not in joined and "**" not in joined
    assert (
        "Arvo 120" in joined
        and "Bessa 340" in joined
        and "The Tolm river floods every spring." in joined
    )


def test_full_coverage_and_negatives_on_mixed_files(tmp_path):
    pytest.importorskip("pypdf")
    pytest.importorskip("markdown_it")
    _pdf(tmp_path / "gazetteer.pdf")
    (tmp_path / "ferries.html").write_text(HTML, encoding="utf-8")
    (tmp_path / "tolm.md").write_text(MD, encoding="utf-8")
    chunks = load_chunks(
        [tmp_path / "gazetteer.pdf", tmp_path / "ferries.html", tmp_path / "tolm.md"]
    )
    by_id = {c.chunk_id: c for c in chunks}
    cov = generate_suite(chunks, strategies=("coverage",), n=1, full_coverage=True, seed=3)
    assert set(cov.coverage()) == set(by_id)
    # every chunk is the source of a test but a page footer ("Page 3": stop words only, counted)
    unused = {cid for cid, n in cov.coverage().items() if not n}
    assert {by_id[c].text for c in unused} <= {"Page 1", "Page 2", "Page 3"}
    assert cov.outcomes["coverage"].get("no_keywords", 0) == len(unused) <= 1
    neg = generate_suite(chunks, strategies=("negative",), n=6, seed=4)
    assert neg.tests
    for t in neg.tests:
        assert t.negative
        if t.negative_method == "absent":  # asks about an anchor that no chunk mentions
            anchor = dict(t.meta)["anchor"].casefold()
            assert all(anchor not in c.text.casefold() for c in chunks), t
        else:
            assert t.negative_method == "cross" and t.generated_from not in t.source_chunk_ids, t
            src = by_id[t.generated_from]
            assert src.doc in t.withheld_docs and all(
                by_id[s].doc != src.doc for s in t.source_chunk_ids
            )


C = (
    '"faithfulness": "%s", "relevance": "True", "completeness": "True", "clarity": "True", '
    '"keyword_match": "True"'
)
MALFORMED = [
    '{"faithfulness": "True", "relevance": "True", "completeness": "Tr',  # truncated
    '{"faithfulness": "False", "relevance": "True", "completeness": "True", "clarity": "True", '
    '"keyword_match": "True", "faithfulness": "True"}',  # a criterion twice
    "Format: {" + C % "True" + "}\nMy rating: {" + C % "False" + "}",  # echoed example first
    "{" + C % "True or False" + "}",
    "{" + C % "N/A" + "}",
    "{" + C % "True, but" + "}",
    "{'faithfulness': 'True', 'relevance': 'True', 'completeness': 'True', 'clarity': 'True', "
    "'keyword_match': 'True'}",  # not JSON
    "Faithfulness: True\nRelevance: True\nCompleteness: True\nClarity: True\nKeyword match: True",
    '{"faithfulness": 1, "relevance": 1, "completeness": 1, "clarity": 1, "keyword_match": 1}',
    '{"keyword match": "True"}',
    "",
    "   ",
    "{}",
    '{"ratings": []}',
]


@pytest.mark.parametrize("text", MALFORMED)
def test_malformed_judge_outputs_are_unparsed(text):
    j = parse_judgment(text)
    assert j.outcome == "unparsed" and j.verdict is None, j


def test_agreeing_repeats_still_parse():
    j = parse_judgment("```json\n{" + C % "True" + "}\n```\nagain: {" + C % "yes" + "}")
    assert j.outcome == "judged" and j.verdict == "pass"
