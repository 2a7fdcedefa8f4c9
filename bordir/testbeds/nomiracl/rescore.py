"""``bordir testbed score --format nomiracl``: NoMIRACL's result files re-scored under two policies, side by side.

For each file (:mod:`~bordir.testbeds.nomiracl.results`) and each model in it:

* **nomiracl** — NoMIRACL's own numbers, exactly: every reply through
  :func:`~bordir.testbeds.nomiracl.template.postprocess`, then
  :func:`~bordir.testbeds.nomiracl.evaluation.confusion_metric` over the model's replies
  (one per query id, the last one of a repeated id). ``value`` is what NoMIRACL's evaluation
  script reports (``row``: its TSV cells, ``round(rate × 100, 4)``), including its 0.0 for a
  rate it does not compute (``reported: false``); ``count`` / ``n`` is the fraction behind it.
* **bordir** — :func:`~bordir.testbeds.nomiracl.reading.read_reply` in the file's language:
  hallucination rate = affirmed / n on the non-relevant subset, error rate = refused / n on the
  relevant one, invalid rate = neither / n, accuracy = the subset's right reply / n.

A reply that is mostly a copy of its prompt (bordir's reading ``echo``,
:func:`bordir.generation.parse.echo.detect_echo`) is ``Invalid`` under the nomiracl policy too:
NoMIRACL would read the phrases its prompt quotes. Then every reply the two policies read
differently (NoMIRACL ``Invalid`` but bordir
``refused``, NoMIRACL ``Yes`` but bordir ``refused`` …), counted by language and model, with
examples. A reply that is not a string (``null``) stops NoMIRACL's ``postprocess``; here the
model's nomiracl rates for that file are None with the reason, and bordir reads it as empty.

Example:
    >>> import json, tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp()) / "non_relevant"
    >>> d.mkdir()
    >>> lines = [{"query_id": "1", "results": {"m": "I don't know", "n": "Sijui"}},
    ...          {"query_id": "2", "results": {"m": "Yes, answer is present", "n": "Ndiyo, jibu lipo"}}]
    >>> _ = (d / "sw.test.vanilla_prompt.jsonl").write_text("".join(json.dumps(x) + "\\n" for x in lines))
    >>> r = rescore_nomiracl([d / "sw.test.vanilla_prompt.jsonl"])
    >>> [(g["model"], g["nomiracl"]["hallucination_rate"]["value"], g["bordir"]["hallucination_rate"]["value"])
    ...  for g in r["groups"]]
    [('m', 0.5, 0.5), ('n', 0.0, 0.5)]
    >>> r["disagreements"][0]["pairs"]
    {'Invalid → refused': 1, 'Invalid → affirmed': 1}
"""

from __future__ import annotations

import csv
import io
import os
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..._io.atomic import atomic_write_text
from ...errors import ConfigError, DataError
from ...signature import Signature
from .evaluation import ACCURACY, ERROR_NAME, confusion_metric, evaluation_header, evaluation_row
from .reading import read_reply
from .results import ResultFile, read_result_file
from .template import ANSWER, INVALID, NO_ANSWER, postprocess

__all__ = ["rescore_nomiracl", "write_evaluation_tsv", "ERROR_METRIC", "NOT_TEXT"]

ERROR_METRIC = {"non_relevant": "hallucination_rate", "relevant": "error_rate"}
"""bordir's name of each subset's error rate (NoMIRACL: Hallucination, Error)."""
NOT_TEXT = (
    "a reply that is not a string (e.g. null) stops NoMIRACL's postprocess (AttributeError); "
    "its rates are not defined for this file"
)
QUIRK = (
    "NoMIRACL reports 0.0: its ConfusionMetric computes this rate only when the subset's right reply "
    "occurs at least once (count/n is the fraction of replies)"
)


def _metric(value: float | None, count: int, n: int, **extra: Any) -> dict[str, Any]:
    return {"value": value, "count": count, "n": n, **extra}


def _nomiracl_block(subset: str, model: str, labels: dict[str, str]) -> dict[str, Any]:
    ev = confusion_metric(subset, {model: labels})
    stats = ev["stats"][model]
    n = sum(stats.values())
    right, wrong = (NO_ANSWER, ANSWER) if subset == "non_relevant" else (ANSWER, NO_ANSWER)
    err_name = ERROR_NAME[subset]
    reported = model in ev[err_name]
    return {
        "labels": dict(stats),
        "accuracy": _metric(ev[ACCURACY][model], stats.get(right, 0), n, name=ACCURACY),
        ERROR_METRIC[subset]: _metric(
            ev[err_name].get(model, 0.0),
            stats.get(wrong, 0),
            n,
            name=err_name,
            reported=reported,
            **({} if reported else {"note": QUIRK}),
        ),
        "invalid_rate": _metric(
            ev[INVALID].get(model, 0.0), stats.get(INVALID, 0), n, name=INVALID
        ),
        "row": evaluation_row(ev, subset, [model]),
    }


