"""`--calibration` in every judged command: `bordir judge`, `bordir annotate`, `bordir testbed`, against loopback judges.

Each judge is first calibrated (`bordir judge calibrate --task …` on a label file) with the same
loopback judge, then the judged command prints the judge's balanced accuracy beside each
language's judged rate; without a file it says the judge is not calibrated; a file of another
judge, task or prompt, or without one of the run's languages, is refused before any call.
"""

from __future__ import annotations

import json

import pytest

from ..conftest import invoke_cli
from ..loopback import loopback  # noqa: F401  (fixture)


def _label_file(path, langs, make):
    """One row per (language, question, sentence): ``make(i) -> (text, label, extra)``."""
    rows = []
    for lang in langs:
        for i in range(24):
            text, label, extra = make(i)
            rows.append(
                {
                    "lang": lang,
                    "question": f"Question {i}?",
                    "question_id": f"{lang}{i}",
                    "context": f"Passage {i}.",
                    "answer": text,
                    "label": label,
                    **extra,
                }
            )
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


# --------------------------------------------------------------------------- bordir judge (testgen)


def _testgen_server(server):
    def reply(body):
        msgs = body["messages"]
        prompt = msgs[-1]["content"]
        if msgs[0]["role"] == "system":  # the system under test
            return "An unsupported claim." if "Tatar" in prompt else "A plain answer."
        answer = prompt.split("[BEGIN DATA: answer]\n", 1)[1].split("\n[END DATA: answer]")[0]
        faithful = "False" if "unsupported" in answer else "True"
        ratings = dict.fromkeys(("relevance", "completeness", "clarity", "keyword_match"), "True")
        return json.dumps({"faithfulness": faithful, **ratings, "rationale": "r"})

    server.reply.text = reply


@pytest.fixture
def judged_run(loopback, monkeypatch, tmp_path):  # noqa: F811
    monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", loopback.openai_url)
    _testgen_server(loopback)
    cache = str(tmp_path / "c.sqlite3")
    assert (
        invoke_cli(
            "testgen",
            "demo",
            "--strategies",
            "complex",
            "--n",
            "4",
            "--out",
            str(tmp_path / "tests.jsonl"),
        ).returncode
        == 0
    )
    res = invoke_cli(
        "testrun",
        str(tmp_path / "tests.jsonl"),
        "--config",
        "backend=openai-compatible/sut,mode=no_ir,k=1",
        "--out",
        str(tmp_path / "run"),
        "--cache",
        cache,
    )
    assert res.returncode == 0, res.stderr
    labels = _label_file(
        tmp_path / "testgen-labels.jsonl",
        ("en", "ar"),
        lambda i: (
            ("This is unsupported.", "Not Supported", {})
            if i % 3 == 0
            else (f"This is fine {i}.", "Supported", {})
        ),
    )
    res = invoke_cli(
        "judge",
        "calibrate",
        "--task",
        "testgen",
        "--data",
        f"labels:{labels}",
        "--judge",
        "openai-compatible/judge",
        "--out",
        str(tmp_path / "cal.json"),
        "--cache",
        cache,
        "--resamples",
        "200",
    )
    assert res.returncode == 0, res.stderr
    return loopback, tmp_path, cache


def test_bordir_judge_prints_the_calibration_beside_each_language(judged_run):
    server, tmp, cache = judged_run
    run = str(tmp / "run")
    res = invoke_cli(
        "judge",
        run,
        "--judge",
        "openai-compatible/judge",
        "--cache",
        cache,
        "--calibration",
        str(tmp / "cal.json"),
        "--correct",
    )
    assert res.returncode == 0, res.stderr
    assert "unsupported rate" in res.stdout and "judge balanced accuracy 1.000" in res.stdout
    assert (
        "judge calibration: judge_calibration|task:testgen|judge:openai-compatible/judge"
        in res.stdout
    )
    block = json.loads((tmp / "run" / "summary.json").read_text())["judge_calibration"]
    assert {r["lang"] for r in block["rows"]} == {"en", "ar"}
    en = next(r for r in block["rows"] if r["lang"] == "en")
    assert en["k"] == 1 and en["n"] == 3  # the one test about Tatar got the unsupported answer
    assert en["judge"]["status"] == "calibrated"
    assert "too few clusters" in en["corrected"]["refused"]  # 3 tests: no interval
    # without a calibration file: said, per language
    res = invoke_cli(
        "judge", run, "--judge", "openai-compatible/judge", "--cache", cache, "--replace"
    )
    assert res.returncode == 0 and res.stdout.count("judge not calibrated in this language") == 2
    # bordir view shows the same rows
    assert invoke_cli("view", run).returncode == 0
    view = (tmp / "run" / "view.html").read_text()
    assert "Judge calibration" in view and "judge not calibrated in this language" in view
    # `bordir judge run RUN_DIR` is the same command
    assert (
        invoke_cli(
            "judge", "run", run, "--judge", "openai-compatible/judge", "--cache", cache
        ).returncode
        == 0
    )


