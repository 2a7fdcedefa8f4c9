"""``load_dataset("nomiracl", …)``: NoMIRACL's files, the hub's rows and the hub itself (a local server), and bad files.

The files are written by the tests in NoMIRACL's layouts (``tests/nomiracl_files.py``); the
hub is a real HTTP server on 127.0.0.1 in the hub repository's layout, reached through
``huggingface_hub``'s own download (no network).
"""

from __future__ import annotations

import importlib.util
import json

import pytest

import bordir
from bordir.errors import ConfigError, DataError
from bordir.loaders.nomiracl import load_nomiracl

from ..conftest import invoke_cli
from ..nomiracl_files import HubServer, records, write_nomiracl, write_rows


@pytest.fixture
def data(tmp_path):
    return write_nomiracl(tmp_path / "nomiracl")


def test_files_layout_in_nomiracls_order(data):
    ds = bordir.load_dataset("nomiracl", path=data, lang="sw", split="test")
    assert (ds.lang, ds.code, ds.split, ds.layout) == ("sw", "sw", "test", "files")
    want = records("sw")
    assert [q.query_id for q in ds.subset("non_relevant")] == [
        q["query_id"] for q in want["non_relevant"]
    ]
    q = ds.subset("relevant")[0]
    assert [d for d, _ in q.judgments] == [p[0] for p in want["relevant"][0]["passages"]]
    assert q.n_relevant == 1 and dict(q.judgments)[f"{q.query_id}#2"] == 1
    p = ds.passages(q)[0]  # load_corpus: stripped, newlines as spaces
    assert (p.title, p.text) == ("Title 0", f"Text 0 of {q.query_id} second line")
    assert ds.info()["queries_relevant"] == 4 and not ds.warnings


@pytest.mark.parametrize("lang", ["sw", "swahili", "SW"])
def test_languages_by_code_name_or_registry_code(data, lang):
    assert bordir.load_dataset("nomiracl", path=data, lang=lang, split="dev").split == "dev"


def test_chinese_maps_to_the_registry_code(tmp_path):
    root = write_nomiracl(tmp_path / "n", ("zh",), layout="hub", gz=True)
    for lang in ("zh", "zhs", "chinese"):
        ds = bordir.load_dataset("nomiracl", path=root, lang=lang, split="test")
        assert (ds.lang, ds.code, ds.layout) == ("zhs", "zh", "files")


def test_a_single_language_directory_and_the_hub_repository_layout(tmp_path):
    root = write_nomiracl(tmp_path / "n", ("sw",))
    one = bordir.load_dataset("nomiracl", path=root / "sw", lang="sw", split="test")
    hub = write_nomiracl(tmp_path / "h", ("sw",), layout="hub", gz=True)
    two = bordir.load_dataset("nomiracl", path=hub, lang="sw", split="test")
    assert one.content_hash() == two.content_hash()


def test_hub_rows_give_the_same_queries(tmp_path):
    rows = bordir.load_dataset("nomiracl", path=write_rows(tmp_path / "r"), lang="sw", split="test")
    files = bordir.load_dataset(
        "nomiracl", path=write_nomiracl(tmp_path / "f", ("sw",)), lang="sw", split="test"
    )
    assert rows.layout == "rows"
    assert [q.query_id for q in rows.queries] == [q.query_id for q in files.queries]
    # rows put the positives first (NoMIRACL's own hub loader builds its judgments so)
    q = rows.subset("relevant")[0]
    assert q.judgments[0] == (f"{q.query_id}#2", 1) and len(q.judgments) == 10
    # rows keep the passages as the hub has them (no strip)
    assert rows.passages(q)[0].text.startswith(" Text 2")


