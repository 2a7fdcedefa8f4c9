"""Per-territory statistics of every (model, mode, run) of a responses table, vectorised.

:func:`grouped_stats` turns a ``responses`` table into one long per-territory
table (every territory of every (model, mode, run), sorted by key, territories in
dataset order) and its per-answer items, with numpy group-bys
(:mod:`~bordir.metrics.cs.columnar`): no Python loop over territories or answers.
:func:`territory_tables` cuts it into one :class:`TerritoryStats` per key;
:func:`~bordir.metrics.cs.scoring.score_responses` aggregates the slices directly.
The values are those of :func:`~bordir.metrics.cs.territory.territory_stats`
applied territory by territory (a differential test holds them equal).

Example:
    >>> import pandas as pd
    >>> from bordir.loaders import load_demo
    >>> ds = load_demo()
    >>> rows = [{"query_id": q.query_id, "territory": q.territory, "query_lang": q.lang,
    ...          "is_control": q.is_control, "mode": "no_ir", "model": "mock/all-a", "run": 0,
    ...          "outcome": "answered", "choice": 0} for q in ds.queries]
    >>> g = grouped_stats(pd.DataFrame(rows), ds)
    >>> g.keys, len(g.stats(0).table) == len(ds.territories)
    ([TableKey(model='mock/all-a', mode='no_ir', run=0)], True)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ...errors import ConfigError
from ...records import UNKNOWN
from ..codes import ResponseCodes, response_codes
from ..responses import NONE_RESPONSE, Policy, TableKey, check_policy, checked_responses
from .columnar import entry_columns, segment_columns, segment_starts
from .table import ColumnStats, TerritoryStats
from .territory import ITEM_COLUMNS, TERRITORY_COLUMNS

if TYPE_CHECKING:  # pragma: no cover
    from ...dataset import BorderLines

__all__ = ["GroupedStats", "grouped_stats", "territory_tables"]


def _slice(frame: pd.DataFrame, lo: int, hi: int, order: tuple[str, ...]) -> pd.DataFrame:
    """Rows ``lo:hi`` of a long frame, as :func:`~bordir.metrics.cs.table.build_stats` builds them.

    ``build_stats`` infers each column's dtype from the slice's values: an empty
    slice has object columns, and an ``answer`` column with no answer (all
    ``None``) is object rather than a string column.
    """
    if hi <= lo:
        return pd.DataFrame([], columns=list(order))
    out = frame.iloc[lo:hi].reset_index(drop=True)
    if "answer" in out.columns and out["answer"].dtype != object and out["answer"].isna().all():
        out["answer"] = np.full(len(out), None, dtype=object)
    return out


@dataclass
class GroupedStats:
    """The long per-territory table of every (model, mode, run), as column arrays.

    Attributes:
        keys: the :class:`~bordir.metrics.responses.TableKey` of each group, sorted.
        starts: territory rows of group ``i`` are ``starts[i]:starts[i + 1]``.
        item_starts: the same for the per-answer items.
        table: :data:`~bordir.metrics.cs.territory.TERRITORY_COLUMNS` as arrays.
        items: :data:`~bordir.metrics.cs.territory.ITEM_COLUMNS` as arrays (empty
            unless asked for).
        policy: the scoring policy.
    """

    keys: list[TableKey]
    starts: np.ndarray
    item_starts: np.ndarray
    table: dict[str, np.ndarray]
    items: dict[str, np.ndarray]
    policy: str
    _frames: pd.DataFrame | None = field(default=None, repr=False)

    def columns(self, i: int) -> dict[str, np.ndarray]:
        """Group ``i``'s per-territory columns (array views)."""
        lo, hi = int(self.starts[i]), int(self.starts[i + 1])
        return {c: v[lo:hi] for c, v in self.table.items()}

    def stats(self, i: int) -> TerritoryStats:
        """Group ``i`` as :class:`TerritoryStats` (the tables :func:`build_stats` would build).

        The per-territory columns are views of the long table (a
        :class:`~bordir.metrics.cs.table.ColumnStats`); the DataFrames are built when asked for.
        """
        if not self.items:
            raise ConfigError("these statistics were computed without items (items=False)")
        lo, hi = int(self.starts[i]), int(self.starts[i + 1])
        item_lo, item_hi = int(self.item_starts[i]), int(self.item_starts[i + 1])

        def items() -> pd.DataFrame:
            if self._frames is None:
                self._frames = pd.DataFrame({c: self.items[c] for c in ITEM_COLUMNS})
            return _slice(self._frames, item_lo, item_hi, ITEM_COLUMNS)

        return ColumnStats(
            self.columns(i), TERRITORY_COLUMNS, hi - lo, items, self.policy, self.keys[i]._asdict()
        )


