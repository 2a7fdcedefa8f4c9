"""Load BorderLines from a directory in the BorderLines file layout.

Layout (see ``docs/data.md``; both this one and the GitHub repository's are read)::

    disputed_territories.csv        Territory, Claimants (;-separated), Controller, Region,
                                    Population, Query, QueryID
    countries_info.json             {country: {Lang_Code, Lang_Name, Lang_Name_Native, Religion, Population}}
    prompts_mc_q/prompts.<lang>     one query per line
    prompts_mc_q/choices.<lang>     one JSON list of native claimant names per line
    terms/line_inds.<lang>.txt      JSON list: the territory row of each query line
    prompts_q_mc.en-control.txt     English control queries (optional: else the CSV's Query column)
    choices.en-control.txt          their options (optional: else the English claimant names)

The GitHub repository (``manestay/borderlines``) lays the same data out differently, and a clone
of it is read as it is:

* the query files are under ``translate/`` (``translate/prompts_mc_q/``, ``translate/terms/``) and
  the control queries are ``prompts/prompts_q_mc.txt`` and ``prompts/choices.txt``;
* Chinese is ``zh-CN`` / ``zh-TW`` (Google Translate's codes) in file names and in
  ``countries_info.json``: read as ``zhs`` / ``zht``, as every language code is read as its
  registry code;
* ``countries_info.json`` names its fields ``code``, ``name``, ``name_native``, ``religion``,
  ``population`` (the hub copy: ``Lang_Code``, ``Lang_Name`` …);
* a language without ``translate/terms/line_inds.<lang>.txt`` has no territory rows for its
  queries: it is left out with a warning, as the repository's ``gen_response_table.py`` does.
"""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path
from typing import Any

from .. import languages
from .._io.json_read import loads, not_valid
from ..dataset import BorderLines
from ..errors import DataError, refuse_nul, undecodable
from ..records import Country, Territory
from ._assemble import RawQuery, assemble

__all__ = [
    "load_borderlines_files",
    "read_territories_csv",
    "read_countries_json",
    "parse_countries",
    "SURINAME_REPAIR",
]

TERRITORY_COLUMNS = (
    "Territory",
    "Claimants",
    "Controller",
    "Region",
    "Population",
    "Query",
    "QueryID",
)
COUNTRY_FIELDS = ("Lang_Code",)
_REPO_FIELDS = {
    "code": "Lang_Code",
    "name": "Lang_Name",
    "name_native": "Lang_Name_Native",
    "religion": "Religion",
    "population": "Population",
}
"""The GitHub repository's ``countries_info.json`` field names → the hub copy's."""
SURINAME_REPAIR = "countries_info.json: the record under the corrupted key 'SuriLang_Name' was read as 'Suriname' (Lang_Code nl)"


def _int_or_none(value: str, *, path: Path, line: int, field: str) -> int | None:
    value = value.strip()
    if value == "":
        return None
    try:
        number = float(value)
    except ValueError:
        raise DataError(
            f"expected a number, found {value!r}", path=path, line=line, field=field
        ) from None
    if not math.isfinite(number) or number < 0:
        raise DataError(
            f"expected a finite number >= 0 (or an empty field), found {value!r}",
            path=path,
            line=line,
            field=field,
        )
    return int(number)


def _read_text(path: Path) -> str:
    """The file's text: UTF-8, a leading byte-order mark dropped; not UTF-8 or a NUL → :class:`DataError`."""
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError:
        raise undecodable(path) from None
    return refuse_nul(text, path, "contains a NUL character; the file is binary or corrupted")


