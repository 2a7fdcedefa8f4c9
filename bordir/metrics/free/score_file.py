"""Free answers from anywhere: a file of records resolved and scored as an open run's answers are.

A record (a JSONL line, a CSV row or a Parquet row) names its query and holds the answer text:

* ``query_id`` (``Crimea_uk``), or ``territory`` and ``query_lang`` (``lang`` also accepted);
* ``answer`` (``text`` or ``response`` also accepted): the free answer; null or blank is the
  ``empty`` outcome;
* optional ``model``, ``mode``, ``run`` (default ``file``, ``unknown``, ``0``): what the metrics
  group and pair by;
* optional ``forced``: the forced (multiple-choice) answer to the same question — a claimant's
  English or native name, a letter (``B``, ``B)``) or a whole direct-format reply — for the
  forced-vs-free gap.

:func:`score_free_file` resolves every record with :class:`~bordir.generation.parse.free.FreeResolver`
(every CPU, :func:`~bordir.generation.parse.free.batch.resolve_many`) and returns the records with
``outcome, claimant, claimant_index, rule, span_start, span_end, evidence, country`` added, and
:func:`~bordir.metrics.free.summary.free_summary` of them. A record that names no known query, or
lacks the answer field, stops the whole file with one line naming the file, the line and the
field, and how to fix it; nothing is dropped silently.

Example:
    >>> import json, pathlib, tempfile
    >>> from bordir.loaders import load_demo
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "answers.jsonl"
    >>> _ = p.write_text(json.dumps({"query_id": "Crimea_uk", "answer": "Крим — це Україна."}) + "\\n"
    ...                  + json.dumps({"territory": "Crimea", "query_lang": "ru", "text": " "}) + "\\n")
    >>> records, summary = score_free_file(p, load_demo(), n_resamples=50, seed=1)
    >>> records[["query_id", "outcome", "claimant", "rule"]].to_dict("records")
    [{'query_id': 'Crimea_uk', 'outcome': 'claimant', 'claimant': 'Ukraine', 'rule': 'bare_name'}, {'query_id': 'Crimea_ru', 'outcome': 'empty', 'claimant': '', 'rule': 'empty'}]
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from ...errors import DataError

if TYPE_CHECKING:  # pragma: no cover
    from ...dataset import BorderLines

__all__ = ["read_free_answers", "score_free_file", "RESOLVED_COLUMNS"]

RESOLVED_COLUMNS: tuple[str, ...] = (
    "outcome", "claimant", "claimant_index", "rule", "span_start", "span_end", "evidence", "country",
)  # fmt: skip
"""The columns added to each record (and ``reader`` with a stance reader)."""
_ANSWER = ("answer", "text", "response")
_LANG = ("query_lang", "lang")


def read_free_answers(path: str | Path) -> pd.DataFrame:
    """The records of a ``.jsonl`` / ``.json`` lines, ``.csv`` or ``.parquet`` file, with ``_line`` (1-based).

    Raises:
        DataError: the file is missing, of another kind, or a line is not a JSON object.
    """
    p = Path(path)
    if not p.is_file():
        raise DataError(
            "file not found (expected free answers as .jsonl, .csv or .parquet)", path=p
        )
    suffix = p.suffix.lower()
    if suffix in (".jsonl", ".json", ".ndjson"):
        rows = []
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(
                    f"not JSON ({exc.msg}); expected one JSON object per line", path=p, line=n
                ) from None
            if not isinstance(obj, dict):
                raise DataError(
                    f"found {type(obj).__name__}; expected a JSON object", path=p, line=n
                )
            rows.append({**obj, "_line": n})
        return pd.DataFrame(rows)
    if suffix == ".csv":
        df = pd.read_csv(p, dtype=str, keep_default_na=False)
        return df.assign(_line=range(2, len(df) + 2))
    if suffix == ".parquet":
        df = pd.read_parquet(p)
        return df.assign(_line=range(1, len(df) + 1))
    raise DataError(f"unknown file kind {suffix!r}; expected .jsonl, .csv or .parquet", path=p)


def _field(df: pd.DataFrame, names: tuple[str, ...]) -> str | None:
    return next((n for n in names if n in df.columns), None)


def _queries(df: pd.DataFrame, dataset: BorderLines, path: Path) -> list[Any]:
    by_pair = {(q.territory, q.lang): q for q in dataset.queries}
    lang_col = _field(df, _LANG)
    out = []
    for i, row in enumerate(df.itertuples(index=False)):
        rec = row._asdict()
        qid = rec.get("query_id")
        if isinstance(qid, str) and qid.strip():
            q = dataset.find_query(qid.strip())
            if q is None:
                raise DataError(
                    f"no query {qid!r} in the {dataset.name} dataset; use an id such as "
                    f"{dataset.queries[0].query_id!r}, or territory and query_lang",
                    path=path, line=int(df["_line"].iloc[i]), field="query_id",
                )  # fmt: skip
        else:
            terr, lang = rec.get("territory"), rec.get(lang_col) if lang_col else None
            q = by_pair.get((str(terr), str(lang)))
            if q is None:
                raise DataError(
                    f"no query for territory {terr!r} in query language {lang!r} in the {dataset.name} "
                    "dataset; give query_id, or a territory and query_lang the dataset has",
                    path=path, line=int(df["_line"].iloc[i]), field="query_id",
                )  # fmt: skip
        out.append(q)
    return out


def _forced_choice(text: Any, query: Any) -> tuple[str, int]:
    from ...generation.parse import parse_answer

    if text is None or (isinstance(text, float) and text != text) or not str(text).strip():
        return "unparsed", -1
    s = str(text).strip()
    for i, names in enumerate(zip(query.claimants, query.options)):
        if s.casefold() in (n.casefold() for n in names):
            return "answered", i
    pa = parse_answer(s, query)
    return pa.outcome, pa.choice


def score_free_file(
    path: str | Path,
    dataset: BorderLines,
    *,
    n_resamples: int = 2000,
    seed: int | None = None,
    parallel: bool = True,
    reader: Any = None,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Resolve and score a file of free answers (see the module docs): ``(records, summary)``.

    ``reader``: a :class:`~bordir.generation.parse.free.reader.StanceReader` asked about what the
    rules leave open (its decisions have the rule ``llm_reader`` and the reply in ``reader``).
    """
    from ...generation.parse.free.batch import resolve_many
    from .summary import free_summary

    p = Path(path)
    df = read_free_answers(p)
    if df.empty:
        raise DataError("no records; expected one free answer per line or row", path=p)
    answer = _field(df, _ANSWER)
    if answer is None:
        raise DataError(
            f"no answer field; each record needs one of {', '.join(_ANSWER)} (the free answer text)",
            path=p, line=int(df["_line"].iloc[0]), field="answer",
        )  # fmt: skip
    queries = _queries(df, dataset, p)
    texts = [None if (isinstance(t, float) and t != t) else t for t in df[answer]]
    res = resolve_many(texts, queries, dataset=dataset, parallel=parallel)
    if reader is not None:
        res = [
            reader.second_pass(t, q, dataset=dataset, first=r)
            for t, q, r in zip(texts, queries, res)
        ]
    out = df.drop(columns=["_line"]).copy()
    out["query_id"] = [q.query_id for q in queries]
    out["territory"] = [q.territory for q in queries]
    out["query_lang"] = [q.lang for q in queries]
    out["outcome"] = [r.outcome for r in res]
    out["claimant"] = [r.claimant for r in res]
    out["claimant_index"] = [r.index for r in res]
    out["rule"] = [r.rule for r in res]
    out["span_start"] = [r.span[0] for r in res]
    out["span_end"] = [r.span[1] for r in res]
    out["evidence"] = [r.evidence for r in res]
    out["country"] = [r.country for r in res]
    if reader is not None:
        out["reader"] = [r.reader for r in res]
    base = pd.DataFrame(
        {
            "query_id": out["query_id"],
            "territory": out["territory"],
            "query_lang": out["query_lang"],
            "is_control": [q.is_control for q in queries],
            "model": out["model"].astype(str) if "model" in out.columns else "file",
            "mode": out["mode"].astype(str) if "mode" in out.columns else "unknown",
            "run": pd.to_numeric(out["run"]).astype(int) if "run" in out.columns else 0,
        }
    )
    free = base.assign(
        outcome=["answered" if r.outcome == "claimant" else r.outcome for r in res],
        choice=[r.index if r.outcome == "claimant" else -1 for r in res],
    )
    forced = None
    if "forced" in out.columns:
        parsed = [_forced_choice(t, q) for t, q in zip(out["forced"], queries)]
        forced = base.assign(outcome=[o for o, _ in parsed], choice=[c for _, c in parsed])
    summary = free_summary(forced, free, dataset, n_resamples=n_resamples, seed=seed)
    if reader is not None:
        summary["reader"] = {
            "model": reader.model,
            "asked_for": list(reader.ask_for),
            "decided": sum(r.rule == "llm_reader" for r in res),
            "calibration": reader.calibration,
        }
    return out, summary
