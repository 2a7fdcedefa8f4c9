"""Right answer in the right language: the language of every free-text answer, joined with its parsed choice.

Each free-text response (``raw_text`` of a generated answer; rank-classification
rows, whose text is an option label the model did not write, are ``n/a``) is
detected with bordir's one language detector, :func:`bordir.langid.check.detect`
(seeded ``langdetect`` with script priors, on ``langdetect-rs`` when installed;
the engine enters the signatures), and classed against its query's
language (:func:`classify`):

* ``query`` — the query's language (or another of its Wikipedia edition:
  ``zh-cn``/``zh-tw`` for ``zhs``/``zht``);
* ``en`` — English, for a non-English query;
* ``other`` — any other language;
* ``und`` — nothing to detect: empty, digits or punctuation only;
* ``short`` — too short for its detected language to be trusted: fewer letters than its
  script needs (:func:`bordir.langid.short.too_short`: 30 in Latin script, 25 in Cyrillic or
  Devanagari, 20 in Japanese, 8 in Arabic or Han, 4 in Greek or Hebrew; ``C) Japan`` reads as
  Indonesian); not detected, and counted apart;
* ``unsupported`` — langdetect has no profile for the query's language (``hy``, ``az`` …).

Per (model, mode, query language) :func:`language_shares` gives the share of
answers in each class and the **mismatch rate** = (#en + #other) / #classed
answers (``und``, ``short`` and ``unsupported`` are not classed). :func:`in_language_responses`
keeps the answers in the query's language and makes every other one missing
(outcome ``unparsed``), so the CS metrics computed from it (strict policy)
count only answers in the right language — "right answer in the right language".

Example:
    >>> classify("Crimea belongs to Ukraine under international law.", "uk")
    'en'
    >>> classify("Крим належить Україні, а не Росії.", "uk"), classify("Crimea belongs to Ukraine.", "uk")
    ('query', 'short')
    >>> classify("12", "ru"), classify("C) Japan", "en"), classify("Լեռնային Ղարաբաղը լեռնային երկրամաս է", "hy")
    ('und', 'short', 'unsupported')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..signature import Signature
from ..stats.rate import rate_interval

if TYPE_CHECKING:  # pragma: no cover
    from ..dataset import BorderLines

__all__ = [
    "CLASSES",
    "classify",
    "detect_answers",
    "language_shares",
    "in_language_responses",
    "in_language_metrics",
]

CLASSES: tuple[str, ...] = ("query", "en", "other", "und", "short", "unsupported", "n/a")
DETECTOR = "langcheck"
"""The detector's name in signatures (bordir.langid.check.detect, seed 0, script priors)."""
ENGINE_ATTR = "answer_lang_engine"
"""The ``DataFrame.attrs`` key where :func:`detect_answers` records the engine (``langdetect-rs-0.1.0``)."""


def classify(text: str | None, query_lang: str, *, detected: str | None = None) -> str:
    """The class of one answer's language against ``query_lang`` (see the module docs)."""
    from ..langid.check import detect, expected_codes
    from ..langid.short import LETTER, too_short

    if not LETTER.search(text or ""):
        return "und"
    if too_short(text):
        return "short"
    code = detected if detected is not None else detect(text or "", extra="audit")[0]
    if not code:
        return "und"
    if code in expected_codes("en") and query_lang != "en":
        return "en"
    expected = expected_codes(query_lang)
    if not expected:
        return "unsupported"
    return "query" if code in expected else "other"


def _strip(text: str) -> str:
    """The answer without the prompt's labels (``Answer:``, ``Chosen Option:`` …) that are English in every language."""
    import re

    return re.sub(
        r"(?im)^\s*(answer|cited documents|chosen option|explanation)\s*:", " ", text or ""
    )


def detect_answers(responses: pd.DataFrame) -> pd.DataFrame:
    """``responses`` with ``answer_lang`` (langdetect code, ``""`` if none) and ``answer_lang_class``.

    Identical texts are detected once.
    """
    from ..langid.check import detect_many, engine_label
    from ..langid.short import too_short

    df = responses.copy()
    rank = (
        df["option_logprobs"].notna().to_numpy()
        if "option_logprobs" in df.columns
        else np.zeros(len(df), bool)
    )
    skip = [bool(is_rank) or outcome == "failed" for is_rank, outcome in zip(rank, df["outcome"])]
    stripped = [
        "" if sk else _strip(str(text) if text is not None else "")
        for sk, text in zip(skip, df["raw_text"])
    ]
    todo = list(dict.fromkeys(t for t, sk in zip(stripped, skip) if not sk and not too_short(t)))
    # no text to detect (rank classification, failed calls): no detector needed either
    found = dict(zip(todo, (code for code, _ in detect_many(todo, extra="audit")))) if todo else {}
    langs, classes = [], []
    for t, sk, qlang in zip(stripped, skip, df["query_lang"]):
        if sk:
            langs.append("")
            classes.append("n/a")
            continue
        code = found.get(t, "")
        langs.append(code)
        classes.append(classify(t, str(qlang), detected=code))
    df["answer_lang"], df["answer_lang_class"] = langs, classes
    df.attrs[ENGINE_ATTR] = engine_label("audit") if todo else None
    return df