def test_the_hub_through_a_local_server(tmp_path, monkeypatch):
    if importlib.util.find_spec("huggingface_hub") is None:
        pytest.skip("needs the hub extra (huggingface_hub)")
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)  # conftest makes the hub offline
    repo = write_nomiracl(tmp_path / "repo", ("sw",), layout="hub", gz=True)
    with HubServer(repo) as hub:
        ds = load_nomiracl(lang="swahili", split="test", endpoint=hub.url, revision="main")
        assert ds.layout == "hub" and ds.source == "hub:miracl/nomiracl@main"
        assert set(hub.asked) == {  # HEAD then GET of each file, as huggingface_hub downloads
            "data/swahili/corpus.jsonl.gz",
            *(
                f"data/swahili/{k}/test.{s}.tsv"
                for k in ("topics", "qrels")
                for s in ("non_relevant", "relevant")
            ),
        }
        local = bordir.load_dataset("nomiracl", path=repo, lang="sw", split="test")
        assert ds.content_hash() == local.content_hash()
        hub.asked.clear()
        with pytest.raises(DataError, match=r"could not download data/german/corpus\.jsonl\.gz"):
            load_nomiracl(lang="de", split="test", endpoint=hub.url)


def test_options_are_required_and_refused_elsewhere(data):
    with pytest.raises(ConfigError, match="one language at a time: pass lang="):
        bordir.load_dataset("nomiracl", path=data, split="test")
    with pytest.raises(ConfigError, match="pass split="):
        bordir.load_dataset("nomiracl", path=data, lang="sw")
    with pytest.raises(ConfigError, match="NoMIRACL has splits dev, test"):
        bordir.load_dataset("nomiracl", path=data, lang="sw", split="train")
    with pytest.raises(ConfigError, match="NoMIRACL has no language 'el'"):
        bordir.load_dataset("nomiracl", path=data, lang="el", split="test")
    with pytest.raises(ConfigError, match="the demo dataset takes no lang option"):
        bordir.load_dataset("demo", lang="sw")
    with pytest.raises(DataError, match="no NoMIRACL data for de"):
        bordir.load_dataset("nomiracl", path=data, lang="de", split="test")


@pytest.mark.parametrize(
    ("file", "line", "content", "message"),
    [
        ("qrels/test.relevant.tsv", 2, "q\tQ0\tdoc\n", "line 2|:2: field 'relevance'"),
        (
            "qrels/test.relevant.tsv",
            1,
            "q\tQ0\tdoc\tyes\n",
            ":1: field 'relevance': expected a relevance of 0 or 1",
        ),
        ("topics/test.non_relevant.tsv", 3, "only-an-id\n", ":3: field 'query'"),
        ("corpus.jsonl", 2, '{"docid": "x", "title": "t"}\n', ":2: field 'text'"),
        ("corpus.jsonl", 1, "{not json\n", ":1: not valid JSON"),
    ],
)
def test_bad_files_name_file_line_and_field(data, file, line, content, message):
    f = data / "sw" / file
    lines = f.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[line - 1] = content
    f.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(DataError) as err:
        bordir.load_dataset("nomiracl", path=data, lang="sw", split="test")
    assert str(err.value).startswith(str(f)) and any(
        m in str(err.value) for m in message.split("|")
    )
    res = invoke_cli(
        "data", "info", "nomiracl", "--path", str(data), "--lang", "sw", "--split", "test"
    )
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1
    assert str(f) in res.stderr


def test_missing_passages_are_counted(data):
    f = data / "sw" / "corpus.jsonl"
    kept = [x for x in f.read_text(encoding="utf-8").splitlines() if '"swtr0#3"' not in x]
    f.write_text("\n".join(kept) + "\n", encoding="utf-8")
    ds = bordir.load_dataset("nomiracl", path=data, lang="sw", split="test")
    q = next(q for q in ds.queries if q.query_id == "swtr0")
    assert ds.missing(q) == ("swtr0#3",) and len(ds.passages(q)) == 9
    assert ds.warnings == (
        "1 judged passage(s) are not in the corpus: swtr0#3 (their queries are asked without them)",
    )


def test_cli_lists_and_describes_it(data):
    res = invoke_cli("list", "datasets", "--json")
    assert res.returncode == 0
    assert any(r["name"] == "nomiracl" for r in json.loads(res.stdout))
    res = invoke_cli(
        "data", "info", "nomiracl", "--path", str(data), "--lang", "sw", "--split", "test", "--json"
    )
    assert res.returncode == 0, res.stderr
    info = json.loads(res.stdout)
    assert info["queries_non_relevant"] == 4 and info["lang"] == "sw"
