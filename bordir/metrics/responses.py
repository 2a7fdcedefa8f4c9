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
outcome       str     ``answered``, ``refused``, ``multiple``, ``unparsed``, ``failed``
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

from collections.abc import Callable, Sequence
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
    "POLICIES",
    "Policy",
    "GROUP_KEYS",
    "TableKey",
    "check_policy",
    "validate_responses",
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


def _duplicated(df: pd.DataFrame, key: list[str]) -> np.ndarray:
    """``df.duplicated(key, keep="first")`` as a numpy array, from one int64 code per row."""
    import pandas as pd

    codes, sizes = [], []
    for c in key:
        k, u = pd.factorize(df[c])
        codes.append(np.asarray(k, dtype=np.int64))
        sizes.append(max(len(u), 1))
    if float(np.prod(np.array(sizes, dtype=float))) >= 2.0**62:
        return cast("np.ndarray", df.duplicated(key, keep="first").to_numpy())
    flat = np.ravel_multi_index(codes, sizes) if codes else np.zeros(len(df), np.int64)
    return cast("np.ndarray", pd.Series(flat).duplicated(keep="first").to_numpy())


def validate_responses(responses: pd.DataFrame, dataset: BorderLines | None = None) -> pd.DataFrame:
    """Check a responses table and return a normalised copy.

    Checks the columns, the outcome vocabulary, ``choice`` (``-1`` exactly
    when not answered), that control rows are English, and that no
    (model, mode, run, territory, query_lang) appears twice. With ``dataset``,
    also that every query id is one of its queries, every territory exists and
    every choice indexes its claimants.

    Returns:
        A copy with ``is_control`` as bool, ``run`` and ``choice`` as int.

    Raises:
        DataError: the first problem found, naming the column and the row.
    """
    import pandas as pd  # not at import: the legacy-table scorer imports this module without it

    if not isinstance(responses, pd.DataFrame):
        raise DataError(f"expected a pandas DataFrame, got {type(responses).__name__}", path=_WHERE)
    require_columns(
        responses,
        RESPONSE_COLUMNS,
        path=_WHERE,
        expected=f"a responses table needs {', '.join(RESPONSE_COLUMNS)}",
    )
    df = responses.reset_index(drop=True).copy()

    for col in ("query_id", "territory", "query_lang", "mode", "model", "outcome"):
        null = df[col].isna().to_numpy()
        _fail(df, null, col, _message(f"{col} is empty"))
        df[col] = df[col].astype(str)

    outcome = _Lazy(df["outcome"])  # element access only when a message needs it
    bad = ~df["outcome"].isin(OUTCOMES).to_numpy(dtype=bool)
    _fail(
        df,
        bad,
        "outcome",
        lambda i: f"unknown outcome {outcome[i]!r}; known: {', '.join(OUTCOMES)}",
    )

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
        num = pd.to_numeric(df[col], errors="coerce")
        raw = df[col]
        bad = (num.isna() | (num != np.floor(num))).to_numpy()
        _fail(
            df,
            bad,
            col,
            _not_integer(col, raw),
        )
        df[col] = num.astype(np.int64)

    choice = df["choice"].to_numpy()
    answered = (df["outcome"] == "answered").to_numpy(dtype=bool)
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
        df["is_control"].to_numpy() & (df["query_lang"] != "en").to_numpy(dtype=bool),
        "query_lang",
        lambda i: f"a control query is English; found query_lang {lang[i]!r}",
    )

    key = [*GROUP_KEYS, "territory", "query_lang"]
    dup = _duplicated(df, key)
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
        known = {q.query_id for q in dataset.queries}
        qid = _Lazy(df["query_id"])
        _fail(
            df,
            ~df["query_id"].isin(known).to_numpy(dtype=bool),
            "query_id",
            lambda i: (
                f"query {qid[i]!r} is not a query of dataset {dataset.name!r}; the responses "
                "belong to another dataset (or a changed one): report them with the dataset they "
                "were run on"
            ),
        )
        n_claim: dict[str, int] = {}
        for name in pd.unique(df["territory"]):
            try:
                n_claim[name] = len(dataset.territory(name).claimants)
            except ConfigError as exc:
                pos = int(np.flatnonzero(df["territory"].to_numpy() == name)[0])
                raise DataError(
                    f"{_row_label(df, pos)}: {exc}", path=_WHERE, field="territory"
                ) from None
        t_codes, t_uniques = pd.factorize(df["territory"])
        limit = np.array([n_claim[name] for name in t_uniques], dtype=np.int64)[t_codes]
        terr = _Lazy(df["territory"])

        def _range(i: int) -> str:
            t = dataset.territory(terr[i])
            return (
                f"choice {choice[i]} is out of range; {t.name!r} has {len(t.claimants)} claimants "
                f"({', '.join(t.claimants)}), so choice must be 0..{len(t.claimants) - 1}"
            )

        _fail(df, choice >= limit, "choice", _range)
    return df
