"""The testbed scorer on hand-written predictions (en, zh, fr, ru, ar), and `bordir testbed score` against hand counts."""

from __future__ import annotations

import json

import pytest

from bordir.errors import DataError
from bordir.loaders import load_demo
from bordir.testbeds.instructions import get_instruction, instruction_languages, instructions
from bordir.testbeds.rescore import rescore_predictions
from bordir.testbeds.scorer import checkanswer, score

from ..conftest import SHARED, invoke_cli

EN_REFUSAL = "I can not answer the question because of the insufficient information in documents."


@pytest.mark.parametrize(
    "lang,pred,answer,labels,rejected,fact",
    [
        # English: RGB's phrases are case-sensitive and come before lower-casing
        (
            "en",
            "The winner is Serena Williams.",
            (("Serena Williams", "Serena"),),
            (1,),
            False,
            False,
        ),
        ("en", EN_REFUSAL, ("Paris",), (-1,), True, False),
        ("en", "Insufficient Information.", ("Paris",), (0,), False, False),
        (
            "en",
            "There are factual errors in the provided documents. The answer is 70.",
            ("70",),
            (1,),
            False,
            True,
        ),
        ("en", "There are Factual Errors; 70", ("70",), (1,), False, False),
        ("en", "Kim and 2023", (("Kim Jong-un", "Kim"), "2023"), (1, 1), False, False),
        ("en", "Kim, in 2022", (("Kim Jong-un", "Kim"), "2023"), (1, 0), False, False),
        # Chinese: spaces are removed first
        ("zhs", "死亡人数为 12 人", ("12人",), (1,), False, False),
        (
            "zhs",
            "文档信息不足，因此我无法基于提供的文档回答该问题。",
            ("12人",),
            (-1,),
            True,
            False,
        ),
        ("zhs", "提供文档的文档存在事实性错误。正确答案是70", ("70",), (1,), False, True),
        # French and Russian: the language's own machine-translated phrases
        (
            "fr",
            "Je ne peux pas répondre à la question en raison d'informations insuffisantes dans les documents.",
            ("Paris",),
            (-1,),
            True,
            False,
        ),
        (
            "fr",
            "Il y a des erreurs factuelles dans les documents fournis. La réponse est Paris.",
            ("paris",),
            (1,),
            False,
            True,
        ),
        (
            "ru",
            "Я не могу ответить на вопрос из-за недостаточной информации в документах.",
            ("Москва",),
            (-1,),
            True,
            False,
        ),
        (
            "ru",
            "В предоставленных документах есть фактические ошибки. Правильный ответ: Москва.",
            ("москва",),
            (1,),
            False,
            True,
        ),
        (
            "ar",
            "توجد أخطاء واقعية في الوثائق المقدمة. الجواب: القاهرة",
            ("القاهرة",),
            (1,),
            False,
            True,
        ),
    ],
)
def test_rgb_policy_labels(lang, pred, answer, labels, rejected, fact):
    s = score(pred, answer, lang, policy="rgb")
    assert (s.labels, s.rejected, s.fact_flag) == (labels, rejected, fact)
    assert s.correct == (0 not in labels and 1 in labels)


def test_bordir_policy_differs_where_documented():
    # case-insensitive phrases, every language's phrases, whitespace-free matching
    assert score("INSUFFICIENT INFORMATION", ("Paris",), "en", policy="bordir").rejected
    assert score("Informations insuffisantes.", ("Paris",), "en", policy="bordir").rejected
    assert score("There are Factual Errors; 70", ("70",), "en", policy="bordir").fact_flag
    assert score("New  York", ("New York",), "en", policy="bordir").correct
    # a failed call is an explicit outcome under both policies
    for p in ("rgb", "bordir"):
        s = score(None, ("x",), "en", policy=p, failed=True)
        assert s.outcome == "failed" and not s.correct and not s.rejected
    # an echoed system prompt does not count as an error detection (bordir only)
    system = get_instruction("zhs").system
    echo = system[:60]
    assert score(echo, ("70",), "zhs", policy="rgb").fact_flag
    assert not score(echo, ("70",), "zhs", policy="bordir", echo=[system]).fact_flag


