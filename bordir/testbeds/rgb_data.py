"""The RGB benchmark's JSON-lines files, read into typed immutable questions.

RGB ("Benchmarking Large Language Models in Retrieval-Augmented Generation",
Chen et al., AAAI 2024; files of the public ``chen700564/RGB`` repository)
ships one JSON object per line, in three shapes:

* ``en.json`` / ``zh.json`` (``zh_refine.json`` in the repository's data folder):
  ``id, query, answer, positive, negative`` — noise robustness and negative rejection;
* ``*_int.json``: ``answer`` is a list of parts, ``positive`` a list of lists
  (one list of positive documents per sub-question, ``asnwer1`` / ``answer2``;
  a sub-question may have several answer parts) — information integration;
* ``*_fact.json``: also ``fakeanswer`` and ``positive_wrong`` (the positive
  documents with the answer replaced by the fake answer) — counterfactual robustness.

``answer`` follows RGB's ``checkanswer``: a list whose items are the answer's
*parts*; a part is a string or a list of aliases. A bare string (as in
``zh_fact.json``) is one part. Every line is checked: a bad line raises a
one-line :class:`~bordir.errors.DataError` naming the file, the line and the field.

Example:
    >>> import json, tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "en_fact.json"
    >>> _ = p.write_text(json.dumps({"id": 0, "query": "Q?", "answer": "70", "fakeanswer": "80",
    ...     "positive": ["70 seats"], "positive_wrong": ["80 seats"], "negative": []}) + "\\n")
    >>> qs = load_rgb(p)
    >>> qs[0].kind, qs[0].answer, qs[0].fakeanswer
    ('fact', ('70',), ('80',))
    >>> _ = p.write_text('{"id": 1, "query": "Q?", "answer": 3}\\n')
    >>> load_rgb(p)
    Traceback (most recent call last):
    ...
    bordir.errors.DataError: ...en_fact.json:1: field 'answer': expected a string or a list of strings / lists of aliases, found int
"""

from __future__ import annotations

import os
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from .._io.json_read import iter_json_objects, string_list
from ..errors import ConfigError, DataError

__all__ = [
    "RGBDataWarning",
    "fake_contains_true",
    "Kind",
    "KINDS",
    "AnswerPart",
    "RGBQuestion",
    "load_rgb",
    "dataset_part",
    "infer_kind",
    "infer_lang",
    "parse_answer_field",
]


class RGBDataWarning(UserWarning):
    """An RGB item that loads but cannot be scored as its kind means (a fake answer that contains the true one)."""


Kind = Literal["noise", "integration", "fact"]
KINDS: tuple[str, ...] = ("noise", "integration", "fact")
"""Dataset kinds: ``noise`` (also negative rejection), ``integration``, ``fact`` (counterfactual)."""

AnswerPart = str | tuple[str, ...]
"""One part of an answer: a string, or a tuple of aliases (any one matches)."""


@dataclass(frozen=True, slots=True)
class RGBQuestion:
    """One question of an RGB file (or built the same way from bordir's data).

    Attributes:
        id: the question id (RGB's ``id``, as a string).
        query: the question text.
        answer: the answer parts (see the module docs).
        positive: answer-bearing documents; for ``integration``, one tuple per sub-question.
        negative: noise documents (no answer).
        kind: ``noise``, ``integration`` or ``fact``.
        fakeanswer: ``fact`` only: the counterfactual answer parts.
        positive_wrong: ``fact`` only: the positive documents with the fake answer.
        raw_answer: ``answer`` exactly as in the file (RGB prediction files echo it as ``ans``).
    """

    id: str
    query: str
    answer: tuple[AnswerPart, ...]
    positive: tuple[Any, ...]
    negative: tuple[str, ...]
    kind: Kind = "noise"
    fakeanswer: tuple[AnswerPart, ...] = ()
    positive_wrong: tuple[str, ...] = ()
    raw_answer: Any = None


_PREDICTION = re.compile(r"prediction_([^_]+)(_(?:int|fact)(?=[_.]|$))?")


