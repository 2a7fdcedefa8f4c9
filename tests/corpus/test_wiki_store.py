"""The corpus directory: round trips, appends, crash safety, the other corpus formats."""

from __future__ import annotations

import json
import os

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bordir.corpus import Corpus, CorpusStore, PooledCorpus, load_corpus, read_manifest, save_corpus
from bordir.errors import ConfigError, DataError
from bordir.loaders import load_demo_corpus
from bordir.records import Passage


def test_demo_round_trip_is_identical(tmp_path):
    demo = load_demo_corpus()
    manifest = save_corpus(demo, tmp_path / "c")
    back = load_corpus(tmp_path / "c", verify=True)
    assert list(back) == list(demo)
    assert back.content_hash() == demo.content_hash() == manifest["content_hash"]
    assert all(back.pool(t, l) == demo.pool(t, l) for t in demo.territories for l in demo.langs)
    assert manifest["format"] == "bordir-corpus/1" and manifest["bordir_version"]
    assert manifest["counts"]["passages"] == len(demo)
    assert manifest["counts"]["per_language"]["uk"]["passages"] == demo.lang_counts()["uk"]


def test_save_refuses_to_overwrite_unless_asked(tmp_path):
    demo = load_demo_corpus()
    save_corpus(demo, tmp_path / "c")
    with pytest.raises(ConfigError, match="already holds a corpus"):
        save_corpus(demo, tmp_path / "c")
    save_corpus(Corpus(list(demo)[:3]), tmp_path / "c", overwrite=True)
    assert len(load_corpus(tmp_path / "c")) == 3


def test_append_adds_parts_and_pools(tmp_path):
    store = CorpusStore.create(tmp_path / "c", parameters={"source": "hand"})
    a = Passage(
        "1_p0",
        "en",
        "Russia is a country in Europe and Asia.",
        title="Russia",
        territory="Crimea",
        meta=(("page_id", "1"),),
    )
    b = Passage(
        "2_p0", "en", "Crimea is a peninsula in the Black Sea.", title="Crimea", territory="Crimea"
    )
    with store.writing():
        store.append(
            [a, b], units=[{"territory": "Crimea", "lang": "en", "title": "Russia", "status": "ok"}]
        )
        store.append([], extra_pools=[("Kuril Islands", "en", "1_p0")])
    assert len(store.manifest["parts"]) == 2
    again = CorpusStore.open(tmp_path / "c").load(verify=True)
    assert isinstance(again, PooledCorpus)
    assert [p.doc_id for p in again.pool("Kuril Islands", "en")] == ["1_p0"]
    assert [p.doc_id for p in again.pool("Crimea", "en")] == ["1_p0", "2_p0"]
    assert again.territories_of("en", "1_p0") == ("Crimea", "Kuril Islands")
    assert store.manifest["units"][0]["title"] == "Russia"
    # the extra pool row changes the identity
    assert again.content_hash() != Corpus([a, b]).content_hash()
    with pytest.raises(DataError, match="duplicate document"):
        store.append([a])
    with pytest.raises(DataError, match="names a document the corpus does not have"):
        store.append([], extra_pools=[("Crimea", "en", "nope")])
    assert len(store.manifest["parts"]) == 2  # nothing written by the failed appends


def test_compact_merges_parts_and_keeps_the_corpus(tmp_path):
    demo = list(load_demo_corpus())
    store = CorpusStore.create(tmp_path / "c")
    for i in range(0, len(demo), 50):
        store.append(demo[i : i + 50])
    before = store.load()
    store.compact()
    assert len(store.manifest["parts"]) == 1
    assert sorted(os.listdir(tmp_path / "c" / "passages")) == [
        os.path.basename(store.manifest["parts"][0]["passages"])
    ]
    assert list(CorpusStore.open(tmp_path / "c").load(verify=True)) == list(before)


def test_orphan_part_from_a_crash_is_ignored_and_overwritten(tmp_path):
    demo = list(load_demo_corpus())
    store = CorpusStore.create(tmp_path / "c")
    store.append(demo[:10])
    # a crash after writing the next part but before the manifest: the part is not listed
    (tmp_path / "c" / "passages" / "part-00001.parquet").write_bytes(b"half-written garbage")
    assert len(load_corpus(tmp_path / "c")) == 10
    store = CorpusStore.open(tmp_path / "c")
    store.append(demo[10:20])
    assert list(load_corpus(tmp_path / "c", verify=True)) == demo[:20]