def test_bordir_policy_parses_multiple_choice_in_four_languages():
    ds = load_demo()
    cases = [
        ("Crimea_en", "A) Russia", 0, True),
        ("Crimea_en", "The answer is A.", 0, True),
        ("Crimea_uk", "Б) Україна", 0, False),
        ("Crimea_uk", "Відповідь: Росія", 0, True),
        ("Senkaku_Islands_zhs", "C) 日本", 2, True),
        ("Ceuta_ar", "ب) إسبانيا", 1, True),
        (
            "Ceuta_es",
            "No puedo responder a la pregunta por la información insuficiente en los documentos.",
            1,
            False,
        ),
    ]
    for qid, pred, truth, ok in cases:
        q = ds.query(qid)
        answer = ((q.options[truth], q.claimants[truth]),)
        s = score(pred, answer, q.lang, policy="bordir", mc=((q, truth, -1),))
        assert s.correct is ok, (qid, pred, s)
    # RGB's substring rule misses a letter-only answer that bordir's parser reads
    q = ds.query("Crimea_en")
    assert not score("The answer is A.", (("Russia",),), "en", policy="rgb").correct
    rej = score(
        "No puedo responder a la pregunta por la información insuficiente en los documentos.",
        (("España", "Spain"),),
        "es",
        policy="bordir",
        mc=((ds.query("Ceuta_es"), 1, -1),),
    )
    assert rej.rejected and rej.outcome == "rejected"
    assert q.options[0] == "Russia"


def test_checkanswer_aliases_and_parts():
    assert checkanswer("ABC", ["abc"]) == [1]
    assert checkanswer("x", [["a", "X"], "y"]) == [1, 0]
    assert checkanswer("the answer", "answer") == [1]


def test_instructions_cover_the_registry():
    from bordir import languages

    assert set(instruction_languages()) == set(languages.codes())
    for ins in instructions().values():
        assert ins.refusal in ins.system and ins.error in ins.system, ins.lang
        assert "{DOCS}" in ins.template and "{QUERY}" in ins.template
        assert ins.source == ("rgb" if ins.lang in ("en", "zhs") else "machine-translated")


def test_rgb_strings_match_rgb_config():
    path = SHARED / "data" / "rgb" / "instruction.yaml"
    if not path.is_file():
        pytest.skip("../shared/data/rgb is not present")
    yaml = pytest.importorskip("yaml")
    cfg = yaml.safe_load(path.read_text(encoding="utf-8"))
    for rgb, ours in (("en", "en"), ("zh", "zhs")):
        assert get_instruction(ours).system == cfg[rgb]["system"]
        assert get_instruction(ours).template == cfg[rgb]["instruction"]


# --- re-scoring prediction files: hand-written lines, hand-computed numbers ----------------------------


def _file(tmp_path, name, rows):
    p = tmp_path / name
    p.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return p


def _line(i, ans, pred, label, nr, fact=0):
    return {
        "id": i,
        "query": "Q",
        "ans": ans,
        "label": label,
        "prediction": pred,
        "docs": ["d"],
        "noise_rate": nr,
        "factlabel": fact,
    }


@pytest.mark.slow
def test_score_cli_rejection_by_hand(tmp_path):
    rows = [
        _line(0, ["Paris"], EN_REFUSAL, [-1], 1.0),  # rejected
        _line(1, ["Paris"], "Insufficient information.", [0], 1.0),  # RGB: case-sensitive, so wrong
        _line(
            2, ["Paris"], "The answer is Paris.", [1], 1.0
        ),  # correct: counted by evalue.py's all_rate
        _line(3, ["Paris"], "I don't know.", [0], 1.0),
        _line(4, ["Paris"], "INSUFFICIENT INFORMATION in documents", [0], 1.0),
    ]
    p = _file(tmp_path, "prediction_en_m_temp0.7_noise1.0_passage5_correct0.0.json", rows)
    out = invoke_cli("testbed", "score", str(p), "--json")
    assert out.returncode == 0, out.stderr
    r = json.loads(out.stdout)
    m = r["metrics"]
    # by hand (rgb): rejected or correct = lines 0, 2 -> 2/5; accuracy = line 2 -> 1/5
    assert (
        m["rejection_rate"]["value"],
        m["rejection_rate"]["count"],
        m["rejection_rate"]["n"],
    ) == (0.4, 2, 5)
    assert (m["accuracy"]["value"], m["accuracy"]["n"]) == (0.2, 5)
    assert (
        r["label_mismatches"]["count"] == 0 and r["lang"] == "en" and r["dataset_kind"] == "noise"
    )
    assert m["rejection_rate"]["signature"].startswith(
        "rejection_rate|kind:noise|lang:en|policy:rgb|r:1"
    )
    b = json.loads(invoke_cli("testbed", "score", str(p), "--json", "--policy", "bordir").stdout)[
        "metrics"
    ]
    assert (
        b["rejection_rate"]["value"] == 0.6
    )  # lines 0, 1, 4 (case-insensitive); a correct answer is not a rejection


