"""testgen end to end: `bordir testgen` → `bordir testrun` → `bordir judge` on the demo corpus and on a PDF,
against the loopback OpenAI-protocol server (system under test, judges, label judges) and with the local model."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from click.testing import CliRunner

from bordir.cli import judge as judge_cli
from bordir.cli import testgen as tg_cli
from bordir.cli import testrun as testrun_cli
from bordir.testgen.phrases import IDK, is_refusal
from bordir.testgen.reliability import final_verdicts

from ..conftest import invoke_cli
from ..loopback import loopback  # noqa: F401  (fixture)
from .test_testgen_generate import write_pdf

FULL = ("faithfulness", "relevance", "completeness", "clarity", "keyword_match")


def _lines(path) -> list[str]:
    with open(path, encoding="utf-8") as f:
        return f.read().splitlines()


def _lang_of(prompt: str) -> str:
    return "es" if "Pregunta:" in prompt else "ru" if "Вопрос:" in prompt else "en"


def _judge_rule(answer: str) -> str:
    """The loopback judges' verdict on an answer: 'garble', 'fail' or 'pass' (a pure function of the text)."""
    n = len(answer)
    return "garble" if n % 7 == 0 else "fail" if n % 3 == 0 else "pass"


def _program(server):
    """SUT: the first sentence of the first document (or 'not enough information'); judges: see _judge_rule."""
    localized = {"en": ("True", "False"), "ru": ("Да", "Нет"), "es": ("True", "False")}

    def reply(body):
        msgs = body["messages"]
        prompt = msgs[-1]["content"]
        if msgs[0]["role"] == "system":  # the system under test
            if "Document [1]" not in prompt:
                return IDK["en"]
            doc = prompt.split("[BEGIN DATA: document 1]\n", 1)[1].split("\n", 1)[0]
            return doc.split(". ")[0].rstrip(".") + "."
        answer = prompt.split("[BEGIN DATA: answer]\n", 1)[1].split("\n[END DATA: answer]")[0]
        lang, model = _lang_of(prompt), body["model"]
        rule = "pass" if model == "label-c" or lang == "es" else _judge_rule(answer)
        if rule == "garble" and model == "judge":
            return "This answer seems fine overall."
        yes, no = localized[lang]
        ratings = {c: yes for c in FULL}
        if rule == "fail":
            ratings["faithfulness"] = no
        return json.dumps({**ratings, "rationale": f"{lang} judge"}, ensure_ascii=False)

    server.reply.text = reply


def _invoke(cmd, args):
    res = CliRunner().invoke(cmd, args)
    assert res.exit_code == 0, (res.output, res.exception)
    return res


