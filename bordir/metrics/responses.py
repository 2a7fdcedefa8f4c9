"""The per-item input of the metrics: the ``responses`` table, and scoring policies.

One row per (query, mode, model, run):

============  ======  ==========================================================
column        type    meaning
============  ======  ==========================================================
query_id      str     ``Crimea_uk``, ``Crimea_en`` (the control query) …
territory     str     the territory's English name
query_lang    str     BorderLines code of the query language (``en`` for control)
is_control    bool    the English control query (one per territory)
mode          str     ``no_ir``, ``qlang``, ``rel_langs`` …
model         str     ``provider/model`` (``openai/gpt-4o-mini``)
run           int     run number (one seed per run)
outcome       str     ``answered``, ``refused``, ``multiple``, ``unparsed``, ``failed``; open answers:
                      ``several``, ``controller_only``, ``refusal``, ``other_country``, ``empty``
choice        int     option index into the territory's claimants; ``-1`` unless answered
============  ======  ==========================================================

When English is a claimant language, the control query *is* the ``en``
claimant query: it has one row (``is_control`` true), not two.

A **policy** says what a non-answered response counts as:

* ``strict`` (default): it is missing. It names no country; every comparison
  involving it (KB, Control, Non-control, Cst pairs) is skipped and counted.
* ``reference``: the BorderLines/BordIRLines compatibility policy. In the
  claimant-language answers (``Responses_d``) a non-answered response is the
  *Pick*, option A; the control answer used for KB (``Response_en``) is the
  string ``"None"``, which matches no controller, so it counts as wrong.

Example:
    >>> import pandas as pd
    >>> from bordir.loaders import load_demo
    >>> ds = load_demo()
    >>> df = pd.DataFrame({"query_id": ["Crimea_uk"], "territory": ["Crimea"], "query_lang": ["uk"],
    ...     "is_control": [False], "mode": ["no_ir"], "model": ["mock/x"], "run": [0],
    ...     "outcome": ["answered"], "choice": [5]})
    >>> validate_responses(df, ds)
    Traceback (most recent call last):
    ...
    bordir.errors.DataError: responses: field 'choice': row 0 (Crimea_uk): choice 5 is out of range; 'Crimea' has 2 claimants (Russia, Ukraine), so choice must be 0..1
    >>> answer_pick("unparsed", -1, ("Russia", "Ukraine"), "reference")
    'Russia'
    >>> answer_control("unparsed", -1, ("Russia", "Ukraine"), "reference")
    'None'
    >>> answer_pick("unparsed", -1, ("Russia", "Ukraine"), "strict") is None
    True
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, cast

import numpy as np

from .._columns import require_columns
from ..errors import ConfigError, DataError
from ..policies import PARSE_POLICIES

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ..dataset import BorderLines

__all__ = [
    "RESPONSE_COLUMNS",
    "OUTCOMES",
    "FREE_ANSWER_OUTCOMES",
    "POLICIES",
    "Policy",
    "GROUP_KEYS",
    "TableKey",
    "check_policy",
    "validate_responses",
    "checked_responses",
    "KEY_COLUMNS",
    "ResponseCodes",
    "response_codes",
    "read_responses",
    "STRING_COLUMNS",
    "answer_pick",
    "answer_control",
]

RESPONSE_COLUMNS: tuple[str, ...] = (
    "query_id",
    "territory",
    "query_lang",
    "is_control",
    "mode",
    "model",
    "run",
    "outcome",
    "choice",
)
OUTCOMES: tuple[str, ...] = ("answered", "refused", "multiple", "unparsed", "failed")
FREE_ANSWER_OUTCOMES: tuple[str, ...] = (
    "several",
    "controller_only",
    "refusal",
    "other_country",
    "empty",
)
"""The outcomes of free answers (response_format ``open``, :mod:`bordir.generation.parse.free`) that
name no single claimant; a responses table may hold them besides :data:`OUTCOMES`."""
POLICIES: tuple[str, ...] = PARSE_POLICIES.names()
Policy = Literal["strict", "reference"]
GROUP_KEYS: tuple[str, ...] = ("model", "mode", "run")
"""The columns that identify one scored configuration-run."""


class TableKey(NamedTuple):
    """The key of one scored configuration-run: ``(model, mode, run)``, with names.

    A plain tuple in every other respect: it unpacks, compares and hashes like
    ``(model, mode, run)``, so ``tables[("m", "no_ir", 0)]`` finds it.

    Example:
        >>> key = TableKey("mock/first", "qlang", 0)
        >>> key.mode, key == ("mock/first", "qlang", 0)
        ('qlang', True)
        >>> model, mode, run = key
        >>> key._asdict()
        {'model': 'mock/first', 'mode': 'qlang', 'run': 0}
    """

    model: str
    mode: str
    run: int


NONE_RESPONSE = "None"
"""What the reference stores as ``Response`` for an unparsed answer."""

_WHERE = "responses"


def check_policy(policy: str) -> Policy:
    """Return ``policy`` if it is known, else raise :class:`ConfigError`."""
    if policy not in POLICIES:
        raise ConfigError(f"unknown scoring policy {policy!r}; known: {', '.join(POLICIES)}")
    return policy  # type: ignore[return-value]


def answer_pick(outcome: str, choice: int, claimants: Sequence[str], policy: Policy) -> str | None:
    """A claimant-language answer as it enters ``Responses_d``.

    The English country name of the chosen option when answered. Otherwise
    ``None`` (missing) under ``strict``, option A under ``reference``.
    """
    if outcome == "answered":
        return claimants[choice]
    return claimants[0] if policy == "reference" else None


def answer_control(
    outcome: str, choice: int, claimants: Sequence[str], policy: Policy
) -> str | None:
    """The control answer as it enters KB (``Response_en``).

    The English country name when answered. Otherwise ``None`` (missing) under
    ``strict``, the string ``"None"`` under ``reference`` (wrong for KB).
    """
    if outcome == "answered":
        return claimants[choice]
    return NONE_RESPONSE if policy == "reference" else None


def _row_label(df: pd.DataFrame, pos: int) -> str:
    qid = df["query_id"].iloc[pos] if "query_id" in df.columns else "?"
    return f"row {pos} ({qid})"


def _fail(df: pd.DataFrame, mask: np.ndarray, column: str, what: Callable[[int], str]) -> None:
    bad = np.flatnonzero(mask)
    if len(bad) == 0:
        return
    first = int(bad[0])
    more = f" (and {len(bad) - 1} more rows)" if len(bad) > 1 else ""
    raise DataError(f"{_row_label(df, first)}: {what(first)}{more}", path=_WHERE, field=column)


def _message(text: str) -> Callable[[int], str]:
    return lambda i: text


def _not_integer(col: str, raw: pd.Series) -> Callable[[int], str]:
    return lambda i: f"{col} must be an integer, found {raw.iloc[i]!r}"


class _Lazy:
    """``values[i]`` of a Series without converting the whole column to a numpy array."""

    def __init__(self, series: pd.Series) -> None:
        self._s = series

    def __getitem__(self, i: int) -> Any:
        return self._s.iloc[i]


KEY_COLUMNS: tuple[str, ...] = (*GROUP_KEYS, "territory", "query_lang", "outcome")
"""The columns :class:`ResponseCodes` codes: a response's key, and its outcome."""


