"""RGB data loader and instance construction: one-line errors, exact document counts, seeding."""

from __future__ import annotations

import json
import math

import pytest

from bordir.errors import DataError
from bordir.testbeds.construct import Doc, Question, build_docs, instance_rng, make_instance
from bordir.testbeds.rgb_data import load_rgb

from ..conftest import SHARED, invoke_cli

RGB = SHARED / "data" / "rgb"
RATIOS = (0.0, 0.2, 0.4, 0.6, 0.8)


@pytest.fixture(scope="module")
def rgb_dir():
    if not (RGB / "zh_refine.json").is_file():
        pytest.skip("../shared/data/rgb is not present")
    return RGB


def _write(tmp_path, name, rows):
    p = tmp_path / name
    p.write_text(
        "".join(
            (r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n" for r in rows
        ),
        encoding="utf-8",
    )
    return p


GOOD = {"id": 0, "query": "Q?", "answer": ["a"], "positive": ["a doc"], "negative": ["n doc"]}


@pytest.mark.parametrize(
    "name,row,where",
    [
        ("en.json", "{not json", "en.json:2: not valid JSON"),
        (
            "en.json",
            {"id": 1, "answer": ["a"], "positive": [], "negative": []},
            "en.json:2: field 'query': missing",
        ),
        (
            "en.json",
            dict(GOOD, id=1, positive="a doc"),
            "en.json:2: field 'positive': expected a list of strings",
        ),
        (
            "en.json",
            dict(GOOD, id=1, answer=[3]),
            "en.json:2: field 'answer': expected each answer part",
        ),
        ("en.json", dict(GOOD), "en.json:2: field 'id': duplicate id '0' (first on line 1)"),
        (
            "en_int.json",
            dict(GOOD, id=1, positive=["x"], answer=["a", "b"]),
            "en_int.json:2: field 'positive': expected a list of non-empty lists of strings",
        ),
        (
            "en_fact.json",
            dict(GOOD, id=1, fakeanswer="b", positive_wrong=[]),
            "en_fact.json:2: field 'positive_wrong': has 0 documents but positive has 1",
        ),
        (
            "en_fact.json",
            dict(GOOD, id=1, positive_wrong=["b doc"]),
            "en_fact.json:2: field 'fakeanswer': missing",
        ),
    ],
)
def test_bad_lines_give_one_line_errors(tmp_path, name, row, where):
    first = dict(GOOD)
    if "_int" in name:
        first = dict(GOOD, positive=[["a doc"]])
    if "_fact" in name:
        first = dict(GOOD, answer="a", fakeanswer="b", positive_wrong=["b doc"])
    p = _write(tmp_path, name, [first, row])
    with pytest.raises(DataError) as exc:
        load_rgb(p)
    msg = str(exc.value)
    assert "\n" not in msg and msg.startswith(str(tmp_path)) and where in msg, msg


def _load_fact(path):
    """``load_rgb`` of a counterfactual file: RGB's zh_fact.json has 3 fakes containing the true answer."""
    from bordir.testbeds.rgb_data import RGBDataWarning

    with pytest.warns(RGBDataWarning):
        return load_rgb(path)


def test_real_files_load(rgb_dir):
    refine, integ = (load_rgb(rgb_dir / f) for f in ("zh_refine.json", "zh_int.json"))
    fact = _load_fact(rgb_dir / "zh_fact.json")
    assert (len(refine), len(integ), len(fact)) == (300, 100, 100)
    assert {q.kind for q in refine} == {"noise"} and {q.kind for q in integ} == {"integration"}
    assert all(len(q.positive) >= 2 and len(q.answer) >= 2 for q in integ)
    assert all(len(q.positive_wrong) == len(q.positive) and q.fakeanswer for q in fact)


def _expected_noise(n_pos: int, n_neg: int, r: float, k: int = 5) -> tuple[int, int]:
    """RGB's counts, derived from its description (not its code)."""
    if r == 1:
        return 0, min(n_neg, k)
    neg = math.ceil(k * r)
    pos = k - neg
    if neg > n_neg:
        return min(n_pos, k - n_neg), n_neg
    if pos > n_pos:
        return n_pos, min(n_neg, k - n_pos)
    return pos, neg


def test_noise_counts_exact_on_real_file(rgb_dir):
    qs = [
        Question.from_rgb(q, lang="zhs", source="rgb") for q in load_rgb(rgb_dir / "zh_refine.json")
    ]
    for q in qs:
        for r in (*RATIOS, 1.0):
            docs = build_docs(q, r, rng=instance_rng(q, 7))
            got = (sum(d.kind == "positive" for d in docs), sum(d.kind == "negative" for d in docs))
            assert got == _expected_noise(len(q.positive), len(q.negative), r), (q.id, r)
            if r == 1:
                assert got[0] == 0  # no positive in a rejection set
            # positives and negatives are taken from the front of their lists (RGB), then shuffled
            pos_ids = sorted(int(d.doc_id[3:]) for d in docs if d.kind == "positive")
            assert pos_ids == list(range(len(pos_ids)))


def test_integration_every_part_represented(rgb_dir):
    qs = [Question.from_rgb(q, lang="zhs", source="rgb") for q in load_rgb(rgb_dir / "zh_int.json")]
    for q in qs:
        for r in (0.0, 0.2, 0.4, 0.6, 0.8):
            docs = build_docs(q, r, rng=instance_rng(q, 3))
            parts = {d.part for d in docs if d.kind == "positive"}
            assert parts == set(range(len(q.positive))), (q.id, r)
            n_pos = sum(d.kind == "positive" for d in docs)
            want = max(len(q.positive), 5 - math.ceil(5 * r))
            assert n_pos == min(want, sum(len(p) for p in q.positive))
            assert len(docs) == min(5, n_pos + len(q.negative)) if n_pos < 5 else len(docs) == n_pos
            # round robin: part sizes differ by at most one while every part has documents left
            sizes = [sum(d.part == p for d in docs) for p in range(len(q.positive))]
            assert max(sizes) - min(sizes) <= 1 or any(
                sizes[p] == len(q.positive[p]) for p in range(len(sizes))
            )


def test_fact_documents_are_the_wrong_ones(rgb_dir):
    qs = [
        Question.from_rgb(q, lang="zhs", source="rgb") for q in _load_fact(rgb_dir / "zh_fact.json")
    ]
    for q in qs:
        docs = build_docs(q, 0.0, rng=instance_rng(q, 2333, "rgb"))
        assert len(docs) == min(5, len(q.positive))
        assert all(d.kind == "positive_wrong" and d.original for d in docs)
        mixed = build_docs(q, 0.2, rng=instance_rng(q, 2333, "rgb"), correct_rate=0.2)
        assert sum(d.kind == "negative" for d in mixed) == min(1, len(q.negative))
        assert sum(d.kind == "positive_wrong" for d in mixed) == min(3, len(q.positive))
        assert sum(d.kind == "positive" for d in mixed) == min(1, max(0, len(q.positive) - 3))


def _synthetic(qid: str) -> Question:
    return Question(
        id=qid,
        query="Q?",
        answer=("x",),
        lang="en",
        cluster=qid,
        kind="noise",
        positive=tuple(Doc(f"p{i} x", f"pos{i}", "en", "positive") for i in range(5)),
        negative=tuple(Doc(f"n{i}", f"neg{i}", "en", "negative") for i in range(5)),
    )


def test_seeding_rgb_reseeds_every_instance_bordir_varies_by_question():
    a, b = _synthetic("a"), _synthetic("b")
    order = lambda q, seeding: [
        d.doc_id
        for d in make_instance(
            q,
            "noise",
            "noise",
            0.4,
            seed=2333,  # noqa: E731
            seeding=seeding,
        ).docs
    ]
    assert order(a, "rgb") == order(b, "rgb")  # RGB: random.seed(2333) before each instance
    assert order(a, "rgb") == order(a, "rgb")
    assert order(a, "bordir") == order(a, "bordir")
    assert any(order(_synthetic(str(i)), "bordir") != order(a, "bordir") for i in range(10))


def test_score_with_an_unknown_lang_names_the_option_and_the_file(tmp_path):
    f = tmp_path / "prediction_en_m_temp0.7_noise0.0_passage5_correct0.0.json"
    line = {"id": 0, "query": "q", "ans": ["a"], "prediction": "a", "noise_rate": 0.0}
    f.write_text(json.dumps(line) + "\n", encoding="utf-8")
    res = invoke_cli("testbed", "score", str(f), "--lang", "xx")
    err = res.stderr.strip()
    assert res.returncode == 2 and len(err.splitlines()) == 1, err
    assert err.startswith(f"bordir: error: --lang 'xx' (the language of {f}): languages/ has no")
