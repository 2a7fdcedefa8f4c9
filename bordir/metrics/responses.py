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
outcome       str     ``answered``, ``refused``, ``multiple``, ``echo``, ``unparsed``, ``failed``;
                      open answers: ``several``, ``controller_only``, ``refusal``,
                      ``other_country``, ``empty``
choice        int     option index into the territory's claimants; ``-1`` unless answered
============  ======  ==========================================================

When English is a claimant language, the control query *is* the ``en``
claimant query: it has one row (``is_control`` true), not two.

A **policy** says what a non-answered response (``refused``, ``multiple``, ``echo``,
``unparsed``, ``failed``) counts as:

* ``strict`` (default): it is missing. It names no country; every comparison
  involving it (KB, Control, Non-control, Cst pairs) is skipped and counted.
  An ``echo`` (a reply that is mostly a copy of its prompt or of a document,
  :mod:`bordir.generation.parse.echo`) is missing like an unparsed answer.
* ``reference``: the BorderLines/BordIRLines compatibility policy. In the
  claimant-language answers (``Responses_d``) a non-answered response is the
  *Pick*, option A; the control answer used for KB (``Response_en``) is the
  string ``"None"``, which matches no controller, so it counts as wrong. An
  ``echo`` row counts so too, as the reference counts every reply it cannot
  parse (the reference parse policy itself never labels a reply ``echo``).

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

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import numpy as np

from .._io.columns import require_columns
from ..errors import ConfigError, DataError
from ..policies import PARSE_POLICIES
from .codes import ResponseCodes, categorical_codes, is_str_categorical, response_codes

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ..dataset import BorderLines

__all__ = [
    "SCORING_COLUMNS",
    "OUTCOMES",
    "FREE_ANSWER_OUTCOMES",
    "POLICIES",
    "Policy",
    "GROUP_KEYS",
    "TableKey",
    "check_policy",
    "validate_responses",
    "checked_responses",
    "STRING_COLUMNS",
    "answer_pick",
    "answer_control",
]

SCORING_COLUMNS: tuple[str, ...] = (
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
"""The columns scoring reads from a responses table (the file has more:
:data:`bordir.runner.rows.RESPONSE_COLUMNS`, every column ``responses.parquet`` holds)."""
STRING_COLUMNS: tuple[str, ...] = (
    "query_id",
    "territory",
    "query_lang",
    "mode",
    "model",
    "outcome",
)
"""The string columns of :data:`SCORING_COLUMNS`: few distinct values in many rows."""
OUTCOMES: tuple[str, ...] = ("answered", "refused", "multiple", "echo", "unparsed", "failed")
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
        SCORING_COLUMNS,
        path=_WHERE,
        expected=f"a responses table needs {', '.join(SCORING_COLUMNS)}",
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
            q_codes, q_uniques = categorical_codes(q_col)
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
