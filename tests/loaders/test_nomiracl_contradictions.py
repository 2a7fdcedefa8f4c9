"""NoMIRACL data that says two things at once is refused (the file is wrong) or its queries left out with their ids.

Each case edits one file of a small NoMIRACL copy on disk (``tests/nomiracl_files.py``) and reads
it through ``bordir data info nomiracl``. Refused: exit 2, one line naming file, line and field.
Left out: exit 0, a warning naming the query ids, and the counts without them. Before, every
case was read without a word (``warnings: 0``), and a byte-order mark in ``corpus.jsonl``
was refused.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import bordir
from bordir.errors import DataError

from ..conftest import invoke_cli
from ..nomiracl_files import write_nomiracl, write_rows


@pytest.fixture
def data(tmp_path):
    return write_nomiracl(tmp_path / "nomiracl", ("sw",))


def _info(root: Path):
    return invoke_cli(
        "data", "info", "nomiracl", "--path", str(root), "--lang", "sw", "--split", "test", "--json"
    )


def _edit(f: Path, change) -> None:
    lines = f.read_text(encoding="utf-8").splitlines()
    f.write_text("\n".join(change(lines)) + "\n", encoding="utf-8")


def _set(lines: list[str], n: int, text: str) -> list[str]:
    lines[n - 1] = text
    return lines


def _corpus_line(docid: str, text: str) -> str:
    return json.dumps({"docid": docid, "title": "Title 0", "text": text}, ensure_ascii=False)


REFUSED = {
    "relevance 2": (
        "qrels/test.relevant.tsv",
        lambda ls: _set(ls, 3, "swtr0\tQ0\tswtr0#2\t2"),
        ":3: field 'relevance': expected a relevance of 0 or 1 (NoMIRACL's judgments are binary), found '2'",
    ),
    "relevance -1": (
        "qrels/test.non_relevant.tsv",
        lambda ls: _set(ls, 1, "swtn0\tQ0\tswtn0#0\t-1"),
        ":1: field 'relevance': expected a relevance of 0 or 1",
    ),
    "one pair judged 0 and 1": (
        "qrels/test.relevant.tsv",
        lambda ls: [*ls, "swtr0\tQ0\tswtr0#4\t1"],
        ":40: field 'relevance': query 'swtr0', passage 'swtr0#4' is judged 0 on line 5 and 1 here",
    ),
    "a query id with two texts": (
        "topics/test.non_relevant.tsv",
        lambda ls: [*ls, "swtn1\tAnother question?"],
        ":5: field 'query_id': query id 'swtn1' is also on line 2 with another text",
    ),
    "an empty query": (
        "topics/test.relevant.tsv",
        lambda ls: _set(ls, 2, "swtr1\t  "),
        ":2: field 'query': query 'swtr1' is empty",
    ),
    "one docid, two texts": (
        "corpus.jsonl",
        lambda ls: [*ls, _corpus_line("swtn0#0", "Another text")],
        "field 'docid': docid 'swtn0#0' is also on line 1 with another text",
    ),
    "a NUL in a passage": (
        "corpus.jsonl",
        lambda ls: _set(ls, 2, _corpus_line("swtn0#1", "Text\x00 1")),
        ":2: field 'text': contains a NUL character",
    ),
    # what a reader would otherwise cut or take for something else (issue 45, second pass)
    "a topic with three columns": (
        "topics/test.relevant.tsv",
        lambda ls: _set(ls, 2, "swtr1\tSwali 1?\tmore of it"),
        ":2: field 'query': expected query_id<TAB>query, found 3 columns",
    ),
    "a judgment with five columns": (
        "qrels/test.relevant.tsv",
        lambda ls: _set(ls, 3, "swtr0\tQ0\tswtr0#2\t1\t0"),
        ":3: field 'relevance': expected 4 tab-separated columns (query_id, Q0, docid, relevance), found 5",
    ),
    "a judgment without a docid": (
        "qrels/test.relevant.tsv",
        lambda ls: _set(ls, 2, "swtr0\tQ0\t \t0"),
        ":2: field 'docid': the docid is empty",
    ),
    "a query of invisible characters": (
        "topics/test.relevant.tsv",
        lambda ls: _set(ls, 2, "swtr1\t\u200b\u2060 \u200b"),
        ":2: field 'query': query 'swtr1' is empty",
    ),
    "a NUL in a topic": (
        "topics/test.relevant.tsv",
        lambda ls: _set(ls, 1, "swtr0\tSwali\x00?"),
        ":1: field 'query': contains a NUL character",
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_contradictions_in_a_file_are_refused(data, case):
    name, change, message = REFUSED[case]
    f = data / "sw" / name
    _edit(f, change)
    res = _info(data)
    err = res.stderr.strip()
    assert res.returncode == 2 and res.stdout == "", (res.returncode, err)
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert err.startswith(f"bordir: error: {f}") and message in err, err


def test_a_relevant_judgment_in_the_non_relevant_subset_leaves_the_query_out(data):
    _edit(
        data / "sw" / "qrels" / "test.non_relevant.tsv",
        lambda ls: [x.replace("swtn1#3\t0", "swtn1#3\t1") for x in ls],
    )
    res = _info(data)
    assert res.returncode == 0, res.stderr
    info = json.loads(res.stdout)
    assert info["queries_non_relevant"] == 3 and info["queries_relevant"] == 4
    (w,) = info["warnings"]
    assert w.startswith("non_relevant: 1 query(ies) have a passage judged relevant (1)")
    assert "left out: swtn1 (" in w and "qrels/test.non_relevant.tsv" in w
    text = invoke_cli(
        "data", "info", "nomiracl", "--path", str(data), "--lang", "sw", "--split", "test"
    ).stdout
    assert "warnings: 1\n  - non_relevant: 1 query(ies)" in text


def test_a_relevant_query_without_a_relevant_passage_is_left_out(data):
    _edit(
        data / "sw" / "qrels" / "test.relevant.tsv",
        lambda ls: [x.replace("swtr2#2\t1", "swtr2#2\t0") for x in ls],
    )
    ds = bordir.load_dataset("nomiracl", path=data, lang="sw", split="test")
    assert "swtr2" not in {q.query_id for q in ds.subset("relevant")}
    assert len(ds.subset("relevant")) == 3
    assert ds.warnings[0].startswith(
        "relevant: 1 query(ies) have no passage judged relevant, which the relevant subset needs; "
        "left out: swtr2"
    )


def test_swapped_subset_files_are_refused(data):
    d = data / "sw" / "qrels"
    rel, non = (d / "test.relevant.tsv").read_text(), (d / "test.non_relevant.tsv").read_text()
    (d / "test.relevant.tsv").write_text(non.replace("swtn", "swtr"))
    (d / "test.non_relevant.tsv").write_text(rel.replace("swtr", "swtn"))
    with pytest.raises(DataError, match=r"every query of the non_relevant subset \(4\) has a "):
        bordir.load_dataset("nomiracl", path=data, lang="sw", split="test")


def test_a_byte_order_mark_and_repeated_lines_are_accepted(data):
    _edit(data / "sw" / "qrels" / "test.relevant.tsv", lambda ls: [*ls, ls[4]])  # same value
    _edit(data / "sw" / "topics" / "test.relevant.tsv", lambda ls: [*ls, ls[0]])
    for name in ("corpus.jsonl", "topics/test.relevant.tsv", "qrels/test.relevant.tsv"):
        f = data / "sw" / name
        f.write_bytes(b"\xef\xbb\xbf" + f.read_bytes())
    ds = bordir.load_dataset("nomiracl", path=data, lang="sw", split="test")
    assert not ds.warnings and [q.query_id for q in ds.subset("relevant")][0] == "swtr0"
    assert ds.passages(ds.subset("relevant")[0])[0].doc_id == "swtr0#0"


def test_a_query_in_both_subsets_is_named(data):
    _edit(data / "sw" / "topics" / "test.relevant.tsv", lambda ls: [*ls, "swtn0\tSwali?"])
    _edit(data / "sw" / "qrels" / "test.relevant.tsv", lambda ls: [*ls, "swtn0\tQ0\tswtr0#2\t1"])
    ds = bordir.load_dataset("nomiracl", path=data, lang="sw", split="test")
    assert ds.warnings == (
        "1 query id(s) are in both subsets (judged on other passages in each): swtn0",
    )


def _rows(root: Path, subset: str, change) -> None:
    import pyarrow.parquet as pq

    f = root / "swahili" / f"test.{subset}-00000-of-00001.parquet"
    rows = pq.read_table(f).to_pylist()
    change(rows)
    pq.write_table(__import__("pyarrow").Table.from_pylist(rows), f)


def test_the_hub_rows_are_held_to_the_same_rules(tmp_path):
    root = write_rows(tmp_path / "r")

    def positive_in_non_relevant(rows):
        rows[1]["positive_passages"] = [rows[1]["negative_passages"].pop(0)]

    _rows(root, "non_relevant", positive_in_non_relevant)
    ds = bordir.load_dataset("nomiracl", path=root, lang="sw", split="test")
    assert len(ds.subset("non_relevant")) == 3
    assert ds.warnings[0].startswith("non_relevant: 1 query(ies) have a passage judged relevant")
    assert "left out: swtn1" in ds.warnings[0]

    def empty_query(rows):
        rows[2]["query"] = " "

    _rows(root, "relevant", empty_query)
    with pytest.raises(
        DataError,
        match=r"relevant-00000-of-00001\.parquet:3: field 'query': query 'swtr2' is empty",
    ):
        bordir.load_dataset("nomiracl", path=root, lang="sw", split="test")


def test_the_hub_rows_refuse_one_docid_with_two_texts(tmp_path):
    root = write_rows(tmp_path / "r")

    def two_texts(rows):
        rows[1]["negative_passages"][0] = {**rows[0]["negative_passages"][0], "text": "other"}

    _rows(root, "non_relevant", two_texts)
    with pytest.raises(
        DataError, match=r":2: field 'negative_passages': passage 'swtn0#0' has another text"
    ):
        bordir.load_dataset("nomiracl", path=root, lang="sw", split="test")


def test_a_relevant_query_whose_relevant_passage_is_not_in_the_corpus_is_left_out(data):
    """Its prompt would hold no relevant passage: the relevant subset's premise fails, as with
    judgments that are all 0. Before: kept, and '1 judged passage(s) are not in the corpus'."""
    _edit(data / "sw" / "corpus.jsonl", lambda ls: [x for x in ls if '"swtr1#2"' not in x])
    _edit(data / "sw" / "corpus.jsonl", lambda ls: [x for x in ls if '"swtn2#5"' not in x])
    res = _info(data)
    assert res.returncode == 0, res.stderr
    info = json.loads(res.stdout)
    assert info["queries_relevant"] == 3 and info["queries_non_relevant"] == 4
    missing, left_out = info["warnings"]
    assert missing.startswith("2 judged passage(s) are not in the corpus: swtn2#5, swtr1#2 ")
    assert left_out.startswith(
        "relevant: 1 query(ies) have no passage judged relevant in the corpus, which the relevant "
        "subset needs; left out: swtr1"
    )
