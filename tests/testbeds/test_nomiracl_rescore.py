"""``bordir testbed score --format nomiracl``: both policies side by side, their disagreements, NoMIRACL's TSV.

Result files are written in NoMIRACL's format (``query_id, docids, prompt, template,
results``) and laid out as its repository lays them out; the replies cover both phrases,
empty replies, replies in the query language, a model missing from some lines and a reply
that is not a string.
"""

from __future__ import annotations

import csv
import json

import pytest

from bordir.testbeds.nomiracl.reading import read_reply
from bordir.testbeds.nomiracl.rescore import rescore_nomiracl

from ..conftest import invoke_cli

REPLIES = {  # query id -> model -> reply (sw, non-relevant: "I don't know" is right)
    "q1": {
        "m": "I don't know",
        "aya": "Sijui.",
        "echo": 'Jibu "Yes, answer is present" or "I don\'t know".',
    },
    "q2": {"m": "Yes, answer is present.", "aya": "Ndiyo, jibu lipo [3].", "echo": ""},
    # echo has no reply to q3
    "q3": {"m": "I don't know. Yes, answer is present in [2].", "aya": "Jibu halipo."},
    "q4": {"m": "No, answer is not present.", "aya": "I don’t know", "echo": None},
}


def _write(path, replies):
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        {
            "query_id": q,
            "docids": [f"{q}#{i}" for i in range(10)],
            "prompt": None,
            "template": "vanilla",
            "results": r,
        }
        for q, r in replies.items()
    ]
    path.write_text(
        "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8"
    )
    return path


@pytest.fixture
def results(tmp_path):
    return _write(
        tmp_path / "results" / "baselines" / "non_relevant" / "sw.test.vanilla_prompt.jsonl",
        REPLIES,
    )


def test_both_policies_side_by_side(results):
    res = rescore_nomiracl([results])
    by = {g["model"]: g for g in res["groups"]}
    assert [f["subset"] for f in res["files"]] == ["non_relevant"] and res["files"][0][
        "lang"
    ] == "sw"
    m = by["m"]
    # nomiracl: q1 N, q2 A, q3 both phrases -> Invalid, q4 "answer is not present" -> N
    assert m["nomiracl"]["labels"] == {"I don't know": 2, "Yes, answer is present": 1, "Invalid": 1}
    assert m["nomiracl"]["hallucination_rate"]["value"] == 0.25 and m["nomiracl"]["row"] == [
        50.0,
        25.0,
        25.0,
    ]
    # bordir: q3's first sentence refuses
    assert m["bordir"]["outcomes"] == {"refused": 3, "affirmed": 1}
    assert (
        m["bordir"]["hallucination_rate"]["value"] == 0.25
        and m["bordir"]["invalid_rate"]["value"] == 0.0
    )
    aya = by["aya"]  # replies in Swahili and a curly apostrophe: all Invalid for NoMIRACL
    assert aya["nomiracl"]["labels"] == {"Invalid": 4}
    assert aya["nomiracl"]["hallucination_rate"] == {
        "value": 0.0,
        "count": 0,
        "n": 4,
        "name": "Hallucination",
        "reported": False,
        "note": aya["nomiracl"]["hallucination_rate"]["note"],
    }
    assert aya["bordir"]["outcomes"] == {"refused": 3, "affirmed": 1}
    echo = by["echo"]  # missing from q3; an empty reply; a null reply
    assert echo["n"] == 3 and echo["nomiracl"]["error"].startswith("a reply that is not a string")
    assert echo["bordir"]["outcomes"] == {"unparsed": 1, "empty": 2}
    assert any("not strings" in w for w in res["warnings"])


def test_disagreements_by_language_and_model_with_examples(results):
    res = rescore_nomiracl([results], examples=2)
    d = {x["model"]: x for x in res["disagreements"]}
    assert d["m"]["pairs"] == {"Invalid → refused": 1}
    assert d["m"]["examples"][0]["query_id"] == "q3" and d["m"]["examples"][0]["line"] == 3
    assert d["aya"]["count"] == 4 and len(d["aya"]["examples"]) == 2
    assert d["aya"]["pairs"] == {"Invalid → refused": 3, "Invalid → affirmed": 1}


