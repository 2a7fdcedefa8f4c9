"""The hostile testbed, test-run, audit and black-box audit directories of the page-escaping test (see :mod:`tests.view.hostile`)."""

from __future__ import annotations

import json
from pathlib import Path

from .hostile import MODELS, Field, cli, hostile, hostile_out, kind, model_server, verbatim

# --- testbeds: an RGB file, NoMIRACL files -----------------------------------------------------------


def _testbed_reply(body: dict) -> str:
    user = body["messages"][-1]["content"]
    if "QUESTION:" in user:  # NoMIRACL's vanilla prompt: alternate the two answers
        return ("I don't know. " if len(user) % 2 else "Yes, answer is present. ") + hostile("RPLY")
    return f"The answer is {hostile('RPLY')}"


TESTBED_FIELDS = (
    Field("MDLA", "model name", ("report", "view", "served")),
    Field("RPLY", "reply", ("view", "served")),
    Field("DIRX", "directory name", ("report", "view", "served")),
)


@kind(
    "rgb-testbed",
    ("report", "view", "served"),
    *TESTBED_FIELDS,
    Field("RQRY", "question", ("view", "served")),
    Field("RANS", "expected answer (a JSON list)", ("view", "served"), whole=False),
    Field("RPOS", "positive document", ("view", "served")),
    Field("RNEG", "negative document", ("view", "served")),
    Field("RDAT", "data path (config value)", ("report",)),
)
def build_rgb_testbed(root: Path) -> Path:
    """``bordir testbed noise`` on an RGB file of four hostile questions, two noise ratios."""
    data = root / hostile("RDAT", slash=False)
    data.mkdir()
    path = data / "en.json"
    with path.open("w", encoding="utf-8") as f:
        for i in range(4):
            q = {
                "id": i,
                "query": f"Question {i}? {hostile('RQRY')}",
                "answer": [f"{i} {hostile('RANS')}"],
                "positive": [f"Positive {i}.{j} {hostile('RPOS')}" for j in range(4)],
                "negative": [f"Negative {i}.{j} {hostile('RNEG')}" for j in range(4)],
            }
            f.write(json.dumps(q, ensure_ascii=False) + "\n")
    out = hostile_out(root, "tb")
    with model_server(_testbed_reply) as env:
        cli(
            "testbed", "noise", "--data", f"rgb:{path}", "--model", MODELS[0], "--ratios", "0,0.4",
            "--passages", "4", "--out", str(out), "--resamples", "20", "--no-progress",
            "--cache", str(root / "cache-tb.sqlite3"), env=env,
        )  # fmt: skip
    cli("report", str(out))  # with the noise plot
    return out


@kind(
    "nomiracl-testbed",
    ("report", "view", "served"),
    *TESTBED_FIELDS,
    Field("NQRY", "query", ("view", "served")),
    Field("NQID", "query id", ("view", "served")),
    Field("NTTL", "passage title", ("view", "served")),
    Field("NTXT", "passage text", ("view", "served")),
)
def build_nomiracl_testbed(root: Path) -> Path:
    """``bordir testbed nomiracl`` on NoMIRACL files (Swahili, both subsets) with hostile queries and passages."""
    d = root / "nomiracl" / "sw"
    (d / "topics").mkdir(parents=True)
    (d / "qrels").mkdir()
    corpus = []
    for split in ("test", "dev"):
        for subset in ("non_relevant", "relevant"):
            topics, qrels = [], []
            for i in range(3):
                qid = f"{split}{subset[0]}{i} {verbatim('NQID')}"
                topics.append(f"{qid}\tSwali {i}? {hostile('NQRY')}\n")
                for p in range(10):
                    doc = f"{qid}#{p}"
                    qrels.append(f"{qid}\tQ0\t{doc}\t{int(subset == 'relevant' and p == 2)}\n")
                    corpus.append(
                        {
                            "docid": doc,
                            "title": f"T{p} {hostile('NTTL')}",
                            "text": f"{p} {hostile('NTXT')}",
                        }
                    )
            (d / "topics" / f"{split}.{subset}.tsv").write_text("".join(topics), encoding="utf-8")
            (d / "qrels" / f"{split}.{subset}.tsv").write_text("".join(qrels), encoding="utf-8")
    (d / "corpus.jsonl").write_text(
        "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in corpus), encoding="utf-8"
    )
    out = hostile_out(root, "nomiracl")
    with model_server(_testbed_reply) as env:
        cli(
            "testbed", "nomiracl", "--data", f"nomiracl:{root / 'nomiracl'}", "--model", MODELS[0],
            "--lang", "sw", "--out", str(out), "--resamples", "20", "--no-progress",
            "--cache", str(root / "cache-nm.sqlite3"), env=env,
        )  # fmt: skip
    cli("report", str(out), "--no-plots")
    return out