@pytest.mark.slow
def test_demo_end_to_end_through_the_loopback_server(loopback, monkeypatch, tmp_path):  # noqa: F811
    monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", loopback.openai_url)
    _program(loopback)
    cache, tests, run = (
        str(tmp_path / "c.sqlite3"),
        str(tmp_path / "tests.jsonl"),
        str(tmp_path / "run"),
    )
    _invoke(
        tg_cli.testgen_cmd,
        ["demo", "--strategies", "complex,negative,coverage", "--n", "12", "--out", tests],
    )
    configs = [
        "--config",
        "retriever=bm25,backend=openai-compatible/sut,mode=qlang,k=2",
        "--config",
        "retriever=bm25,backend=openai-compatible/sut,mode=all,k=3",
        "--config",
        "backend=openai-compatible/sut,mode=no_ir,k=1",
    ]
    res = _invoke(testrun_cli.testrun_cmd, [tests, *configs, "--out", run, "--cache", cache])
    assert (
        "wrote 36 answers" in res.output
        and "signature: testrun|ret:bm25|gen:openai-compatible/sut|mode:qlang|k:2" in res.output
    )
    calls = loopback.count
    assert calls == 36  # one call per distinct (config, test) request
    answers = [json.loads(l) for l in _lines(f"{run}/answers.jsonl")]
    assert len(answers) == 36 and not any(a["error"] for a in answers)
    no_ir = [a for a in answers if "mode=no_ir" in a["config"]]
    assert all(a["retrieved"] == [] and a["refusal"] for a in no_ir)
    tests_rows = {json.loads(l)["test_id"]: json.loads(l) for l in _lines(tests)}
    for a in answers:  # withheld documents are never retrieved
        withheld = set(tests_rows[a["test_id"]]["withheld_docs"])
        assert not withheld & set(a["retrieved_docs"])
    qlang = [a for a in answers if "mode=qlang," in a["config"]]
    assert all(c.split(":")[0] == a["lang"] for a in qlang for c in a["retrieved"])
    # nothing is billed twice: a re-run is served from the cache
    _invoke(testrun_cli.testrun_cmd, [tests, *configs, "--out", run, "--cache", cache])
    assert loopback.count == calls

    res = _invoke(
        judge_cli.judge_cmd,
        [
            run,
            "--judge",
            "openai-compatible/judge",
            "--prompt-langs",
            "en,es,ru",
            "--repeats",
            "2",
            "--label-judge",
            "openai-compatible/label-a",
            "--label-judge",
            "openai-compatible/label-b",
            "--label-judge",
            "openai-compatible/label-c",
            "--cache",
            cache,
            "--json",
        ],
    )
    summary = json.loads(res.output)
    judgments = [json.loads(l) for l in _lines(f"{run}/judgments.jsonl")]
    assert len(judgments) == 36 * 3 * 2
    expected = {(a["config"], a["test_id"]): _judge_rule(a["answer"]) for a in answers}
    final = final_verdicts(judgments)
    for unit, rule in expected.items():
        assert (
            final[unit]["verdict"] == {"garble": "unparsed", "fail": "fail", "pass": "pass"}[rule]
        )
    en = [j for j in judgments if j["prompt_lang"] == "en"]
    assert all(
        (j["outcome"] == "unparsed") == (expected[(j["config"], j["test_id"])] == "garble")
        for j in en
    )
    # rates per config with Wilson intervals, unparsed counted apart
    rates = {r["config"]: r for r in summary["fail_rates"]}
    for cfg, r in rates.items():
        rules = [v for (c, _), v in expected.items() if c == cfg]
        assert (r["fails"], r["decided"], r["unparsed"]) == (
            rules.count("fail"),
            rules.count("fail") + rules.count("pass"),
            rules.count("garble"),
        )
        assert r["signature"].startswith(
            f"testgen_fail_rate|config:{cfg}|judge:openai-compatible/judge|ci:wilsoncc95"
        )
    # invariance: es always passes, ru agrees with en (localized values), garbled en answers have no en verdict
    inv = summary["invariance"]
    decided = [v for v in expected.values() if v != "garble"]
    assert inv["langs"] == ["en", "es", "ru"] and inv["units"] == len(expected)
    assert inv["differing"] == sum(v == "fail" for v in expected.values())
    assert inv["pairs"]["en~ru"]["disagreement"] == 0.0 and inv["pairs"]["en~ru"]["units"] == len(
        decided
    )
    assert inv["unparsed_by_lang"]["en"] == sum(v == "garble" for v in expected.values())
    # repeats agree (deterministic server), both repeats were separate calls (seeds 0 and 1)
    verdict_agreement = [
        a for a in summary["repeat_agreement"] if a["of"] == "verdict" and a["prompt_lang"] == "en"
    ]
    assert verdict_agreement[0]["percent_agreement"] == 1.0 and verdict_agreement[0]["repeats"] == 2
    # oracle precision: label-a and label-b agree with the oracle, label-c always passes → majority = oracle
    prec = summary["oracle_precision"]
    fails = sum(v == "fail" for v in expected.values())
    assert (
        prec["population"] == fails
        and prec["sampled"] == min(fails, prec["sampled"])
        and prec["precision"] == 1.0
    )
    assert prec["signature"].startswith(
        "oracle_precision|oracle:openai-compatible/judge|labels:majority:"
        "openai-compatible/label-a+openai-compatible/label-b+openai-compatible/label-c"
    )
    verdicts = pd.read_csv(f"{run}/verdicts.csv")
    failed = verdicts[verdicts["verdict"] == "fail"]
    assert set(failed["category"]) <= {
        "unsupported_answer",
        "other",
    }  # faithfulness False: unsupported
    other = failed[failed["category"] == "other"]
    assert (
        other["negative"] & other["refusal"]
    ).all()  # a refused negative test failed by the judge
    paired = pd.read_csv(f"{run}/paired.csv")
    assert len(paired[paired["lang"] == "all"]) == 3 and paired["p_mcnemar"].between(0, 1).all()
    # the judge's keyword match vs the computed one is reported
    assert summary["keyword_match_agreement"]["rows"] > 0


