"""The page data of a black-box audit (``bordir audit LOG --out DIR`` on answers and cited URLs): one row per share cell.

Read through the files the audit wrote: ``audit.json`` (``"kind": "blackbox"``), ``shares.csv``
(model × query language × dimension × category), ``answers.parquet`` and ``citations.parquet``
(every attributed URL with its domain, country, language, lists and the rule that decided each).
Behind each cell are the answers of its model and query language (all of them up to
:data:`MAX_ANSWERS`; the page says how many there are), each with its URLs, their attribution and
rules, their titles and snippets, the URLs counted in the cell's category marked. Every text goes into the page as JSON data
and is shown as text (never as HTML): a log's answers, titles and URLs are not the page's own.

Example:
    >>> is_blackbox("/nonexistent")
    False
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import DataError
from .columns import coded, numbers
from .dispatch import ViewKind
from .files import read_json
from .page import page_meta, table_columns
from .run_data import Facet

__all__ = ["blackbox_page", "is_blackbox", "MAX_ANSWERS", "BLACKBOX_FACETS"]

MAX_ANSWERS = 200
"""Answers embedded per cell (the page says how many the cell has; ``citations.parquet`` holds every one)."""
MAX_TEXT = 4000
MAX_SNIPPET = 300
"""Characters of a URL's title or snippet on the page."""
BLACKBOX_FACETS: tuple[Facet, ...] = (
    Facet("status", "Status"),
    Facet("model", "Model"),
    Facet("query_lang", "Query language"),
    Facet("dimension", "Dimension"),
    Facet("category", "Category"),
)
_COLUMNS = table_columns(
    {"model": "model", "query_lang": "query lang", "dimension": "dimension", "category": "category",
     "count": "URLs", "n_urls": "of", "share": "share", "low": "low", "high": "high", "status": "status"},
    numeric={"count": None, "n_urls": None, "share": 3, "low": 3, "high": 3},
)  # fmt: skip
_HINT = "re-run `bordir audit LOG --out DIR`"


def is_blackbox(path: str | Path) -> bool:
    """True when ``path`` holds the record of a black-box audit (``audit.json`` with ``"kind": "blackbox"``)."""
    p = Path(path) / "audit.json"
    try:
        return bool(json.loads(p.read_text(encoding="utf-8")).get("kind") == "blackbox")
    except (OSError, ValueError, AttributeError):
        return False


def _category_of(
    dim: str, cat: str, u: dict[str, Any], qlang: str, claim: set[str], own: set[str]
) -> bool:
    country = u.get("country") or "unattributed"  # (``u`` as the page holds it: lists are lists)
    lang = u.get("lang") if u.get("lang") not in (None, "und") else "unattributed"
    if dim == "country":
        return country == cat
    if dim == "lang":
        return lang == cat
    if dim == "relation":
        rel = (
            "unattributed"
            if lang == "unattributed"
            else ("own" if lang == qlang else ("en" if lang == "en" else "other"))
        )
        return rel == cat
    if dim == "list":
        return cat in (u.get("lists") or ["none"])
    if dim == "claimant":
        k = (
            "unattributed"
            if country == "unattributed"
            else (
                "own_claimant"
                if country in own
                else ("other_claimant" if country in claim else "non_claimant")
            )
        )
        return k == cat
    return False


def _cut(v: Any, limit: int = MAX_SNIPPET) -> str | None:
    """A URL's title or snippet for the page (None when the log has none), cut at ``limit`` characters."""
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return None
    text = str(v)
    return text[:limit] + ("…" if len(text) > limit else "")