def _territory_lookups(dataset: BorderLines) -> dict[str, Any]:
    """Per-territory arrays (dataset order) with *local* answer codes.

    A territory's answers are coded in its own small vocabulary (its claimants,
    then its controller, then ``"None"``; equal names share a code), so a
    (territory, answer) key space is small enough to count with ``bincount``.
    """
    terrs = dataset.territories
    vocabs: list[dict[str, int]] = []
    for t in terrs:
        v: dict[str, int] = {}
        for name in (*t.claimants, t.controller, NONE_RESPONSE):
            v.setdefault(name, len(v))
        vocabs.append(v)
    width = max((len(t.claimants) for t in terrs), default=1)
    n_codes = max((len(v) for v in vocabs), default=1)
    claim = np.full((len(terrs), width), -1, dtype=np.int32)  # local codes: small
    text = np.full((len(terrs), n_codes), None, dtype=object)
    for i, (t, v) in enumerate(zip(terrs, vocabs)):
        claim[i, : len(t.claimants)] = [v[c] for c in t.claimants]
        for name, c in v.items():
            text[i, c] = name
    return {
        "names": np.array([t.name for t in terrs], dtype=object),
        "controller": np.array([t.controller for t in terrs], dtype=object),
        "controller_code": np.array([dataset.controller_lang(t.name) for t in terrs], dtype=object),
        "known": np.array([t.controller != UNKNOWN for t in terrs], dtype=bool),
        "controller_value": np.array(
            [v[t.controller] for t, v in zip(terrs, vocabs)], dtype=np.int64
        ),
        "none_value": np.array([v[NONE_RESPONSE] for v in vocabs], dtype=np.int64),
        "en_claimant": np.array(
            ["en" in dataset.claimant_langs(t.name) for t in terrs], dtype=bool
        ),
        "claim": claim,
        "text": text,
    }


def _territory_index(dataset: BorderLines, codes: ResponseCodes) -> np.ndarray:
    """Each row's territory as its position in ``dataset.territories``."""
    uniques = codes.uniques["territory"]
    pos = pd.Index([t.name for t in dataset.territories]).get_indexer(
        pd.Index(uniques, dtype=object)
    )
    if (pos < 0).any():
        dataset.territory(str(uniques[int(np.flatnonzero(pos < 0)[0])]))  # raises ConfigError
    return np.take(pos.astype(np.int32), codes.codes["territory"])