@pytest.mark.slow
def test_pdf_end_to_end_through_the_loopback_server(loopback, monkeypatch, tmp_path):  # noqa: F811
    monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", loopback.openai_url)
    _program(loopback)
    pdf = write_pdf(tmp_path / "strait.pdf")
    tests, run, cache = (
        str(tmp_path / "t.jsonl"),
        str(tmp_path / "run"),
        str(tmp_path / "c.sqlite3"),
    )
    res = _invoke(
        tg_cli.testgen_cmd,
        [str(pdf), "--strategies", "coverage", "--full-coverage", "--out", tests],
    )
    assert "4 chunks, 100.0% used by a test" in res.output
    chunks = [json.loads(l) for l in _lines(tmp_path / "t.chunks.jsonl")]
    assert [c["page"] for c in chunks] == [1, 1, 2, 2]
    _invoke(
        testrun_cli.testrun_cmd,
        [
            tests,
            "--config",
            "backend=openai-compatible/sut,mode=qlang,k=1",
            "--out",
            run,
            "--cache",
            cache,
        ],
    )
    answers = [json.loads(l) for l in _lines(f"{run}/answers.jsonl")]
    assert sum(a["source_retrieved"] for a in answers) >= 3
    res = _invoke(
        judge_cli.judge_cmd,
        [
            run,
            "--judge",
            "openai-compatible/judge",
            "--cache",
            cache,
            "--keyword-source",
            "computed",
        ],
    )
    assert "fail rate [CI]" in res.output and "signature: testgen_fail_rate|" in res.output
    judged = [json.loads(l) for l in _lines(f"{run}/judgments.jsonl")]
    assert all(
        j["keyword_match"] == j["keyword_match_computed"]
        for j in judged
        if j["outcome"] == "judged"
    )
    # the strategy-free baseline on the same configuration, then the comparison
    base_tests, base_run = str(tmp_path / "b.jsonl"), str(tmp_path / "base")
    _invoke(
        tg_cli.testgen_cmd, [str(pdf), "--strategies", "baseline", "--n", "6", "--out", base_tests]
    )
    _invoke(
        testrun_cli.testrun_cmd,
        [
            base_tests,
            "--config",
            "backend=openai-compatible/sut,mode=qlang,k=1",
            "--out",
            base_run,
            "--cache",
            cache,
        ],
    )
    _invoke(judge_cli.judge_cmd, [base_run, "--judge", "openai-compatible/judge", "--cache", cache])
    res = _invoke(
        judge_cli.judge_cmd,
        [
            run,
            "--judge",
            "openai-compatible/judge",
            "--cache",
            cache,
            "--keyword-source",
            "computed",
            "--baseline",
            base_run,
            "--json",
        ],
    )
    vb = json.loads(res.output)["vs_baseline"]
    base = pd.read_csv(f"{base_run}/verdicts.csv")
    strat = pd.read_csv(f"{run}/verdicts.csv")
    row = next(r for r in vb["per_config"] if r["lang"] == "all")
    assert (row["strategy_fails"], row["baseline_fails"]) == (
        (strat["verdict"] == "fail").sum(),
        (base["verdict"] == "fail").sum(),
    )
    assert vb["higher_rate"] + vb["lower_rate"] + vb["same_rate"] == 1 and 0 <= row["p_value"] <= 1
    assert row["test"] == "fisher_exact" and row["interval"] == "newcombe" and vb["paired"] is False
    assert vb["signature"].startswith("testgen_strategy_vs_baseline|")


