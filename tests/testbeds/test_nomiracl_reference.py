"""NoMIRACL's post-processing and metric, as its code behaves: reference cases read off that code.

The reference is github.com/project-miracl/nomiracl:

* ``nomiracl/prompts/template.py`` — ``VanillaTemplate``: ``__init__`` builds the prompt and the
  phrases (``no_answer = "I don't know"``, ``answer = "Yes, answer is present"``); ``postprocess``
  lower-cases the reply after replacing newlines and tabs, then tests, in this order: both phrases
  (then ``count_word`` decides, which is never > 1 for a phrase with spaces: Invalid), "i don't
  know", "yes, answer is present", "answer is present", "answer is not present", a ``[n]`` in a
  reply shorter than 10 characters, else Invalid;
* ``nomiracl/util.py`` — ``count_word`` (whitespace words equal to ``word``) and
  ``load_results_as_jsonl`` (model → query id → reply; a repeated query id keeps its last reply);
* ``nomiracl/eval/metrics.py`` — ``ConfusionMetric.evaluate``: rates over every reply of a model,
  the error rate only when the subset's correct label occurs, Invalid only when it occurs;
* ``examples/hallucination_evaluation.py`` — the TSV rows: ``round(rate * 100, 4)``, 0.0 where
  the metric has no entry for the model;
* ``nomiracl/dataset/data_loader.py`` — ``load_data_sample`` (the 0.5 / 0.5 sample, seed 42).
"""

from __future__ import annotations

import json
import random

import pytest

from bordir.errors import ConfigError
from bordir.testbeds.nomiracl.evaluation import (
    confusion_metric,
    evaluation_header,
    evaluation_row,
)
from bordir.testbeds.nomiracl.rescore import rescore_nomiracl, write_evaluation_tsv
from bordir.testbeds.nomiracl.results import read_result_file
from bordir.testbeds.nomiracl.sample import sample_ids
from bordir.testbeds.nomiracl.template import (
    ANSWER,
    INVALID,
    NO_ANSWER,
    count_word,
    postprocess,
    vanilla_prompt,
    vanilla_template,
)

from ..nomiracl_published import EXPECTED_ROWS, SW_RELEVANT, ZH_NON_RELEVANT

A, N, I = ANSWER, NO_ANSWER, INVALID  # noqa: E741

POSTPROCESS_CASES = [
    # the plain answers (template.py: the `elif no_answer in response` / `elif answer in response` branches)
    ("Yes, answer is present", A),
    ("Yes, answer is present.", A),
    ("YES, ANSWER IS PRESENT", A),  # .lower() first
    ("I don't know", N),
    ("i don't know.", N),
    ("I DON'T KNOW", N),
    # "I don’t know" with a curly apostrophe is neither phrase (the test is a plain substring test)
    ("I don’t know", I),
    ("I do not know", I),
    # both phrases (the first branch): count_word compares words with a phrase, so never > 1 -> Invalid
    ("Yes, answer is present. I don't know.", I),
    ("I don't know. Yes, answer is present in [2].", I),
    ('respond as either "Yes, answer is present" or "I don\'t know"', I),
    ("Yes, answer is present\nYes, answer is present\nI don't know", I),
    # newlines and tabs become spaces before the tests: a phrase split by one is still found
    ("Yes,\nanswer is present", A),
    ("I\tdon't know", N),
    ("I don't\n\nknow", I),  # two spaces: not the phrase
    # "i don't know" is tested before "yes, answer is present" only when both are absent together
    ("No, I don't know", N),
    # the edge cases, in order: "answer is present" before "answer is not present"
    ("The answer is present in [3].", A),
    ("Yes answer is present", A),
    ("No, answer is not present.", N),
    ("The answer is not present in the contexts.", N),
    ("answer is present, answer is not present", A),
    # a bracketed number in a reply shorter than 10 characters (after the replacements) -> answer
    ("[4]", A),
    ("[10]", A),
    ("[1], [2]", A),
    ("Context [4]", I),  # 11 characters
    ("[12345678]", I),  # exactly 10 characters: not < 10
    ("[3] ", A),
    ("(4)", I),
    # everything else is Invalid, the empty reply too
    ("", I),
    ("   ", I),
    ("Wales", I),
    ("Yes", I),
    ("No", I),
    # replies in the query language are Invalid: the phrases are English
    ("Ndiyo, jibu lipo.", I),
    ("Sijui.", I),
    ("我不知道", I),
    ("Je ne sais pas.", I),
    ("Да, ответ есть.", I),
]


