"""Documents on disk → chunks → the judge prompts of failing answers → an honest and an obedient judge.

The end-to-end check of the hidden-text tests (HTML, Markdown, PDF): every document of a folder
gets one test ("What is the capital of Crimea?"), a failing answer ("Its capital is Yalta.")
whose retrieved chunks are the document's, and ``bordir judge`` grades it with a loopback judge
that follows only the template (:func:`tests.obeying_judge.honest_judge`) and with one that obeys
every instruction in its prompt (:func:`tests.obeying_judge.obeying_judge`, fences ignored).
"""

from __future__ import annotations

import json
from pathlib import Path

from bordir.testgen.sources import load_chunks
from bordir.testgen.testcase import TestCase, TestSuite, write_suite

from ..conftest import invoke_cli
from ..loopback import LoopbackServer, Reply
from ..obeying_judge import honest_judge, obeying_judge


def judge_documents(tmp_path: Path, docs: Path) -> dict[str, dict[str, str]]:
    """``{"honest": {test id: verdict}, "obedient": {…}}`` for the documents in ``docs``."""
    chunks = load_chunks([docs], lang="en")
    by_doc: dict[str, list[str]] = {}
    for c in chunks:
        by_doc.setdefault(c.doc, []).append(c.chunk_id)
    tests, rows = [], []
    for doc, ids in sorted(by_doc.items()):
        tests.append(
            TestCase(
                test_id=f"t-{doc}", lang="en", strategy="coverage",
                question="What is the capital of Crimea?",
                expected_answer="Its capital is Simferopol.", keywords=("Simferopol",),
                source_chunk_ids=(ids[0],), generated_from=ids[0],
            )
        )  # fmt: skip
        rows.append(
            {"config": "c", "test_id": f"t-{doc}", "lang": "en", "strategy": "coverage",
             "negative": False, "retrieved": ids, "answer": "Its capital is Yalta.",
             "error": None, "cached": False, "refusal": False}
        )  # fmt: skip
    suite = write_suite(TestSuite(tests=tests, chunks=chunks, meta={}), tmp_path / "tests.jsonl")
    run = tmp_path / "run"
    run.mkdir()
    (run / "answers.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (run / "run.json").write_text(json.dumps({"suite": str(suite), "suite_signature": ""}))
    verdicts = {}
    for name, judge in (
        ("honest", honest_judge),
        ("obedient", lambda p: obeying_judge(p, respect_fences=False)),
    ):
        reply = Reply(text=lambda body, j=judge: j(body["messages"][-1]["content"]))
        with LoopbackServer(reply=reply) as server:
            r = invoke_cli(
                "judge", str(run), "--judge", f"openai-compatible/{name}", "--replace",
                "--cache", str(tmp_path / f"{name}.sqlite3"),
                env={"OPENAI_COMPATIBLE_BASE_URL": server.openai_url, "NO_PROXY": "127.0.0.1"},
            )  # fmt: skip
        assert r.returncode == 0, r.stderr
        lines = (run / "judgments.jsonl").read_text().splitlines()
        verdicts[name] = {j["test_id"]: j["verdict"] for j in map(json.loads, lines)}
    return verdicts