@pytest.mark.slow
def test_cli_errors_are_one_line(tmp_path):
    from ..conftest import run_cli

    res = run_cli(
        "testrun",
        str(tmp_path / "missing.jsonl"),
        "--config",
        "backend=mock/echo",
        "--out",
        str(tmp_path / "o"),
    )
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert res.stderr.strip().startswith("bordir: error:") and "missing.jsonl" in res.stderr
    res = run_cli(
        "testrun",
        str(tmp_path / "missing.jsonl"),
        "--config",
        "backend=mock/echo,mode=rel_langs",
        "--out",
        str(tmp_path / "o"),
    )
    assert res.returncode == 2 and "missing.jsonl" in res.stderr
    res = run_cli("judge", str(tmp_path), "--judge", "mock/echo")
    assert res.returncode == 2 and "answers.jsonl" in res.stderr and "Traceback" not in res.stderr


@pytest.mark.slow
def test_local_model_end_to_end_on_the_demo_corpus(local_model, tmp_path):
    """The real local model as system under test and as judge (rank classification per criterion): 3 tests
    (complex, negative, coverage) answered, and one of them judged with prompts in three languages
    (en, es, ru: 15 scorings; judging every answer in every language is the loopback test above).

    In-process through the CLI entry point, sharing the session's loaded model; under pytest-xdist a
    crash of llama.cpp ends one worker, which xdist reports as this test's failure."""
    env = {"BORDIR_CACHE": str(tmp_path / "cache")}
    tests, run = str(tmp_path / "tests.jsonl"), str(tmp_path / "run")

    def cli(*args):
        res = invoke_cli(*args, env=env)
        assert res.returncode == 0, (args[0], res.returncode, res.stderr[-2000:])
        return res

    cli(
        "testgen",
        "demo",
        "--langs",
        "en",
        "--strategies",
        "complex,negative,coverage",
        "--n",
        "3",
        "--out",
        tests,
    )
    cli(
        "testrun",
        tests,
        "--config",
        "backend=local/gemma-3-270m,mode=qlang,k=1,max_tokens=24",
        "--out",
        run,
    )
    answers = [json.loads(l) for l in _lines(f"{run}/answers.jsonl")]
    assert len(answers) == 3 and all(a["error"] is None for a in answers)
    assert all(isinstance(a["answer"], str) for a in answers)
    assert all(a["refusal"] == (is_refusal(a["answer"], "en") and not a["echo"]) for a in answers)
    # one test (the negative one, as generated above: its answer comes from the cache) judged in three languages
    one, judged = str(tmp_path / "one.jsonl"), str(tmp_path / "judged")
    cli("testgen", "demo", "--langs", "en", "--strategies", "negative", "--n", "1", "--out", one)
    cli(
        "testrun",
        one,
        "--config",
        "backend=local/gemma-3-270m,mode=qlang,k=1,max_tokens=24",
        "--out",
        judged,
    )
    res = cli(
        "judge", judged, "--judge", "local/gemma-3-270m", "--prompt-langs", "en,es,ru", "--json"
    )
    summary = json.loads(res.stdout)
    judgments = [json.loads(l) for l in _lines(f"{judged}/judgments.jsonl")]
    assert len(judgments) == 3 and all(
        j["outcome"] == "judged" and j["method"] == "rank_classification" for j in judgments
    )
    assert [j["prompt_lang"] for j in judgments] == ["en", "es", "ru"]
    assert (
        summary["invariance"]["langs"] == ["en", "es", "ru"] and summary["invariance"]["units"] == 1
    )
    assert 0.0 <= summary["invariance"]["disagreement"] <= 1.0
