"""Defects an independent verifier found driving the workflow as a new user (each test failed before its fix).

* raw Wikipedia articles whose ``wiki_id`` is the Wikidata-style ``"Q7835"`` of their file ``Q7835.json``;
* a corpus that covers none of the languages the modes ask for: ``bordir retrieve`` wrote 0 hits and exited 0;
* a misspelt ``mock/<behaviour>`` answered ``""`` to every call instead of being refused.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import bordir
from bordir.errors import ConfigError, DataError

from ..conftest import run_cli

PARAS = {
    "de": [
        "Die Krim ist eine Halbinsel im Schwarzen Meer. Russland annektierte sie 2014.",
        "Berlin ist die Hauptstadt Deutschlands und hat viele Museen.",
    ],
    "eu": [
        "Krimea Itsaso Beltzeko penintsula bat da. Errusiak 2014an anexionatu zuen.",
        "Bilbo Euskal Herriko hiririk handiena da, itsasadarraren ondoan.",
    ],
    "ja": [
        "クリミアは黒海にある半島です。ロシアは2014年に併合しました。",
        "東京は日本の首都で、人口が非常に多い都市です。",
    ],
}


def _raw(root: Path, wiki_id: object) -> Path:
    for lang, ps in PARAS.items():
        (root / lang).mkdir(parents=True)
        (root / lang / "Q7835.json").write_text(
            json.dumps(
                {
                    "title": "Krim",
                    "timestamp": "2024-01-01T00:00:00Z",
                    "wiki_id": wiki_id,
                    "territory": "Crimea",
                    "article": ps,
                },
                ensure_ascii=False,
            ),
            encoding="utf-8",
        )
    return root


@pytest.mark.parametrize("wiki_id", ["Q7835", 7835, "7835"])
def test_raw_articles_accept_a_wikidata_style_id(tmp_path, wiki_id):
    c = bordir.load_corpus(str(_raw(tmp_path / "raw", wiki_id)))
    assert sorted({p.lang for p in c}) == ["de", "eu", "ja"]
    assert {p.doc_id for p in c} == {"7835_p0", "7835_p1"}


def test_raw_articles_still_refuse_a_mismatched_id(tmp_path):
    with pytest.raises(DataError, match="does not match the file name"):
        bordir.load_corpus(str(_raw(tmp_path / "raw", "Q1")))


def _jsonl(path: Path) -> Path:
    with path.open("w", encoding="utf-8") as f:
        for lang, ps in PARAS.items():
            for i, t in enumerate(ps):
                f.write(
                    json.dumps(
                        {"doc_id": f"{lang}-{i}", "lang": lang, "territory": "Crimea", "text": t},
                        ensure_ascii=False,
                    )
                    + "\n"
                )
    return path


def test_retrieve_with_no_document_in_any_mode_is_an_error(tmp_path):
    """Crimea's demo queries need en/ru/uk documents; a de/eu/ja corpus gives none, which must be said."""
    corpus = bordir.load_corpus(str(_jsonl(tmp_path / "c.jsonl")))
    ds = bordir.load_dataset("demo")
    with pytest.raises(DataError, match="no query found a document") as exc:
        bordir.retrieve(ds, corpus, "bm25", "qlang,en_only,rel_langs", k=2, progress=False)
    assert "c.jsonl" in str(exc.value) and "de, eu, ja" in str(exc.value)
    # no_ir alone retrieves nothing by design: not an error
    assert len(bordir.retrieve(ds, corpus, "bm25", "no_ir", k=2, progress=False).hits) == 0


@pytest.mark.slow
def test_cli_retrieve_with_no_document_exits_2(tmp_path):
    r = run_cli(
        "retrieve",
        "--corpus",
        str(_jsonl(tmp_path / "c.jsonl")),
        "--out",
        str(tmp_path / "h.parquet"),
    )
    assert r.returncode == 2, r.stdout + r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("bordir: error:")]
    assert (
        len(lines) == 1 and "no query found a document" in lines[0] and "Traceback" not in r.stderr
    )
    assert not (tmp_path / "h.parquet").exists()


def test_unknown_mock_behaviour_is_refused():
    with pytest.raises(ConfigError, match="unknown mock behaviour 'frist'"):
        bordir.get_backend("mock/frist")
    for ok in ("mock/first", "mock/echo", "mock/fixed:A)", "mock/planted:ru"):
        assert bordir.get_backend(ok).name == ok


def test_reading_a_csv_corpus_leaves_the_csv_field_limit_as_it_was(tmp_path):
    """The corpus CSV reader lifts csv's field limit for its own file only (it is process-wide)."""
    import csv

    from bordir.corpus.readers.table import read_passages_table

    p = tmp_path / "p.csv"
    p.write_text("doc_id,lang,text\na,en," + "x" * 200_000 + "\n", encoding="utf-8")
    before = csv.field_size_limit()
    read_passages_table(p)
    assert csv.field_size_limit() == before