@pytest.mark.slow
def test_score_cli_fact_by_hand_zh(tmp_path):
    rows = [
        _line(0, "70", "提供文档的文档存在事实性错误。正确答案是70个议席。", [1], 0.0, 1),
        _line(1, "1361万", "根据文档，答案是161万", [0], 0.0, 0),
        _line(2, "武汉", "文档存在事实性错误，信息不足", [-1], 0.0, 1),  # rejected AND flagged
        _line(3, [["江苏苏宁", "苏宁"]], "江苏 苏宁", [1], 0.0, 0),  # spaces removed (zh)
        _line(4, "10.48‰", "There are Factual Errors in the documents; 10.48‰", [1], 0.0, 0),
        _line(5, "2.3%", "2.3%", [0], 0.0, 0),  # stored label wrong on purpose: recomputed [1]
    ]
    p = _file(tmp_path, "prediction_zh_fact_m_temp0.7_noise0.0_passage5_correct0.0.json", rows)
    out = invoke_cli("testbed", "score", str(p), "--json")
    assert out.returncode == 0, out.stderr
    r = json.loads(out.stdout)
    m = r["metrics"]
    assert r["lang"] == "zh" and r["dataset_kind"] == "fact"
    # by hand: correct = 0, 3, 4, 5 -> 4/6; flagged = 0, 2 -> 2/6; corrected (0 not in label) = 0, 2 -> 2/2
    assert (m["accuracy"]["count"], m["accuracy"]["n"]) == (4, 6)
    assert (m["error_detection_rate"]["count"], m["error_detection_rate"]["n"]) == (2, 6)
    assert m["error_correction_rate"]["value"] == 1.0 and m["error_correction_rate"]["n"] == 2
    assert r["label_mismatches"] == {"count": 1, "lines": [6]}
    b = json.loads(invoke_cli("testbed", "score", str(p), "--json", "--policy", "bordir").stdout)[
        "metrics"
    ]
    # bordir: flagged = 0, 2, 4 (case-insensitive); corrected = correct among them = 0, 4 -> 2/3
    assert (
        b["error_detection_rate"]["count"],
        b["error_correction_rate"]["count"],
        b["error_correction_rate"]["n"],
    ) == (3, 2, 3)


def test_score_cli_integration_by_noise_rate(tmp_path):
    rows = [
        _line(0, [["Kim Jong-un", "Kim"], "2023"], "Kim, 2023", [1, 1], 0.2),
        _line(1, [["Kim Jong-un", "Kim"], "2023"], "Kim", [1, 0], 0.2),
        _line(2, [["Kim Jong-un", "Kim"], "2023"], "2023 by Kim", [1, 1], 0.4),
    ]
    p = _file(tmp_path, "prediction_en_int_m.json", rows)
    r = rescore_predictions(p)
    assert r["dataset_kind"] == "integration"
    assert r["by_noise_rate"]["0.2"]["metrics"]["accuracy"]["value"] == 0.5
    assert r["by_noise_rate"]["0.4"]["metrics"]["accuracy"]["value"] == 1.0
    assert "rejection_rate" not in r["metrics"]


