"""Re-score a prediction file written by RGB's scripts (or by ``bordir testbed``) with RGB's rules.

RGB's ``evalue.py`` writes one JSON object per line: ``id, query, ans, label,
prediction, docs, noise_rate, factlabel``. :func:`rescore_predictions`
recomputes ``label`` and ``factlabel`` from ``prediction`` and ``ans``
(:mod:`~bordir.testbeds.scorer`), counts the lines whose stored labels differ
from the recomputed ones, and reports, per noise rate and over the file:

* ``accuracy``: ``0 not in label and 1 in label`` / n;
* ``rejection_rate`` (lines with ``noise_rate == 1``): under the rgb policy
  ``evalue.py``'s ``all_rate`` there — rejected *or* correct / n; under bordir's,
  rejected / n;
* ``error_detection_rate`` and ``error_correction_rate`` (``--dataset-kind
  fact``): ``fact_check_rate`` = factlabel / n and ``correct_rate`` = factlabel
  and ``0 not in label`` / factlabel (0 when no factlabel), as ``evalue.py``.

Each number comes with its count, ``n`` and a signature. A prediction that is mostly a copy of
its prompt or of its ``docs`` is an ``echo`` under both policies (:mod:`~bordir.testbeds.scorer`):
never correct, rejected or flagged; ``echoes`` counts them (with their lines), and the label
comparison leaves them out (RGB's scripts would label an echo by what it copied).

Example:
    >>> import json, tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "prediction_en_m_temp0.7_noise1.0_passage5_correct0.0.json"
    >>> rows = [{"id": 0, "query": "Q", "ans": ["x"], "label": [-1], "prediction": "insufficient information",
    ...          "docs": [], "noise_rate": 1.0, "factlabel": 0},
    ...         {"id": 1, "query": "Q", "ans": ["y"], "label": [0], "prediction": "no idea",
    ...          "docs": [], "noise_rate": 1.0, "factlabel": 0}]
    >>> _ = p.write_text("".join(json.dumps(r) + "\\n" for r in rows))
    >>> r = rescore_predictions(p)
    >>> rej = r["metrics"].get("rejection_rate")
    >>> rej.get("value"), rej.get("n"), r.get("lang")
    (0.5, 2, 'en')
"""

from __future__ import annotations

import hashlib
import math
import os
from pathlib import Path
from typing import Any

import numpy as np

from .._io.json_read import iter_json_objects
from ..errors import ConfigError, DataError
from ..signature import Signature
from ..stats.rate import rate_interval
from .echoes import ECHO, rgb_record_prompt
from .metrics import RGB_REJECTION_NOTE
from .rgb_data import KINDS, infer_kind, infer_lang, parse_answer_field
from .scorer import POLICIES, score

__all__ = ["read_predictions", "rescore_predictions", "PREDICTION_FIELDS", "HEDGES_UNDETECTED"]

PREDICTION_FIELDS = ("id", "query", "ans", "label", "prediction", "docs", "noise_rate", "factlabel")


