"""``bordir audit`` on logs with a known planted bias: exactly the planted cell is flagged.

The log generator here is shared by the other audit tests (``from .test_audit_planted import make_records``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from bordir.audit import run_audit
from bordir.audit.config import AuditOptions

QLANGS = ("en", "sw", "fr")
DLANGS = ("en", "sw", "fr")


def make_records(
    n: int = 3000,
    *,
    seed: int = 0,
    biased: dict[str, str] | None = None,
    models: tuple[str, ...] = ("m1",),
    months: tuple[str, ...] = ("2024-05",),
    no_citation: float = 0.05,
) -> list[dict]:
    """Synthetic answers: 3 documents per prompt, one per language in random order, one citation per answer.

    Fair answers cite a uniformly chosen document. ``biased`` maps a query language to the model whose answers
    to it cite the English document with probability 2/3 (its inclusion share is 1/3: cited twice as often as
    included); ``"*"`` as the model biases every model.
    """
    rng = np.random.default_rng(seed)
    biased = biased or {}
    out = []
    for i in range(n):
        ql = QLANGS[i % len(QLANGS)]
        model = models[(i // len(QLANGS)) % len(models)]
        month = months[(i // (len(QLANGS) * len(models))) % len(months)]
        langs = list(rng.permutation(DLANGS))
        docs = [{"id": f"r{i}d{j}", "lang": str(l)} for j, l in enumerate(langs)]
        if rng.random() < no_citation:
            cites = []
        elif biased.get(ql) in (model, "*"):
            target = "en" if rng.random() < 2 / 3 else str(rng.choice(["sw", "fr"]))
            cites = [docs[langs.index(target)]["id"]]
        else:
            cites = [docs[int(rng.integers(0, 3))]["id"]]
        out.append(
            {
                "id": f"a{i}",
                "query": f"question {i}",
                "query_lang": ql,
                "documents": docs,
                "response": "Answer. "
                + " ".join(f"<doc{[d['id'] for d in docs].index(c)}>" for c in cites),
                "response_lang": ql,
                "citations": cites,
                "model": model,
                "timestamp": f"{month}-15T10:00:00Z",
            }
        )
    return out


def write_jsonl(records: list[dict], path: Path, extra_lines: dict[int, str] | None = None) -> Path:
    """Write records one per line; ``extra_lines`` inserts raw lines before the record of that index."""
    extra_lines = extra_lines or {}
    with path.open("w", encoding="utf-8") as f:
        for i, r in enumerate(records):
            if i in extra_lines:
                f.write(extra_lines[i] + "\n")
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    return path


def flagged(result, *, rate: str = "pooled") -> dict[tuple, str]:
    t = result.tables.rates
    f = t[(t["rate"] == rate) & t["flag"].notna()]
    return {(r.group, r.query_lang, r.doc_lang): r.flag for r in f.itertuples()}


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    path = write_jsonl(
        make_records(3000, seed=11, biased={"sw": "*"}),
        tmp_path_factory.mktemp("planted") / "log.jsonl",
    )
    return path, run_audit(path, AuditOptions(n_resamples=2000, seed=5))


@pytest.mark.parametrize("rate", ["pooled", "per_query"])
def test_exactly_the_planted_cell_is_flagged(planted, rate):
    _, res = planted
    f = flagged(res, rate=rate)
    over = {k for k, v in f.items() if v == "over"}
    assert over == {("all", "sw", "en")}
    # the shares of a query language sum to 1: over-citing English in sw under-cites the others of sw; the fair
    # query languages (en, fr) have no flag at all
    assert {k[1] for k in f} == {"sw"}
    t = res.tables.rates.set_index(["query_lang", "doc_lang", "rate"])
    sw_en = t.loc[("sw", "en", rate)]
    assert sw_en["ratio_low"] > 1.0 and 1.8 < sw_en["ratio"] < 2.2
    assert abs(sw_en["inclusion_rate_citing"] - 1 / 3) < 1e-9
    for ql in ("en", "fr"):
        for dl in ("en", "sw", "fr"):
            r = t.loc[(ql, dl, rate)]
            # fair: near 1 and not flagged (a single unadjusted 95% interval may miss 1 by chance; Holm guards that)
            assert (
                r["tested"]
                and r["flag"] is None
                and 0.85 < r["ratio"] < 1.15
                and r["p_adjusted"] >= 0.05
            )


def test_counts_and_answer_shares(planted):
    _, res = planted
    s = res.summary
    assert s["records"] == s["valid"] == 3000 and s["skipped"] == 0 and s["citations_given"] == 3000
    assert s["blocks"]["line_by_line"] == 0  # the vectorised reader took every block
    a = res.tables.answers.set_index("query_lang")
    assert a.loc["*", "n_answers"] == 3000 and a.loc["sw", "n_answers"] == 1000
    assert 0.02 < a.loc["*", "no_citation_rate"] < 0.08
    assert (
        a.loc["*", "no_citation_rate_low"]
        < a.loc["*", "no_citation_rate"]
        < a.loc["*", "no_citation_rate_high"]
    )
    assert a.loc["*", "n_out_of_range"] == 0 and a.loc["*", "language_match_rate"] == 1.0
    assert a.loc["*", "n_qlang_detected"] == 0 and a.loc["*", "n_docs_detected"] == 0
    t = res.tables.rates
    assert set(t["rate"]) == {"pooled", "per_query"}
    assert (t.groupby(["query_lang", "rate"])["inclusion_rate"].sum().round(9) == 1.0).all()
    assert res.settings["cluster_by"] == "record" and "adjust:holm" in str(res.signature)


def test_overall_pools_query_languages(planted):
    _, res = planted
    o = res.tables.overall.set_index(["doc_lang", "rate"])
    assert set(res.tables.overall["query_lang"]) == {"*"}
    assert o.loc[("en", "pooled"), "n_answers"] == 3000
    assert o.loc[("en", "pooled"), "ratio"] > 1.0  # the sw bias shows, diluted


def test_adjust_none_flags_by_interval_alone(planted):
    path, res = planted
    raw = run_audit(path, AuditOptions(n_resamples=2000, seed=5, adjust="none"))
    t = raw.tables.rates
    excl = (t["ratio_low"] > 1) | (t["ratio_high"] < 1)
    assert (t["flag"].notna() == excl).all()
    assert set(flagged(res)) <= set(flagged(raw))


def test_planted_bias_in_one_model_only(tmp_path):
    recs = make_records(3000, seed=3, biased={"sw": "m2"}, models=("m1", "m2"))
    res = run_audit(
        write_jsonl(recs, tmp_path / "log.jsonl"),
        AuditOptions(group_by="model", n_resamples=1000, seed=2),
    )
    f = flagged(res)
    assert {k for k, v in f.items() if v == "over"} == {("m2", "sw", "en")}
    assert {k[0] for k in f} == {"m2"}
    assert set(res.tables.rates["group"]) == {"m1", "m2"}
    assert set(res.tables.overall["group"]) == {"m1", "m2"}


def test_drift_by_month(tmp_path):
    # May is fair; June over-cites English for sw queries
    may = make_records(1500, seed=1, months=("2024-05",))
    june = make_records(1500, seed=2, biased={"sw": "*"}, months=("2024-06",))
    res = run_audit(
        write_jsonl(may + june, tmp_path / "log.jsonl"),
        AuditOptions(group_by="month", n_resamples=1000, seed=2),
    )
    f = flagged(res)
    assert {k for k, v in f.items() if v == "over"} == {("2024-06", "sw", "en")}
    assert {k[0] for k in f} == {"2024-06"}
    assert res.summary["valid"] == 3000


def test_cluster_by_conversation(tmp_path):
    recs = make_records(1200, seed=4, biased={"sw": "*"})
    for i, r in enumerate(recs):
        r["conversation"] = f"c{i // 6}"  # 200 conversations of 6 answers (2 per query language)
    path = write_jsonl(recs, tmp_path / "log.jsonl")
    by_conv = run_audit(path, AuditOptions(cluster_by="conversation", n_resamples=1000, seed=2))
    by_rec = run_audit(path, AuditOptions(n_resamples=1000, seed=2))
    a, b = by_conv.tables.rates, by_rec.tables.rates
    assert (a["n_clusters"][a["query_lang"] == "sw"] == 200).all()
    assert (b["n_clusters"][b["query_lang"] == "sw"] == 400).all()
    assert np.allclose(
        a["ratio"], b["ratio"]
    )  # estimates do not depend on the clusters, intervals do
    assert (
        by_conv.tables.overall["n_clusters"].iloc[0] == 200
    )  # a conversation spans the query languages
    assert ("all", "sw", "en") in flagged(by_conv)
    assert by_conv.settings["cluster_by"] == "conversation"