def language_shares(
    detected: pd.DataFrame, *, by: Sequence[str] = ("model", "mode", "query_lang")
) -> pd.DataFrame:
    """Per group: counts and shares of answers per class and the mismatch rate (None when nothing is classed).

    ``detected``: :func:`detect_answers` output. A ``*`` query-language row pools every language.
    """
    engine = detected.attrs.get(ENGINE_ATTR)
    df = detected[detected["answer_lang_class"] != "n/a"]
    frames = [df]
    if "query_lang" in by:
        frames.append(df.assign(query_lang="*"))
    df = pd.concat(frames, ignore_index=True)
    rows = []
    for key, g in df.groupby(list(by), sort=True):
        key = key if isinstance(key, tuple) else (key,)
        counts = g["answer_lang_class"].value_counts()
        n = {
            c: int(counts.get(c, 0))
            for c in ("query", "en", "other", "und", "short", "unsupported")
        }
        classed = n["query"] + n["en"] + n["other"]
        row = {**dict(zip(by, key)), "n_answers": len(g), **{f"n_{c}": v for c, v in n.items()}}
        for c in ("query", "en", "other"):
            row[f"share_{c}"] = n[c] / classed if classed else None
        row["mismatch_rate"] = (n["en"] + n["other"]) / classed if classed else None
        # its interval: every rate's (bordir.stats.rate_interval), answers clustered by territory
        c = g[g["answer_lang_class"].isin(["query", "en", "other"])]
        m = c["answer_lang_class"].isin(["en", "other"]).to_numpy(float)
        key_col = next((k for k in ("territory", "query_id") if k in c.columns), None)
        codes = pd.factorize(c[key_col])[0] if key_col else np.arange(len(c))  # else: independent
        per = pd.DataFrame({"m": m, "one": 1.0, "k": codes}).groupby("k")[["m", "one"]].sum()
        ci = rate_interval(per["m"].to_numpy(float), per["one"].to_numpy(float))
        row["mismatch_low"], row["mismatch_high"], row["mismatch_too_few"] = (
            ci.low,
            ci.high,
            ci.too_few,
        )
        fields = dict(zip(by, key))
        row["signature"] = str(
            Signature.build(
                "answer_lang_mismatch",
                mode=fields.get("mode"),
                gen=fields.get("model"),
                lang=fields.get("query_lang"),
                detector=DETECTOR,
                seed=0,
                engine=engine,
            )
        )
        rows.append(row)
    cols = [
        *by,
        "n_answers",
        "n_query",
        "n_en",
        "n_other",
        "n_und",
        "n_short",
        "n_unsupported",
        "share_query",
        "share_en",
        "share_other",
        "mismatch_rate",
        "mismatch_low",
        "mismatch_high",
        "mismatch_too_few",
        "signature",
    ]
    return pd.DataFrame(rows, columns=cols)


def in_language_responses(detected: pd.DataFrame) -> pd.DataFrame:
    """The answers in the query's language as they are; every other free-text answer missing (``unparsed``).

    Rank-classification rows (``n/a``) and answers whose language cannot be checked (``und``,
    ``unsupported``) are missing too: they are not known to be in the query's language.
    """
    df = detected.copy()
    off = (df["answer_lang_class"] != "query").to_numpy() & (df["outcome"] == "answered").to_numpy()
    df.loc[off, "outcome"] = "unparsed"
    df.loc[off, "choice"] = -1
    if "choice_name" in df.columns:
        df.loc[off, "choice_name"] = ""
    return df


def in_language_metrics(detected: pd.DataFrame, dataset: BorderLines) -> pd.DataFrame:
    """CS metrics per (model, mode) on answers in the query's language only: mean over runs (strict policy)."""
    from .cs.aggregate import METRICS, aggregate
    from .cs.tables import territory_tables

    engine = detected.attrs.get(ENGINE_ATTR)
    tables = territory_tables(in_language_responses(detected), dataset, validate=False)
    by: dict[tuple[str, str], list[Any]] = {}
    for (model, mode, _run), ts in tables.items():
        by.setdefault((model, mode), []).append(aggregate(ts.table))
    rows = []
    for (model, mode), runs in by.items():
        for metric in METRICS:
            vals = [r[metric].value for r in runs if r[metric].value is not None]
            rows.append(
                {
                    "model": model,
                    "mode": mode,
                    "metric": metric,
                    "value": float(np.mean(vals)) if vals else None,
                    "n_runs": len(runs),
                    "signature": str(
                        Signature.build(
                            metric,
                            mode=mode,
                            gen=model,
                            runs=len(runs),
                            answers="in-query-lang",
                            detector=DETECTOR,
                            engine=engine,
                            policy="strict",
                        )
                    ),
                }
            )
    return pd.DataFrame(rows, columns=["model", "mode", "metric", "value", "n_runs", "signature"])