# --- a test run (testgen + testrun + judge), an audit -------------------------------------------------


def _judge_reply(body: dict) -> str:
    from ..obeying_judge import CRITERIA

    user = body["messages"][-1]["content"]
    if "faithfulness" in user.lower() or "judge" in user.lower():
        return json.dumps({c: "True" for c in CRITERIA} | {"rationale": hostile("RATN")})
    return f"{hostile('ANSR')}"


@kind(
    "testgen",
    ("view", "served"),
    Field("MDLA", "system under test (model name)", ("view", "served")),
    Field("JDGE", "judge model name", ("view", "served")),
    Field("ANSR", "answer", ("view", "served")),
    Field("RATN", "judge's rationale", ("view", "served")),
    Field("SRCT", "source text (chunk)", ("view", "served")),
    Field("SRCF", "source file name (chunk ids)", ("view", "served")),
    Field("DIRX", "directory name", ("view", "served")),
)
def build_testgen(root: Path) -> Path:
    """``testgen`` (template generator) on a hostile Markdown file, ``testrun`` and ``judge`` (2 repeats)."""
    src = root / "sources"
    src.mkdir()
    paragraphs = [
        f"Paragraph {i}: the Zanzibar archipelago ledger {i} records cloves and tides, "
        f"harbour {i} and monsoon {i}. {hostile('SRCT')}"
        for i in range(6)
    ]
    (src / (hostile("SRCF", slash=False) + ".md")).write_text(
        "# Notes\n\n" + "\n\n".join(paragraphs) + "\n", encoding="utf-8"
    )
    suite, cache, out = (
        root / "tests.jsonl",
        str(root / "cache-tg.sqlite3"),
        hostile_out(root, "trun"),
    )
    cli(
        "testgen",
        str(src),
        "--n",
        "4",
        "--generator",
        "template",
        "--out",
        str(suite),
        "--cache",
        cache,
    )
    with model_server(_judge_reply) as env:
        cli(
            "testrun", str(suite), "--config", f"retriever=bm25,backend={MODELS[0]}", "--out", str(out),
            "--cache", cache, env=env,
        )  # fmt: skip
        cli(
            "judge", str(out), "--judge", "openai-compatible/" + hostile("JDGE"), "--repeats", "2",
            "--cache", cache, env=env,
        )  # fmt: skip
    cli("view", str(out))
    return out