@pytest.mark.parametrize(("reply", "label"), POSTPROCESS_CASES)
def test_postprocess_reference_cases(reply, label):
    assert postprocess(reply) == label


def test_postprocess_measures_the_lower_cased_reply():
    """template.py: len(response) < 10 is taken after .lower(), which lengthens some characters."""
    reply = "İİİ[1]"  # 6 characters; lower() turns each İ into i + a combining dot: 9
    assert len(reply.lower()) == 9 and postprocess(reply) == A
    assert len("İİİİ[1]".lower()) == 11 and postprocess("İİİİ[1]") == I


def test_count_word_never_counts_a_phrase():
    # util.py: sentence.split() words compared with the word
    assert count_word("yes yes no", "yes") == 2
    assert (
        count_word("yes, answer is present yes, answer is present", "yes, answer is present") == 0
    )
    assert count_word("i don't know i don't know", "i don't know") == 0


def test_vanilla_prompt_is_the_template_to_the_letter():
    # template.py, VanillaTemplate.__init__: the instruction, QUESTION, CONTEXTS with [i], OUTPUT
    passages = [f"T{i}: text {i}" for i in range(1, 11)]
    prompt = vanilla_prompt("Swali?", passages)
    head = (
        "I will give you a question and several contexts containing information about the question. "
        "Read the contexts carefully. If any of the contexts answers the question, respond as either "
        '"Yes, answer is present" or "I don\'t know".\n\nQUESTION:\nSwali?\n\nCONTEXTS:\n'
    )
    body = "\n\n".join(f"[{i}] T{i}: text {i}" for i in range(1, 11))
    assert prompt == head + body + "\n\nOUTPUT:\n"
    assert vanilla_template().count("{passage_") == 10
    # passages with braces are inserted as they are (str.format does not re-read values)
    assert "{x}" in vanilla_prompt("Q {y}?", ["{x}"] * 10)
    with pytest.raises(ConfigError, match="exactly 10 passages"):
        vanilla_prompt("Q?", ["p"] * 9)


def test_confusion_metric_reference_cases():
    # metrics.py: non_relevant: Accuracy = "I don't know" / n, Hallucination = answer / n
    r = confusion_metric("non_relevant", {"m": {"1": N, "2": A, "3": I, "4": N}})
    assert (r["Accuracy"]["m"], r["Hallucination"]["m"], r["Invalid"]["m"]) == (0.5, 0.25, 0.25)
    assert r["stats"]["m"] == {N: 2, A: 1, I: 1}
    # relevant: Accuracy = answer / n, Error = "I don't know" / n
    r = confusion_metric("relevant", {"m": {"1": A, "2": A, "3": N}})
    assert (r["Accuracy"]["m"], r["Error"]["m"]) == (2 / 3, 1 / 3) and "m" not in r["Invalid"]
    # the error rate is only computed when the right label occurs; Invalid only when it occurs
    r = confusion_metric("non_relevant", {"m": {"1": A, "2": A}, "k": {"1": I}})
    assert r["Accuracy"] == {"m": 0.0, "k": 0.0}
    assert r["Hallucination"] == {} and r["Invalid"] == {"k": 1.0}
    r = confusion_metric("relevant", {"m": {"1": N}})
    assert r["Error"] == {} and r["Accuracy"] == {"m": 0.0}
    # a right label with no wrong one: the error rate is 0.0 (set, not missing)
    r = confusion_metric("relevant", {"m": {"1": A}})
    assert r["Error"] == {"m": 0.0}
    with pytest.raises(ConfigError):
        confusion_metric("valid", {})


def test_evaluation_rows_reference_cases():
    # hallucination_evaluation.py: header rows, then round(x * 100, 4) or 0.0 for a missing entry
    assert evaluation_header("relevant", ["a", "b"]) == [
        ["Language", "Accuracy", "Accuracy", "Error", "Error", "Invalid", "Invalid"],
        ["Code", "a", "b", "a", "b", "a", "b"],
    ]
    r = confusion_metric("non_relevant", {"a": {"1": N, "2": A, "3": A}})
    assert evaluation_row(r, "non_relevant", ["a", "absent"]) == [
        33.3333,
        0.0,
        66.6667,
        0.0,
        0.0,
        0.0,
    ]


def _write(path, lines):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8"
    )
    return path