def read_territories_csv(path: str | Path) -> tuple[list[Territory], list[str]]:
    """Read ``disputed_territories.csv``: the territories and their English ``Query`` texts."""
    path = Path(path)
    if not path.is_file():
        raise DataError("file not found (expected the BorderLines territories table)", path=path)
    out: list[Territory] = []
    texts: list[str] = []
    seen: dict[str, int] = {}
    # strict: an unterminated quote is an error, not a field that swallows the rest of the file
    reader = csv.DictReader(io.StringIO(_read_text(path), newline=""), strict=True)
    try:
        header = reader.fieldnames or []
        missing = [c for c in TERRITORY_COLUMNS if c not in header]
        if missing:
            raise DataError(
                f"missing column {missing[0]!r}; expected columns {', '.join(TERRITORY_COLUMNS)}, "
                f"found {', '.join(header) or 'none'}",
                path=path,
                line=1,
                field=missing[0],
            )
        for i, row in enumerate(reader):
            line = i + 2
            if None in row or any(v is None for v in row.values()):
                found = sum(v is not None for k, v in row.items() if k is not None) + len(
                    row.get(None) or []
                )
                raise DataError(
                    f"expected {len(header)} comma-separated fields, found {found}",
                    path=path,
                    line=line,
                )
            name = row["Territory"].strip()
            if not name:
                raise DataError("empty territory name", path=path, line=line, field="Territory")
            if name in seen:
                raise DataError(
                    f"territory {name!r} appears twice (first at line {seen[name]}); "
                    "remove the duplicated row",
                    path=path,
                    line=line,
                    field="Territory",
                )
            seen[name] = line
            claimants = tuple(c.strip() for c in row["Claimants"].split(";") if c.strip())
            if len(claimants) < 2:
                raise DataError(
                    f"expected at least two ';'-separated claimants, found {row['Claimants']!r}",
                    path=path,
                    line=line,
                    field="Claimants",
                )
            controller = row["Controller"].strip()
            if not controller:
                raise DataError(
                    "empty controller (use 'Unknown')", path=path, line=line, field="Controller"
                )
            out.append(
                Territory(
                    name=name,
                    claimants=claimants,
                    controller=controller,
                    region=row["Region"].strip(),
                    population=_int_or_none(
                        row["Population"], path=path, line=line, field="Population"
                    ),
                    index=i,
                )
            )
            texts.append(row["Query"].strip())
    except csv.Error as exc:  # line_num counts the lines before the record that failed
        raise DataError(
            f"malformed CSV: {exc} (in the record starting here)",
            path=path,
            line=reader.line_num + 1,
        ) from None
    if not out:
        raise DataError("the territories table has no rows", path=path)
    return out, texts


def _load_json(path: Path) -> Any:
    try:
        return loads(_read_text(path))
    except json.JSONDecodeError as exc:
        raise DataError(
            f"{not_valid(exc)} (column {exc.colno})", path=path, line=exc.lineno
        ) from None


def read_countries_json(
    path: str | Path, *, repair: bool = False
) -> tuple[dict[str, Country], list[str], list[str]]:
    """Read ``countries_info.json``; return (countries, warnings, repairs).

    The BorderLines file stores Suriname under the corrupted key
    ``SuriLang_Name``. With ``repair=True`` it is read as ``Suriname`` and the
    repair is recorded; otherwise it is left out and a warning says so.
    """
    path = Path(path)
    if not path.is_file():
        raise DataError("file not found (expected the BorderLines countries table)", path=path)
    return parse_countries(_load_json(path), path=str(path), repair=repair)


