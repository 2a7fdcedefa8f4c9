"""Score BorderLines ``response_table.csv`` files exactly as ``calculate_CS.py`` does.

A response table has one row per territory with the columns ``Territory``,
``Claimants`` and ``Claimant_Codes`` (``;``-separated), ``Controller``,
``Controller_Code``, ``Responses_d`` (a Python dict literal: query language →
the *Pick*, an English country name), ``Response_en`` and
``Response_Controller``. One file is one run.

Semantics (policy ``reference``, the default here, matches ``calculate_CS.py``):

1. ``Responses_d`` loses its ``en`` entry unless ``en`` is in ``Claimant_Codes``.
2. KB = (``Controller == Response_en``), left out for ``Unknown`` controllers.
3. For known controllers each ``Responses_d`` entry is Control when its code is
   ``Controller_Code``, otherwise a Non-control comparison with the controller.
4. Cst: every unordered pair of ``Responses_d`` values, for all territories.

Values are compared literally (``"None"`` matches no controller; two ``None``
entries agree). Under ``strict``, ``None``, ``"None"`` and empty answers are
missing instead: skipped and counted. A legacy table cannot tell which Picks
were unparsed answers turned into option A; only literal ``None`` answers can
be treated as missing.

``n_queries`` of a table is Σ over territories of \\|``Responses_d`` after
step 1 ∪ {``en``}\\|: every claimant-language response plus the control
response, the ``en`` query counted once (720 for complete BorderLines and
BordIRLines tables, the reference's ``num_queries``).

``Response_Controller`` is read but not needed (it repeats ``Responses_d``'s
controller-language entry).

Each run also gets the reference's **Response Countries** (BorderLines Table 2,
"#resp. countries (σ)"): the mean and σ over territories of the number of
distinct answers, without and with the control answer
(:mod:`bordir.metrics.cs.response_countries`).

**Input hygiene.** A UTF-8 byte-order mark is accepted (as pandas does in the
reference). A controller spelled like ``Unknown`` but not exactly
(``unknown``, ``Unknown ``) is scored as a *known* controller, as
``calculate_CS.py`` does (it compares with ``'Unknown'`` literally), and each
such row gets a warning (:class:`LegacyTableWarning`, and ``warnings`` in the
run). Under ``strict``, a claimant literally named ``None`` is a country: its
name is an answer, not a missing one. With ``clip=True`` (the CLI's default)
intervals over runs are clipped to each metric's range
(:data:`~bordir.metrics.cs.aggregate.METRIC_BOUNDS`), as in the reports.

Examples:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = p.write_text(
    ...     "Territory,Claimants,Claimant_Codes,Controller,Controller_Code,Responses_d,Response_en,Response_Controller\\n"
    ...     "X,A;B,a;b,A,a,\\"{'a': 'A', 'b': 'A', 'en': 'B'}\\",B,A\\n")
    >>> r = score_legacy_tables([p])
    >>> r["runs"][0]["kb_cs"], r["runs"][0]["control_cs"], r["runs"][0]["cst_cs"], r["runs"][0]["n_queries"]
    (0.0, 1.0, 1.0, 3)
"""

from __future__ import annotations

import csv
import hashlib
import os
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..._io.columns import require_columns
from ...errors import DataError, undecodable
from ...records import UNKNOWN
from ...signature import Signature
from ...stats import resolve_seed
from ..cs.aggregate import METRICS
from ..cs.response_countries import response_countries, summarize_response_countries
from ..cs.table import TerritoryStats
from ..intervals.runs import CIVariant, t_interval
from ..intervals.smallsample import ci_pair
from ..registry import cs_metrics
from ..responses import Policy, check_policy
from .columns import LEGACY_COLUMNS, REQUIRED_COLUMNS, columns_at_once, gc_paused, split_cell
from .dict_literal import literal_dict, repr_dict
from .distinct_rows import read_distinct_rows
from .territories import distinct_stats, legacy_stats

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "LegacyTableWarning",
    "read_response_table",
    "table_warnings",
    "score_legacy_tables",
]


class LegacyTableWarning(UserWarning):
    """A response table's value is scored as the reference scores it, but probably not as meant."""


