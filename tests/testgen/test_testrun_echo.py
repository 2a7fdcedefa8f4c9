"""Echoes in testrun and the judge (issue 51.3): an echoed system prompt is ``echo``, not a refusal.

The system under test is a loopback OpenAI-protocol server that, for some tests, answers with
its own system prompt (which quotes the "not enough information" phrase), its user message, or
its system prompt cut off mid-sentence, as a small model does. Before, 6 of those 9 echoes (the
system prompt, whole or cut, quotes the phrase) counted as refusals; now every one is an
``echo``, the instructed phrase alone is still a refusal, and the judge rates no echo (its
verdict is ``echo``, counted apart).
"""

from __future__ import annotations

import json

from bordir.testgen.chunks import Chunk
from bordir.testgen.phrases import IDK, is_refusal
from bordir.testgen.testcase import TestCase, TestSuite, write_suite

from ..conftest import invoke_cli
from ..loopback import LoopbackServer, Reply

FULL = ("faithfulness", "relevance", "completeness", "clarity", "keyword_match")
DOCS = {
    "en": "Crimea is a peninsula in the Black Sea. Its capital is Simferopol, a city of about "
    "three hundred thousand people in the centre of the peninsula.",
    "ru": "Крым — полуостров в Чёрном море. Его столица — Симферополь, город с населением около "
    "трёхсот тысяч человек в центре полуострова.",
    "zhs": "克里米亚是黑海中的一个半岛。它的首府是辛菲罗波尔，一个位于半岛中部、人口约三十万的城市。",
}
QUESTION = {
    "en": "What is the capital of Crimea?",
    "ru": "Какая столица Крыма?",
    "zhs": "克里米亚的首府是哪里？",
}
ANSWER = {"en": "Simferopol.", "ru": "Симферополь.", "zhs": "辛菲罗波尔。"}
KINDS = ("system", "system-cut", "user", "idk", "answer")
"""What each system under test (``openai-compatible/sut-<kind>``) answers."""


def _suite(tmp_path):
    chunks, tests = [], []
    for lang, text in DOCS.items():
        chunk = Chunk(chunk_id=f"{lang}#0", doc=lang, lang=lang, text=text, index=0, source="t")
        chunks.append(chunk)
        tests.append(
            TestCase(
                test_id=f"t-{lang}",
                lang=lang,
                strategy="coverage",
                question=QUESTION[lang],
                expected_answer=ANSWER[lang],
                keywords=(ANSWER[lang].rstrip(".。"),),
                source_chunk_ids=(chunk.chunk_id,),
                generated_from=chunk.chunk_id,
            )
        )
    return write_suite(TestSuite(tests=tests, chunks=chunks, meta={}), tmp_path / "tests.jsonl")


def _reply(body: dict) -> str:
    if body["model"] == "judge":  # every criterion True: a judge that would pass an echo
        return json.dumps({**{c: "True" for c in FULL}, "rationale": "fine"})
    system, user = (m["content"] for m in body["messages"])
    lang = next(lg for lg, q in QUESTION.items() if q in user)
    return {
        "system": system,
        "system-cut": system[: int(len(system) * 0.7)],  # max_tokens reached mid-sentence
        "user": user,
        "idk": IDK[lang],
        "answer": ANSWER[lang],
    }[body["model"].removeprefix("sut-")]


def test_echoed_prompts_are_echoes_not_refusals_and_are_not_judged(tmp_path, monkeypatch):
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    suite, run, cache = _suite(tmp_path), tmp_path / "run", str(tmp_path / "c.sqlite3")
    configs = [a for k in KINDS for a in ("--config", f"backend=openai-compatible/sut-{k},k=1")]
    with LoopbackServer(reply=Reply(text=_reply)) as server:
        env = {"OPENAI_COMPATIBLE_BASE_URL": server.openai_url, "NO_PROXY": "127.0.0.1"}
        r = invoke_cli(
            "testrun", str(suite), *configs, "--out", str(run), "--cache", cache, env=env
        )
        assert r.returncode == 0, r.stderr
        sut_calls = server.count
        j = invoke_cli(
            "judge", str(run), "--judge", "openai-compatible/judge", "--cache", cache, env=env
        )
        judge_calls = server.count - sut_calls
    assert j.returncode == 0, j.stderr
    rows = [json.loads(x) for x in (run / "answers.jsonl").read_text().splitlines()]
    kind = {id(row): row["config"].split("sut-")[1].split(",")[0] for row in rows}
    echoes = [row for row in rows if kind[id(row)] in ("system", "system-cut", "user")]
    assert len(rows) == 15 and len(echoes) == 9
    assert [(kind[id(x)], x["lang"]) for x in echoes if not x["echo"] or x["refusal"]] == []
    assert sum(is_refusal(x["answer"], x["lang"]) for x in echoes) == 6  # the refusals of before
    for row in rows:
        if kind[id(row)] == "idk":  # the instructed phrase alone: a refusal, not an echo
            assert row["refusal"] and not row["echo"], row
        if kind[id(row)] == "answer":
            assert not row["refusal"] and not row["echo"], row
    meta = json.loads((run / "run.json").read_text())
    assert meta["calls"]["echo"] == 9
    assert "echoes" in r.stdout
    # the judge is not asked about an echo; its verdict is echo, counted apart from the rate
    assert judge_calls == len(rows) - len(echoes)
    echo_units = {(x["config"], x["test_id"]) for x in echoes}
    judged = [json.loads(x) for x in (run / "judgments.jsonl").read_text().splitlines()]
    assert {x["outcome"] for x in judged if (x["config"], x["test_id"]) in echo_units} == {"echo"}
    summary = json.loads((run / "summary.json").read_text())
    assert sum(x["echo"] for x in summary["fail_rates"]) == 9
    assert sum(x["decided"] for x in summary["fail_rates"]) == 6
