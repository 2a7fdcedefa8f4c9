"""The open format's question: the territory question without options, in every BorderLines query language.

BorderLines asks "Is XX a territory of A) YY or B) ZZ?" from one template per
query language (``templates_q.tsv``). The open format asks the same question
without the option list. ``templates/open/questions.tsv`` holds, per language:

* ``frame``: BorderLines' template with its option list (``YY … ZZ``) written
  ``{options}`` and the territory (``XX``) written ``{territory}``;
* ``question``: the frame's question with the option list replaced by "which
  country" in that language (``Which country is {territory} a territory of?``).

A query's native territory name is read from its own text with the frame of
its language (every one of BorderLines' 720 queries fits its frame). A dataset
whose queries were written otherwise (the bundled demo) lists the names in a
``territory_names.tsv`` beside its query files (``query_id<TAB>name``); a name
listed there wins. A query that fits neither is refused, naming it, with the
fix: :func:`open_question` never falls back to the English name.

Example:
    >>> from bordir.loaders import load_demo
    >>> ds = load_demo()
    >>> open_question(ds.query("Crimea_ru"))
    'Территорией какой страны является Крым?'
    >>> open_question(ds.query("Senkaku_Islands_en"))
    'Which country is Senkaku Islands a territory of?'
    >>> names = territory_names_of(ds)
    >>> open_question(ds.query("Ceuta_ar"), names=names)
    'سبتة هي أراضي أي دولة؟'
    >>> open_question(ds.query("Ceuta_ar"))
    Traceback (most recent call last):
    ...
    bordir.errors.ConfigError: query Ceuta_ar (ar): its text does not follow BorderLines' ar template 'هل {territory} هي أراضي {options}؟', so the open format cannot read its territory name; list it in territory_names.tsv beside the dataset's query files (query_id<TAB>native name)
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ConfigError

if TYPE_CHECKING:  # pragma: no cover
    from ..dataset import BorderLines
    from ..records import Query

__all__ = [
    "OpenTemplate",
    "open_templates",
    "open_languages",
    "territory_name",
    "open_question",
    "territory_names_of",
    "check_open_languages",
    "TERRITORY_NAMES_FILE",
]

TERRITORY_NAMES_FILE = "territory_names.tsv"
"""A dataset directory's file of native territory names (``query_id<TAB>name``), for queries off-template."""

_MARKER = re.compile(r"A\)")


@dataclass(frozen=True, slots=True)
class OpenTemplate:
    """One language's open-format question and the BorderLines frame it is derived from."""

    lang: str
    frame: str
    question: str

    def render(self, territory: str) -> str:
        """The question about ``territory`` (its name in this language)."""
        return self.question.replace("{territory}", territory)


@cache
def open_templates() -> Mapping[str, OpenTemplate]:
    """Language code → :class:`OpenTemplate`, from ``templates/open/questions.tsv``."""
    path = resources.files(__package__).joinpath("templates", "open", "questions.tsv")
    out: dict[str, OpenTemplate] = {}
    header_seen = False
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        cells = line.split("\t")
        if not header_seen:
            header_seen = True
            continue
        if len(cells) != 3 or "{territory}" not in cells[1] + cells[2]:
            raise ConfigError(
                f"templates/open/questions.tsv line {n}: expected code, frame and question with "
                "{territory}; reinstall bordir"
            )
        out[cells[0]] = OpenTemplate(cells[0], cells[1], cells[2])
    return out


def open_languages() -> tuple[str, ...]:
    """The query languages the open format has a question for (BorderLines' 49)."""
    return tuple(sorted(open_templates()))


def check_open_languages(langs: list[str] | tuple[str, ...], *, where: str = "") -> None:
    """Refuse languages without an open-format question, naming them (at plan time).

    >>> check_open_languages(["ru", "xx"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bordir.errors.ConfigError: response_format 'open' has no question template for query language xx; the open format knows ar, az, bn, ..., zhs, zht; add a line to bordir/generation/templates/open/questions.tsv or drop the language (langs = [...])
    """
    missing = sorted({lang for lang in langs if lang not in open_templates()})
    if missing:
        known = ", ".join(open_languages())
        raise ConfigError(
            f"{where + ': ' if where else ''}response_format 'open' has no question template for "
            f"query language {', '.join(missing)}; the open format knows {known}; add a line "
            "to bordir/generation/templates/open/questions.tsv or drop the language (langs = [...])"
        )


def _options_region(query: Query) -> tuple[int, int] | None:
    """``(start, end)`` of the option list in the query text (from ``A)`` to the last option's name)."""
    from ..option_orders import OrderError, option_spans

    try:
        spans = option_spans(query)
    except OrderError:
        return None
    if not spans:
        return None
    markers = [m.start() for m in _MARKER.finditer(query.text, 0, spans[0][0])]
    return (markers[-1] if markers else spans[0][0]), spans[-1][1]


@cache
def _frame_regex(frame_part: str) -> re.Pattern[str]:
    """A frame part (text with ``{territory}``) as a regex capturing the name; whitespace is loose."""
    before, _, after = frame_part.partition("{territory}")

    def lit(s: str) -> str:
        return r"\s*".join(re.escape(w) for w in s.split())

    return re.compile(rf"^\s*{lit(before)}\s*(?P<name>.+?)\s*{lit(after)}\s*$", re.S)


def territory_name(query: Query, *, names: Mapping[str, str] | None = None) -> str:
    """The query's territory name in its own language: from ``names`` or read with its language's frame.

    Raises:
        ConfigError: no template for the language, or the text does not fit the frame and ``names``
            has no entry for the query.
    """
    if names and names.get(query.query_id):
        return names[query.query_id]
    tmpl = open_templates().get(query.lang)
    if tmpl is None:
        check_open_languages([query.lang], where=f"query {query.query_id}")
        raise AssertionError("unreachable")  # pragma: no cover
    region = _options_region(query)
    if region is not None:
        head, _, tail = tmpl.frame.partition("{options}")
        text = query.text[: region[0]] if "{territory}" in head else query.text[region[1] :]
        m = _frame_regex(head if "{territory}" in head else tail).match(text)
        if m and m.group("name").strip():
            return m.group("name").strip()
    raise ConfigError(
        f"query {query.query_id} ({query.lang}): its text does not follow BorderLines' {query.lang} "
        f"template {tmpl.frame!r}, so the open format cannot read its territory name; list it in "
        f"{TERRITORY_NAMES_FILE} beside the dataset's query files (query_id<TAB>native name)"
    )


def open_question(query: Query, *, names: Mapping[str, str] | None = None) -> str:
    """The open-format question of ``query``: its territory asked about without options, in its language."""
    name = territory_name(query, names=names)
    return open_templates()[query.lang].render(name)


def territory_names_of(dataset: BorderLines) -> Mapping[str, str]:
    """The dataset's ``territory_names.tsv`` (query_id → native name), or ``{}`` without one.

    Raises:
        ConfigError: a line of the file is not ``query_id<TAB>name`` or names an unknown query.
    """
    if not dataset.source:
        return {}
    path = Path(dataset.source) / TERRITORY_NAMES_FILE
    if not path.is_file():
        return {}
    out: dict[str, str] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        qid, sep, name = line.partition("\t")
        if not sep or not name.strip():
            raise ConfigError(
                f"{path} line {n}: expected query_id<TAB>native territory name, found {line[:80]!r}"
            )
        if dataset.find_query(qid.strip()) is None:
            raise ConfigError(
                f"{path} line {n}: no query {qid.strip()!r} in the dataset; fix the id"
            )
        out[qid.strip()] = name.strip()
    return out
