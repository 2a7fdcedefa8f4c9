"""The per-item table of a testbed run: one row per (model, instance), labelled under both policies.

Columns: ``model, testbed, setting, lang, noise_rate, passage_num, question_id,
cluster, instance_id, n_docs, n_pos, n_neg, n_wrong, doc_ids, doc_langs,
prediction, error, failed, cached, input_tokens, output_tokens``, and per policy
``p`` in (``rgb``, ``bordir``): ``p_labels`` (JSON list, RGB's ``label``),
``p_rejected``, ``p_fact``, ``p_correct``, ``p_outcome``; with a judge,
``judge_reply`` and ``judge_flag`` (:mod:`~bordir.testbeds.judge`). Every score
(:mod:`~bordir.testbeds.metrics`) is a pure function of this table.

:func:`rgb_records` writes the same rows in the format of RGB's prediction
files (``id, query, ans, label, prediction, docs, noise_rate, factlabel``), so
``bordir testbed score`` re-scores bordir's outputs exactly as RGB's.

Examples:
    >>> from bordir.testbeds.construct import Doc, Question, Instance
    >>> q = Question(id="1", query="Who?", answer=("Ann",), lang="en", cluster="1", kind="noise", positive=(), negative=())
    >>> inst = Instance(q, "noise", "noise", 0.0, 5, (Doc("Ann did it", "pos0", "en", "positive"),), seed=1)
    >>> t = score_items([inst], [{"model": "m/x", "instance_id": inst.instance_id, "prediction": "ann", "error": None}])
    >>> [bool(t.loc[0, "rgb_correct"]), bool(t.loc[0, "bordir_correct"]), int(t.loc[0, "n_pos"])]
    [True, True, 1]
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

import pandas as pd

from .._io.json_read import loads
from .construct import Instance
from .echoes import instance_prompt
from .instructions import get_instruction
from .scorer import POLICIES, Policy, score

__all__ = [
    "BASE_COLUMNS",
    "ITEM_COLUMNS",
    "base_row",
    "latest_results",
    "score_items",
    "rgb_records",
]

BASE_COLUMNS = [
    "model",
    "testbed",
    "setting",
    "lang",
    "noise_rate",
    "passage_num",
    "question_id",
    "cluster",
    "instance_id",
    "n_docs",
    "n_pos",
    "n_neg",
    "n_wrong",
    "doc_ids",
    "doc_langs",
    "prediction",
    "error",
    "failed",
    "cached",
    "input_tokens",
    "output_tokens",
]
"""The columns of every testbed's item table before its labels (:func:`base_row`)."""

ITEM_COLUMNS = [
    *BASE_COLUMNS,
    *(f"{p}_{c}" for p in POLICIES for c in ("labels", "rejected", "fact", "correct", "outcome")),
    "judge_reply",
    "judge_flag",
]


def latest_results(
    instances: Sequence[Instance], results: Iterable[Mapping[str, Any]]
) -> tuple[dict[str, Instance], dict[tuple[str, str], Mapping[str, Any]]]:
    """``(instances by id, the last result of each (model, instance id))``; results of other instances are ignored."""
    by_id = {i.instance_id: i for i in instances}
    latest: dict[tuple[str, str], Mapping[str, Any]] = {}
    for r in results:
        if r["instance_id"] in by_id:
            latest[(r["model"], r["instance_id"])] = r
    return by_id, latest


def base_row(model: str, inst: Instance, r: Mapping[str, Any]) -> dict[str, Any]:
    """The :data:`BASE_COLUMNS` of one result ``r`` of ``model`` on ``inst``."""
    q = inst.question
    return {
        "model": model,
        "testbed": inst.testbed,
        "setting": inst.setting,
        "lang": q.lang,
        "noise_rate": inst.noise_rate,
        "passage_num": inst.passage_num,
        "question_id": q.id,
        "cluster": q.cluster,
        "instance_id": inst.instance_id,
        "n_docs": len(inst.docs),
        "n_pos": inst.count("positive"),
        "n_neg": inst.count("negative"),
        "n_wrong": inst.count("positive_wrong"),
        "doc_ids": [d.doc_id for d in inst.docs],
        "doc_langs": [d.lang for d in inst.docs],
        "prediction": r.get("prediction") or "",
        "error": r.get("error"),
        "failed": r.get("error") is not None,
        "cached": bool(r.get("cached", False)),
        "input_tokens": r.get("input_tokens"),
        "output_tokens": r.get("output_tokens"),
    }


def score_items(
    instances: Sequence[Instance],
    results: Iterable[Mapping[str, Any]],
    judged: Mapping[tuple[str, str], Mapping[str, Any]] | None = None,
) -> pd.DataFrame:
    """Join results (``model, instance_id, prediction, error`` …) to their instances and label them.

    Results for instances not in ``instances`` are ignored; the last result of a
    (model, instance) wins. ``judged`` maps (model, instance id) to a judge result
    (``reply``, ``error``, ``testbed``); ``judge_flag`` is None where there is none.
    """
    from .judge import judge_label

    by_id, latest = latest_results(instances, results)
    rows = []
    for (model, iid), r in latest.items():
        inst = by_id[iid]
        q = inst.question
        row = base_row(model, inst, r)
        failed = row["failed"]
        echo = (get_instruction(q.lang).system, q.query) if inst.docs else (q.query,)
        prompt = instance_prompt(inst)
        for p in POLICIES:
            s = score(
                r.get("prediction"),
                q.answer,
                q.lang,
                policy=cast(Policy, p),  # POLICIES lists the Policy names
                mc=q.mc,
                failed=failed,
                echo=echo,
                fake=q.fakeanswer,
                prompt=prompt,
            )
            row.update(
                {
                    f"{p}_labels": json.dumps(list(s.labels)),
                    f"{p}_rejected": s.rejected,
                    f"{p}_fact": s.fact_flag,
                    f"{p}_correct": s.correct,
                    f"{p}_outcome": s.outcome,
                }
            )
        j = (judged or {}).get((model, iid))
        if j is not None and j.get("error") is None:
            row["judge_reply"] = j.get("reply")
            row["judge_flag"] = judge_label(inst.testbed, j["reply"])
        else:
            row["judge_reply"] = row["judge_flag"] = None
        rows.append(row)
    df = pd.DataFrame(rows, columns=ITEM_COLUMNS)
    return df.sort_values(
        ["model", "testbed", "setting", "lang", "noise_rate", "question_id"], kind="stable"
    ).reset_index(drop=True)


def rgb_records(instances: Sequence[Instance], items: pd.DataFrame) -> list[dict[str, Any]]:
    """The rows of ``items`` (one model, language and setting) as RGB prediction-file records (rgb labels).

    A prediction of a zh question is stored with its spaces removed, as RGB's ``predict`` stores it.
    """
    by_id = {i.instance_id: i for i in instances}
    out = []
    for _, row in items.iterrows():
        inst = by_id[row["instance_id"]]
        q = inst.question
        pred = row["prediction"]
        if q.lang in ("zh", "zhs", "zht"):
            pred = pred.replace(" ", "")
        ans = (
            q.raw_answer
            if q.raw_answer is not None
            else [list(a) if isinstance(a, tuple) else a for a in q.answer]
        )
        out.append(
            {
                "id": q.id,
                "query": q.query,
                "ans": ans,
                "label": loads(row["rgb_labels"]),
                "prediction": pred,
                "docs": [d.text for d in inst.docs],
                "noise_rate": inst.noise_rate,
                "factlabel": int(bool(row["rgb_fact"])),
            }
        )
    return out