def parse_countries(
    data: Any, *, path: str, repair: bool = False
) -> tuple[dict[str, Country], list[str], list[str]]:
    """Turn ``{country: {Lang_Code, …}}`` into :class:`Country` records (see :func:`read_countries_json`)."""
    if not isinstance(data, dict):
        raise DataError(
            f"expected a JSON object of countries, found {type(data).__name__}", path=path
        )
    countries: dict[str, Country] = {}
    warnings: list[str] = []
    repairs: list[str] = []
    for name, rec in data.items():
        if name == "SuriLang_Name":
            if repair:
                name = "Suriname"
                repairs.append(SURINAME_REPAIR)
            else:
                warnings.append(
                    f"{Path(path).name}: record under the corrupted key 'SuriLang_Name' (Suriname, nl) "
                    "was left out as in the reference; load with repair=True (--repair) to read it as Suriname"
                )
                continue
        if isinstance(rec, dict) and "Lang_Code" not in rec and "code" in rec:
            rec = {
                _REPO_FIELDS.get(k, k): v for k, v in rec.items()
            }  # the GitHub repository's names
        if (
            not isinstance(rec, dict)
            or not isinstance(rec.get("Lang_Code"), str)
            or not rec["Lang_Code"]
        ):
            raise DataError(
                f"country {name!r}: expected an object with a non-empty string 'Lang_Code'",
                path=path,
                field=f"{name}.Lang_Code",
            )
        if "\x00" in name:
            raise DataError(
                f"country name {name!r} contains a NUL character", path=path, field=name
            )
        code = (
            languages.registry()
            .get_checked(rec["Lang_Code"], where=f"{path}: field '{name}.Lang_Code'")
            .code
        )  # zh-CN → zhs, as the query files' codes
        pop = rec.get("Population")
        countries[name] = Country(
            name=name,
            lang=code,
            lang_name=str(rec.get("Lang_Name") or ""),
            lang_name_native=str(rec.get("Lang_Name_Native") or ""),
            religion=str(rec.get("Religion") or ""),
            population=int(pop) if isinstance(pop, (int, float)) else None,
        )
    return countries, warnings, repairs


def _read_lines(path: Path) -> list[str]:
    return [ln.rstrip("\r\n") for ln in io.StringIO(_read_text(path), newline=None) if ln.strip()]


def _read_choices(path: Path) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for lineno, ln in enumerate(io.StringIO(_read_text(path), newline=None), start=1):
        if not ln.strip():
            continue
        try:
            val = loads(ln)
        except json.JSONDecodeError as exc:
            raise DataError(
                f"{not_valid(exc)}; expected a JSON list of option names",
                path=path,
                line=lineno,
            ) from None
        if not isinstance(val, list) or not all(isinstance(v, str) for v in val):
            raise DataError(
                "expected a JSON list of option names (strings)", path=path, line=lineno
            )
        out.append(tuple(val))
    return out


def _read_line_inds(path: Path) -> list[int]:
    val = _load_json(path)
    if not isinstance(val, list) or not all(isinstance(v, int) for v in val):
        raise DataError("expected a JSON list of 0-based territory row numbers", path=path, line=1)
    return val


def _first_existing(root: Path, *candidates: str) -> Path:
    """The first of ``candidates`` (relative to ``root``) that exists, else the first one."""
    for c in candidates:
        if (root / c).exists():
            return root / c
    return root / candidates[0]


def read_query_files(directory: str | Path, warnings: list[str] | None = None) -> list[RawQuery]:
    """Read every ``prompts_mc_q/prompts.<lang>`` with its choices and line indices.

    Both the flat layout and the GitHub repository's (``translate/prompts_mc_q``,
    ``translate/terms``, ``zh-CN`` / ``zh-TW`` file names; see the module docs) are accepted.
    File-name codes are read as registry codes (``zh-CN`` → ``zhs``). ``warnings`` receives what
    the repository layout leaves out.
    """
    root = Path(directory)
    qdir = _first_existing(root, "prompts_mc_q", "translate/prompts_mc_q")
    terms = _first_existing(root, "terms", "translate/terms")
    repo_layout = qdir.parent.name == "translate"
    if not qdir.is_dir():
        raise DataError(
            "directory not found (expected prompts_mc_q/ with prompts.<lang> files)", path=qdir
        )
    reg = languages.registry()
    out: list[RawQuery] = []
    seen: dict[str, Path] = {}

    def canonical_first(f: Path) -> tuple[bool, str]:
        suffix = f.name.split(".", 1)[1]
        return (suffix not in reg or reg[suffix].code != suffix, f.name)

    files = sorted(qdir.glob("prompts.*"), key=canonical_first)
    for prompts in files:
        suffix = prompts.name.split(".", 1)[1]
        lang = reg.get_checked(suffix, where=f"{prompts}:1").code  # the first query of the file
        if lang in seen:  # prompts.zht beside prompts.zh-TW: the registry's name wins
            if warnings is not None:
                warnings.append(f"{prompts.name}: the same language as {seen[lang].name}; left out")
            continue
        seen[lang] = prompts
        choices_path = qdir / f"choices.{suffix}"
        inds_path = terms / f"line_inds.{suffix}.txt"
        if repo_layout and not inds_path.is_file() and choices_path.is_file():
            if warnings is not None:
                warnings.append(
                    f"{inds_path.relative_to(root)} is missing: the queries of {prompts.name} have "
                    "no territory rows and are left out (as gen_response_table.py does)"
                )
            continue
        for p in (choices_path, inds_path):
            if not p.is_file():
                raise DataError(f"file not found; every prompts.{suffix} needs it", path=p)
        texts = _read_lines(prompts)
        choices = _read_choices(choices_path)
        inds = _read_line_inds(inds_path)
        if not len(texts) == len(choices) == len(inds):
            raise DataError(
                f"{len(texts)} queries, {len(choices)} choice lines in {choices_path.name} and "
                f"{len(inds)} line indices in {inds_path.name}; all three must be equal",
                path=prompts,
            )
        for i, (text, opts, ind) in enumerate(zip(texts, choices, inds)):
            out.append(RawQuery(lang, ind, text, opts, str(prompts), i + 1))
    if not out:
        raise DataError("no prompts.<lang> files found", path=qdir)
    return out