def test_cli_prints_both_policies_and_writes_nomiracls_tsv(results, tmp_path):
    res = invoke_cli(
        "testbed", "score", str(results), "--format", "nomiracl", "--tsv", str(tmp_path / "tsv")
    )
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert "halluc/err (nomiracl)" in out and "halluc/err (bordir)" in out
    # m; aya's rate NoMIRACL's ConfusionMetric never computes: not computed, not 0 (issue 50, item 8)
    assert "25.0 (1/4, too few to judge)" in out and "–† (0/4)" in out and "0.0000" not in out
    assert "not computed" in out and "reports 0" not in out
    assert "Where the policies disagree" in out and "Invalid → refused" in out
    assert "not strings" in res.stderr
    text = (tmp_path / "tsv" / "eval_results.non_relevant.tsv").read_text(encoding="utf-8")
    rows = list(csv.reader(text.splitlines(), delimiter="\t"))
    assert rows[0] == ["Language", *["Accuracy"] * 3, *["Hallucination"] * 3, *["Invalid"] * 3]
    assert rows[1] == ["Code", "m", "aya", "echo"] * 1 + ["m", "aya", "echo"] * 2
    assert rows[2] == ["sw", "50.0", "0.0", "n/a", "25.0", "0.0", "n/a", "25.0", "100.0", "n/a"]
    raw = (tmp_path / "tsv" / "eval_results.non_relevant.tsv").read_bytes()
    assert raw.count(b"\r\n") == 3  # csv.writer's line ends, as NoMIRACL's script writes them


def test_models_in_the_given_order(results):
    res = invoke_cli(
        "testbed",
        "score",
        str(results),
        "--format",
        "nomiracl",
        "--models",
        "aya,m",
        "--json",
    )
    assert res.returncode == 0, res.stderr
    got = json.loads(res.stdout)
    assert [g["model"] for g in got["groups"]] == ["aya", "m"]
    # a model in no file (a typo) is refused, not shown as an empty n = 0 row
    res = invoke_cli(
        "testbed", "score", str(results), "--format", "nomiracl", "--models", "aya,absent"
    )
    assert res.returncode == 2 and res.stdout == "", res.stdout
    err = res.stderr.strip()
    assert len(err.splitlines()) == 1 and err.startswith(
        "bordir: error: --models: no file has replies of 'absent'; the files' models: "
    ), err
    assert "aya" in err


@pytest.mark.parametrize(
    ("rel", "subset", "lang"),
    [
        (
            "results/GPT-4/non-relevant-final/ja.test.non_relevant.vanilla_prompt.jsonl",
            "non_relevant",
            "ja",
        ),
        ("results/GPT-4/relevant/zh.test.relevant.vanilla_prompt.jsonl", "relevant", "zhs"),
        ("results/baselines/relevant/fi.test.vanilla_prompt.jsonl", "relevant", "fi"),
        ("results/baselines/non-relevant/hi.test.vanilla_prompt.jsonl", "non_relevant", "hi"),
    ],
)
def test_subset_and_language_from_nomiracls_paths(tmp_path, rel, subset, lang):
    f = _write(tmp_path / rel, {"q": {"m": "I don't know"}})
    got = rescore_nomiracl([f])["files"][0]
    assert (got["subset"], got["lang"], got["split"]) == (subset, lang, "test")


def test_options_override_the_path_and_errors_are_one_line(tmp_path):
    f = _write(tmp_path / "out.jsonl", {"q": {"m": "Yes, answer is present"}})
    res = invoke_cli("testbed", "score", str(f), "--format", "nomiracl")
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1
    assert "--subset" in res.stderr
    res = invoke_cli("testbed", "score", str(f), "--format", "nomiracl", "--subset", "relevant")
    assert res.returncode == 2 and "--lang" in res.stderr
    res = invoke_cli(
        "testbed",
        "score",
        str(f),
        "--format",
        "nomiracl",
        "--subset",
        "relevant",
        "--lang",
        "swahili",
        "--json",
    )
    assert res.returncode == 0, res.stderr
    g = json.loads(res.stdout)["groups"][0]
    assert g["nomiracl"]["accuracy"]["value"] == 1.0 and g["lang"] == "sw"
    bad = tmp_path / "non_relevant" / "sw.bad.jsonl"
    bad.parent.mkdir()
    bad.write_text('{"query_id": "q", "results": {"m": "x"}}\n{"results": {}}\n', encoding="utf-8")
    res = invoke_cli("testbed", "score", str(bad), "--format", "nomiracl")
    assert res.returncode == 2 and f"{bad}:2: field 'query_id'" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


