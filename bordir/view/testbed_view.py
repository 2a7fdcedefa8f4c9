"""The page data of a testbed directory (``bordir testbed … --out DIR``): one row per (model, instance).

Read through the files the testbed run writes: ``testbed.json`` (config),
``items.parquet`` (the labels of every item under both policies),
``results.jsonl`` (each call's request key) and ``predictions/<model>/<lang>.<setting>.jsonl``
(the question and the documents' texts in prompt order). Each item shows its
question, documents, prediction and labels under the rgb and bordir policies.

The request key is **verified**: the request is rebuilt with the testbed's own
builder (its engine's ``request``: :attr:`bordir.testbeds.testbed.Testbed.run_engine`) from the recorded question
and documents, and its cache key must equal the one ``results.jsonl`` recorded.

The numbers on screen are every metric of ``scores.json`` under both policies,
as Σ numerator / Σ denominator of the per-item indicators
(:func:`bordir.testbeds.metrics.indicators`) of the items on screen — the value
the report's cell shows when the filters select its group.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import DataError
from .columns import coded, numbers
from .dispatch import ViewKind
from .files import read_json, read_jsonl, read_parquet, require_columns
from .page import page_meta, table_columns
from .run_data import Facet, as_list

__all__ = ["testbed_page", "TESTBED_FACETS"]

TESTBED_FACETS: tuple[Facet, ...] = (
    Facet("model", "Model"),
    Facet("lang", "Language"),
    Facet("setting", "Setting"),
    Facet("noise", "Noise rate"),
    Facet("rgb_outcome", "Label (rgb policy)"),
    Facet("bordir_outcome", "Label (bordir policy)"),
    Facet("failed", "Call failed"),
)
_COLUMNS = table_columns(
    {
        "instance_id": "instance",
        "model": "model",
        "lang": "lang",
        "setting": "setting",
        "noise": "noise",
        "rgb_outcome": "rgb",
        "bordir_outcome": "bordir",
        "prediction": "prediction",
    }
)
_HINT = "re-run the same `bordir testbed` command (it resumes) or restore the file"


def _safe(model: str) -> str:
    return model.replace("/", "__").replace(":", "_")


def _predictions(
    out: Path, models: list[str]
) -> dict[tuple[str, str, str, str, float], dict[str, Any]]:
    found: dict[tuple[str, str, str, str, float], dict[str, Any]] = {}
    for model in models:
        folder = out / "predictions" / _safe(model)
        if not folder.is_dir():
            continue
        for f in sorted(folder.glob("*.jsonl")):
            lang, _, setting = f.name[: -len(".jsonl")].partition(".")
            for rec in read_jsonl(f, hint=_HINT):
                rate = float(rec.get("noise_rate", 0.0))
                found[(model, lang, setting, str(rec.get("id")), rate)] = rec
    return found


def _request_key(
    info: dict[str, Any], model: str, item: Any, rec: dict[str, Any] | None
) -> str | None:
    if rec is None:
        return None
    from ..testbeds.construct import Doc, Instance, Question

    cfg = info["config"]
    texts = [str(t) for t in rec.get("docs") or []]
    ids = as_list(item["doc_ids"])
    langs = as_list(item["doc_langs"])
    docs = tuple(
        Doc(
            t, ids[i] if i < len(ids) else str(i), langs[i] if i < len(langs) else item["lang"], "?"
        )
        for i, t in enumerate(texts)
    )
    q = Question(
        id=str(item["question_id"]),
        query=str(rec.get("query", "")),
        answer=(),
        lang=str(item["lang"]),
        cluster=str(item["cluster"]),
        kind="noise",
        positive=(),
        negative=(),
    )
    inst = Instance(
        q,
        str(item["testbed"]),
        str(item["setting"]),
        float(item["noise_rate"]),
        int(item["passage_num"]),
        docs,
        seed=int(cfg["seed"]),
    )
    from ..testbeds.testbed import ENGINES, TESTBEDS

    name = str(item["testbed"])
    engine = TESTBEDS.get(name).run_engine if name in TESTBEDS else ENGINES.get("rgb")
    req = engine.request(
        inst,
        model=model,
        temperature=float(cfg["temperature"]),
        seed=int(cfg["seed"]),
        max_tokens=int(cfg["max_tokens"]),
    )
    return str(req.cache_key())


def _facets(policies: list[str]) -> list[Facet]:
    """:data:`TESTBED_FACETS` with one label facet per policy of the run (NoMIRACL: nomiracl, bordir)."""
    base = [f for f in TESTBED_FACETS if not f.key.endswith("_outcome")]
    labels = [Facet(f"{p}_outcome", f"Label ({p} policy)") for p in policies]
    return [*base[:4], *labels, *base[4:]]


def _columns(policies: list[str]) -> list[dict[str, Any]]:
    base = [c for c in _COLUMNS if not str(c["key"]).endswith("_outcome")]
    labels = [{"key": f"{p}_outcome", "label": p} for p in policies]
    return [*base[:6], *labels, *base[6:]]


def testbed_page(path: str | Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(meta, rows)`` of a testbed directory's page."""
    from ..testbeds.metrics import METRICS, indicators

    out = Path(path)
    info = read_json(
        out / "testbed.json", hint="expected a directory written by `bordir testbed … --out DIR`"
    )
    if not isinstance(info, dict) or info.get("kind") != "bordir-testbed" or "config" not in info:
        raise DataError(
            'not a testbed record (expected "kind": "bordir-testbed")', path=out / "testbed.json"
        )
    if info.get("status") != "complete":
        raise DataError(
            f"the testbed run has not finished (status: {info.get('status')}); {_HINT}",
            path=out / "testbed.json",
            field="status",
        )
    items = read_parquet(out / "items.parquet", hint=_HINT).to_pandas()
    need = ["model", "instance_id", "lang", "setting", "noise_rate", "failed", "prediction"]
    require_columns(
        items.columns,
        need,
        path=out / "items.parquet",
        table="the items table `bordir testbed` writes",
    )
    scores = read_json(out / "scores.json", hint=_HINT)
    results = {
        (r.get("model"), r.get("instance_id")): r
        for r in (
            read_jsonl(out / "results.jsonl", hint=_HINT)
            if (out / "results.jsonl").exists()
            else []
        )
    }
    models = list(dict.fromkeys(items["model"].astype(str)))
    preds = _predictions(out, models)
    policies = list(scores.get("policies") or ["rgb", "bordir"])
    present = [
        m
        for m in METRICS
        if any(
            m in (g.get("metrics") or {}).get(p, {})
            for g in scores.get("groups", [])
            for p in policies
        )
    ]
    n = len(items)
    recs = items.to_dict("records")
    docs_col, keys, keystat, key_ok, queries, answers = [], [], [], [], [], []
    mismatched = 0
    for it in recs:
        rec = preds.get(
            (
                str(it["model"]),
                str(it["lang"]),
                str(it["setting"]),
                str(it["question_id"]),
                float(it["noise_rate"]),
            )
        )
        ids = as_list(it.get("doc_ids"))
        langs = as_list(it.get("doc_langs"))
        texts = [str(t) for t in (rec or {}).get("docs") or []]
        docs_col.append(
            json.dumps(
                [
                    [ids[i] if i < len(ids) else "", langs[i] if i < len(langs) else "", "", t]
                    for i, t in enumerate(texts or [""] * len(ids))
                ],
                ensure_ascii=False,
            )
        )
        queries.append((rec or {}).get("query"))
        answers.append(json.dumps((rec or {}).get("ans"), ensure_ascii=False) if rec else None)
        stored = (results.get((it["model"], it["instance_id"])) or {}).get("request_key")
        key = _request_key(info, str(it["model"]), it, rec)
        keys.append(stored or key)
        if key is None:
            keystat.append("not verified: the item's predictions file is missing")
            key_ok.append(0)
        elif stored is None:
            keystat.append("recomputed; results.jsonl records no key for this item")
            key_ok.append(0)
        elif key == stored:
            keystat.append("verified: the rebuilt request has the key results.jsonl records")
            key_ok.append(1)
        else:
            keystat.append(
                "differs: the request rebuilt from the recorded question and documents has another key"
            )
            key_ok.append(0)
            mismatched += 1
    cols: dict[str, Any] = {
        "model": coded(items["model"].astype(str)),
        "lang": coded(items["lang"].astype(str)),
        "setting": coded(items["setting"].astype(str)),
        "noise": coded([f"{float(r):g}" for r in items["noise_rate"]]),
        "failed": coded(np.where(items["failed"].astype(bool), "yes", "no")),
        "instance_id": coded(items["instance_id"].astype(str)),
        "prediction": coded(items["prediction"].fillna("").astype(str)),
        "query": coded(queries),
        "answers": coded(answers),
        "docs": coded(docs_col),
        "key": coded(keys),
        "keystat": coded(keystat),
        "key_ok": numbers(key_ok),
        "in_tok": numbers(
            items["input_tokens"].tolist() if "input_tokens" in items else [None] * n
        ),
        "out_tok": numbers(
            items["output_tokens"].tolist() if "output_tokens" in items else [None] * n
        ),
        "error": coded(items["error"] if "error" in items else [None] * n),
        "judge": coded(items["judge_reply"] if "judge_reply" in items else [None] * n),
    }
    for p in policies:
        for c in ("labels", "outcome"):
            name = f"{p}_{c}"
            cols[name] = coded(items[name].astype(str) if name in items else [None] * n)
    number_specs = []
    for m in present:
        for p in policies:
            num, den = indicators(items, m, p)
            key = f"{m}:{p}"
            cols[f"num:{key}"] = numbers(num.tolist())
            cols[f"den:{key}"] = numbers(den.tolist())
            number_specs.append({"key": key, "label": f"{METRICS[m]} ({p})"})
    cfg = info["config"]
    warnings = []
    if mismatched:
        warnings.append(
            f"{mismatched} item(s): the request rebuilt from the recorded question and documents does not "
            "have the key results.jsonl records (the instructions changed since the run)"
        )
    subtitle = (
        f"{cfg.get('testbed')} testbed ({cfg.get('data')}, models {', '.join(cfg.get('models', []))}, "
        f"headline policy {scores.get('policy')})"
    )
    meta = page_meta(
        "testbed",
        out,
        subtitle,
        _facets(policies),
        _columns(policies),
        ("prediction", "predictions", "Items"),
        warnings=warnings,
        models=models,
        numbers=number_specs,
        number_columns=[f"{s}:{x['key']}" for x in number_specs for s in ("num", "den")],
        judge_calibration=scores.get("judge_calibration"),
    )
    return meta, {"n": n, "cols": cols}


VIEW = ViewKind(page=testbed_page)
"""The page of a ``testbed`` directory (:data:`bordir.view.dispatch.VIEWS` ``testbed``)."""