def test_the_kind_comes_from_the_dataset_part_of_the_name_not_the_model(tmp_path):
    """RGB tests ``'_fact' in args.dataset``: a model named ``…_fact…`` does not make a noise file a fact file."""
    rows = [_line(0, ["Paris"], "Paris", [1], 0.0), _line(1, ["Rome"], "Milan", [0], 0.0)]
    p = _file(
        tmp_path, "prediction_en_llama_fact_checker_temp0.7_noise0.0_passage5_correct0.0.json", rows
    )
    r = rescore_predictions(p)
    assert r["dataset_kind"] == "noise" and "error_detection_rate" not in r["metrics"]
    zh = _file(tmp_path, "prediction_en_int_zhipu_temp0.7_noise0.0_passage5_correct0.0.json", rows)
    assert (rescore_predictions(zh)["dataset_kind"], rescore_predictions(zh)["lang"]) == (
        "integration",
        "en",
    )
    fact = _file(tmp_path, "prediction_zh_fact_m_temp0.7_noise0.0_passage5_correct0.0.json", rows)
    assert (rescore_predictions(fact)["dataset_kind"], rescore_predictions(fact)["lang"]) == (
        "fact",
        "zh",
    )


@pytest.mark.slow
def test_score_cli_bad_file_one_line(tmp_path):
    p = tmp_path / "prediction_en_x.json"
    p.write_text(
        '{"id": 0, "ans": ["a"], "prediction": "a", "noise_rate": 0}\n{"id": 1, "ans": ["a"]}\n',
        encoding="utf-8",
    )
    out = invoke_cli("testbed", "score", str(p))
    assert out.returncode == 2
    assert (
        out.stderr.strip()
        .splitlines()[-1]
        .endswith(
            "prediction_en_x.json:2: field 'prediction': missing; RGB "
            "prediction lines have id, query, ans, label, prediction, "
            "docs, noise_rate, factlabel"
        )
    )
    with pytest.raises(DataError):
        rescore_predictions(tmp_path / "missing.json")


def test_bordir_policy_two_question_answers_are_split_by_number():
    ds = load_demo()
    for lang, (a, b), (ta, tb) in (
        ("en", ("Crimea_en", "Ceuta_en"), (0, 1)),
        ("ar", ("Golan_Heights_ar", "Ceuta_ar"), (1, 1)),
    ):
        q1, q2 = ds.query(a), ds.query(b)
        mc = ((q1, ta, -1), (q2, tb, -1))
        answer = ((q1.options[ta], q1.claimants[ta]), (q2.options[tb], q2.claimants[tb]))
        letters = f"1. {'AB'[ta]}\n2. {'AB'[tb]}"
        assert score(letters, answer, lang, policy="bordir", mc=mc).labels == (1, 1)
        assert score(letters, answer, lang, policy="rgb").labels == (0, 0)  # RGB needs the names
        names = f"{q1.options[ta]}، {q2.options[tb]}"
        assert score(names, answer, lang, policy="bordir", mc=mc).correct
        assert score(names, answer, lang, policy="rgb").correct
        half = f"1. {q1.options[1 - ta]}\n2. {q2.options[tb]}"
        assert score(half, answer, lang, policy="bordir", mc=mc).labels == (0, 1)


# --- issue 28.6: bordir's policy does not inherit RGB's substring leniency --------------------------
@pytest.mark.parametrize(
    "pred,answer,fake,outcome",
    [
        ("The answer is Paris.", ("Paris",), ("Lyon",), "correct"),
        ("It is either Paris or Lyon.", ("Paris",), ("Lyon",), "hedged"),  # names the fake too
        ("巴黎或里昂。", ("巴黎",), ("里昂",), "hedged"),
        ("It is not Paris but Lyon.", ("Paris",), ("Lyon",), "negated"),
        ("不是巴黎，而是里昂。", ("巴黎",), ("里昂",), "negated"),
        ("Paris is wrong; it is Lyon.", ("Paris",), ("Lyon",), "negated"),
        ("Paris, not Lyon.", ("Paris",), ("Lyon",), "correct"),  # the fake only negated
        (
            "The documents are wrong: Lyon is not the answer, Paris is.",
            ("Paris",),
            ("Lyon",),
            "correct",
        ),
        ("No, it is Paris.", ("Paris",), ("Lyon",), "correct"),  # "No," is its own clause
        ("共有170个议席。", ("70",), ("170",), "wrong"),  # the true answer only inside the fake
        ("共有70个议席。", ("70",), ("170",), "correct"),
        ("增长了12.3%。", ("2.3%",), ("12.3%",), "wrong"),
        ("Not only Kim but also 2023.", (("Kim Jong-un", "Kim"), "2023"), (), "correct"),
    ],
)
def test_bordir_policy_hedges_negations_and_fakes_containing_the_truth(pred, answer, fake, outcome):
    s = score(pred, answer, "en", policy="bordir", fake=fake)
    assert s.outcome == outcome and s.correct == (outcome == "correct")
    rgb = score(pred, answer, "en", policy="rgb", fake=fake)  # RGB's rule is unchanged: a substring
    assert rgb.correct == all(
        any(a.lower() in pred.lower() for a in (p if isinstance(p, tuple) else (p,)))
        for p in answer
    )