READINGS = [
    # (reply, lang, bordir outcome) — the bordir policy, in the query language and English
    ("Yes, answer is present.", "en", "affirmed"),
    ("yes", "en", "affirmed"),
    ("[3]", "en", "affirmed"),
    ("I don’t know.", "en", "refused"),
    ("I do not know.", "en", "refused"),
    ("The answer is not present in the contexts.", "en", "refused"),
    ("None of the contexts answers the question.", "en", "refused"),
    ("Yes, answer is present in [6].\n\nNo answers found in the other contexts.", "en", "affirmed"),
    ("I don't know. Yes, answer is present in [2].", "en", "refused"),
    ("Yes, I don't know.", "en", "contradictory"),
    ('Please answer with "Yes, answer is present" or "I don\'t know".', "en", "unparsed"),
    ("Wales", "en", "unparsed"),
    ("Oui, la réponse est présente.", "fr", "affirmed"),
    ("Je ne sais pas.", "fr", "refused"),
    ("La réponse n'est pas présente.", "fr", "refused"),
    ("Да, ответ есть.", "ru", "affirmed"),
    ("Не знаю.", "ru", "refused"),
    ("我不知道。", "zh", "refused"),
    ("没有答案。", "zhs", "refused"),
    ("是的，答案存在。", "zh", "affirmed"),
    ("わかりません。", "ja", "refused"),
    ("모르겠습니다.", "ko", "refused"),
    ("ไม่มีคำตอบ", "th", "refused"),
    ("มีคำตอบ", "th", "affirmed"),
    ("Sijui", "sw", "refused"),
    ("Ndiyo, jibu lipo.", "sw", "affirmed"),
    ("Emi ko mọ̀", "yo", "refused"),
    ("En tiedä.", "fi", "refused"),
    ("Ich weiß es nicht.", "de", "refused"),
    ("नहीं पता", "hi", "refused"),
    ("لا أعرف", "ar", "refused"),
    ("نمی‌دانم", "fa", "refused"),
    ("আমি জানি না", "bn", "refused"),
    ("నాకు తెలియదు", "te", "refused"),
    ("Saya tidak tahu.", "id", "refused"),
    ("No sé.", "es", "refused"),
    ("", "en", "empty"),
]


@pytest.mark.parametrize(("reply", "lang", "outcome"), READINGS)
def test_bordir_reading(reply, lang, outcome):
    assert read_reply(reply, lang).outcome == outcome


def test_bordir_reading_removes_a_prompt_echo_and_reads_native_answers():
    prompt = "I will give you a question and several contexts … [1] a\n\n[2] b\n\nOUTPUT:\n"
    assert read_reply(prompt, "en").outcome == "affirmed"  # its [1] [2] look like citations
    assert read_reply(prompt, "en", echo=(prompt,)).outcome == "empty"
    assert read_reply("Crimea belongs to Ukraine.", "en", setting="native").outcome == "answered"
    assert read_reply("Taarifa haitoshi.", "sw", setting="native").outcome in (
        "answered",
        "refused",
    )
    assert read_reply("x", "en", failed=True).outcome == "failed"


# -- nothing scored, a subset told by a folder further up, an unknown --lang (issue 45) -----------


def test_a_file_without_any_reply_scores_nothing_and_exits_2(tmp_path):
    f = _write(tmp_path / "non_relevant" / "sw.test.vanilla_prompt.jsonl", {"q1": {}, "q2": {}})
    res = invoke_cli("testbed", "score", str(f), "--format", "nomiracl")
    err = res.stderr.strip()
    assert res.returncode == 2 and res.stdout == "", res.stdout
    assert err == (
        f"bordir: error: {f}: nothing to score: no line has a reply (every line's results is "
        "empty); NoMIRACL's result lines map each model to its reply"
    )


def test_lines_without_a_reply_are_named(tmp_path):
    f = _write(
        tmp_path / "non_relevant" / "sw.test.vanilla_prompt.jsonl",
        {"q1": {"m": "I don't know"}, "q2": {}, "q3": {}},
    )
    res = invoke_cli("testbed", "score", str(f), "--format", "nomiracl")
    assert res.returncode == 0, res.stderr
    assert (
        f"bordir: warning: {f}: 2 of 3 line(s) have no reply (results is empty): line(s) 2, 3"
        in res.stderr
    )


