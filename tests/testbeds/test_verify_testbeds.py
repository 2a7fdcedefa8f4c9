"""Independent check of the rgb scoring policy against RGB's own ``evalue.py`` rules (differential test).

The reference functions below re-implement ``checkanswer``, the labelling of
``predict`` and the ``all_rate`` / ``fact_check_rate`` / ``correct_rate``
aggregation of ``chen700564/RGB/evalue.py`` line by line; the prediction files
are written here (tricky cases and a seeded random generator), not taken from
the other testbed tests.
"""

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner

from bordir.cli.main import cli
from bordir.testbeds.rescore import rescore_predictions
from bordir.testbeds.scorer import score


# --- RGB's evalue.py, re-implemented -------------------------------------------------------------------------
def rgb_checkanswer(prediction, ground_truth):
    prediction = prediction.lower()
    if type(ground_truth) is not list:
        ground_truth = [ground_truth]
    labels = []
    for instance in ground_truth:
        flag = True
        if type(instance) == list:  # noqa: E721 (RGB evalue.py, verbatim)
            flag = False
            instance = [i.lower() for i in instance]
            for i in instance:
                if i in prediction:
                    flag = True
                    break
        else:
            instance = instance.lower()
            if instance not in prediction:
                flag = False
        labels.append(int(flag))
    return labels


def rgb_label(prediction, ground_truth, dataset):
    if "zh" in dataset:
        prediction = prediction.replace(" ", "")
    if "信息不足" in prediction or "insufficient information" in prediction:
        labels = [-1]
    else:
        labels = rgb_checkanswer(prediction, ground_truth)
    factlabel = 0
    if "事实性错误" in prediction or "factual errors" in prediction:
        factlabel = 1
    return labels, factlabel


def rgb_scores(results, noise_rate, dataset):
    tt = 0
    for i in results:
        label = i["label"]
        if noise_rate == 1 and label[0] == -1:
            tt += 1
        elif 0 not in label and 1 in label:
            tt += 1
    scores = {"all_rate": tt / len(results), "tt": tt, "nums": len(results)}
    if "_fact" in dataset:
        fact_tt = correct_tt = 0
        for i in results:
            if i["factlabel"] == 1:
                fact_tt += 1
                if 0 not in i["label"]:
                    correct_tt += 1
        scores["fact_check_rate"] = fact_tt / len(results)
        scores["correct_rate"] = correct_tt / fact_tt if fact_tt > 0 else 0
        scores["fact_tt"], scores["correct_tt"] = fact_tt, correct_tt
    return scores


# --- tricky predictions ----------------------------------------------------------------------------------------
TRICKY = [
    # (prediction, answer)
    ("INSUFFICIENT INFORMATION", ["Paris"]),  # upper case: RGB does not reject
    ("Insufficient information in the documents.", ["Paris"]),  # capitalised: not rejected either
    (
        "There is insufficient information, but Paris.",
        ["Paris"],
    ),  # rejected although the answer is there
    ("信息 不足", ["巴黎"]),  # zh: spaces removed first -> rejected
    ("答案是 巴 黎", ["巴黎"]),  # zh: spaces removed -> found
    ("insufficient  information", ["x"]),  # double space: en not rejected
    ("The Oscars went to her in 1929", [["Oscar", "Academy Award"], "1929"]),
    ("Academy award, 1930", [["Oscar", "Academy Award"], "1929"]),
    ("Serena won; also Novak", [["serena williams", "serena"], ["Djokovic", "novak"]]),
    ("Only Serena", [["serena williams", "serena"], ["Djokovic", "novak"]]),
    ("There are factual errors in the provided documents. The answer is 70.", "70"),
    ("There are Factual Errors in the documents; 170.", "70"),  # case: no factlabel
    ("事实性错误：答案是 70", "70"),
    ("factual errors and insufficient information", "70"),  # rejected and flagged
    ("", ["anything"]),
    ("ＰＡＲＩＳ", ["paris"]),  # full-width: RGB does not NFKC
    ("İstanbul", ["istanbul"]),  # 'İ'.lower() is 'i̇' -> no match
]


def _write(path, rows, noise_rate):
    path.write_text(
        "".join(
            json.dumps(
                {
                    "id": i,
                    "query": "Q",
                    "ans": ans,
                    "label": [9],
                    "prediction": p,
                    "docs": [],
                    "noise_rate": noise_rate,
                    "factlabel": 0,
                },
                ensure_ascii=False,
            )
            + "\n"
            for i, (p, ans) in enumerate(rows)
        ),
        encoding="utf-8",
    )