def read_predictions(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The lines of an RGB prediction file, checked (one-line errors with file, line and field)."""
    path = Path(path)
    if not path.is_file():
        raise DataError(
            "file not found; expected an RGB prediction file (one JSON object per line)", path=path
        )
    rows = []
    seen: dict[tuple[str, float], int] = {}  # (id, noise rate) -> line
    for lineno, rec in iter_json_objects(path):
        for key in ("id", "ans", "prediction", "noise_rate"):
            if key not in rec:
                raise DataError(
                    f"missing; RGB prediction lines have {', '.join(PREDICTION_FIELDS)}",
                    path=path,
                    line=lineno,
                    field=key,
                )
        if not isinstance(rec["prediction"], str):
            raise DataError(
                f"expected a string, found {type(rec['prediction']).__name__}",
                path=path,
                line=lineno,
                field="prediction",
            )
        nr = rec["noise_rate"]
        if isinstance(nr, bool) or not isinstance(nr, (int, float)) or not 0 <= nr <= 1:
            raise DataError(
                f"expected a number in [0, 1], found {nr!r}",
                path=path,
                line=lineno,
                field="noise_rate",
            )
        rec["_answer"] = parse_answer_field(rec["ans"], path=path, line=lineno, field="ans")
        rec["_line"] = lineno
        which = (str(rec["id"]), float(nr))
        if which in seen:
            raise DataError(
                f"a second prediction for id {rec['id']!r} at noise_rate {nr:g} (the first is on "
                f"line {seen[which]}); it would be counted twice: keep one line per id and noise rate",
                path=path,
                line=lineno,
                field="id",
            )
        seen[which] = lineno
        rows.append(rec)
    if not rows:
        raise DataError("has no predictions", path=path)
    return rows


def _metric(
    name: str,
    rows: list[dict[str, Any]],
    hit: list[bool],
    sig: Signature,
    *,
    zero_if_empty: bool = False,
) -> dict[str, Any]:
    """``Σhit / len(rows)`` with its interval (:func:`bordir.stats.rate_interval`, clusters = ids)."""
    ids: dict[str, list[float]] = {}
    for r, h in zip(rows, hit):
        c = ids.setdefault(str(r["id"]), [0.0, 0.0])
        c[0] += float(h)
        c[1] += 1.0
    sums = np.array(list(ids.values()), dtype=float).reshape(-1, 2)
    ci = rate_interval(sums[:, 0], sums[:, 1])
    count, n = int(sum(hit)), len(rows)
    value = count / n if n else (0.0 if zero_if_empty else None)
    f = dict(sig.fields)
    version = f.pop("version", None)
    full = Signature.build(name, **f, ci=ci.method, version=version)
    return {
        "value": value,
        "count": count,
        "n": n,
        "ci95": [ci.low, ci.high],
        "too_few": ci.too_few,
        "signature": str(full),
    }


def _block(rows: list[dict[str, Any]], kind: str, policy: str, sig: Signature) -> dict[str, Any]:
    out = {"accuracy": _metric("accuracy", rows, [r["_s"].correct for r in rows], sig)}
    r1 = [r for r in rows if math.isclose(float(r["noise_rate"]), 1.0)]
    if r1:
        rej = [r["_s"].rejected or (policy == "rgb" and r["_s"].correct) for r in r1]
        out["rejection_rate"] = _metric("rejection_rate", r1, rej, sig)
        if policy == "rgb":
            out["rejection_rate"]["note"] = RGB_REJECTION_NOTE
    if kind == "fact":
        flagged = [r for r in rows if r["_s"].fact_flag]
        if policy == "rgb":
            fixed = [0 not in r["_s"].labels for r in flagged]
        else:
            fixed = [r["_s"].correct for r in flagged]
        out["error_detection_rate"] = _metric(
            "error_detection_rate", rows, [r["_s"].fact_flag for r in rows], sig
        )
        out["error_correction_rate"] = _metric(
            "error_correction_rate", flagged, fixed, sig, zero_if_empty=policy == "rgb"
        )
    return out


HEDGES_UNDETECTED = (
    "hedged answers cannot be detected: a prediction file carries no fakeanswer, so an answer that "
    "names the true and the fake answer ('X or F') counts as correct; pass --data with the RGB "
    "file the predictions answer (e.g. en_fact.json) to read fakeanswer by id"
)


def _hedges(policy: str, kind: str, data: Any) -> str | None:
    """What the bordir policy could see of hedges (None under the rgb policy, which ignores them)."""
    if policy != "bordir":
        return None
    if data is not None:
        return f"fakeanswer read by id from {data}"
    return HEDGES_UNDETECTED if kind == "fact" else "no fake answer in this kind of file"


def rescore_predictions(
    path: str | os.PathLike[str],
    *,
    dataset_kind: str | None = None,
    lang: str | None = None,
    policy: str = "rgb",
    data: str | os.PathLike[str] | None = None,
) -> dict[str, Any]:
    """Recompute every label of an RGB prediction file and the rates of the module docs.

    Args:
        path: the prediction file.
        dataset_kind: ``noise``, ``integration`` or ``fact`` (default: from the file name, as RGB).
        lang: ``en``, ``zh`` or a bordir code (default: from the file name, as RGB's ``'zh' in dataset``).
        policy: ``rgb`` (default) or ``bordir``.
        data: the RGB data file the predictions answer (``en_fact.json`` …): the bordir policy reads
            each line's ``fakeanswer`` from it by id, so that "X or F" is ``hedged``, not correct.
            Without it a counterfactual file's hedges cannot be detected, and the result says so
            (``hedges``).

    Raises:
        DataError: a prediction whose id the data file does not have.
    """
    path = Path(path)
    kind = dataset_kind or infer_kind(path)
    if kind not in KINDS:
        raise ConfigError(f"unknown dataset kind {kind!r}; known: {', '.join(KINDS)}")
    if policy not in POLICIES:
        raise ConfigError(f"unknown policy {policy!r}; known: {', '.join(POLICIES)}")
    if lang is not None:
        from .. import languages
        from .instructions import RGB_LANG_ALIASES

        try:
            languages.get(RGB_LANG_ALIASES.get(lang, lang))
        except ConfigError as exc:  # an unknown code: one line naming the option and the file
            raise ConfigError(f"--lang {lang!r} (the language of {path}): {exc}") from None
    lang = lang or infer_lang(path)
    rows = read_predictions(path)
    fakes: dict[str, tuple[Any, ...]] | None = None
    if data is not None:
        from .rgb_data import load_rgb

        fakes = {q.id: tuple(q.fakeanswer) for q in load_rgb(data)}
        for r in rows:
            if str(r["id"]) not in fakes:
                raise DataError(
                    f"id {r['id']!r} is not in the data file {data}; pass the RGB file these "
                    "predictions answer",
                    path=path,
                    line=r["_line"],
                    field="id",
                )
    mismatches, echoes = [], []
    for r in rows:
        fake = fakes.get(str(r["id"]), ()) if fakes is not None else ()
        docs = r.get("docs")
        texts = [d for d in docs if isinstance(d, str)] if isinstance(docs, list) else []
        prompt = rgb_record_prompt(str(r.get("query") or ""), lang, texts)
        s = score(r["prediction"], r["_answer"], lang, policy=policy, fake=fake, prompt=prompt)  # type: ignore[arg-type]
        r["_s"] = s
        stored = r.get("label")
        if s.outcome == ECHO:
            echoes.append(r["_line"])
        elif policy == "rgb" and (
            list(stored or []) != list(s.labels)
            or int(r.get("factlabel", 0) or 0) != int(s.fact_flag)
        ):
            mismatches.append(r["_line"])
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    rates = sorted({float(r["noise_rate"]) for r in rows})
    base = Signature.build(
        "rgb_rescore",
        kind=kind,
        lang=lang,
        policy=policy,
        r=",".join(f"{x:g}" for x in rates),
        data=f"sha256-{digest}",
    )
    by_rate = {}
    for x in rates:
        sub = [r for r in rows if float(r["noise_rate"]) == x]
        sig = Signature.build(
            "rgb_rescore", kind=kind, lang=lang, policy=policy, r=f"{x:g}", data=f"sha256-{digest}"
        )
        by_rate[f"{x:g}"] = {"n": len(sub), "metrics": _block(sub, kind, policy, sig)}
    return {
        "file": str(path),
        "dataset_kind": kind,
        "lang": lang,
        "policy": policy,
        "n": len(rows),
        "noise_rates": rates,
        "metrics": _block(rows, kind, policy, base),
        "by_noise_rate": by_rate,
        "label_mismatches": {"count": len(mismatches), "lines": mismatches[:20]}
        if policy == "rgb"
        else None,
        "echoes": {"count": len(echoes), "lines": echoes[:20]},
        "hedges": _hedges(policy, kind, data),
        "signature": str(base),
    }