@dataclass(frozen=True)
class ResponseCodes:
    """Integer codes of a responses table's :data:`KEY_COLUMNS`, computed once per table.

    ``codes[c][i]`` is row ``i``'s position in ``uniques[c]``, the distinct values
    of column ``c`` in sorted order (Python's string / int order). Validation and
    scoring share them, so each key column is hashed once.

    Example:
        >>> import pandas as pd
        >>> df = pd.DataFrame({"model": ["m", "m"], "mode": ["qlang", "no_ir"], "run": [1, 0],
        ...     "territory": ["T", "T"], "query_lang": ["fr", "en"], "outcome": ["answered"] * 2})
        >>> rc = response_codes(df)
        >>> rc.codes["mode"].tolist(), rc.uniques["mode"].tolist()
        ([1, 0], ['no_ir', 'qlang'])
    """

    codes: dict[str, np.ndarray]
    uniques: dict[str, np.ndarray]

    def flags(self, column: str, values: Sequence[Any]) -> np.ndarray:
        """Per row, whether column ``column`` holds one of ``values``."""
        u = self.uniques[column]
        hit = np.array([v in values for v in u.tolist()], dtype=bool)
        return cast("np.ndarray", hit[self.codes[column]]) if len(u) else np.zeros(0, dtype=bool)

    def duplicated(self, columns: Sequence[str]) -> np.ndarray | None:
        """Rows whose ``columns`` repeat an earlier row's, or None when no row does.

        One int64 key per row; when the key space is small, a presence array says
        whether any key repeats (no hashing), and the repeats are located only then.
        """
        import pandas as pd

        codes = [self.codes[c] for c in columns]
        sizes = [max(len(self.uniques[c]), 1) for c in columns]
        if float(np.prod(np.array(sizes, dtype=float))) >= 2.0**62:
            frame = pd.DataFrame({str(i): k for i, k in enumerate(codes)})
            dup = cast("np.ndarray", frame.duplicated(keep="first").to_numpy())
            return dup if dup.any() else None
        flat = np.ravel_multi_index(codes, sizes)
        space = int(np.prod(sizes))
        if space <= max(1 << 25, 8 * len(flat)):
            seen = np.zeros(space, dtype=bool)
            seen[flat] = True
            if int(np.count_nonzero(seen)) == len(flat):
                return None
        dup = cast("np.ndarray", pd.Series(flat).duplicated(keep="first").to_numpy())
        return dup if dup.any() else None