def _bordir_block(subset: str, outcomes: dict[str, str]) -> dict[str, Any]:
    c = Counter(outcomes.values())
    n = len(outcomes)
    affirmed = c["affirmed"] + c["answered"]
    refused = c["refused"]
    invalid = n - affirmed - refused
    right = refused if subset == "non_relevant" else affirmed
    wrong = affirmed if subset == "non_relevant" else refused

    def rate(k: int) -> dict[str, Any]:
        return _metric(k / n if n else None, k, n)

    return {
        "outcomes": dict(c),
        "accuracy": rate(right),
        ERROR_METRIC[subset]: rate(wrong),
        "invalid_rate": rate(invalid),
    }


def _as_text(reply: Any) -> str | None:
    if isinstance(reply, str):
        return reply
    if isinstance(reply, list) and all(isinstance(x, str) for x in reply):
        return "\n".join(reply)
    return None


def _label_pair(nomiracl: str | None, bordir: str) -> str:
    return f"{nomiracl or 'not text'} → {bordir}"


_AGREE = {ANSWER: ("affirmed", "answered"), NO_ANSWER: ("refused",)}


def _agrees(nomiracl: str | None, bordir: str) -> bool:
    if nomiracl is None:
        return False
    if nomiracl == INVALID:
        return bordir in ("contradictory", "echo", "unparsed", "empty")
    return bordir in _AGREE[nomiracl]


def _score_file(
    rf: ResultFile, models: Sequence[str] | None, examples: int
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[str]]:
    outputs = rf.outputs()
    line_of = rf.line_of()
    prompts = rf.prompts()
    groups, disagreements, warnings = [], [], []
    wanted = list(models) if models else list(outputs)
    for model in wanted:
        replies = outputs.get(model)
        base: dict[str, Any] = {
            "file": str(rf.path),
            "lang": rf.lang,
            "code": rf.code,
            "subset": rf.subset,
            "split": rf.split,
            "model": model,
        }
        sig = Signature.build(
            "nomiracl_rescore",
            lang=rf.code,
            subset=rf.subset,
            split=rf.split,
            gen=model,
            data=rf.digest,
        )
        if replies is None:  # the model is in other files: no row here (NoMIRACL's TSV has 0.0)
            warnings.append(f"{rf.path}: no replies of model {model!r} (left out for this file)")
            continue
        labels: dict[str, str] = {}
        outcomes: dict[str, str] = {}
        not_text = 0
        pairs: Counter[str] = Counter()
        shown: list[dict[str, Any]] = []
        for qid, reply in replies.items():
            text = reply if isinstance(reply, str) else None
            label = postprocess(text) if text is not None else None
            if label is None:
                not_text += 1
            else:
                labels[qid] = label
            prompt = prompts.get(qid)
            reading = read_reply(_as_text(reply), rf.lang, echo=(prompt,) if prompt else ())
            if reading.outcome == "echo" and label is not None:
                labels[qid] = label = INVALID
            outcomes[qid] = reading.outcome
            if not _agrees(label, reading.outcome):
                pairs[_label_pair(label, reading.outcome)] += 1
                if len(shown) < examples:
                    shown.append(
                        {
                            "query_id": qid,
                            "line": line_of.get(qid),
                            "reply": reply,
                            "nomiracl": label,
                            "bordir": reading.outcome,
                        }
                    )
        if not_text:
            warnings.append(
                f"{rf.path}: {not_text} reply(ies) of model {model!r} are not strings; {NOT_TEXT}"
            )
            nomiracl_block: dict[str, Any] | None = {"error": NOT_TEXT, "not_text": not_text}
        else:
            nomiracl_block = _nomiracl_block(rf.subset, model, labels)
        groups.append(
            {
                **base,
                "n": len(replies),
                "nomiracl": nomiracl_block,
                "bordir": _bordir_block(rf.subset, outcomes),
                "disagreements": sum(pairs.values()),
                "signature": str(sig),
            }
        )
        if pairs:
            disagreements.append(
                {
                    **base,
                    "n": len(replies),
                    "count": sum(pairs.values()),
                    "pairs": dict(pairs.most_common()),
                    "examples": shown,
                }
            )
    return groups, disagreements, warnings