def dataset_part(path: str | os.PathLike[str]) -> str:
    """RGB's dataset name of a file: ``<dataset>`` of ``prediction_<dataset>_<model>_…``, else the file's stem.

    RGB's datasets are ``en``, ``zh``, ``en_int``, ``zh_int``, ``en_fact``, ``zh_fact``, so the
    dataset part of a prediction file is its first token and a following ``int`` or ``fact`` token;
    what follows is the model's name (which may itself contain ``_fact`` or ``zh``).

    >>> dataset_part("prediction_en_fact_chatgpt_temp0.7_noise0.0_passage5_correct0.0.json")
    'en_fact'
    >>> dataset_part("prediction_en_llama_fact_tuned_temp0.7_noise0.0_passage5_correct0.0.json"), dataset_part("zh_int.json")
    ('en', 'zh_int')
    """
    name = Path(path).name
    m = _PREDICTION.match(name)
    if m:
        return m.group(1) + (m.group(2) or "")
    return name[: -len(".json")] if name.endswith(".json") else Path(name).stem


def infer_kind(path: str | os.PathLike[str]) -> Kind:
    """The kind RGB's scripts infer from the dataset name (``'_int' in dataset``, ``'_fact' in dataset``, else noise).

    Only the dataset part of the name counts (:func:`dataset_part`), not the model's name after it.

    >>> infer_kind("prediction_en_int_chatgpt_temp0.7_noise0.2_passage5_correct0.0.json")
    'integration'
    >>> infer_kind("prediction_en_my_fact_model_temp0.7_noise0.2_passage5_correct0.0.json")
    'noise'
    """
    dataset = dataset_part(path)
    if "_int" in dataset:
        return "integration"
    if "_fact" in dataset:
        return "fact"
    return "noise"


def infer_lang(path: str | os.PathLike[str]) -> str:
    """The language of an RGB file from its dataset name (:func:`dataset_part`): ``zh`` when it contains ``zh``.

    RGB tests ``'zh' in dataset``; prediction files are named
    ``prediction_<dataset>_<model>_…``, data files ``<dataset>.json``.

    >>> infer_lang("prediction_zh_int_chatgpt_temp0.7_noise0.2_passage5_correct0.0.json"), infer_lang("en_fact.json")
    ('zh', 'en')
    >>> infer_lang("prediction_en_zhipu_temp0.7_noise0.2_passage5_correct0.0.json")
    'en'
    """
    return "zh" if "zh" in dataset_part(path).split("_")[0] else "en"


def _type(v: Any) -> str:
    return type(v).__name__


def parse_answer_field(
    value: Any, *, path: Path | str | None = None, line: int | None = None, field: str = "answer"
) -> tuple[AnswerPart, ...]:
    """An RGB answer value as parts (a bare string is one part; a list of strings is one part per string).

    >>> parse_answer_field(["12人"]), parse_answer_field([["Oscar", "the Oscars"], "1929"]), parse_answer_field("70")
    (('12人',), (('Oscar', 'the Oscars'), '1929'), ('70',))
    """
    bad = f"expected a string or a list of strings / lists of aliases, found {_type(value)}"
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, list) or not value:
        raise DataError(
            bad if not isinstance(value, list) else "empty answer list",
            path=path,
            line=line,
            field=field,
        )
    parts: list[AnswerPart] = []
    for part in value:
        if isinstance(part, str):
            parts.append(part)
        elif isinstance(part, list) and part and all(isinstance(a, str) for a in part):
            parts.append(tuple(part))
        else:
            raise DataError(
                f"expected each answer part to be a string or a non-empty list of strings, found "
                f"{_type(part)}",
                path=path,
                line=line,
                field=field,
            )
    return tuple(parts)


def _strings(
    rec: dict[str, Any], key: str, path: Path, line: int, *, required: bool = True
) -> tuple[str, ...]:
    if key not in rec:
        if required:
            raise DataError("missing", path=path, line=line, field=key)
        return ()
    return tuple(
        string_list(
            rec[key],
            expected="a list of strings",
            bad_items="non-string items",
            path=path,
            line=line,
            field=key,
        )
    )