def test_changed_part_fails_its_checksum(tmp_path):
    save_corpus(load_demo_corpus(), tmp_path / "c")
    part = tmp_path / "c" / read_manifest(tmp_path / "c")["parts"][0]["passages"]
    part.write_bytes(part.read_bytes()[:-10])
    with pytest.raises(DataError, match="does not match the SHA-256"):
        load_corpus(tmp_path / "c")


def test_not_a_corpus_dir(tmp_path):
    with pytest.raises(
        DataError, match="directory is not a corpus; expected 'demo', a corpus directory"
    ):
        load_corpus(tmp_path)
    (tmp_path / "manifest.json").write_text(json.dumps({"format": "other/9"}))
    with pytest.raises(DataError, match="expected format 'bordir-corpus/1'"):
        load_corpus(tmp_path)
    (tmp_path / "x.csv").write_text("a,b\n")
    with pytest.raises(
        DataError, match=r"x.csv:1: field 'doc_id': missing column\(s\) doc_id, lang, text"
    ):
        load_corpus(tmp_path / "x.csv")
    (tmp_path / "x.txt").write_text("a,b\n")
    with pytest.raises(DataError, match="unknown corpus format"):
        load_corpus(tmp_path / "x.txt")


def test_lock_refuses_a_second_writer(tmp_path):
    store = CorpusStore.create(tmp_path / "c")
    with store.writing():
        with pytest.raises(ConfigError, match="is being written by process"):
            with CorpusStore.open(tmp_path / "c").writing():
                pass
    # a stale lock (its process is gone) is taken over
    (tmp_path / "c" / ".lock").write_text("999999999")
    with store.writing():
        pass
    assert not (tmp_path / "c" / ".lock").exists()


def test_jsonl_loads_into_the_same_type(tmp_path):
    from bordir.loaders.demo import demo_dir

    c = load_corpus(demo_dir() / "corpus" / "passages.jsonl")
    assert list(c) == list(load_demo_corpus())


def test_all_docs_json_without_and_with_hits(tmp_path):
    docs = {
        "uk": {"3001_p0": "Крим — півострів.", "3002_p0": "Росія — держава."},
        "zhs": {"zhs.7001_p0": "钓鱼台列屿是无人岛屿。"},
    }
    path = tmp_path / "all_docs.json"
    path.write_text(json.dumps(docs, ensure_ascii=False), encoding="utf-8")
    c = load_corpus(path)
    assert len(c) == 3 and c.get("uk", "3001_p0").territory == "" and c.territories == ()
    hits = pd.DataFrame(
        {
            "territory": ["Crimea", "Crimea", "Kuril Islands"],
            "doc_lang": ["uk", "uk", "uk"],
            "doc_id": ["3001_p0", "3002_p0", "3002_p0"],
        }
    )
    c = load_corpus(path, hits=hits)
    assert [p.doc_id for p in c.pool("Crimea", "uk")] == ["3001_p0", "3002_p0"]
    assert [p.doc_id for p in c.pool("Kuril Islands", "uk")] == ["3002_p0"]
    # and it saves and loads back with its pools
    save_corpus(c, tmp_path / "saved")
    back = load_corpus(tmp_path / "saved")
    assert list(back) == list(c) and back.content_hash() == c.content_hash()
    assert [p.doc_id for p in back.pool("Kuril Islands", "uk")] == ["3002_p0"]
    path.write_text(json.dumps({"xx": {"1": "t"}}), encoding="utf-8")
    with pytest.raises(ConfigError, match="languages/ has no entry 'xx'"):
        load_corpus(path)


def test_meta_key_collision_is_refused(tmp_path):
    with pytest.raises(DataError, match="collide with the fixed columns"):
        save_corpus(
            Corpus([Passage("a", "en", "some text here", meta=(("text", "x"),))]), tmp_path / "c"
        )


_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=40)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["en", "ru", "zhs", "iw"]),
            _text,
            _text,
            st.dictionaries(
                st.sampled_from(["page_id", "url", "lang_flag", "ẞ"]), _text, max_size=3
            ),
        ),
        min_size=0,
        max_size=12,
        unique_by=lambda r: (r[0], r[1]),
    )
)
def test_round_trip_property(tmp_path_factory, rows):
    """Any passages (any Unicode, missing meta keys, empty strings) load back identical."""
    passages = [
        Passage(
            doc_id, lang, text, territory="T" if i % 2 else "", meta=tuple(sorted(meta.items()))
        )
        for i, (lang, doc_id, text, meta) in enumerate(rows)
    ]
    path = tmp_path_factory.mktemp("prop") / "c"
    save_corpus(Corpus(passages), path)
    assert list(load_corpus(path, verify=True)) == passages