def rescore_nomiracl(
    paths: Sequence[str | os.PathLike[str]],
    *,
    subset: str | None = None,
    lang: str | None = None,
    models: Sequence[str] | None = None,
    examples: int = 3,
) -> dict[str, Any]:
    """Re-score NoMIRACL result files under both policies (see the module docs).

    Args:
        paths: result files (``{lang}.{split}…jsonl``).
        subset: overrides the subset each file's path says.
        lang: overrides the language each file's name says.
        models: only these models, in this order (NoMIRACL's ``--parse_models``); default every
            model of each file, in the order it first appears. A model a file has no reply of
            gets no row for that file (a warning; NoMIRACL's TSV has 0.0 there).
        examples: disagreement examples kept per (file, model).

    Raises:
        ConfigError: a model of ``models`` is in no file (a typo would leave an empty row); the
            subset or language cannot be told (see :func:`~.results.read_result_file`).
        DataError: a file is malformed, or nothing can be scored (no line of any file has a reply).
    """
    files: list[dict[str, Any]] = []
    groups: list[dict[str, Any]] = []
    disagreements: list[dict[str, Any]] = []
    warnings: list[str] = []
    read = [read_result_file(path, subset=subset, lang=lang) for path in paths]
    if models:
        models = list(dict.fromkeys(models))
        known = dict.fromkeys(m for rf in read for m in rf.outputs())
        absent = [m for m in models if m not in known]
        if absent:
            raise ConfigError(
                f"--models: no file has replies of {', '.join(map(repr, absent))}; the files' "
                f"models: {', '.join(known) or 'none'}"
            )
    for rf in read:
        g, d, w = _score_file(rf, models, examples)
        warnings += list(rf.warnings)
        files.append(
            {
                "file": str(rf.path),
                "lang": rf.lang,
                "code": rf.code,
                "subset": rf.subset,
                "subset_from": rf.subset_from,
                "lang_from": rf.lang_from,
                "split": rf.split,
                "lines": len(rf.lines),
                "queries": len(rf.line_of()),
                "models": list(rf.outputs()),
                "data": rf.digest,
            }
        )
        groups += g
        disagreements += d
        warnings += w
    if not groups:
        raise DataError(
            "nothing to score: no line has a reply (every line's results is empty); NoMIRACL's "
            "result lines map each model to its reply",
            path=read[0].path if len(read) == 1 else ", ".join(str(rf.path) for rf in read),
        )
    return {
        "format": "nomiracl",
        "policies": ["nomiracl", "bordir"],
        "files": files,
        "groups": groups,
        "disagreements": disagreements,
        "warnings": warnings,
        "signature": str(
            Signature.build(
                "nomiracl_rescore",
                files=len(files),
                data=",".join(str(f["data"]) for f in files) if len(files) <= 3 else None,
            )
        ),
    }


def write_evaluation_tsv(
    result: dict[str, Any], out_dir: str | os.PathLike[str], *, models: Sequence[str] | None = None
) -> list[Path]:
    """Write ``eval_results.{subset}.tsv`` per subset, as ``hallucination_evaluation.py`` writes it.

    One row per file (its language code first), then Accuracy, the error rate and Invalid for
    each model (``models``, default every model of the subset's files in first-seen order):
    ``round(rate × 100, 4)``, ``0.0`` where NoMIRACL has no entry (a model absent from the file
    too). A model whose replies NoMIRACL cannot read gets ``n/a``.
    """
    out = Path(out_dir)
    written = []
    for subset in ("relevant", "non_relevant"):
        groups = [g for g in result["groups"] if g["subset"] == subset]
        if not groups:
            continue
        names = list(models) if models else list(dict.fromkeys(g["model"] for g in groups))
        buf = io.StringIO()
        writer = csv.writer(buf, delimiter="\t")
        for row in evaluation_header(subset, names):
            writer.writerow(row)
        for f in result["files"]:
            if f["subset"] != subset:
                continue
            by_model = {g["model"]: g for g in groups if g["file"] == f["file"]}
            cells: list[Any] = []
            for k in range(3):
                for m in names:
                    block = (by_model.get(m) or {}).get("nomiracl")
                    if block is None:
                        cells.append(0.0)
                    elif "error" in block:
                        cells.append("n/a")
                    else:
                        cells.append(block["row"][k])
            writer.writerow([f["code"], *cells])
        written.append(atomic_write_text(out / f"eval_results.{subset}.tsv", buf.getvalue()))
    return written