def test_bordir_judge_refuses_a_calibration_of_another_judge_task_or_setting(judged_run):
    server, tmp, cache = judged_run
    run, cal = str(tmp / "run"), str(tmp / "cal.json")
    n = server.count

    def refused(*args):
        res = invoke_cli("judge", run, "--cache", cache, "--calibration", cal, *args)
        assert res.returncode == 2 and res.stdout == "", (res.stdout, res.stderr)
        assert len(res.stderr.strip().splitlines()) == 1
        return res.stderr

    err = refused("--judge", "openai-compatible/other")
    assert "cal.json is the calibration of judge openai-compatible/judge (judge_calibration|" in err
    assert "this run's judge is judge openai-compatible/other (testgen_judge|" in err
    err = refused("--judge", "openai-compatible/judge", "--prompt-langs", "es")
    assert "prompt judge.en@sha256-" in err and "given prompt judge.es@sha256-" in err
    assert "--repeats 1" in refused("--judge", "openai-compatible/judge", "--repeats", "2")
    data = json.loads((tmp / "cal.json").read_text())
    del data["languages"]["ar"]
    (tmp / "no-ar.json").write_text(json.dumps(data))
    res = invoke_cli(
        "judge",
        run,
        "--cache",
        cache,
        "--judge",
        "openai-compatible/judge",
        "--calibration",
        str(tmp / "no-ar.json"),
    )
    assert (
        res.returncode == 2
        and "no-ar.json: field 'languages': no calibration in 'ar'" in res.stderr
    )
    data = json.loads((tmp / "cal.json").read_text())
    data["task"] = "faithfulness"
    (tmp / "other-task.json").write_text(json.dumps(data))
    res = invoke_cli(
        "judge",
        run,
        "--cache",
        cache,
        "--judge",
        "openai-compatible/judge",
        "--calibration",
        str(tmp / "other-task.json"),
    )
    assert res.returncode == 2 and "the faithfulness judge" in res.stderr
    assert server.count == n  # refused before any call


# --------------------------------------------------------------------------- bordir testbed


def _testbed_reply(body):
    user = body["messages"][-1]["content"]
    if body["model"] == "judge-model":
        answer = user.rsplit("Answer:", 1)[1]
        if "can not answer" in answer:
            return "No, the question is not addressed by the documents."
        return "Yes, the question is addressed by the documents."
    return "I can not answer the question." if "Crimea" in user else "The answer is Russia."


@pytest.fixture
def testbed_cal(loopback, monkeypatch, tmp_path):  # noqa: F811
    monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", loopback.openai_url)
    monkeypatch.setenv("BORDIR_CACHE", str(tmp_path / "cache"))
    loopback.reply.text = _testbed_reply
    labels = _label_file(
        tmp_path / "rej.jsonl",
        ("en", "ru"),
        lambda i: (
            ("I can not answer the question.", "rejected", {})
            if i % 2
            else (f"The answer is {i}.", "answered", {})
        ),
    )
    res = invoke_cli(
        "judge",
        "calibrate",
        "--task",
        "rgb_rejection",
        "--data",
        f"labels:{labels}",
        "--judge",
        "openai-compatible/judge-model",
        "--out",
        str(tmp_path / "cal.json"),
        "--resamples",
        "200",
    )
    assert res.returncode == 0, res.stderr
    return loopback, tmp_path


def _testbed_args(langs: str = "en,ru") -> list[str]:
    return [
        "testbed",
        "rejection",
        "--data",
        "demo",
        "--model",
        "openai-compatible/loop-model",
        "--lang",
        langs,
        "--limit",
        "2",
        "--resamples",
        "100",
        "--no-progress",
    ]


TESTBED = _testbed_args()


def test_bordir_testbed_prints_the_calibration_beside_the_judged_rates(testbed_cal):
    server, tmp = testbed_cal
    res = invoke_cli(
        *TESTBED,
        "--judge",
        "openai-compatible/judge-model",
        "--out",
        str(tmp / "tb"),
        "--calibration",
        str(tmp / "cal.json"),
        "--correct",
    )
    assert res.returncode == 0, res.stderr
    assert "rejection_rate_judge" in res.stdout and "judge balanced accuracy 1.000" in res.stdout
    block = json.loads((tmp / "tb" / "scores.json").read_text())["judge_calibration"]
    assert block["task"] == "rgb_rejection" and block["counted"] == "rejected"
    assert {r["lang"] for r in block["rows"]} == {"en", "ru"}
    assert all(r["judge"]["status"] == "calibrated" for r in block["rows"])
    # the report shows the same rows
    res = invoke_cli("report", str(tmp / "tb"), "--no-plots")
    assert res.returncode == 0 and "judge balanced accuracy 1.000" in res.stdout
    page = (tmp / "tb" / "report.html").read_text()
    assert "Judge calibration" in page and "judge balanced accuracy 1.000" in page
    # and so does bordir view
    assert invoke_cli("view", str(tmp / "tb")).returncode == 0
    view = (tmp / "tb" / "view.html").read_text()
    assert '<h2 id="judge-calibration">Judge calibration</h2>' in view
    assert "judge balanced accuracy 1.000" in view
    # without a calibration file
    res = invoke_cli(
        *TESTBED, "--judge", "openai-compatible/judge-model", "--out", str(tmp / "tb2")
    )
    assert res.returncode == 0 and "judge not calibrated in this language" in res.stdout