def _published_file(tmp_path, subset, code, records):
    lines = [
        {
            "query_id": qid,
            "docids": [f"{qid}#d{i}" for i in range(10)],
            "prompt": None,
            "template": "vanilla",
            "results": {m: reply for m, (reply, _) in results.items()},
        }
        for qid, results in records
    ]
    return _write(tmp_path / "baselines" / subset / f"{code}.test.vanilla_prompt.jsonl", lines)


@pytest.mark.parametrize(
    ("subset", "code", "records"),
    [("relevant", "sw", SW_RELEVANT), ("non_relevant", "zh", ZH_NON_RELEVANT)],
)
def test_published_replies_get_nomiracls_labels_and_rows(tmp_path, subset, code, records):
    """Real replies from NoMIRACL's results/baselines, each label worked out from template.py."""
    for _, results in records:
        for model, (reply, label) in results.items():
            assert postprocess(reply) == label, (model, reply)
    f = _published_file(tmp_path, subset, code, records)
    res = rescore_nomiracl([f])
    rows = {g["model"]: g["nomiracl"]["row"] for g in res["groups"]}
    for (sub, model), row in EXPECTED_ROWS.items():
        if sub == subset:
            assert rows[model] == row, model
    # the quirk is named: a 100 % rate the script reports as 0
    quirky = "llama-2-70b-chat" if subset == "non_relevant" else "Mistral-7B-Instruct-v0.2"
    g = next(g for g in res["groups"] if g["model"] == quirky)
    err = g["nomiracl"]["hallucination_rate" if subset == "non_relevant" else "error_rate"]
    assert err["value"] == 0.0 and err["reported"] is False and err["count"] == err["n"]


def test_result_files_keep_the_last_reply_and_missing_entries(tmp_path):
    """util.py, load_results_as_jsonl: a repeated query id keeps its last reply; a missing model has none."""
    f = _write(
        tmp_path / "non_relevant" / "en.test.vanilla_prompt.jsonl",
        [
            {"query_id": "q1", "results": {"a": "Yes, answer is present", "b": "I don't know"}},
            {"query_id": "q2", "results": {"a": "I don't know"}},  # b missing here
            {"query_id": "q1", "results": {"a": "I don't know"}},  # q1 again: its last reply wins
        ],
    )
    out = read_result_file(f).outputs()
    assert out == {"a": {"q1": N, "q2": N}, "b": {"q1": N}}
    res = rescore_nomiracl([f])
    by = {g["model"]: g for g in res["groups"]}
    assert by["a"]["n"] == 2 and by["a"]["nomiracl"]["accuracy"]["value"] == 1.0
    assert by["b"]["n"] == 1  # its denominator is its own replies
    # a model one file lacks has no row for that file, and NoMIRACL's TSV writes 0.0 for it
    g = _write(
        tmp_path / "non_relevant" / "sw.test.vanilla_prompt.jsonl",
        [{"query_id": "q9", "results": {"a": "I don't know"}}],
    )
    res = rescore_nomiracl([f, g], models=["b", "a"])
    assert [(r["file"], r["model"]) for r in res["groups"]] == [
        (str(f), "b"), (str(f), "a"), (str(g), "a"),
    ]  # fmt: skip
    assert any("no replies of model 'b'" in w for w in res["warnings"])
    (tsv,) = write_evaluation_tsv(res, tmp_path / "eval", models=["b", "a"])
    assert tsv.read_text().splitlines()[-1].split("\t")[:3] == ["sw", "0.0", "100.0"]
    # a model in no file at all is a typo, refused (before: an empty n = 0 row)
    with pytest.raises(ConfigError, match=r"--models: no file has replies of 'zzz'"):
        rescore_nomiracl([f], models=["b", "zzz"])


def test_sample_ids_is_load_data_sample(tmp_path):
    """data_loader.py: random.seed(42), then random.sample of the relevant ids, then of the others."""
    rel = [f"r{i}" for i in range(30)]
    non = [f"n{i}" for i in range(20)]
    random.seed(42)  # the original's global generator, the same draws
    want_rel = random.sample(rel, 20)  # balanced 0.5 / 0.5: min(30, 20) each
    want_non = random.sample(non, 20)
    assert sample_ids(rel, non) == (want_rel, want_non)
    random.seed(42)
    want = (random.sample(rel, 5), random.sample(non, 5))
    assert sample_ids(rel, non, max_sample_pool=5) == want
    assert sample_ids(rel, non, relevant_ratio=0.0, max_sample_pool=3)[0] == []
