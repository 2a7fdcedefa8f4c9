"""Citation metrics of a real citation-format run: the runner with the openai-compatible backend against the
loopback server, whose replies cite English documents preferentially; then the report's citation section."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

from bordir.citations import experiment_citations
from bordir.experiment.config import ExperimentConfig
from bordir.loaders import load_demo_corpus
from bordir.runner.run import run_experiment

from ..loopback import LoopbackServer, Reply

_DOC = re.compile(r"Document: (\d+)\ntext: (.*?)\n\n", re.S)


def _planted_reply():
    """Cite every English document of the prompt (and nothing else); without one, cite document 0."""
    lang_of = {p.text.strip(): p.lang for p in load_demo_corpus()}

    def reply(body: dict) -> str:
        user = body["messages"][-1]["content"]
        docs = [(int(i), lang_of.get(t.strip(), "?")) for i, t in _DOC.findall(user)]
        cited = [i for i, l in docs if l == "en"] or [0]
        option = re.search(r"(?m)^A\) .*$", user).group(0)
        tags = " ".join(f"<doc{i}>" for i in cited)
        return (
            f"Cited Documents: {', '.join(map(str, cited))}\nChosen Option: {option}\n"
            f"Explanation: because the documents say so {tags}."
        )

    return reply


@pytest.fixture(scope="module")
def citation_run(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    out = tmp_path_factory.mktemp("citation-run")
    with LoopbackServer(reply=Reply(text=_planted_reply())) as server:
        mp.setenv("NO_PROXY", "127.0.0.1,localhost")
        mp.setenv("OPENAI_COMPATIBLE_BASE_URL", server.openai_url)
        cfg = ExperimentConfig.from_dict(
            {
                "models": ["openai-compatible/test"],
                "response_format": "citation",
                "modes": ["qlang+en", "en_only"],
                "runs": 1,
                "k": 4,
                "concurrency": 4,
                "cache": str(out / "cache.sqlite3"),
            }
        )
        run_experiment(cfg, out / "run", progress=False)
        assert server.count > 0
    mp.undo()
    return out / "run"


@pytest.mark.slow
def test_planted_english_preference_is_flagged(citation_run):
    df = pd.read_parquet(citation_run / "responses.parquet")
    assert (df["outcome"] == "answered").all()
    t = experiment_citations(df, n_resamples=1000, seed=3)
    ov = t.overall.set_index(["mode", "doc_lang", "rate"])
    en = ov.loc[("qlang+en", "en", "pooled")]
    # every citation goes to English documents, which are a minority of the mixed prompts
    assert en["citation_rate"] == 1.0 and en["inclusion_rate_citing"] < 0.9
    assert en["ratio"] > 1.0 and en["ratio_low"] > 1.0 and en["flag"] == "over"
    assert ov.loc[("qlang+en", "en", "per_query"), "flag"] == "over"
    assert en["n_clusters"] == 12  # the demo's territories
    # the other languages of qlang+en are cited less than included (every citation went to English)
    others = t.overall[(t.overall["mode"] == "qlang+en") & (t.overall["doc_lang"] != "en")]
    assert (others["citation_rate"] == 0).all() and set(others["flag"].dropna()) <= {"under"}
    # en_only: one language only, cited exactly as included, never flagged
    eo = t.overall[t.overall["mode"] == "en_only"]
    assert set(eo["doc_lang"]) == {"en"} and (eo["ratio"] == 1.0).all() and eo["flag"].isna().all()
    # every answer cites, nothing out of range
    a = t.answers.set_index(["mode", "query_lang"])
    assert (
        a.loc[("qlang+en", "*"), "no_citation_rate"] == 0.0
        and a.loc[("qlang+en", "*"), "n_out_of_range"] == 0
    )
    # per query language rows exist, with the rate named
    assert set(t.rates["rate"]) == {"pooled", "per_query"} and "*" not in set(t.rates["query_lang"])
    assert str(t.signature).startswith(
        "citation_rates|src:experiment|cluster:territory|boot:1000|seed:3"
    )


def test_viewpoint_agreement_from_labels(citation_run):
    df = pd.read_parquet(citation_run / "responses.parquet")
    sub = df[df["mode"] == "qlang+en"]
    rows = []
    for r in (
        sub.itertuples()
    ):  # every English document supports the chosen claimant, every other the other one
        for d, l in zip(r.doc_ids, r.doc_langs):
            rows.append(
                {
                    "query_id": r.query_id,
                    "doc_lang": l,
                    "doc_id": d,
                    "viewpoint": r.choice_name if l == "en" else "Somewhere Else",
                }
            )
    labels = pd.DataFrame(rows).drop_duplicates(["query_id", "doc_lang", "doc_id"])
    t = experiment_citations(df, labels=labels, n_resamples=200, seed=1)
    a = t.answers.set_index(["mode", "query_lang"]).loc[("qlang+en", "*")]
    assert a["viewpoint_agreement"] == 1.0 and a["n_vp_labelled"] > 0
    assert t.settings["viewpoint_labels"] is True


@pytest.mark.slow
def test_report_has_a_citation_section(citation_run):
    pytest.importorskip("matplotlib")
    pytest.importorskip("scipy")
    pytest.importorskip("statsmodels")
    from bordir.report import build_report

    html = build_report(citation_run, n_resamples=200, seed=2).read_text(encoding="utf-8")
    assert '<h2 id="citations">Citations</h2>' in html and 'id="table-citations"' in html
    assert 'id="plot-citation_inclusion"' in html
    metrics = json.loads((citation_run / "metrics.json").read_text())
    over = [r for r in metrics["citations"]["overall"] if r["flag"] == "over"]
    assert {(r["mode"], r["doc_lang"]) for r in over} == {("qlang+en", "en")}
    assert (citation_run / "plots" / "citation_inclusion.png").stat().st_size > 1000
    assert (citation_run / "tables" / "citations.md").is_file()
    assert (citation_run / "tables" / "citations_by_language.csv").is_file()