def _dense(keys: np.ndarray, space: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of ``keys`` (ints in ``0 … space − 1``), sorted, and each key's rank among them."""
    present = np.zeros(space, dtype=bool)
    present[keys] = True
    rank = np.cumsum(present, dtype=index_dtype(space)) - 1
    return np.flatnonzero(present), np.take(rank, keys)


def index_dtype(space: int) -> type[np.signedinteger[Any]]:
    """int32 for codes and keys below ``space`` when they fit, else int64.

    int32 halves the memory a million rows touch (and the first-touch page faults of a fresh
    process); the keys that combine several codes are checked against their whole space.
    """
    return np.int32 if space < 2**31 else np.int64


def grouped_stats(
    responses: pd.DataFrame,
    dataset: BorderLines,
    *,
    policy: Policy = "strict",
    validate: bool = True,
    items: bool = True,
) -> GroupedStats:
    """The per-territory statistics of every (model, mode, run) of a responses table, in one pass.

    Semantics as :func:`territory_tables`; ``items=False`` skips the per-answer
    items (scores need only the per-territory table).
    """
    check_policy(policy)
    if validate:
        df, codes = checked_responses(responses, dataset)
    else:
        df, codes = responses, response_codes(responses)
    strict = policy == "strict"
    lk = _territory_lookups(dataset)
    n_terr = len(lk["names"])
    t_idx = _territory_index(dataset, codes)
    c, u = codes.codes, codes.uniques
    model_u, mode_u, run_u, lang_u = u["model"], u["mode"], u["run"], u["query_lang"]
    lang_c = c["query_lang"]
    is_ctl = df["is_control"].to_numpy(dtype=bool)
    choice = df["choice"].to_numpy(dtype=np.int64)
    answered = codes.flags("outcome", ("answered",))

    n_gkey = len(model_u) * len(mode_u) * len(run_u)
    kd = index_dtype(max(n_gkey, 1))
    gvals, gid = _dense(
        (c["model"].astype(kd) * len(mode_u) + c["mode"]) * len(run_u) + c["run"].astype(kd),
        max(n_gkey, 1),
    )
    # A validated table has one row per (group, territory, language), so the statistics need no
    # row order; the items (and an unvalidated table, where the last of repeated rows counts) do.
    ordered = items or not validate
    if ordered:
        # one sort by (group, territory, language, control): ties keep their row order
        order = np.argsort(
            ((gid.astype(np.int64) * n_terr + t_idx) * len(lang_u) + lang_c) * 2 + is_ctl,
            kind="stable",
        )
        gid, t_idx, lang_c, is_ctl = gid[order], t_idx[order], lang_c[order], is_ctl[order]
        choice, answered = choice[order], answered[order]
        del order
        seg_bounds = segment_starts(gid.astype(np.int64) * n_terr + t_idx)
        n_seg = len(seg_bounds) - 1
        seg = np.repeat(np.arange(n_seg, dtype=np.int64), np.diff(seg_bounds))
        seg_t = t_idx[seg_bounds[:-1]]
        seg_g = gid[seg_bounds[:-1]]
        n_queries = np.diff(seg_bounds).astype(np.int64)
    else:
        space = max(len(gvals) * n_terr, 1)
        seg_keys, seg = _dense(gid.astype(index_dtype(space), copy=False) * n_terr + t_idx, space)
        n_seg = len(seg_keys)
        seg_t, seg_g = seg_keys % n_terr, seg_keys // n_terr
        n_queries = np.bincount(seg, minlength=n_seg).astype(np.int64)
    del gid

    missing_value = -1
    chosen = lk["claim"][t_idx, np.where(answered, choice, 0)]
    pick = np.where(answered | (not strict), chosen, missing_value)
    control = np.where(answered, chosen, missing_value if strict else lk["none_value"][t_idx])

    # the control answer: the last control row of the territory (rows are sorted)
    response_en = (
        np.full(n_seg, missing_value, dtype=np.int64) if strict else lk["none_value"][seg_t].copy()
    )
    ctl_rows = np.flatnonzero(is_ctl)
    if len(ctl_rows):
        last = (
            ctl_rows[np.r_[seg[ctl_rows][1:] != seg[ctl_rows][:-1], True]] if ordered else ctl_rows
        )
        response_en[seg[last]] = control[last]

    # Responses_d: one entry per (territory, language), the last row's; en only for claimants
    en_code = np.flatnonzero(lang_u == "en")
    is_en_row = lang_c == (int(en_code[0]) if len(en_code) else -1)
    kept = ~is_en_row | lk["en_claimant"][t_idx]
    if ordered:
        kept &= np.r_[(seg[1:] != seg[:-1]) | (lang_c[1:] != lang_c[:-1]), True]
    e = np.flatnonzero(kept)
    del kept
    e_seg, e_val, e_t, e_lang, e_is_en = seg[e], pick[e], t_idx[e], lang_c[e], is_en_row[e]
    e_miss = e_val == missing_value
    ctl_lang = pd.Index(lang_u).get_indexer(pd.Index(lk["controller_code"], dtype=object))
    e_ctl_lang = e_lang == ctl_lang[e_t]
    # the per-row arrays are done with: free them before the counting (the peak of memory)
    del codes, c, seg, pick, control, chosen, choice, answered, is_ctl, t_idx, lang_c, is_en_row, e
    seg_known = lk["known"][seg_t]
    seg_ctrl = lk["controller_value"][seg_t]
    table = {
        "territory": lk["names"][seg_t],
        "controller": lk["controller"][seg_t],
        "controller_code": lk["controller_code"][seg_t],
        "controller_known": seg_known,
        "n_queries": n_queries,
        **segment_columns(
            n_segments=n_seg,
            seg=e_seg,
            value=e_val,
            missing=e_miss,
            controller_lang=e_ctl_lang,
            is_en=e_is_en,
            known=seg_known,
            controller=seg_ctrl,
            response_en=response_en,
            response_en_missing=response_en == missing_value,
        ),
    }
    item_cols: dict[str, np.ndarray] = {}
    if items:
        item_cols = {
            "territory": lk["names"][e_t],
            "query_lang": lang_u[e_lang],
            **entry_columns(
                seg=e_seg,
                value=e_val,
                missing=e_miss,
                controller_lang=e_ctl_lang,
                known=seg_known,
                controller=seg_ctrl,
                text=lk["text"][e_t, np.maximum(e_val, 0)],
            ),
        }
    starts = np.searchsorted(seg_g, np.arange(len(gvals) + 1))
    item_starts = np.searchsorted(e_seg, starts) if items else np.zeros(len(starts), dtype=np.int64)
    keys = []
    for g in gvals:
        rest, r = divmod(int(g), len(run_u))
        m, mo = divmod(rest, len(mode_u))
        keys.append(TableKey(str(model_u[m]), str(mode_u[mo]), int(run_u[r])))
    return GroupedStats(keys, starts, item_starts, table, item_cols, policy)


def territory_tables(
    responses: pd.DataFrame,
    dataset: BorderLines,
    *,
    policy: Policy = "strict",
    validate: bool = True,
) -> dict[TableKey, TerritoryStats]:
    """Per-territory statistics for every (model, mode, run) of a responses table.

    A territory is scored in a group when the group has at least one response
    for it. ``Responses_d`` holds its non-control answers by query language,
    plus the control answer as ``en`` when ``en`` is a claimant language
    (``dataset.claimant_langs``); ``Response_en`` is the control answer (under
    the reference policy a missing control row is ``"None"``, as in the
    reference, where the lookup fails). Territories appear in dataset order.

    Returns:
        ``{TableKey(model, mode, run): TerritoryStats}`` sorted by key; a
        :class:`~bordir.metrics.responses.TableKey` is a named tuple, so
        ``for (model, mode, run), stats in tables.items()`` still works.
    """
    g = grouped_stats(responses, dataset, policy=policy, validate=validate)
    return {key: g.stats(i) for i, key in enumerate(g.keys)}
