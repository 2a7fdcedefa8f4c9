"""Every text reader reports a non-UTF-8 file through ``bordir.errors.undecodable``: gzip and UTF-16 get their hint.

A gzip-compressed or UTF-16 file is a common accident (a download left compressed,
a spreadsheet saved as "Unicode text"); "not UTF-8" alone does not say how to fix it.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from bordir.corpus import load_corpus
from bordir.corpus.readers.all_docs import read_all_docs_json
from bordir.corpus.readers.wiki_raw import read_wiki_raw
from bordir.errors import DataError
from bordir.experiment.rundir import read_run_dir
from bordir.metrics.legacy.response_table import read_response_table
from bordir.testgen.sources import chunks_from_file

from ..rundirs import record_by_hand

PASSAGE = (
    '{"doc_id": "d1", "lang": "en", "territory": "Crimea", "text": "Crimea is a peninsula."}\n'
)
ARTICLE = json.dumps(
    {
        "title": "Krim",
        "timestamp": "2023-05-01T00:00:00Z",
        "wiki_id": 7,
        "article": ["Die Krim ist eine Halbinsel."],
    }
)


def _setups(tmp: Path) -> dict[str, tuple[Path, Callable[[], object]]]:
    """The file each reader reads, and the call that reads it."""
    return {
        "passages-jsonl": (tmp / "p.jsonl", lambda: load_corpus(tmp / "p.jsonl")),
        "passages-csv": (tmp / "p.csv", lambda: load_corpus(tmp / "p.csv")),
        "all-docs-json": (tmp / "all_docs.json", lambda: read_all_docs_json(tmp / "all_docs.json")),
        "wiki-raw-article": (tmp / "raw" / "de" / "Q7.json", lambda: read_wiki_raw(tmp / "raw")),
        "legacy-response-table": (tmp / "t.csv", lambda: read_response_table(tmp / "t.csv")),
        "testgen-document": (tmp / "doc.md", lambda: chunks_from_file(tmp / "doc.md")),
        "run-json": (  # a run directory with its record (record.json), whose run.json is read
            tmp / "run" / "run.json",
            lambda: (record_by_hand(tmp / "run", "run"), read_run_dir(tmp / "run"))[1],
        ),
    }


TEXTS = {
    "passages-jsonl": PASSAGE,
    "passages-csv": "doc_id,lang,territory,text\nd1,en,Crimea,Crimea is a peninsula.\n",
    "all-docs-json": json.dumps({"en": {"d1": "Crimea is a peninsula."}}),
    "wiki-raw-article": ARTICLE,
    "legacy-response-table": "Territory,Claimants\nCrimea,Russia;Ukraine\n",
    "testgen-document": "# Crimea\n\nCrimea is a peninsula.\n",
    "run-json": json.dumps({"config": {}}),
}


@pytest.mark.parametrize("reader", sorted(TEXTS))
@pytest.mark.parametrize(
    ("encode", "hint"),
    [
        (lambda t: gzip.compress(t.encode("utf-8")), "gzip"),
        (lambda t: t.encode("utf-16"), "UTF-16"),
        (
            lambda t: (
                t.replace("peninsula", "p\u00e9ninsule")
                .replace("Halbinsel", "H\u00e4lbinsel")
                .replace("Territory", "T\u00e9rritory")
                .replace('"config"', '"c\u00f6nfig"')
                .encode("latin-1")
            ),
            "save the file as UTF-8",
        ),
    ],
    ids=["gzip", "utf16", "latin1"],
)
def test_reader_names_the_encoding_problem(reader, encode, hint, tmp_path):
    path, read = _setups(tmp_path)[reader]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(encode(TEXTS[reader]))
    with pytest.raises(DataError) as info:
        read()
    msg = str(info.value)
    assert str(path) in msg and hint in msg, msg
    assert "\n" not in msg