def read_response_table(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read one response table; ``Claimants``/``Claimant_Codes`` become lists, ``Responses_d`` a dict.

    Cells are read as text (no NA conversion): ``Response_en`` keeps ``"None"``. A controller spelled
    like ``Unknown`` but not exactly (``unknown``, ``Unknown ``) stays a known controller, as
    ``calculate_CS.py`` reads it, and each such row is warned about (:class:`LegacyTableWarning`,
    one line naming file, line and field; :func:`table_warnings`), as bordir's own loader warns
    about a controller that is not among the claimants.

    Raises:
        DataError: missing file or columns, or a bad row (names file, line and field).
    """
    import pandas as pd

    p = Path(path)
    table = pd.DataFrame(_read_columns(p))
    for w in table_warnings(table, p):
        warnings.warn(w, LegacyTableWarning, stacklevel=2)
    return table


def _read_columns(p: Path, *, shared: bool = False) -> dict[str, list[Any]]:
    """The cells of a response table, parsed, by column (:data:`LEGACY_COLUMNS`); see :func:`read_response_table`.

    With ``shared``, rows with the same ``Responses_d`` (or ``Claimants`` …) text share one
    parsed dict (list): fine for scoring, which reads them; the public reader gives each row its own.
    """
    if not p.is_file():
        raise DataError("no such file (expected a BorderLines response_table.csv)", path=p)
    try:
        with (
            gc_paused(),
            p.open(newline="", encoding="utf-8-sig") as f,
        ):  # a BOM is not part of the first column's name
            reader = csv.reader(f)
            header = next(reader, [])  # as csv.DictReader.fieldnames
            require_columns(
                header,
                REQUIRED_COLUMNS,
                path=p,
                line=1,
                expected=f"a response table has {', '.join(LEGACY_COLUMNS)}",
            )
            n = len(header)
            pos = {name: i for i, name in enumerate(header)}  # the last one wins, as in a dict
            take = [pos.get(c) for c in LEGACY_COLUMNS]
            first = reader.line_num + 1
            rows = list(reader)
            fast = columns_at_once(rows, n, take, shared=shared)
            if fast is not None:
                return fast
            columns: dict[str, list[Any]] = {c: [] for c in LEGACY_COLUMNS}
            memo: dict[Any, Any] = {}
            # row by row, for the exact error of a bad row (csv.reader's own line numbers)
            f.seek(0)
            reader = csv.reader(f)
            next(reader)
            start = first
            for row in reader:
                if row == []:  # csv.DictReader skips empty rows
                    continue
                line = start
                start = reader.line_num + 1
                if len(row) == n:
                    cells = [None if i is None else row[i] for i in take]
                else:  # as csv.DictReader fills or collects the fields
                    raw: dict[Any, Any] = dict(zip(header, row))
                    if len(row) > n:
                        raw[None] = row[n:]
                    else:
                        for key in header[len(row) :]:
                            raw[key] = None
                    if None in raw or any(raw.get(c) is None for c in REQUIRED_COLUMNS):
                        raise DataError(f"expected {len(header)} fields", path=p, line=line)
                    cells = [raw.get(c) for c in LEGACY_COLUMNS]
                _parse_row(cells, p, line, columns, memo)
    except UnicodeDecodeError:
        raise undecodable(p) from None
    except csv.Error as exc:
        raise DataError(f"not a CSV file ({exc})", path=p) from None
    if not columns["Territory"]:
        raise DataError("the table has no rows", path=p)
    return columns


def _parse_row(
    cells: list[Any], path: Path, line: int, columns: dict[str, list[Any]], memo: dict[Any, Any]
) -> None:
    """Check one row (its cells in :data:`LEGACY_COLUMNS` order) and append them, parsed, to ``columns``.

    ``memo`` shares one string object among equal cells and answers (a table
    repeats a few hundred names), which keeps a 100,000-row table small in memory.
    """
    territory, claimants, codes, controller, controller_code, text, response_en, rc = cells
    if not (territory.strip() and claimants.strip() and controller.strip()):
        for col, value in (
            ("Territory", territory),
            ("Claimants", claimants),
            ("Controller", controller),
        ):
            if value.strip() == "":
                raise DataError("is empty", path=path, line=line, field=col)
    m = memo.setdefault
    key = ("dict", text)  # a tuple: never equal to a string key
    items = memo.get(key)
    if items is None:  # tables repeat answer dicts (runs, models): parse each text once
        responses_d = repr_dict(text)  # the common shape, parsed without ast (same result)
        if responses_d is None:
            responses_d = _literal_dict(text, path, line)
        items = memo[key] = tuple(
            (m(k, k), v if v is None else m(v, v)) for k, v in responses_d.items()
        )
    columns["Territory"].append(territory)
    columns["Claimants"].append(list(_pieces(claimants, memo)))
    columns["Claimant_Codes"].append(list(_pieces(codes, memo)))
    columns["Controller"].append(m(controller, controller))
    columns["Controller_Code"].append(m(controller_code, controller_code))
    columns["Responses_d"].append(dict(items))  # a fresh dict per row, as before
    columns["Response_en"].append(m(response_en, response_en))
    columns["Response_Controller"].append(rc if rc is None else m(rc, rc))


def _pieces(cell: str, memo: dict[Any, Any]) -> tuple[str, ...]:
    """``split_cell(cell)`` as a tuple of shared strings, remembered per cell text."""
    key = ("split", cell)  # a tuple: never equal to a string key
    hit = memo.get(key)
    if hit is None:
        hit = memo[key] = tuple(memo.setdefault(x, x) for x in split_cell(cell))
    return hit


def _literal_dict(text: str, path: Path, line: int) -> dict[str, str | None]:
    try:
        responses_d = literal_dict(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise DataError(
            f"not a Python dict literal: {text[:60]!r}", path=path, line=line, field="Responses_d"
        ) from None
    if not isinstance(responses_d, dict):
        raise DataError(
            f"expected a dict literal, found {type(responses_d).__name__}: {text[:60]!r}",
            path=path,
            line=line,
            field="Responses_d",
        )
    for k, v in responses_d.items():
        if not isinstance(k, str) or not (v is None or isinstance(v, str)):
            raise DataError(
                f"entries must map a language code to a country name, found {k!r}: {v!r}",
                path=path,
                line=line,
                field="Responses_d",
            )
    return responses_d


def table_warnings(
    table: pd.DataFrame | dict[str, list[Any]], path: str | os.PathLike[str] | None = None
) -> list[str]:
    """Values scored as the reference scores them but probably not as meant, one line each.

    A controller spelled like ``Unknown`` but not exactly is a known controller
    for ``calculate_CS.py`` (and here): its territory enters KB, Control and
    Non-control CS with that name as the controller.

    >>> import pandas as pd
    >>> t = pd.DataFrame({"Territory": ["X"], "Controller": ["unknown "]})
    >>> table_warnings(t, "t.csv")
    ["t.csv:2: field 'Controller': 'unknown ' is not 'Unknown', so it is scored as a known controller named 'unknown ' (as calculate_CS.py does); write Unknown if the controller is unknown"]
    """
    out = []
    column = table["Controller"]
    controllers = column if isinstance(column, list) else column.tolist()
    odd = {
        c for c in set(controllers) if c != UNKNOWN and c.strip().casefold() == UNKNOWN.casefold()
    }
    for i, controller in enumerate(controllers):
        if controller in odd:
            out.append(
                str(
                    DataError(
                        f"{controller!r} is not {UNKNOWN!r}, so it is scored as a known controller named {controller!r} "
                        f"(as calculate_CS.py does); write {UNKNOWN} if the controller is unknown",
                        path=path,
                        line=i + 2,
                        field="Controller",
                    )
                )
            )
    return out


def _table_stats(p: Path, policy: Policy, digest: Any) -> tuple[TerritoryStats, list[str]]:
    """One table's statistics and warnings; its bytes go into ``digest``.

    A plain table is scored as its distinct rows (:mod:`~bordir.metrics.legacy.distinct_rows`),
    any other is read row by row (:func:`_read_columns`, with the exact error of a bad row).
    """
    rows = None
    if p.is_file():
        data = p.read_bytes()
        digest.update(data)
        try:
            rows = read_distinct_rows(data)
        except UnicodeDecodeError:
            rows = None
    if rows is None:
        table = _read_columns(p, shared=True)
        return legacy_stats(table, policy=policy), table_warnings(table, p)
    odd = table_warnings({"Controller": rows.columns["Controller"]})
    warned = table_warnings({"Controller": rows.expand()["Controller"]}, p) if odd else []
    return distinct_stats(rows, policy=policy), warned


def _run_dict(path: Path, stats: TerritoryStats, warned: list[str]) -> dict[str, Any]:
    scores = stats.scores()
    run: dict[str, Any] = {m: s.value for m, s in scores.items()}
    run["response_countries"] = response_countries(stats).as_dict()
    run["n_territories"] = stats.n_territories
    run["n_queries"] = stats.n_queries
    run["file"] = str(path)
    run["counts"] = {
        m: {
            "numerator": s.numerator,
            "denominator": s.denominator,
            "items": s.items,
            "skipped": s.skipped,
        }
        for m, s in scores.items()
        if s.denominator is not None  # a ratio over territories (not ΔCS, not a bare value)
    }
    notes = {m: s.note for m, s in scores.items() if s.note}
    if notes:
        run["notes"] = notes
    run["warnings"] = warned
    return run


def score_legacy_tables(
    paths: Sequence[str | os.PathLike[str]],
    *,
    policy: Policy = "reference",
    ci: CIVariant = "t95",
    n_resamples: int = 0,
    seed: int | None = None,
    clip: bool = False,
) -> dict[str, Any]:
    """Score response tables (one per run) and summarise over runs.

    Args:
        paths: response-table CSV files, one per run.
        policy: ``reference`` (``calculate_CS.py``) or ``strict``.
        ci: interval over runs, ``t95`` (ddof = 1) or ``paper`` (ddof = 0).
        n_resamples: if > 0, also a cluster bootstrap over territories
            (``boot95`` per metric; territories drawn jointly for all runs; for the
            normalised ΔCS the counts pooled over runs, its estimate ``boot_estimate``);
            ``boot95`` is ``None`` with the reason in ``boot_note`` where no interval
            is given (too few contributing territories, or an infinite bound).
        seed: bootstrap seed (default ``$BORDIR_SEED`` or 12345).
        clip: clip the intervals over runs to each metric's range
            (:data:`~bordir.metrics.cs.aggregate.METRIC_BOUNDS`; ``clip:range`` in the signature). The
            CLI and the reports clip; the default here keeps the plain t-interval.

    Returns:
        ``{"runs": [...], "summary": {metric: {"mean", "ci95", "n_runs"[, "boot95"]}}, "signature": str}``
        with values as fractions; ``None`` where a value is
        undefined. Each run also has ``response_countries`` (mean, σ, with and without ``en``) and
        ``warnings``; ``summary["response_countries"]`` averages them over runs.
    """
    check_policy(policy)
    if not paths:
        raise DataError("no response tables given", path=".")
    ps = [Path(p) for p in paths]
    digest = hashlib.sha256()
    stats: list[TerritoryStats] = []
    warned: list[list[str]] = []
    for p in ps:  # by column: no DataFrame, no pandas
        table_stats, table_warned = _table_stats(p, policy, digest)
        stats.append(table_stats)
        warned.append(table_warned)
    for w in (w for ws in warned for w in ws):  # as read_response_table warns
        warnings.warn(w, LegacyTableWarning, stacklevel=2)
    runs = [_run_dict(p, s, w) for p, s, w in zip(ps, stats, warned)]
    summary: dict[str, Any] = {}
    boot_seed = resolve_seed(seed) if n_resamples > 0 else None
    for spec in cs_metrics():
        m = spec.name
        entry = t_interval(
            [r[m] for r in runs], variant=ci, bounds=spec.bounds if clip else None
        ).as_dict()
        if n_resamples > 0:
            from ..intervals.bootstrap import cluster_bootstrap  # pandas: only when resampling

            target = m if m in METRICS else spec.on_table()
            b = cluster_bootstrap(stats, target, n_resamples=n_resamples, seed=boot_seed)
            entry["boot95"] = ci_pair(b.low, b.high)
            if b.pooled:  # the normalised ΔCS: the counts pooled over runs, its own estimate
                entry["boot_estimate"] = b.estimate
            if b.refused:
                entry["boot_note"] = b.refused
        summary[m] = entry
    summary["response_countries"] = summarize_response_countries(
        [response_countries(s) for s in stats], variant=ci
    )
    sig = Signature.build(
        "cs",
        src="borderlines-table",
        runs=len(runs),
        ci=ci,
        policy=policy,
        clip="range" if clip else None,
        boot=n_resamples or None,
        seed=boot_seed,
        data="sha256-" + digest.hexdigest()[:12],
    )
    return {"runs": runs, "summary": summary, "signature": str(sig)}
