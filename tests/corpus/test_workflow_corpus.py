"""Issue 11.1: one corpus loader for every format, one dataset loader; bad rows named by file and line."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import bordir
from bordir.corpus import Corpus, PooledCorpus, corpus_kind, load_corpus, save_corpus
from bordir.errors import ConfigError, DataError, UnknownLanguageError

ROWS = [
    {
        "doc_id": "de1",
        "lang": "de",
        "territory": "Crimea",
        "title": "Krim",
        "text": "Die Krim ist eine Halbinsel.",
        "revision_id": "111",
        "fetched_at": "2026-01-01T00:00:00Z",
    },
    {
        "doc_id": "ca1",
        "lang": "ca",
        "territory": "Crimea",
        "title": "Crimea",
        "text": "Crimea és una península.",
        "revision_id": "222",
        "fetched_at": "2026-01-02T00:00:00Z",
    },
    {"doc_id": "he1", "lang": "he", "territory": "Golan Heights", "text": "רמת הגולן היא רמה."},
]


def _write(tmp_path, fmt: str):
    path = tmp_path / f"passages.{fmt}"
    if fmt == "jsonl":
        path.write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ROWS), encoding="utf-8"
        )
    elif fmt == "csv":
        pd.DataFrame(ROWS).to_csv(path, index=False)
    elif fmt == "tsv":
        pd.DataFrame(ROWS).to_csv(path, index=False, sep="\t")
    else:
        pd.DataFrame(ROWS).to_parquet(path, index=False)
    return path


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "tsv", "parquet"])
def test_passage_files_load_the_same_corpus(tmp_path, fmt):
    c = bordir.load_corpus(_write(tmp_path, fmt))
    assert [(p.doc_id, p.lang, p.territory) for p in c] == [
        ("de1", "de", "Crimea"),
        ("ca1", "ca", "Crimea"),
        ("he1", "iw", "Golan Heights"),
    ]  # he -> iw
    assert dict(c[0].meta) == {"revision_id": "111", "fetched_at": "2026-01-01T00:00:00Z"}
    assert c[0].title == "Krim" and c[2].meta == ()
    ref = bordir.load_corpus(_write(tmp_path, "jsonl"))
    assert c.content_hash() == ref.content_hash()


@pytest.mark.parametrize(("fmt", "line"), [("jsonl", 2), ("csv", 3), ("parquet", 2)])
def test_bad_row_is_named_by_file_line_and_field(tmp_path, fmt, line):
    rows = [ROWS[0], {**ROWS[1], "text": ""}]
    path = tmp_path / f"bad.{fmt}"
    if fmt == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    elif fmt == "csv":
        pd.DataFrame(rows).to_csv(path, index=False)
    else:
        pd.DataFrame(rows).to_parquet(path, index=False)
    with pytest.raises(DataError, match=rf"bad\.{fmt}:{line}: field 'text': missing or empty"):
        load_corpus(path)


def test_unknown_language_and_duplicates_name_the_line(tmp_path):
    p = tmp_path / "p.jsonl"
    p.write_text(
        json.dumps({"doc_id": "x", "lang": "klingon", "text": "Qapla'"}) + "\n", encoding="utf-8"
    )
    with pytest.raises(
        UnknownLanguageError, match=r"p.jsonl:1: field 'lang': languages/ has no entry 'klingon'"
    ):
        load_corpus(p)
    p.write_text(
        "\n".join(json.dumps({"doc_id": "x", "lang": "de", "text": t}) for t in ("a b c", "d e f")),
        encoding="utf-8",
    )
    with pytest.raises(
        DataError, match=r"p.jsonl:2: field 'doc_id': duplicate document 'x' .*first at line 1"
    ):
        load_corpus(p)
    p.write_bytes(b'{"doc_id": "x", "lang": "de", "text": "\xff"}\n')
    with pytest.raises(DataError, match="p.jsonl:1: not valid UTF-8"):
        load_corpus(p)


def test_bordirlines_raw_wikipedia_layout(tmp_path):
    for lang, wid, title, paras in (
        (
            "de",
            7,
            "Krim",
            [
                "kurz",
                "Die Krim ist eine Halbinsel im Schwarzen Meer.",
                {"section": "Geschichte", "text": "Seit 2014 von Russland besetzt."},
            ],
        ),
        ("zh", 9, "克里米亚", ["克里米亚是黑海北部的一个半岛，面积约两万七千平方公里。"]),
    ):
        (tmp_path / lang).mkdir()
        (tmp_path / lang / f"Q{wid}.json").write_text(
            json.dumps(
                {
                    "title": title,
                    "timestamp": "2023-05-01T00:00:00Z",
                    "wiki_id": wid,
                    "article": paras,
                    "territory": "Crimea",
                },
                ensure_ascii=False,
            ),
            encoding="utf-8",
        )
    c = load_corpus(tmp_path)
    assert corpus_kind(tmp_path) == "wiki_raw" and isinstance(c, PooledCorpus)
    assert [(p.doc_id, p.lang, p.section) for p in c] == [
        ("7_p0", "de", ""),
        ("7_p1", "de", "Geschichte"),
        ("zhs.9_p0", "zhs", ""),
    ]
    assert (
        dict(c[0].meta)["revision_timestamp"] == "2023-05-01T00:00:00Z"
        and dict(c[0].meta)["page_id"] == "7"
    )
    assert len(c.pool("Crimea", "de")) == 2
    (tmp_path / "de" / "Q8.json").write_text(
        json.dumps({"title": "x", "wiki_id": 8}), encoding="utf-8"
    )
    with pytest.raises(DataError, match=r"Q8.json: field 'article': missing"):
        load_corpus(tmp_path)


def test_demo_store_and_instance_specs(tmp_path):
    demo = load_corpus("demo")
    assert load_corpus(demo) is demo and isinstance(demo, Corpus)
    save_corpus(demo, tmp_path / "store")
    assert load_corpus(tmp_path / "store").content_hash() == demo.content_hash()
    with pytest.raises(DataError, match="x.docx: not found"):
        load_corpus(tmp_path / "x.docx")
    (tmp_path / "x.docx").write_bytes(b"PK")
    with pytest.raises(DataError, match="unknown corpus format"):
        load_corpus(tmp_path / "x.docx")


def test_load_dataset_names_and_errors():
    assert bordir.load_dataset("demo").name == "demo"
    with pytest.raises(
        ConfigError, match="unknown dataset 'nope'; known: borderlines, bordirlines, demo"
    ):
        bordir.load_dataset("nope")
    with pytest.raises(DataError):
        bordir.load_dataset("borderlines", "/nonexistent/borderlines")


def test_cli_retrieve_reads_a_corpus_directory(tmp_path):
    from bordir.cli import main as cli_main

    save_corpus(load_corpus("demo"), tmp_path / "store")
    out = tmp_path / "hits.parquet"
    assert (
        cli_main(
            [
                "retrieve",
                "--corpus",
                str(tmp_path / "store"),
                "--modes",
                "qlang",
                "--k",
                "2",
                "--out",
                str(out),
                "--json",
            ]
        )
        == 0
    )
    hits = pd.read_parquet(out)
    assert {"title", "revision_id", "fetched_at"} <= set(hits.columns) and len(hits)


def test_empty_corpus_and_no_territory_are_errors(tmp_path):
    from bordir.retrieval.run import retrieve

    p = tmp_path / "p.jsonl"
    p.write_text(json.dumps({"doc_id": "x", "lang": "en", "text": "Crimea is a peninsula."}) + "\n")
    with pytest.raises(DataError, match="no passage names a territory"):
        retrieve(bordir.load_demo(), load_corpus(p), "bm25", "qlang", progress=False)
    p.write_text("")
    with pytest.raises(DataError, match="no passages"):
        load_corpus(p)