def test_bordir_testbed_refuses_a_calibration_it_cannot_use(testbed_cal):
    server, tmp = testbed_cal
    n = server.count
    cal = str(tmp / "cal.json")
    res = invoke_cli(
        *TESTBED,
        "--judge",
        "openai-compatible/other-judge",
        "--out",
        str(tmp / "x"),
        "--calibration",
        cal,
    )
    assert res.returncode == 2 and "judge openai-compatible/judge-model" in res.stderr
    assert "this run's judge is judge openai-compatible/other-judge" in res.stderr
    res = invoke_cli(*TESTBED, "--out", str(tmp / "x"), "--calibration", cal)
    assert res.returncode == 2 and "--judge" in res.stderr
    res = invoke_cli(
        *_testbed_args("en,ja"),
        "--judge",
        "openai-compatible/judge-model",
        "--out",
        str(tmp / "x"),
        "--calibration",
        cal,
    )
    assert res.returncode == 2 and "no calibration in 'ja'" in res.stderr
    assert server.count == n


# --------------------------------------------------------------------------- bordir annotate


def test_bordir_annotate_prints_the_annotator_calibration(loopback, monkeypatch, tmp_path):  # noqa: F811
    from bordir import load_demo, load_demo_corpus, retrieve

    monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", loopback.openai_url)

    def reply(body):
        doc = body["messages"][-1]["content"]
        if "relevant-doc" in doc:
            return "Relevance: relevant\nViewpoint: neutral"
        return "Relevance: not relevant\nViewpoint: not_applicable"

    loopback.reply.text = reply
    ds = load_demo()
    hits = retrieve(
        ds,
        load_demo_corpus(),
        "bm25",
        modes="qlang",
        k=2,
        queries=[ds.query(q) for q in ("Crimea_uk", "Ceuta_ar")],
        progress=False,
    )
    hits_path = hits.to_parquet(tmp_path / "hits.parquet")
    labels = _label_file(
        tmp_path / "rel.jsonl",
        ("uk", "ar"),
        lambda i: (
            f"doc {i}",
            "partially_relevant" if i % 2 else "not_relevant",
            {"territory": "Crimea", "claimants": "Russia;Ukraine"},
        ),
    )
    rows = [json.loads(l) for l in labels.read_text().splitlines()]
    for r in rows:  # the document is the context: mark the relevant ones for the loopback annotator
        if r["label"] != "not_relevant":
            r["context"] = "A relevant-doc passage."
    labels.write_text("".join(json.dumps(r) + "\n" for r in rows))
    res = invoke_cli(
        "judge",
        "calibrate",
        "--task",
        "relevance",
        "--data",
        f"labels:{labels}",
        "--judge",
        "openai-compatible/gpt-4o",
        "--out",
        str(tmp_path / "cal.json"),
        "--resamples",
        "200",
        "--no-cache",
    )
    assert res.returncode == 0, res.stderr
    cal = json.loads((tmp_path / "cal.json").read_text())
    assert cal["languages"]["uk"]["counts"]["tp"] == 12  # partially_relevant counted as relevant
    res = invoke_cli(
        "annotate",
        str(hits_path),
        "--backend",
        "openai-compatible/gpt-4o",
        "--out",
        str(tmp_path / "llm.jsonl"),
        "--no-cache",
        "--calibration",
        str(tmp_path / "cal.json"),
    )
    assert res.returncode == 0, res.stderr
    assert "annotator (calibration)" in res.stdout and "judge balanced accuracy 1.000" in res.stdout
    meta = json.loads((tmp_path / "llm.jsonl.meta.json").read_text())
    assert {r["lang"] for r in meta["judge_calibration"]["rows"]} == {"uk", "ar"}
    res = invoke_cli(
        "annotate",
        str(hits_path),
        "--backend",
        "openai-compatible/gpt-4o-mini",
        "--out",
        str(tmp_path / "x.jsonl"),
        "--no-cache",
        "--calibration",
        str(tmp_path / "cal.json"),
    )
    assert res.returncode == 2 and "openai-compatible/gpt-4o-mini" in res.stderr