def read_control(
    directory: str | Path, territories: list[Territory], table_texts: list[str], table_path: Path
) -> list[RawQuery]:
    """English control queries from the control files, or from the table's ``Query`` column."""
    root = Path(directory)
    qpath = _first_existing(root, "prompts_q_mc.en-control.txt", "prompts/prompts_q_mc.txt")
    cpath = _first_existing(root, "choices.en-control.txt", "prompts/choices.txt")
    if qpath.is_file() and cpath.is_file():
        texts, choices = _read_lines(qpath), _read_choices(cpath)
        n = len(territories)
        if (
            len(texts) == len(choices) != n
        ):  # the control files agree with each other: the table is off
            raise DataError(
                f"{n} territory rows, but {qpath.name} and {cpath.name} have {len(texts)} lines each; "
                f"is {table_path.name} truncated or does it have extra rows?",
                path=table_path,
                line=n + 1,
            )
        if len(texts) != n:
            raise DataError(
                f"{len(texts)} control queries for the {n} territories of {table_path.name}",
                path=qpath,
            )
        if len(choices) != n:
            raise DataError(
                f"{len(choices)} choice lines for the {n} territories of {table_path.name}",
                path=cpath,
            )
        return [
            RawQuery("en", i, t, c, str(qpath), i + 1)
            for i, (t, c) in enumerate(zip(texts, choices))
        ]
    return [
        RawQuery("en", t.index, text, t.claimants, str(table_path), t.index + 2)
        for t, text in zip(territories, table_texts)
    ]


def load_borderlines_files(
    path: str | Path, *, repair: bool = False, name: str = "borderlines"
) -> BorderLines:
    """Load BorderLines from a directory in the repository's file layout.

    Args:
        path: the directory holding ``disputed_territories.csv`` etc.
        repair: read Suriname's record from its corrupted key (recorded in
            ``repairs``). Off by default, as in the reference data.
        name: the dataset id to report.

    Raises:
        DataError: a file is missing or malformed (the message names file, line and field).
        UnknownLanguageError: a ``prompts.<lang>`` file has a code not in ``languages/``.
    """
    root = Path(path)
    if not root.is_dir():
        raise DataError("not a directory (expected a BorderLines data directory)", path=root)
    table = root / "disputed_territories.csv"
    territories, texts = read_territories_csv(table)
    countries, warnings, repairs = read_countries_json(root / "countries_info.json", repair=repair)
    control = read_control(root, territories, texts, table)
    lang_queries = read_query_files(root, warnings)
    return assemble(
        name=name,
        source=str(root),
        territories=territories,
        countries=countries,
        control=control,
        lang_queries=lang_queries,
        warnings=warnings,
        repairs=repairs,
    )