FRAGS = [
    "insufficient information",
    "Insufficient Information",
    "信息不足",
    "信息 不足",
    "factual errors",
    "Factual errors",
    "事实性错误",
    "事实 性错误",
    "Paris",
    "paris",
    "PARIS",
    "巴黎",
    "巴 黎",
    "1929",
    "19 29",
    "Serena",
    "novak",
    " ",
    "\n",
    "the answer is",
    "答案是",
    "ＰＡＲＩＳ",
]
ANSWERS = [
    ["Paris"],
    "巴黎",
    [["Paris", "paris city"], "1929"],
    [["serena", "Serena Williams"], ["Novak", "djokovic"]],
    ["巴黎", "1929"],
    "1929",
    [["巴黎", "Paris"]],
]


def _random_rows(seed, n=60):
    rng = random.Random(seed)
    return [
        (" ".join(rng.choice(FRAGS) for _ in range(rng.randint(0, 5))), rng.choice(ANSWERS))
        for _ in range(n)
    ]


CASES = [
    (ds, r)
    for ds in ("en", "zh", "en_int", "zh_int", "en_fact", "zh_fact")
    for r in (0.0, 0.4, 1.0)
]


@pytest.mark.parametrize("dataset,noise_rate", CASES)
def test_rescore_equals_rgb_evalue(tmp_path, dataset, noise_rate):
    rows = TRICKY + _random_rows(CASES.index((dataset, noise_rate)))
    path = (
        tmp_path
        / f"prediction_{dataset}_mymodel_temp0.7_noise{noise_rate}_passage5_correct0.0.json"
    )
    _write(path, rows, noise_rate)
    results = []
    for p, ans in rows:
        label, fact = rgb_label(p, ans, dataset)
        results.append({"label": label, "factlabel": fact})
    ref = rgb_scores(results, noise_rate, dataset)
    got = rescore_predictions(path)
    m = got["metrics"]
    assert got["n"] == ref["nums"]
    main = m["rejection_rate"] if noise_rate == 1 else m["accuracy"]
    assert (main["count"], main["n"]) == (ref["tt"], ref["nums"])
    assert main["value"] == ref["all_rate"]
    if "_fact" in dataset:
        assert m["error_detection_rate"]["count"] == ref["fact_tt"]
        assert m["error_detection_rate"]["value"] == ref["fact_check_rate"]
        assert m["error_correction_rate"]["count"] == ref["correct_tt"]
        assert m["error_correction_rate"]["value"] == ref["correct_rate"]
    # every stored label was [9]: each line mismatches
    assert got["label_mismatches"]["count"] == len(rows)
    # per-row labels equal RGB's
    lang = "zh" if "zh" in dataset else "en"
    from bordir.testbeds.rgb_data import parse_answer_field

    for (p, ans), r in zip(rows, results):
        s = score(p, parse_answer_field(ans), lang, policy="rgb")
        assert list(s.labels) == r["label"], (p, ans)
        assert int(s.fact_flag) == r["factlabel"], p


def test_rescore_correct_labels_no_mismatch_and_cli(tmp_path):
    rows = TRICKY[:10]
    path = tmp_path / "prediction_zh_fact_m_temp0.7_noise1.0_passage5_correct0.0.json"
    lines = []
    for i, (p, ans) in enumerate(rows):
        label, fact = rgb_label(p, ans, "zh_fact")
        lines.append(
            json.dumps(
                {
                    "id": i,
                    "query": "Q",
                    "ans": ans,
                    "label": label,
                    "prediction": p,
                    "docs": [],
                    "noise_rate": 1.0,
                    "factlabel": fact,
                },
                ensure_ascii=False,
            )
        )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    got = rescore_predictions(path)
    assert got["label_mismatches"]["count"] == 0
    res = CliRunner().invoke(cli, ["testbed", "score", str(path), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    ref = rgb_scores(
        [
            {"label": rgb_label(p, a, "zh_fact")[0], "factlabel": rgb_label(p, a, "zh_fact")[1]}
            for p, a in rows
        ],
        1.0,
        "zh_fact",
    )
    assert out["metrics"]["rejection_rate"]["value"] == ref["all_rate"]
    assert out["metrics"]["error_correction_rate"]["value"] == ref["correct_rate"]
