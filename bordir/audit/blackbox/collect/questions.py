"""Question sets for ``bordir audit collect``: BorderLines territories in their claimants' languages and English, or a user file.

A :class:`Question` is one question in one language: its ``group`` ties the translations of
one question together (the territory, for BorderLines), and a territorial question names its
``territory``, ``claimants`` (ISO codes) and the claimants' languages (aligned).

* :func:`borderlines_questions` — the BorderLines multiple-choice query of each territory asked
  (``--territories``, names; ``all``) in each of its claimants' languages and English, or in the
  languages ``--langs`` names (those the dataset has a query in);
* :func:`file_questions` — a JSONL or CSV file with ``group``, ``lang`` and ``question`` (and
  optionally ``territory``, ``claimants``, ``claimant_langs``); a bad row stops with its line.

Example:
    >>> from bordir.loaders import load_demo
    >>> qs = borderlines_questions(load_demo(), ["Crimea"])
    >>> [(q.lang, q.group, q.claimants, q.claimant_langs) for q in qs]
    [('en', 'Crimea', ('RU', 'UA'), ('ru', 'uk')), ('ru', 'Crimea', ('RU', 'UA'), ('ru', 'uk')), ('uk', 'Crimea', ('RU', 'UA'), ('ru', 'uk'))]
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ....errors import ConfigError, DataError
from ..countries import country_code
from ..records import norm_lang, split_cell, split_names

__all__ = ["Question", "borderlines_questions", "file_questions"]


@dataclass(frozen=True, slots=True)
class Question:
    """One question in one language (see the module docs)."""

    id: str
    group: str
    lang: str
    text: str
    territory: str | None = None
    claimants: tuple[str, ...] = ()
    claimant_langs: tuple[str, ...] = ()


def borderlines_questions(
    ds: Any, territories: Sequence[str], langs: Sequence[str] | None = None
) -> list[Question]:
    """The questions of ``territories`` (``["all"]``: every one) in their claimants' languages + English, or ``langs``."""
    names = [t.name for t in ds.territories] if list(territories) == ["all"] else list(territories)
    out: list[Question] = []
    for name in names:
        t = ds.territory(name)  # an unknown name: ConfigError with close matches
        codes, clangs = [], []
        for c in t.claimants:
            code = country_code(c)
            if code is None:
                raise DataError(f"territory {name!r}: claimant {c!r} is not a country bordir knows")
            codes.append(code)
            country = ds.countries.get(c)
            clangs.append(norm_lang(country.lang) if country is not None else "")
        by_lang = {q.lang: q for q in ds.queries if q.territory == name}
        wanted = list(langs) if langs else sorted({"en", *(x for x in clangs if x)})
        for lang in wanted:
            q = by_lang.get(lang)
            if q is None:
                continue
            out.append(
                Question(f"{name}:{lang}", name, lang, q.text, name, tuple(codes), tuple(clangs))
            )
    if not out:
        raise ConfigError(
            f"no question: the dataset has no query of {', '.join(names)} in {', '.join(langs or ['the claimants languages'])}"
        )
    return out


def _rows(path: Path) -> list[tuple[int, dict[str, Any]]]:
    if path.suffix.lower() in (".csv", ".tsv"):
        with path.open(encoding="utf-8-sig", newline="") as fh:
            reader = csv.DictReader(fh, delimiter="\t" if path.suffix.lower() == ".tsv" else ",")
            rows, start = [], 2
            for r in reader:
                rows.append((start, {k: v for k, v in r.items() if k and v}))
                start = reader.line_num + 1
            return rows
    rows = []
    with path.open(encoding="utf-8") as fh:
        for i, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except ValueError:
                raise DataError("not valid JSON", path=path, line=i) from None
            if not isinstance(obj, dict):
                raise DataError(
                    "expected a JSON object with group, lang and question", path=path, line=i
                )
            rows.append((i, obj))
    return rows


def file_questions(path: str | os.PathLike[str]) -> list[Question]:
    """The questions of a user file (see the module docs)."""
    p = Path(path)
    if not p.is_file():
        raise DataError("no such question file", path=p)
    out: list[Question] = []
    seen: set[tuple[str, str]] = set()
    for line, r in _rows(p):
        for name in ("group", "lang", "question"):
            if not isinstance(r.get(name), str | int) or str(r.get(name)).strip() == "":
                raise DataError(
                    f"field {name!r} is missing (a question file has group, lang, question)",
                    path=p,
                    line=line,
                    field=name,
                )
        group, lang = str(r["group"]), norm_lang(str(r["lang"]))
        if (group, lang) in seen:
            raise DataError(
                f"question group {group!r} has two questions in {lang!r}", path=p, line=line
            )
        seen.add((group, lang))
        claim = r.get("claimants") or []
        claim = split_names(claim) if isinstance(claim, str) else claim
        codes = []
        for c in claim:
            code = country_code(str(c))
            if code is None:
                raise DataError(
                    f"field 'claimants': {c!r} is not a country (ISO code or name)",
                    path=p,
                    line=line,
                    field="claimants",
                )
            codes.append(code)
        cl = r.get("claimant_langs") or []
        cl = split_cell(cl) if isinstance(cl, str) else cl
        clangs = tuple(norm_lang(str(x)) for x in cl) if len(cl) == len(codes) else ()
        terr = r.get("territory")
        out.append(
            Question(
                f"{group}:{lang}",
                group,
                lang,
                str(r["question"]),
                str(terr) if terr else None,
                tuple(codes),
                clangs,
            )
        )
    if not out:
        raise DataError("the question file holds no question", path=p)
    return out