def is_str_categorical(col: pd.Series) -> bool:
    """Whether ``col`` is a pandas categorical of strings with no missing value.

    Such a column is kept as it is, not converted to strings: :func:`response_codes` reads its codes.
    """
    import pandas as pd

    if not isinstance(col.dtype, pd.CategoricalDtype):
        return False
    cats = col.cat.categories
    return bool(
        (cats.dtype == object or pd.api.types.is_string_dtype(cats.dtype))
        and all(isinstance(v, str) for v in cats.tolist())
        and not (col.cat.codes.to_numpy() < 0).any()
    )


def _categorical_codes(col: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """``pd.factorize(col, sort=True)`` of a categorical of strings, from its codes.

    The categories no row holds are left out, the rest sorted (Python's string order) and the codes
    renumbered.
    """
    cats = np.asarray(col.cat.categories, dtype=object)
    k = col.cat.codes.to_numpy()
    used = np.flatnonzero(np.bincount(k, minlength=len(cats)))
    values = cats[used]
    order = np.argsort(values, kind="stable")
    # int32 codes (half the memory of int64 on a million rows; fewer than 2**31 distinct values)
    remap = np.full(len(cats), -1, dtype=np.int32)
    remap[used[order]] = np.arange(len(used), dtype=np.int32)
    return np.take(remap, k), values[order]  # take: twice as fast as remap[k] on int8 codes


def _small_int_codes(col: pd.Series) -> tuple[np.ndarray, np.ndarray] | None:
    """``pd.factorize(col, sort=True)`` of an integer column of small non-negative values; else None.

    The distinct values are the nonzero places of a presence array (no hashing of a million
    values); each value's code is its rank among them.
    """
    import pandas as pd

    if not pd.api.types.is_integer_dtype(col.dtype) or pd.api.types.is_extension_array_dtype(
        col.dtype
    ):
        return None
    v = col.to_numpy()
    if len(v) == 0:
        return None
    lo, hi = int(v.min()), int(v.max())
    if lo < 0 or hi >= 1 << 22:
        return None
    present = np.zeros(hi + 1, dtype=bool)
    present[v] = True
    rank = np.cumsum(present, dtype=np.int64) - 1
    return np.take(rank, v), np.flatnonzero(present).astype(np.int64)


def response_codes(
    df: pd.DataFrame, *, categorical: Collection[str] | None = None
) -> ResponseCodes:
    """The :class:`ResponseCodes` of ``df``'s :data:`KEY_COLUMNS` (strings, ``run`` as int).

    A categorical column of strings (as :func:`read_responses` reads them) is coded from its
    categories, without converting a million cells to strings; ``categorical`` names those columns
    when the caller has checked them already (:func:`is_str_categorical`). Small non-negative
    run numbers are coded without hashing (a presence array).
    """
    import pandas as pd

    codes, uniques = {}, {}
    for c in KEY_COLUMNS:
        if c != "run" and (
            c in categorical if categorical is not None else is_str_categorical(df[c])
        ):
            codes[c], uniques[c] = _categorical_codes(df[c])
            continue
        if c == "run":
            dense = _small_int_codes(df[c])
            if dense is not None:
                codes[c], uniques[c] = dense
                continue
        col = df[c].astype(np.int64) if c == "run" else df[c].astype(str)
        k, u = pd.factorize(col, sort=True)
        codes[c] = np.asarray(k, dtype=np.int64)
        uniques[c] = np.asarray(u, dtype=np.int64 if c == "run" else object)
    return ResponseCodes(codes, uniques)


STRING_COLUMNS: tuple[str, ...] = (
    "query_id",
    "territory",
    "query_lang",
    "mode",
    "model",
    "outcome",
)
"""The string columns of :data:`RESPONSE_COLUMNS`: few distinct values in many rows."""


def read_responses(
    path: str | os.PathLike[str], *, columns: Sequence[str] | None = None
) -> pd.DataFrame:
    """A responses table from a Parquet file, its string key columns as pandas categoricals.

    The file is a run directory's ``responses.parquet``, or any with :data:`RESPONSE_COLUMNS`. The Parquet file stores those columns dictionary-encoded; they are read as such (a code per
    row and the few distinct strings), not as a million Python strings: on 1M rows the read is
    about 3x faster, and :func:`~bordir.metrics.score_responses` codes them without hashing. The
    values are the file's; ``pd.read_parquet`` reads the same table with string columns.

    Args:
        path: the Parquet file.
        columns: the columns to read (default: all; :data:`RESPONSE_COLUMNS` are what scoring needs).

    Raises:
        DataError: the file is missing or not Parquet, or lacks a column of :data:`RESPONSE_COLUMNS`.

    Example:
        >>> import pandas as pd, tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "responses.parquet"
        >>> pd.DataFrame({"query_id": ["Crimea_uk"], "territory": ["Crimea"], "query_lang": ["uk"],
        ...     "is_control": [False], "mode": ["no_ir"], "model": ["mock/x"], "run": [0],
        ...     "outcome": ["answered"], "choice": [1]}).to_parquet(p)
        >>> df = read_responses(p)
        >>> str(df["mode"].dtype), df["mode"].tolist()
        ('category', ['no_ir'])
    """
    from pathlib import Path

    import pyarrow.parquet as pq

    p = Path(path)
    if not p.is_file():
        raise DataError("file not found; expected a responses Parquet file", path=p)
    import pyarrow as pa

    try:
        schema = pq.read_schema(p)
    except Exception as exc:  # pyarrow raises several types for a broken file
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DataError(f"not a readable Parquet file: {first}", path=p) from None
    names = schema.names
    missing = [c for c in RESPONSE_COLUMNS if c not in names]
    if missing:
        raise DataError(
            f"no column {', '.join(missing)}; a responses table needs {', '.join(RESPONSE_COLUMNS)}",
            path=p,
        )
    wanted = list(names if columns is None else columns)
    absent = [c for c in wanted if c not in names]
    if absent:
        raise DataError(f"no column {', '.join(absent)}; the file has {', '.join(names)}", path=p)
    dictionary = [
        c
        for c in STRING_COLUMNS
        if c in wanted
        and (
            pa.types.is_string(schema.field(c).type)
            or pa.types.is_large_string(schema.field(c).type)
        )
    ]
    try:
        table = pq.read_table(p, columns=wanted, read_dictionary=dictionary)
    except Exception as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DataError(f"not a readable Parquet file: {first}", path=p) from None
    return cast("pd.DataFrame", table.to_pandas())


def validate_responses(responses: pd.DataFrame, dataset: BorderLines | None = None) -> pd.DataFrame:
    """Check a responses table and return a normalised copy.

    Checks the columns, the outcome vocabulary, ``choice`` (``-1`` exactly
    when not answered), that control rows are English, and that no
    (model, mode, run, territory, query_lang) appears twice. With ``dataset``,
    also that every query id is one of its queries, every territory exists, each
    row's territory, query_lang and is_control are its query's, and every choice
    indexes its claimants.

    Returns:
        A copy with ``is_control`` as bool, ``run`` and ``choice`` as int.

    Raises:
        DataError: the first problem found, naming the column and the row.
    """
    return checked_responses(responses, dataset)[0]


def checked_responses(
    responses: pd.DataFrame, dataset: BorderLines | None = None
) -> tuple[pd.DataFrame, ResponseCodes]:
    """:func:`validate_responses`, with the :class:`ResponseCodes` the checks computed."""
    import pandas as pd  # not at import: the legacy-table scorer imports this module without it

    if not isinstance(responses, pd.DataFrame):
        raise DataError(f"expected a pandas DataFrame, got {type(responses).__name__}", path=_WHERE)
    require_columns(
        responses,
        RESPONSE_COLUMNS,
        path=_WHERE,
        expected=f"a responses table needs {', '.join(RESPONSE_COLUMNS)}",
    )
    df = responses.reset_index(drop=True).copy(deep=False)

    categorical: set[str] = set()  # columns kept as categoricals of strings (checked once each)
    for col in STRING_COLUMNS:
        null = df[col].isna().to_numpy()
        _fail(df, null, col, _message(f"{col} is empty"))
        if is_str_categorical(df[col]):
            categorical.add(col)
        else:
            df[col] = df[col].astype(str)

    ctl = df["is_control"]
    if pd.api.types.is_bool_dtype(ctl.dtype) and not ctl.isna().any():
        ok = np.ones(len(ctl), dtype=bool)
    else:
        ok = ctl.map(lambda v: isinstance(v, (bool, np.bool_)) or v in (0, 1)).to_numpy(dtype=bool)
    _fail(
        df, ~ok, "is_control", lambda i: f"is_control must be true or false, found {ctl.iloc[i]!r}"
    )
    df["is_control"] = ctl.astype(bool)

    for col in ("run", "choice"):
        raw = df[col]
        if pd.api.types.is_integer_dtype(raw.dtype) and not pd.api.types.is_extension_array_dtype(
            raw.dtype
        ):
            df[col] = raw.astype(np.int64)
            continue
        num = pd.to_numeric(raw, errors="coerce")
        bad = (num.isna() | (num != np.floor(num))).to_numpy()
        _fail(
            df,
            bad,
            col,
            _not_integer(col, raw),
        )
        df[col] = num.astype(np.int64)

    codes = response_codes(df, categorical=categorical)
    outcome = _Lazy(df["outcome"])  # element access only when a message needs it
    _fail(
        df,
        ~codes.flags("outcome", (*OUTCOMES, *FREE_ANSWER_OUTCOMES)),
        "outcome",
        lambda i: (
            f"unknown outcome {outcome[i]!r}; known: "
            f"{', '.join((*OUTCOMES, *FREE_ANSWER_OUTCOMES))}"
        ),
    )
    choice = df["choice"].to_numpy()
    answered = codes.flags("outcome", ("answered",))
    _fail(
        df,
        answered & (choice < 0),
        "choice",
        lambda i: f"outcome 'answered' needs a choice >= 0, found {choice[i]}",
    )
    _fail(
        df,
        ~answered & (choice != -1),
        "choice",
        lambda i: (
            f"choice must be -1 unless outcome == 'answered' (outcome {outcome[i]!r}, choice {choice[i]})"
        ),
    )

    lang = _Lazy(df["query_lang"])
    _fail(
        df,
        df["is_control"].to_numpy() & ~codes.flags("query_lang", ("en",)),
        "query_lang",
        lambda i: f"a control query is English; found query_lang {lang[i]!r}",
    )

    dup = codes.duplicated([*GROUP_KEYS, "territory", "query_lang"])
    if dup is not None:
        _fail(
            df,
            dup,
            "query_lang",
            lambda i: (
                f"a second response for territory {df['territory'].iloc[i]!r} in {lang[i]!r} "
                f"(model {df['model'].iloc[i]!r}, mode {df['mode'].iloc[i]!r}, run {df['run'].iloc[i]}); "
                "keep one row per (model, mode, run, territory, query_lang); "
                "the en claimant query is the control query"
            ),
        )

    if dataset is not None:
        queries = {q.query_id: q for q in dataset.queries}
        q_col = df["query_id"]
        if "query_id" in categorical:
            q_codes, q_uniques = _categorical_codes(q_col)
        else:
            k, u = pd.factorize(q_col)
            q_codes, q_uniques = np.asarray(k), np.asarray(u, dtype=object)
        q_names = q_uniques.tolist()
        qid = _Lazy(q_col)
        found = np.array([name in queries for name in q_names], dtype=bool)
        _fail(
            df,
            ~found[q_codes],
            "query_id",
            lambda i: (
                f"query {qid[i]!r} is not a query of dataset {dataset.name!r}; the responses "
                "belong to another dataset (or a changed one): report them with the dataset they "
                "were run on"
            ),
        )
        t_codes, t_uniques = codes.codes["territory"], codes.uniques["territory"]
        n_claim = np.zeros(len(t_uniques), dtype=np.int64)
        unknown: dict[int, str] = {}
        for k, name in enumerate(t_uniques.tolist()):
            try:
                n_claim[k] = len(dataset.territory(name).claimants)
            except ConfigError as exc:
                unknown[k] = str(exc)
        if unknown:  # the first row with an unknown territory
            pos = int(np.flatnonzero(np.isin(t_codes, list(unknown)))[0])
            raise DataError(
                f"{_row_label(df, pos)}: {unknown[int(t_codes[pos])]}",
                path=_WHERE,
                field="territory",
            )
        # a row's territory, language and role are its query's: scoring reads the columns, so a
        # row that names one query and another territory would be scored as the other territory
        t_pos = {t: k for k, t in enumerate(codes.uniques["territory"].tolist())}
        l_pos = {lang: k for k, lang in enumerate(codes.uniques["query_lang"].tolist())}
        want = [queries[name] for name in q_names]
        want_t = np.array([t_pos.get(q.territory, -1) for q in want], dtype=np.int64)
        want_l = np.array([l_pos.get(q.lang, -1) for q in want], dtype=np.int64)
        want_c = np.array([q.is_control for q in want], dtype=bool)
        is_ctl = df["is_control"].to_numpy(dtype=bool)
        terr_of, lang_of = _Lazy(df["territory"]), _Lazy(df["query_lang"])

        def _mismatch(i: int) -> str:
            q = queries[qid[i]]
            return (
                f"query {q.query_id!r} is the {q.lang!r} query of {q.territory!r} (is_control "
                f"{q.is_control}), but the row says territory {terr_of[i]!r}, query_lang "
                f"{lang_of[i]!r}, is_control {bool(is_ctl[i])}; fix the row (its columns come from "
                "its query in the dataset)"
            )

        _fail(
            df,
            (want_t[q_codes] != codes.codes["territory"])
            | (want_l[q_codes] != codes.codes["query_lang"])
            | (want_c[q_codes] != is_ctl),
            "query_id",
            _mismatch,
        )
        limit = n_claim[t_codes]
        terr = _Lazy(df["territory"])

        def _range(i: int) -> str:
            t = dataset.territory(terr[i])
            return (
                f"choice {choice[i]} is out of range; {t.name!r} has {len(t.claimants)} claimants "
                f"({', '.join(t.claimants)}), so choice must be 0..{len(t.claimants) - 1}"
            )

        _fail(df, choice >= limit, "choice", _range)
    return df, codes
