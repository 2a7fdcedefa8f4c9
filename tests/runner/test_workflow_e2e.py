"""Issue 11, done-when: the whole research path with real parts, by CLI and from Python.

loopback MediaWiki server → ``bordir corpus fetch`` (a handful of territories and their claimant
languages) → ``bordir run`` with that corpus directory (BM25; two mock backends: the local model's
run of the whole pipeline is the documented ``bordir demo`` in tests/test_docs_blocks.py)
→ ``bordir report``; the same through ``bordir.run(...)``. The hits carry the fetched revision ids;
changing one passage changes the corpus hash in every signature; ``load_run`` refuses a run whose
dataset (or corpus) files changed.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

import bordir
from bordir.cli import main as cli_main
from bordir.corpus import load_corpus, save_corpus
from bordir.errors import DataError
from bordir.loaders.demo import demo_dir
from bordir.records import Passage
from bordir.signature import Signature

from ..conftest import invoke_cli
from ..mediawiki_server import MediaWikiServer

TERRITORIES = "Crimea,Kuril Islands,Golan Heights,Senkaku Islands"
MODELS = ["mock/first", "mock/planted:ru+uk"]

pytestmark = pytest.mark.slow


def _toml(path: Path, **fields) -> Path:
    lines = ["[experiment]"]
    for k, v in fields.items():
        lines.append(f"{k} = {json.dumps(v)}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """A dataset directory (a copy of the demo's files), a fetched corpus directory, and one CLI run + report."""
    root = tmp_path_factory.mktemp("workflow")
    data = root / "dataset"
    shutil.copytree(demo_dir(), data, ignore=shutil.ignore_patterns("corpus", "embeddings"))
    corpus = root / "corpus"
    with pytest.MonkeyPatch.context() as mp, MediaWikiServer() as server:
        mp.setenv("NO_PROXY", "127.0.0.1,localhost")
        mp.setenv("no_proxy", "127.0.0.1,localhost")
        code = cli_main(
            [
                "corpus",
                "fetch",
                "--dataset",
                "borderlines",
                "--path",
                str(data),
                "--territories",
                TERRITORIES,
                "--out",
                str(corpus),
                "--endpoint",
                server.endpoint,
                "--rpm",
                "0",
                "--no-progress",
                "--json",
            ]
        )
    assert code == 0
    cache = root / "cache.sqlite3"
    cfg = _toml(
        root / "exp.toml",
        dataset="borderlines",
        dataset_path=str(data),
        corpus=str(corpus),
        retriever="bm25",
        modes=["no_ir", "qlang", "rel_langs"],
        k=2,
        runs=2,
        models=MODELS,
        langs=["en", "ru", "uk", "ja", "ar", "iw"],
        cache=str(cache),
    )
    run_dir = root / "run"
    assert cli_main(["run", str(cfg), "--out", str(run_dir), "--no-progress"]) == 0
    report = invoke_cli("report", str(run_dir), "--resamples", "200", "--no-plots")
    assert report.returncode == 0, report.stderr
    return {
        "report_stdout": report.stdout,
        "root": root,
        "data": data,
        "corpus": corpus,
        "cfg": cfg,
        "run": run_dir,
        "cache": cache,
    }


def test_cli_path_writes_a_report_from_the_fetched_corpus(world):
    run_dir = world["run"]
    assert (run_dir / "report.html").is_file() and (run_dir / "metrics.json").is_file()
    text = world[
        "report_stdout"
    ]  # the summary `bordir report` prints (was tests/report/test_report.py)
    assert all(m in text for m in MODELS) and "rel_langs" in text
    assert str(run_dir / "report.html") in text and "signature: report|" in text
    info = json.loads((run_dir / "run.json").read_text())
    assert info["status"] == "complete" and info["calls"]["failed"] == 0
    assert info["corpus"]["source"] == str(world["corpus"])
    assert info["cache"]["path"] == str(world["cache"])
    resp = pd.read_parquet(run_dir / "responses.parquet")
    assert set(resp["model"]) == set(MODELS)
    assert {"no_ir", "qlang", "rel_langs"} <= set(resp["mode"])
    metrics = json.loads((run_dir / "metrics.json").read_text())
    corpus_hash = load_corpus(world["corpus"]).content_hash()
    for modes in metrics["results"].values():
        for cell in modes.values():
            for e in cell["metrics"].values():
                assert f"corpus:{corpus_hash}" in e["signature"]
                if e["bootstrap"]:
                    sig = Signature.parse(e["bootstrap"]["signature"])
                    assert sig.get("mode") and sig.get("gen")
    assert metrics["comparisons"]
    for c in metrics["comparisons"]:
        assert f"corpus:{corpus_hash}" in c["signature"] and "ret:bm25" in c["signature"]


def test_hits_and_responses_carry_fetched_revision_ids(world):
    corpus = load_corpus(world["corpus"])
    revs = {p.key: dict(p.meta)["revision_id"] for p in corpus}
    hits = bordir.load_run(world["run"]).hits.hits
    assert len(hits) and (hits["revision_id"] != "").all() and (hits["fetched_at"] != "").all()
    for lang, doc, rev in zip(hits["doc_lang"], hits["doc_id"], hits["revision_id"]):
        assert revs[(lang, doc)] == rev
    resp = pd.read_parquet(world["run"] / "responses.parquet")
    ir = resp[resp["mode"] != "no_ir"]
    assert len(ir) and all(
        len(r) == len(d) and all(r) for r, d in zip(ir["doc_revision_ids"], ir["doc_ids"])
    )
    assert all(len(f) == len(d) and all(f) for f, d in zip(ir["doc_fetched_at"], ir["doc_ids"]))


def test_python_path_matches_the_cli_run(world):
    r = bordir.run(world["cfg"], cache=world["cache"], progress=False)
    assert r.info["calls"]["cached"] == r.info["calls"]["requests"]  # nothing billed twice
    cli = bordir.load_run(world["run"])
    cols = ["query_id", "mode", "model", "run", "outcome", "choice", "doc_ids", "signature"]
    pd.testing.assert_frame_equal(r.responses[cols], cli.responses[cols])
    summary = r.summary(n_resamples=200)
    row = summary[(summary["mode"] == "qlang") & (summary["metric"] == "cst_cs")].iloc[0]
    assert row["low"] <= row["mean"] <= row["high"]
    # 4 territories: fewer than the 5 an interval over territories needs, so none, with the reason
    assert pd.isna(row["boot_low"]) and pd.isna(row["boot_high"])
    assert "contributing territories" in row["boot_refused"]
    assert summary["boot_refused"].isna().eq(summary["boot_low"].notna()).all()  # no silent NaN
    cmp = r.compare("no_ir", "qlang", metric="cst_cs", n_resamples=200)
    assert set(cmp["model"]) == set(MODELS)
    # 4 territories: the sign-flip test cannot reach p < 0.05 (2 / 2^4), so none is tested
    assert (cmp["status"] == "too few to judge").all() and cmp["p_value"].isna().all()
    assert all("cmp:no_ir-vs-qlang" in s and "corpus:sha256-" in s for s in cmp["signature"])
    # Run.report() from memory: tests/runner/test_workflow_run.py::test_report_from_memory


def test_changing_one_passage_changes_the_corpus_hash_in_every_signature(world, tmp_path):
    corpus = load_corpus(world["corpus"])
    first = corpus[0]
    changed = [
        Passage(
            p.doc_id,
            p.lang,
            p.text + " (edited)" if p is first else p.text,
            p.title,
            p.territory,
            p.section,
            p.meta,
        )
        for p in corpus
    ]
    other = tmp_path / "corpus2"
    save_corpus(type(corpus)(changed, extra_pools=corpus.extra_pools), other)
    cfg = {
        "dataset": "borderlines",
        "dataset_path": str(world["data"]),
        "retriever": "bm25",
        "modes": ["no_ir", "qlang"],
        "k": 2,
        "runs": 2,
        "models": ["mock/first"],
        "langs": ["en", "ru", "uk"],
    }
    cache = tmp_path / "c.sqlite3"
    a = bordir.run({**cfg, "corpus": str(world["corpus"])}, cache=cache, progress=False)
    b = bordir.run({**cfg, "corpus": str(other)}, cache=cache, progress=False)
    ha, hb = (
        Signature.parse(s).get("corpus")
        for s in (a.responses["signature"].iloc[0], b.responses["signature"].iloc[0])
    )
    assert ha != hb
    assert all(Signature.parse(s).get("corpus") == ha for s in a.responses["signature"])
    assert all(Signature.parse(s).get("corpus") == hb for s in b.responses["signature"])
    assert all(Signature.parse(s).get("corpus") == hb for s in b.scores()["signature"])
    assert all(f"corpus:{hb}" in s for s in b.summary(n_resamples=50)["signature"])


def test_load_run_refuses_changed_dataset_and_corpus_files(world, tmp_path):
    data = tmp_path / "dataset"
    shutil.copytree(world["data"], data)
    corpus = tmp_path / "corpus"
    shutil.copytree(world["corpus"], corpus)
    cfg = {
        "dataset": "borderlines",
        "dataset_path": str(data),
        "corpus": str(corpus),
        "modes": ["no_ir", "qlang"],
        "k": 2,
        "runs": 2,
        "models": ["mock/first"],
        "langs": ["en", "ru", "uk"],
    }
    r = bordir.run(cfg, cache=tmp_path / "c.sqlite3", out=tmp_path / "run", progress=False)
    assert bordir.load_run(r.path).responses.equals(r.responses)
    # the corpus changes: one passage edited, the directory rewritten
    c = load_corpus(corpus)
    edited = [
        Passage(
            p.doc_id,
            p.lang,
            p.text + "!" if i == 0 else p.text,
            p.title,
            p.territory,
            p.section,
            p.meta,
        )
        for i, p in enumerate(c)
    ]
    save_corpus(type(c)(edited, extra_pools=c.extra_pools), corpus, overwrite=True)
    with pytest.raises(
        DataError, match=r"run.json: field 'corpus': the corpus changed since the run"
    ):
        bordir.load_run(r.path)
    save_corpus(c, corpus, overwrite=True)
    assert len(bordir.load_run(r.path).responses) == len(r.responses)
    # the dataset changes: one query reworded
    prompts = data / "prompts_mc_q" / "prompts.ru"
    if not prompts.exists():
        prompts = next((data / "prompts_mc_q").iterdir())
    text = prompts.read_text(encoding="utf-8")
    prompts.write_text(text.replace("?", " ?", 1), encoding="utf-8")
    with pytest.raises(
        DataError,
        match=r"field 'dataset': the dataset changed since the run: run.json records "
        r"sha256-\w+, dataset 'borderlines' at .* now hashes to sha256-",
    ):
        bordir.load_run(r.path)
    code = cli_main(["report", str(r.path)])
    assert code == 2