def _question(rec: dict[str, Any], kind: Kind, path: Path, line: int) -> RGBQuestion:
    for key in ("id", "query", "answer"):
        if key not in rec:
            raise DataError("missing", path=path, line=line, field=key)
    if not isinstance(rec["id"], (int, str)) or isinstance(rec["id"], bool):
        raise DataError(
            f"expected an integer or string id, found {_type(rec['id'])}",
            path=path,
            line=line,
            field="id",
        )
    if not isinstance(rec["query"], str) or not rec["query"].strip():
        raise DataError("expected a non-empty string", path=path, line=line, field="query")
    answer = parse_answer_field(rec["answer"], path=path, line=line)
    negative = _strings(rec, "negative", path, line)
    common = dict(
        id=str(rec["id"]),
        query=rec["query"],
        answer=answer,
        negative=negative,
        kind=kind,
        raw_answer=rec["answer"],
    )
    if kind == "integration":
        pos = rec.get("positive")
        if (
            not isinstance(pos, list)
            or not pos
            or not all(
                isinstance(p, list) and p and all(isinstance(x, str) for x in p) for p in pos
            )
        ):
            raise DataError(
                "expected a list of non-empty lists of strings (one list of documents per answer part)",
                path=path,
                line=line,
                field="positive",
            )
        return RGBQuestion(positive=tuple(tuple(p) for p in pos), **common)
    positive = _strings(rec, "positive", path, line)
    if kind == "fact":
        if "fakeanswer" not in rec:
            raise DataError(
                "missing (a counterfactual file needs fakeanswer and positive_wrong)",
                path=path,
                line=line,
                field="fakeanswer",
            )
        fake = parse_answer_field(rec["fakeanswer"], path=path, line=line, field="fakeanswer")
        wrong = _strings(rec, "positive_wrong", path, line)
        if len(wrong) != len(positive):
            raise DataError(
                f"has {len(wrong)} documents but positive has {len(positive)}; RGB pairs them by index",
                path=path,
                line=line,
                field="positive_wrong",
            )
        return RGBQuestion(positive=positive, fakeanswer=fake, positive_wrong=wrong, **common)
    return RGBQuestion(positive=positive, **common)


def _aliases(parts: tuple[AnswerPart, ...]) -> list[str]:
    return [a for p in parts for a in (p if isinstance(p, tuple) else (p,))]


def fake_contains_true(q: RGBQuestion) -> list[tuple[str, str]]:
    """The (true, fake) alias pairs of a counterfactual item whose fake answer contains the true one.

    RGB's substring test counts an answer naming such a fake as correct (the true answer is inside it);
    bordir's policy does not (:func:`bordir.testbeds.scorer.answer_outcome`), and a fake equal to the
    true answer cannot be told apart at all.

    >>> q = RGBQuestion("0", "Q?", ("70",), ("doc",), (), kind="fact", fakeanswer=("170",))
    >>> fake_contains_true(q)
    [('70', '170')]
    """
    return [
        (t, f)
        for t in _aliases(q.answer)
        for f in _aliases(q.fakeanswer)
        if t.strip() and t.casefold() in f.casefold()
    ]


def load_rgb(path: str | os.PathLike[str], *, kind: Kind | None = None) -> list[RGBQuestion]:
    """Read an RGB data file (one JSON object per line).

    Args:
        path: the file (``zh_refine.json``, ``en_int.json``, ``zh_fact.json`` …).
        kind: ``noise``, ``integration`` or ``fact``; default: from the file name
            as RGB does (:func:`infer_kind`).

    A counterfactual item whose fake answer contains its true answer (3 of the 100 of RGB's
    ``zh_fact.json``: ``70`` / ``170``, ``2.3%`` / ``12.3%``, and one whose fake equals the true
    answer) is loaded with an :class:`RGBDataWarning` naming its line: under RGB's substring rule an
    answer naming the fake counts as correct there.

    Raises:
        DataError: the file is missing, a line is not a JSON object, a field is
            missing or has the wrong type, or two lines share an id.
    """
    path = Path(path)
    kind = kind or infer_kind(path)
    if kind not in KINDS:
        raise ConfigError(f"unknown RGB dataset kind {kind!r}; known: {', '.join(KINDS)}")
    if not path.is_file():
        raise DataError(
            "file not found; expected an RGB JSON-lines file such as zh_refine.json", path=path
        )
    out: list[RGBQuestion] = []
    seen: dict[str, int] = {}
    for lineno, rec in iter_json_objects(path):
        q = _question(rec, kind, path, lineno)
        if q.id in seen:
            raise DataError(
                f"duplicate id {q.id!r} (first on line {seen[q.id]})",
                path=path,
                line=lineno,
                field="id",
            )
        seen[q.id] = lineno
        out.append(q)
        pairs = fake_contains_true(q) if q.kind == "fact" else []
        if pairs:
            what = "; ".join(
                f"{f!r} contains {t!r}" if f != t else f"{f!r} is the true answer" for t, f in pairs
            )
            warnings.warn(
                str(
                    DataError(
                        f"the fake answer contains the true answer ({what}): RGB's substring rule counts "
                        "an answer naming the fake as correct (the bordir policy does not)",
                        path=path,
                        line=lineno,
                        field="fakeanswer",
                    )
                ),
                RGBDataWarning,
                stacklevel=2,
            )
    if not out:
        raise DataError("has no questions", path=path)
    return out