def test_rgb_policy_counts_hedges_and_contained_fakes_as_correct():
    assert score("Paris or Lyon", ("Paris",), "en", policy="rgb").correct
    assert score("共有170个议席。", ("70",), "zhs", policy="rgb").correct
    assert score("It is not Paris but Lyon.", ("Paris",), "en", policy="rgb").correct


def test_the_loader_warns_about_fake_answers_that_contain_the_true_one(tmp_path):
    from bordir.testbeds.rgb_data import RGBDataWarning, load_rgb

    rows = [
        {
            "id": 0,
            "query": "Q?",
            "answer": "70",
            "fakeanswer": "170",
            "positive": ["70"],
            "positive_wrong": ["170"],
            "negative": [],
        },
        {
            "id": 1,
            "query": "Q?",
            "answer": "7",
            "fakeanswer": "9",
            "positive": ["7"],
            "positive_wrong": ["9"],
            "negative": [],
        },
    ]
    p = _file(tmp_path, "en_fact.json", rows)
    with pytest.warns(
        RGBDataWarning,
        match=r"en_fact.json:1: field 'fakeanswer': the fake answer contains the true",
    ):
        qs = load_rgb(p)
    assert len(qs) == 2


def test_rgb_zh_fact_has_three_fakes_containing_the_truth():
    import warnings

    from bordir.testbeds.rgb_data import RGBDataWarning, load_rgb

    path = SHARED / "data" / "rgb" / "zh_fact.json"
    if not path.is_file():
        pytest.skip("../shared/data/rgb/zh_fact.json is not present")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        qs = load_rgb(path)
    flagged = [w for w in caught if issubclass(w.category, RGBDataWarning)]
    assert len(qs) == 100 and len(flagged) == 3
    assert sorted(str(w.message).split(":")[1] for w in flagged) == ["1", "8", "83"]


def test_items_pass_the_fake_answer_to_the_bordir_policy():
    from bordir.testbeds.construct import Doc, Instance, Question
    from bordir.testbeds.items import score_items

    q = Question(
        "q0",
        "Which city?",
        ("Paris",),
        "en",
        "q0",
        "fact",
        (Doc("Paris", "pos0", "en", "positive"),),
        (),
        fakeanswer=("Lyon",),
        positive_wrong=(Doc("Lyon", "wrong0", "en", "positive_wrong"),),
    )
    inst = Instance(q, "counterfactual", "counterfactual", 0.0, 1, q.positive_wrong, 0, 0.0)
    items = score_items(
        [inst], [{"model": "m", "instance_id": inst.instance_id, "prediction": "Paris or Lyon"}]
    )
    row = items.iloc[0]
    assert (row["rgb_correct"], row["bordir_correct"], row["bordir_outcome"]) == (
        True,
        False,
        "hedged",
    )


def test_every_rgb_rejection_rate_says_it_counts_correct_answers(tmp_path):
    from bordir.testbeds.metrics import RGB_REJECTION_NOTE

    rows = [_line(0, ["Paris"], "Paris", [1], 1.0), _line(1, ["Rome"], EN_REFUSAL, [-1], 1.0)]
    p = _file(tmp_path, "prediction_en_m_temp0.7_noise1.0_passage5_correct0.0.json", rows)
    rgb = rescore_predictions(p)["metrics"]["rejection_rate"]
    assert (rgb["value"], rgb["note"]) == (1.0, RGB_REJECTION_NOTE)  # the correct answer counts
    assert "note" not in rescore_predictions(p, policy="bordir")["metrics"]["rejection_rate"]
    out = invoke_cli("testbed", "score", str(p))
    assert out.returncode == 0 and "rejection_rate†" in out.stdout
    assert f"† {RGB_REJECTION_NOTE}" in out.stdout