def _clean(v: Any) -> Any:
    """``v`` with the NaN pandas puts for a missing value turned into None (strict JSON)."""
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, dict):
        return {k: _clean(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_clean(x) for x in v]
    return v


def blackbox_page(path: str | Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(meta, rows)`` of a black-box audit's page."""
    out = Path(path)
    info = read_json(
        out / "audit.json", hint="expected a directory written by `bordir audit LOG --out DIR`"
    )
    if not isinstance(info, dict) or info.get("kind") != "blackbox":
        raise DataError(
            'not a black-box audit record (expected "kind": "blackbox")', path=out / "audit.json"
        )
    try:
        cells = pd.read_csv(out / "shares.csv", keep_default_na=False, na_values=[""])
        import pyarrow.parquet as pq

        answers = pq.read_table(out / "answers.parquet").to_pandas()
        cites = pq.read_table(out / "citations.parquet").to_pandas()
    except FileNotFoundError as exc:
        raise DataError(f"file not found; {_HINT}", path=exc.filename) from None
    except (ValueError, OSError) as exc:
        raise DataError(f"an audit table cannot be read ({exc}); {_HINT}", path=out) from None
    by_answer: dict[int, list[dict[str, Any]]] = {}
    for r in cites.to_dict(orient="records"):
        by_answer.setdefault(int(r["answer"]), []).append(r)
    from ..audit.blackbox.shares import own_claimants

    recs_of: dict[tuple[str, str], list[int]] = {}
    for i, (m, q) in enumerate(zip(answers["model"], answers["query_lang"])):
        recs_of.setdefault((str(m), str(q)), []).append(i)
        recs_of.setdefault((str(m), "*"), []).append(i)
    page_answers: list[dict[str, Any]] = []
    slot: dict[int, int] = {}

    def answer(i: int) -> int:
        """The answer's place in the page's table of answers (each answer is embedded once)."""
        if i in slot:
            return slot[i]
        a = answers.iloc[i]
        urls = []
        for u in by_answer.get(i, []):
            urls.append({"url": u["url"], "domain": u["domain"], "country": u["country"] or "unattributed", "rule": u["country_rule"],
                         "kind": u["kind"] or "", "publisher": u["publisher"], "lang": u["lang"], "lang_rule": u["lang_rule"],
                         "lists": [str(x) for x in u["lists"]] if u["lists"] is not None else [], "title": _cut(u["title"]),
                         "snippet": _cut(u["snippet"])})  # fmt: skip
        text = str(a["answer"] or "")
        page_answers.append({"id": str(a["id"]), "line": int(a["line"]), "question": a["question"], "query_lang": a["query_lang"],
                             "group": a["group"], "answer": text[:MAX_TEXT] + ("…" if len(text) > MAX_TEXT else ""),
                             "n_dup": int(a["n_dup"]), "urls": urls})  # fmt: skip
        slot[i] = len(page_answers) - 1
        return slot[i]

    rec_col, n_col = [], []
    for c in cells.itertuples():
        idx = recs_of.get((str(c.model), str(c.query_lang)), [])
        shown = []
        for i in idx[:MAX_ANSWERS]:
            k = answer(i)
            a = answers.iloc[i]
            claim = {str(x) for x in a["claimants"]} if a["claimants"] is not None else set()
            clangs = (
                [str(x) for x in a["claimant_langs"]] if a["claimant_langs"] is not None else []
            )
            own = own_claimants(sorted(claim), clangs, str(a["query_lang"])) if claim else set()
            hits = [
                j
                for j, u in enumerate(page_answers[k]["urls"])
                if _category_of(
                    str(c.dimension), str(c.category), u, str(a["query_lang"]), claim, own
                )
            ]
            shown.append([k, hits])
        rec_col.append(json.dumps(shown))
        n_col.append(len(idx))
    cols: dict[str, Any] = {}
    for col in ("status", "model", "query_lang", "dimension", "category"):
        cols[col] = coded(cells[col].astype(str))
    for col in ("count", "n_urls", "n_answers", "n_clusters", "share", "low", "high"):
        cols[col] = numbers(
            [_clean(None if pd.isna(v) else float(v)) for v in cells[col]], digits=6
        )
    cols["records"] = coded(rec_col)
    cols["n_records"] = numbers(n_col)
    s = info.get("summary") or {}
    subtitle = (f"Black-box citation audit of {Path(str(s.get('log') or '?')).name} ({s.get('valid')} answers, {s.get('urls')} URLs; "
                f"{info.get('signature', '')})")  # fmt: skip
    meta = page_meta("blackbox", out, subtitle, BLACKBOX_FACETS, _COLUMNS, ("category", "categories", "Cells"), warnings=[],
                     answers=_clean(page_answers))  # fmt: skip
    return meta, {"n": len(cells), "cols": cols}


VIEW = ViewKind(page=blackbox_page)
"""The page of a black-box audit (:data:`bordir.view.dispatch.VIEWS` ``audit/blackbox``)."""
