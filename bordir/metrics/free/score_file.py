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
``outcome, claimant, claimant_index, rule, span_start, span_end, evidence, country, in_dataset``
added, and :func:`~bordir.metrics.free.summary.free_summary` of them. A known territory asked in
a language the dataset does not ask it in (an auditor's own questions) is resolved with the
territory's claimants and counted apart (``in_dataset`` false, ``outside_dataset`` in the
summary): the CS metrics and the gap are defined on the dataset's queries only. A record that
names no known territory or query, holds no text answer, or answers a question a second time
(same model, mode and run) stops the whole file with one line naming the file, the line and the
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
        DataError: the file is missing, of another kind, not UTF-8, malformed (a line that is not a
            JSON object, nested too deeply, a CSV quote never closed, a file that is not Parquet):
            one line naming the file (and the line).
    """
    p = Path(path)
    if not p.is_file():
        raise DataError(
            "file not found (expected free answers as .jsonl, .csv or .parquet)", path=p
        )
    suffix = p.suffix.lower()
    if suffix in (".jsonl", ".json", ".ndjson"):
        from ..._io.json_read import iter_json_objects

        return pd.DataFrame([{**obj, "_line": n} for n, obj in iter_json_objects(p)])
    if suffix == ".csv":
        try:
            df = pd.read_csv(p, dtype=str, keep_default_na=False, encoding="utf-8-sig")
        except UnicodeDecodeError:
            from ...errors import undecodable

            raise undecodable(p) from None
        except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise DataError(
                f"not a readable CSV file ({first}); expected a header row and one answer per row, "
                "fields with commas or line breaks in double quotes",
                path=p,
            ) from None
        return df.assign(_line=range(2, len(df) + 2))
    if suffix == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            df = pq.read_table(p).to_pandas()
        except (pa.ArrowInvalid, OSError) as exc:
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise DataError(f"not a readable Parquet file: {first}", path=p) from None
        return df.assign(_line=range(1, len(df) + 1))
    raise DataError(f"unknown file kind {suffix!r}; expected .jsonl, .csv or .parquet", path=p)


def _field(df: pd.DataFrame, names: tuple[str, ...]) -> str | None:
    return next((n for n in names if n in df.columns), None)


def _line(df: pd.DataFrame, i: int) -> int:
    return int(df["_line"].iloc[i])


def _outside_query(dataset: BorderLines, territory: str, lang: str) -> Any | None:
    """A query of ``territory`` in a language the dataset does not ask it in (None: no such territory).

    It carries the territory's claimants (names from the English control query: the resolver
    adds every language's CLDR names and the answer's own), is no control query, and is
    resolved but left out of the CS metrics (they are defined on the dataset's queries only).
    """
    import dataclasses

    from ...records import query_id as make_id

    known = [q for q in dataset.queries if q.territory == territory]
    if not known:
        return None
    base = next((q for q in known if q.is_control), known[0])
    return dataclasses.replace(base, query_id=make_id(territory, lang), lang=lang, is_control=False)


def _queries(df: pd.DataFrame, dataset: BorderLines, path: Path) -> tuple[list[Any], list[bool]]:
    """Each record's query, and whether the dataset asks it (False: resolved, not in CS metrics)."""
    by_pair = {(q.territory, q.lang): q for q in dataset.queries}
    lang_col = _field(df, _LANG)
    out, asked = [], []
    for i, row in enumerate(df.itertuples(index=False)):
        rec = row._asdict()
        qid = rec.get("query_id")
        if qid is not None and not (isinstance(qid, float) and qid != qid) and str(qid).strip():
            if not isinstance(qid, str):
                raise DataError(
                    f"found {type(qid).__name__} {qid!r}; expected a query id such as "
                    f"{dataset.queries[0].query_id!r}",
                    path=path, line=_line(df, i), field="query_id",
                )  # fmt: skip
            q = dataset.find_query(qid.strip())
            if q is None:
                raise DataError(
                    f"no query {qid!r} in the {dataset.name} dataset; use an id such as "
                    f"{dataset.queries[0].query_id!r}, or territory and query_lang",
                    path=path, line=_line(df, i), field="query_id",
                )  # fmt: skip
            out.append(q)
            asked.append(True)
            continue
        terr, lang = rec.get("territory"), rec.get(lang_col) if lang_col else None
        if not isinstance(terr, str) or not terr.strip() or not isinstance(lang, str) or not lang:
            raise DataError(
                "no query named: give query_id (e.g. "
                f"{dataset.queries[0].query_id!r}), or territory and query_lang (text)",
                path=path, line=_line(df, i), field="query_id" if lang_col is None else lang_col,
            )  # fmt: skip
        q = by_pair.get((terr, lang))
        if q is None:
            q = _outside_query(dataset, terr, lang)
            if q is None:
                names = sorted({x.territory for x in dataset.queries})
                from ..._suggest import did_you_mean

                raise DataError(
                    f"no territory {terr!r} in the {dataset.name} dataset"
                    f"{did_you_mean(terr, names) or f' (e.g. {names[0]!r})'} (spell it as the "
                    "dataset does, or give query_id)",
                    path=path, line=_line(df, i), field="territory",
                )  # fmt: skip
            asked.append(False)
        else:
            asked.append(True)
        out.append(q)
    return out, asked


def _texts(df: pd.DataFrame, answer: str, path: Path) -> list[str | None]:
    texts: list[str | None] = []
    for i, t in enumerate(df[answer]):
        if t is None or (isinstance(t, float) and t != t):
            texts.append(None)
        elif isinstance(t, str):
            texts.append(t)
        else:
            raise DataError(
                f"found {type(t).__name__}; expected the free answer as text (or null: the empty "
                "outcome)",
                path=path, line=_line(df, i), field=answer,
            )  # fmt: skip
    return texts


def _runs(df: pd.DataFrame, path: Path) -> list[int]:
    runs: list[int] = []
    for i, v in enumerate(df["run"]):
        try:
            n = int(str(v).strip())
        except ValueError:
            raise DataError(
                f"found {v!r}; expected a whole number (the sample or repetition of an answer)",
                path=path, line=_line(df, i), field="run",
            ) from None  # fmt: skip
        runs.append(n)
    return runs


def _refuse_twins(base: pd.DataFrame, df: pd.DataFrame, path: Path) -> None:
    """One answer per (model, mode, run, query): a second one names both lines and the fix."""
    key = base[["model", "mode", "run", "query_id"]].astype(str).agg("\x1f".join, axis=1)
    dup = key.duplicated(keep=False)
    if not dup.any():
        return
    first = key[dup].iloc[0]
    lines = [int(x) for x in df["_line"][key == first]]
    model, mode, run, qid = first.split("\x1f")
    raise DataError(
        f"lines {lines[0]} and {lines[1]} both answer {qid} (model {model!r}, mode {mode!r}, run "
        f"{run}); give each answer of one question its own run (0, 1, …) or model field",
        path=path, line=lines[1], field="run",
    )  # fmt: skip


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
    queries, asked = _queries(df, dataset, p)
    texts = _texts(df, answer, p)
    runs = _runs(df, p) if "run" in df.columns else [0] * len(df)
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
            "run": runs,
        }
    )
    out["in_dataset"] = asked
    _refuse_twins(base, df, p)
    free = base.assign(
        outcome=["answered" if r.outcome == "claimant" else r.outcome for r in res],
        choice=[r.index if r.outcome == "claimant" else -1 for r in res],
    )
    forced = None
    if "forced" in out.columns:
        parsed = [_forced_choice(t, q) for t, q in zip(out["forced"], queries)]
        forced = base.assign(outcome=[o for o, _ in parsed], choice=[c for _, c in parsed])
    keep = pd.Series(asked, index=base.index)
    if not keep.all():  # resolved, but the CS metrics are defined on the dataset's queries only
        free = free[keep]
        forced = forced[keep] if forced is not None else None
    summary = free_summary(forced, free, dataset, n_resamples=n_resamples, seed=seed)
    outside = sorted({f"{q.territory}/{q.lang}" for q, a in zip(queries, asked) if not a})
    summary["outside_dataset"] = {
        "n": len(asked) - sum(asked),
        "pairs": outside,
        "why": f"{dataset.name} does not ask these territories in these query languages: the "
        "answers are resolved (in_dataset = false) but left out of the CS metrics and the gap",
    }
    if reader is not None:
        summary["reader"] = {
            "model": reader.model,
            "asked_for": list(reader.ask_for),
            "decided": sum(r.rule == "llm_reader" for r in res),
            "calibration": reader.calibration,
        }
    return out, summary
