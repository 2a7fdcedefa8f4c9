"""The meta-evaluation loaders: MEMERAG (three variants, both spellings of the majority folder) and a user's label file; bad input is one line naming file, line and field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bordir.errors import ConfigError, DataError
from bordir.judging import load_label_file, load_memerag
from bordir.judging.data import load_items

from ..conftest import SHARED, invoke_cli

MEMERAG = SHARED / "data" / "memerag"
FAITH = ("Supported", "Not Supported", "Challenging to determine")


def _record(qid, labels, *, context=("A passage.",), query="Why?"):
    return {
        "query_id": qid,
        "query": query,
        "context": [{"text": c} for c in context],
        "answer": [
            {
                "sentence": f"Sentence {i} of {qid}.",
                "sentence_id": i,
                "factuality": l,
                "relevance": "Directly answers the question",
                "comments": "",
            }
            for i, l in enumerate(labels)
        ],
    }


def _write(path: Path, records) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8"
    )
    return path


def test_memerag_sentences_are_items_clustered_by_question(tmp_path):
    _write(
        tmp_path / "de.jsonl",
        [_record(1, ["Supported", "Challenging to determine"]), _record("2#0", ["Not Supported"])],
    )
    _write(tmp_path / "hi.jsonl", [_record(7, ["Supported"])])
    items = load_memerag(tmp_path)
    assert [i.item_id for i in items] == ["de/1/0", "de/1/1", "de/2#0/0", "hi/7/0"]
    assert [i.label for i in items] == [
        "Supported",
        "Challenging to determine",
        "Not Supported",
        "Supported",
    ]
    assert items[0].cluster == items[1].cluster == "de/1" and items.langs == ("de", "hi")
    assert items.name == "memerag" and items.ident.startswith("sha256-")
    assert [i.item_id for i in load_memerag(tmp_path, langs=["hi"])] == ["hi/7/0"]
    assert len(items.select(limit=1)) == 3 and items.select(limit=1).dropped == {"limit": 1}


@pytest.mark.parametrize("folder", ["memerag_ext_w_majority_vote", "memerag_ext_w_majority_voting"])
def test_both_spellings_of_the_majority_folder(tmp_path, folder):
    _write(tmp_path / "data" / folder / "en.jsonl", [_record("5#0", ["Not Supported"])])
    items = load_memerag(tmp_path / "data")
    assert items.meta["variant"] == "majority" and items.name == "memerag_majority"
    assert load_memerag(tmp_path / "data", variant="majority")[0].label == "Not Supported"


def test_several_variants_need_a_choice(tmp_path):
    _write(tmp_path / "memerag" / "en.jsonl", [_record(1, ["Supported"])])
    _write(tmp_path / "memerag_ext_w_majority_vote" / "en.jsonl", [_record(1, ["Not Supported"])])
    with pytest.raises(ConfigError, match="several MEMERAG variants"):
        load_memerag(tmp_path)
    assert load_memerag(tmp_path, variant="memerag")[0].label == "Supported"
    with pytest.raises(DataError, match="memerag_ext/"):
        load_memerag(tmp_path, variant="ext")


@pytest.mark.parametrize(
    "factuality",
    [
        ["Supported", "Supported", "Not Supported", "Supported", "Challenging to determine"],
        {
            "ann1": "Supported",
            "ann2": "Supported",
            "ann3": "Not Supported",
            "ann4": "Supported",
            "ann5": "Challenging to determine",
        },
    ],
)
def test_the_extended_set_has_five_annotators(tmp_path, factuality):
    rec = _record(1, ["Supported"])
    rec["answer"][0]["factuality"] = factuality
    _write(tmp_path / "memerag_ext" / "fr.jsonl", [rec])
    [item] = load_memerag(tmp_path)
    assert item.n_annotators == 5 and item.label == "Supported"  # the plurality
    rec["answer"][0].pop("factuality")
    rec["answer"][0]["annotations"] = [
        {"annotator": f"a{i}", "factuality": l}
        for i, l in enumerate(["Supported", "Not Supported"])
    ]
    _write(tmp_path / "memerag_ext" / "fr.jsonl", [rec])
    [item] = load_memerag(tmp_path)
    assert item.n_annotators == 2 and item.label is None  # a tie: left out, counted


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda r: r["answer"][0].update(factuality="Mostly"), "answer[0].factuality"),
        (lambda r: r.update(context=[]), "context"),
        (lambda r: r.pop("context"), "context"),
        (lambda r: r.update(query=""), "query"),
        (lambda r: r.update(answer=[]), "answer"),
        (lambda r: r["answer"][0].pop("sentence"), "answer[0].sentence"),
    ],
)
def test_bad_memerag_records_name_file_line_and_field(tmp_path, mutate, field):
    bad = _record(2, ["Supported"])
    mutate(bad)
    path = _write(tmp_path / "es.jsonl", [_record(1, ["Supported"]), bad])
    with pytest.raises(DataError) as err:
        load_memerag(tmp_path)
    assert str(err.value).startswith(f"{path}:2: field '{field}': ")


def test_the_cli_says_bad_input_in_one_line_and_exits_2(tmp_path):
    _write(tmp_path / "es.jsonl", [_record(1, ["Supported"]), _record(2, ["Perhaps"])])
    res = invoke_cli(
        "judge",
        "calibrate",
        "--data",
        f"memerag:{tmp_path}",
        "--judge",
        "mock/echo",
        "--out",
        str(tmp_path / "c.json"),
    )
    assert res.returncode == 2 and res.stdout == ""
    [line] = res.stderr.strip().splitlines()
    assert (
        "es.jsonl:2: field 'answer[0].factuality': expected one of" in line and "'Perhaps'" in line
    )
    res = invoke_cli(
        "judge", "calibrate", "--data", str(tmp_path), "--judge", "mock/echo", "--out", "x"
    )
    assert res.returncode == 2 and "expected memerag:PATH" in res.stderr


def test_a_label_file_in_jsonl_and_csv(tmp_path):
    rows = [
        {
            "lang": "hi",
            "question": "Q1?",
            "context": ["P1.", "P2."],
            "sentence": "S1.",
            "label": "supported",
            "annotator": "x",
        },
        {
            "lang": "hi",
            "question": "Q1?",
            "context": ["P1.", "P2."],
            "sentence": "S1.",
            "label": "Not Supported",
            "annotator": "y",
        },
        {
            "lang": "hi",
            "question": "Q1?",
            "context": ["P1.", "P2."],
            "sentence": "S1.",
            "label": "Supported",
            "annotator": "z",
        },
        {
            "lang": "de",
            "question": "Q2?",
            "context": "One passage.",
            "answer": "A2.",
            "label": "Not_Supported",
            "annotator": "x",
        },
    ]
    _write(tmp_path / "l.jsonl", rows)
    items = load_label_file(tmp_path / "l.jsonl", labels=FAITH)
    assert len(items) == 2 and items[0].label == "Supported" and items[0].n_annotators == 3
    assert items[0].context == ("P1.", "P2.") and items[1].label == "Not Supported"
    assert items.max_annotators == 3
    csv = tmp_path / "l.csv"
    csv.write_text(
        "lang,question,context,sentence,label\n"
        'en,Q?,"[""P1."", ""P2.""]",S.,Supported\n'
        'en,"Multi\nline?",Just text,S2.,Challenging to determine\n',
        encoding="utf-8",
    )
    got = load_label_file(csv, labels=FAITH)
    assert got[0].context == ("P1.", "P2.") and got[1].question == "Multi\nline?"
    assert got[1].label == "Challenging to determine"


@pytest.mark.parametrize(
    ("row", "field", "what"),
    [
        ({"label": "Maybe"}, "label", "label 'Maybe' is not one of"),
        ({"context": ""}, "context", "the item has no context"),
        ({"context": []}, "context", "the item has no context"),
        ({"lang": "xx"}, "lang", "unknown language code 'xx'"),
        ({"sentence": None}, "answer", "expected a non-empty string"),
    ],
)
def test_bad_label_files_name_file_line_and_field(tmp_path, row, field, what):
    good = {"lang": "en", "question": "Q?", "context": "P.", "sentence": "S.", "label": "Supported"}
    bad = {**good, "question": "Q2?", **row}
    path = _write(tmp_path / "l.jsonl", [good, {k: v for k, v in bad.items() if v is not None}])
    with pytest.raises(DataError) as err:
        load_label_file(path, labels=FAITH)
    assert str(err.value).startswith(f"{path}:2: field '{field}': {what}")


def test_one_annotator_twice_and_an_empty_file_are_refused(tmp_path):
    row = {"lang": "en", "question": "Q?", "context": "P.", "sentence": "S.", "label": "Supported"}
    path = _write(tmp_path / "l.jsonl", [row, row])
    with pytest.raises(
        DataError, match=r"l.jsonl:2: field 'annotator': the item of line 1 is labelled again"
    ):
        load_label_file(path, labels=FAITH)
    (tmp_path / "e.jsonl").write_text("\n")
    with pytest.raises(DataError, match="holds no labelled items"):
        load_label_file(tmp_path / "e.jsonl", labels=FAITH)


def test_memerag_is_refused_for_a_task_with_other_labels(tmp_path):
    _write(tmp_path / "en.jsonl", [_record(1, ["Supported"])])
    with pytest.raises(ConfigError, match="MEMERAG's labels are faithfulness labels"):
        load_items(f"memerag:{tmp_path}", "rgb_rejection")
    assert len(load_items(f"memerag:{tmp_path}", "testgen")) == 1


@pytest.mark.skipif(
    not (MEMERAG / "en.jsonl").is_file(), reason="../shared/data/memerag is not present"
)
def test_the_real_memerag_counts():
    items = load_memerag(MEMERAG)
    counts = {
        lang: tuple(sum(i.label == l for i in items if i.lang == lang) for l in FAITH)
        for lang in ("en", "de", "hi")
    }
    assert counts == {"en": (261, 126, 13), "de": (333, 125, 10), "hi": (259, 90, 2)}
    assert len({i.cluster for i in items if i.lang == "hi"}) == 250


def test_relevance_labels_of_a_double_annotation_are_calibration_items():
    from bordir import load_demo, load_demo_corpus
    from bordir.annotations import load_gold
    from bordir.annotations.calibration import relevance_items
    from bordir.annotations.labelset import LabelSet
    from bordir.judging import calibrate_judge

    gold = load_gold("demo")
    second = LabelSet(
        [
            l.__class__(
                **{
                    **l.to_dict(),
                    "annotator": "second",
                    "relevance": "not_relevant" if i % 5 == 0 else l.relevance,
                    "viewpoint": "not_applicable" if i % 5 == 0 else l.viewpoint,
                }
            )
            for i, l in enumerate(gold)
        ],
        name="second",
    )
    items = relevance_items([gold, second], dataset=load_demo(), corpus=load_demo_corpus())
    assert len(items) == len({l.pair for l in gold}) and items.max_annotators == 2
    first = items[0]
    assert first.get("territory") and ";" in first.get("claimants") and first.context[0]
    cal = calibrate_judge(
        items, "mock/fixed:Relevance: not relevant", task="relevance", progress=False
    )
    lc = cal.for_language("en")
    assert lc.metric("specificity")["value"] == 1.0 and lc.balanced_accuracy["value"] == 0.5
    assert lc.data["ceiling"]["annotators"] == 2  # the two annotators, one against the other
    assert cal.for_language("en").prompt.startswith("relevance_viewpoint@sha256-")