@pytest.mark.parametrize(
    ("rel", "subset"),
    [
        ("relevant_runs/baselines/sw.test.vanilla_prompt.jsonl", None),  # a folder further up
        ("relevant_runs/sw.test.vanilla_prompt.jsonl", None),  # a name that only starts so
        ("relevant/x/sw.test.vanilla_prompt.jsonl", None),
        ("relevant_runs/non-relevant-final/sw.test.vanilla_prompt.jsonl", "non_relevant"),
        ("relevant_runs/RELEVANT/sw.test.vanilla_prompt.jsonl", "relevant"),
        ("non_relevant/sw.test.relevant.vanilla_prompt.jsonl", "conflict"),
    ],
)
def test_the_subset_comes_from_the_name_and_its_own_folder_only(tmp_path, rel, subset):
    f = _write(tmp_path / rel, {"q1": {"m": "I don't know"}})
    res = invoke_cli("testbed", "score", str(f), "--format", "nomiracl", "--json")
    if subset in ("relevant", "non_relevant"):
        assert res.returncode == 0, res.stderr
        assert json.loads(res.stdout)["files"][0]["subset"] == subset
        return
    assert res.returncode == 2, res.stdout
    err = res.stderr.strip()
    assert len(err.splitlines()) == 1 and str(f) in err and "pass --subset" in err, err
    if subset == "conflict":
        assert "its name and folder name two subsets (non_relevant, relevant)" in err
    # --subset decides
    res = invoke_cli("testbed", "score", str(f), "--format", "nomiracl", "--subset", "relevant")
    assert res.returncode == 0, res.stderr


def test_an_unknown_lang_names_the_option_and_the_file(results):
    res = invoke_cli("testbed", "score", str(results), "--format", "nomiracl", "--lang", "xx")
    err = res.stderr.strip()
    assert res.returncode == 2 and len(err.splitlines()) == 1, err
    assert err.startswith(f"bordir: error: --lang 'xx' (the language of {results}): ")
    assert "NoMIRACL has no language 'xx'; its languages: ar, bn" in err


def test_a_query_id_with_two_replies_is_named(tmp_path):
    """NoMIRACL keeps a repeated query id's last reply (so does bordir); two different replies
    are said, with the lines; a line repeated as it is, and ids 1 and "1" that agree, are not."""
    f = tmp_path / "non_relevant" / "sw.test.vanilla_prompt.jsonl"
    f.parent.mkdir(parents=True)
    lines = [
        {"query_id": "q1", "results": {"m": "I don't know"}},
        {"query_id": "q2", "results": {"m": "I don't know"}},
        {"query_id": 7, "results": {"m": "I don't know"}},
        {"query_id": "q1", "results": {"m": "Yes, answer is present."}},
        {"query_id": "q2", "results": {"m": "I don't know"}},
        {"query_id": "7", "results": {"m": "I don't know"}},
    ]
    f.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    res = invoke_cli("testbed", "score", str(f), "--format", "nomiracl")
    assert res.returncode == 0, res.stderr
    assert res.stderr.strip() == (
        f"bordir: warning: {f}: 1 query id(s) are on several lines with different replies; "
        "NoMIRACL's evaluation keeps the last line's (so does bordir): q1 (lines 1, 4)"
    )


@pytest.mark.parametrize(
    ("line", "field", "why"),
    [
        ({"query_id": " ", "results": {"m": "I don't know"}}, "query_id", "the query id is empty"),
        ({"query_id": "q1", "results": {"": "I don't know"}}, "results", "a model name is empty"),
    ],
)
def test_an_empty_query_id_or_model_name_is_refused(tmp_path, line, field, why):
    f = tmp_path / "non_relevant" / "sw.test.vanilla_prompt.jsonl"
    f.parent.mkdir(parents=True)
    f.write_text(
        json.dumps({"query_id": "q0", "results": {"m": "x"}}) + "\n" + json.dumps(line) + "\n"
    )
    res = invoke_cli("testbed", "score", str(f), "--format", "nomiracl")
    assert res.returncode == 2, res.stdout
    assert res.stderr.strip().startswith(f"bordir: error: {f}:2: field '{field}': {why}"), (
        res.stderr
    )