@kind(
    "audit",
    ("view", "served"),
    Field("AQRY", "query", ("view", "served")),
    Field("AQLG", "query language code", ("view", "served")),
    Field("ADLG", "document language code", ("view", "served")),
    Field("ADOC", "document id", ("view", "served")),
    Field("ARSP", "response", ("view", "served")),
    Field("AMDL", "model (the group)", ("view", "served")),
    Field("AIDX", "record id", ("view", "served")),
    Field("LOGF", "log file name", ("view", "served")),
    Field("DIRX", "directory name", ("view", "served")),
)
def build_audit(root: Path) -> Path:
    """``bordir audit --group-by model`` of a log whose every free field is hostile."""
    log = root / (hostile("LOGF", slash=False) + ".jsonl")
    langs = ["en", "sw", hostile("ADLG")]
    with log.open("w", encoding="utf-8") as f:
        for i in range(60):
            docs = [
                {"id": f"d{i}.{j} {hostile('ADOC')}", "lang": lang} for j, lang in enumerate(langs)
            ]
            rec = {
                "id": f"{i} {hostile('AIDX')}",
                "query": f"question {i} {hostile('AQRY')}",
                "query_lang": ["sw", hostile("AQLG")][i % 2],
                "documents": docs,
                "response": f"Answer {hostile('ARSP')} <doc{i % 3}>",
                "response_lang": "en",
                "citations": [docs[i % 3]["id"]],
                "model": hostile("AMDL"),
            }
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    out = hostile_out(root, "audit")
    cli(
        "audit", str(log), "--out", str(out), "--group-by", "model", "--resamples", "20",
        "--seed", "1", "--no-plots", "--no-language-match",
    )  # fmt: skip
    cli("view", str(out))
    return out


# --- a black-box audit (answers and cited URLs) ---------------------------------------------------------


@kind(
    "blackbox-audit",
    ("view", "served"),
    Field("BQRY", "question", ("view", "served")),
    Field("BANS", "answer", ("view", "served")),
    Field("BMDL", "model", ("view", "served")),
    Field("BIDX", "record id", ("view", "served")),
    Field("BGRP", "question group", ("view", "served")),
    Field("bqlg", "query language code (lower-cased as an unknown code)", ("view", "served")),
    Field("BURP", "cited URL (its path, as given)", ("view", "served")),
    Field("BTTL", "title of a cited URL", ("view", "served")),
    Field("BSNP", "snippet of a cited URL", ("view", "served")),
    Field("BJSU", "a javascript: URL (skipped as unsafe_scheme)", ()),
    Field("BDTU", "a data: URL (skipped as unsafe_scheme)", ()),
    Field("BTER", "territory (claimants.csv)", ()),
    Field("bcll", "claimant language code", ()),
    Field("LOGF", "log file name", ("view", "served")),
    Field("DIRX", "directory name", ("view", "served")),
)
def build_blackbox_audit(root: Path) -> Path:
    """``bordir audit`` (black box: answers and cited URLs) of a log whose every free field is hostile, and ``bordir view``."""
    log = root / (hostile("LOGF", slash=False) + ".jsonl")
    with log.open("w", encoding="utf-8") as f:
        for i in range(36):
            lang = ("ru", "uk", hostile("bqlg"))[i % 3]
            urls = [
                {"url": "https://example.com/" + hostile("BURP"), "title": hostile("BTTL"), "snippet": hostile("BSNP")},
                {"url": "https://ria.ru/a", "title": None, "snippet": None},
                {"url": hostile("BJSU"), "title": "t"},
                {"url": "data:text/html,<script>alert('BDTU')</script>" + hostile("BDTU")},
            ]  # fmt: skip
            rec = {
                "id": f"{i} {hostile('BIDX')}", "question": f"question {i // 3} {hostile('BQRY')}", "lang": lang,
                "answer": f"answer {i} {hostile('BANS')}", "model": "openai-search/" + hostile("BMDL"),
                "urls": urls, "group": f"g{i // 3} {hostile('BGRP')}", "territory": hostile("BTER"),
                "claimants": ["RU", "UA"], "claimant_langs": ["ru", hostile("bcll")],
            }  # fmt: skip
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    out = hostile_out(root, "bbaudit")
    cli(
        "audit",
        str(log),
        "--out",
        str(out),
        "--resamples",
        "20",
        "--permutations",
        "20",
        "--seed",
        "1",
    )
    cli("view", str(out))
    return out
