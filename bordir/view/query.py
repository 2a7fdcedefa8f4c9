"""The served page's queries, answered on the server: filter, count facets, search, sort and page.

:class:`RunQuery` holds a run's facet columns as integer codes (numpy) and
answers the same questions the static page answers in JavaScript, with the same
semantics: a facet filter keeps the rows whose value is one of the chosen
ones (a multi-valued facet: one of its values); the search keeps the rows whose
reply contains the text (case-insensitive); the counts of a facet are taken with
every *other* filter applied; sorting is stable (ties in row order).

The per-column sort orders are computed once, on first use, so a sorted page
is a mask over a precomputed permutation, not a sort.

:func:`numbers` recomputes the numbers of the rows on screen with bordir's own
metric functions (:mod:`bordir.metrics`): the CS metrics per model × mode (mean
over runs), a mode comparison (runs pooled per territory, common territories),
a per-language comparison and a citation rate.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, cast

import numpy as np
import pandas as pd

from ..errors import ConfigError
from .columns import codes_of
from .page import embed_json
from .run_data import REQUIRED, RUN_FACETS, RunData, as_list

__all__ = ["RunQuery", "PAGE_ROWS", "SEP"]

PAGE_ROWS = 50
SEP = "\x1f"
"""Separates the values of one facet in a served page's query string."""

_SORTABLE = (
    "territory",
    "lang",
    "mode",
    "model",
    "run",
    "order",
    "outcome",
    "answer",
    "agree",
    "cited",
    "reply",
)


class RunQuery:
    """Queries over one run's rows (see the module docs)."""

    def __init__(self, data: RunData) -> None:
        self.data = data
        self.n = data.n_rows
        self.codes: dict[str, np.ndarray] = {}
        self.vocab: dict[str, list[str]] = {}
        for f in RUN_FACETS:
            c, v = codes_of(data.facets[f.key])
            self.codes[f.key], self.vocab[f.key] = c.astype(np.int32), v
        self.multi = {
            f.key: [x.split(",") if x else ["(none)"] for x in self.vocab[f.key]]
            for f in RUN_FACETS
            if f.multi
        }
        raw = (
            data.frame["raw_text"] if "raw_text" in data.frame.columns else pd.Series([""] * self.n)
        )
        rc, rv = codes_of(raw.fillna("").astype(str))
        self.codes["reply"], self.vocab["reply"] = rc.astype(np.int32), rv
        self.choice = data.frame["choice"].fillna(-1).astype(np.int64).to_numpy()
        self._orders: dict[str, np.ndarray] = {}
        self._search: tuple[str, np.ndarray] | None = None

    # --- filtering ---------------------------------------------------------------------------
    def _lut(self, key: str, wanted: list[str]) -> np.ndarray:
        want = set(wanted)
        if key in self.multi:
            return np.array([any(x in want for x in vals) for vals in self.multi[key]], dtype=bool)
        return np.array([v in want for v in self.vocab[key]], dtype=bool)

    def _search_mask(self, q: str) -> np.ndarray:
        if self._search is None or self._search[0] != q:
            import pyarrow as pa
            import pyarrow.compute as pc

            hit = pc.match_substring(
                pa.array(self.vocab["reply"], type=pa.string()), q, ignore_case=True
            )
            lut = np.asarray(hit.to_numpy(zero_copy_only=False), dtype=bool)
            self._search = (q, lut)
        return cast("np.ndarray", self._search[1][self.codes["reply"]])

    def filter(
        self, filters: Mapping[str, list[str]], q: str = ""
    ) -> tuple[np.ndarray, dict[str, list[list[Any]]]]:
        """The mask of the rows passing every filter, and each facet's ``[value, count]`` pairs."""
        active = {k: v for k, v in filters.items() if v and k in self.codes}
        masks = {k: self._lut(k, v)[self.codes[k]] for k, v in active.items()}
        base = self._search_mask(q) if q else np.ones(self.n, dtype=bool)
        total = base.copy()
        for m in masks.values():
            total &= m
        facets: dict[str, list[list[Any]]] = {}
        for f in RUN_FACETS:
            if f.key in masks:
                sel = base.copy()
                for k, m in masks.items():
                    if k != f.key:
                        sel &= m
            else:
                sel = total
            counts = np.bincount(self.codes[f.key][sel], minlength=len(self.vocab[f.key]))
            if f.multi:
                acc: dict[str, int] = {}
                for vals, n in zip(self.multi[f.key], counts.tolist()):
                    for v in vals:
                        acc[v] = acc.get(v, 0) + int(n)
                facets[f.key] = [[v, n] for v, n in acc.items()]
            else:
                facets[f.key] = [[v, int(n)] for v, n in zip(self.vocab[f.key], counts.tolist())]
        return total, facets

    def _order(self, key: str) -> np.ndarray:
        if key not in self._orders:
            vocab = self.vocab[key]
            if key == "run":
                rank = np.argsort(
                    np.argsort(np.array([int(v) for v in vocab]), kind="stable"), kind="stable"
                )
            else:
                rank = np.argsort(
                    np.argsort(np.array(vocab, dtype=object), kind="stable"), kind="stable"
                )
            self._orders[key] = np.argsort(rank[self.codes[key]], kind="stable")
        return self._orders[key]

    def query(self, params: Mapping[str, str]) -> dict[str, Any]:
        """One page: ``total``, ``all``, ``rows`` (the page's records), ``facets``, ``page``."""
        filters = {f.key: params[f.key].split(SEP) for f in RUN_FACETS if params.get(f.key)}
        mask, facets = self.filter(filters, params.get("q", ""))
        sort = params.get("sort") or ""
        if sort and sort not in _SORTABLE:
            raise ConfigError(f"sort={sort!r}: expected one of {', '.join(_SORTABLE)}")
        if sort:
            order = self._order(sort)
            if params.get("dir") == "desc":
                # descending values, ties still in row order
                vals = self.codes[sort][order]
                idx = order[mask[order]]
                v = vals[mask[order]]
                rank = self._value_rank(sort)[v]
                idx = idx[np.lexsort((idx, -rank))]
            else:
                idx = order[mask[order]]
        else:
            idx = np.flatnonzero(mask)
        try:
            page = max(0, int(params.get("page") or 0))
        except ValueError:
            raise ConfigError(f"page={params.get('page')!r}: expected a whole number") from None
        sel = idx[page * PAGE_ROWS : (page + 1) * PAGE_ROWS]
        return {
            "total": int(mask.sum()),
            "all": self.n,
            "rows": [self.record(int(i)) for i in sel],
            "facets": facets,
            "page": page,
            "_mask": mask,
        }

    def _value_rank(self, key: str) -> np.ndarray:
        vocab = self.vocab[key]
        keyf = (lambda v: int(v)) if key == "run" else (lambda v: v)
        order = sorted(range(len(vocab)), key=lambda i: keyf(vocab[i]))
        rank = np.empty(len(vocab), dtype=np.int64)
        rank[order] = np.arange(len(vocab))
        return rank

    def record(self, i: int) -> dict[str, Any]:
        """Row ``i`` as the page's table shows it."""
        out: dict[str, Any] = {"id": i}
        for f in RUN_FACETS:
            c = int(self.codes[f.key][i])
            out[f.key] = self.vocab[f.key][c] if c >= 0 else None
        out["reply"] = self.vocab["reply"][int(self.codes["reply"][i])]
        out["choice"] = int(self.choice[i])
        return out

    def territory(self, name: str) -> list[dict[str, Any]]:
        """Every row of territory ``name`` (for the matrix)."""
        if name not in self.vocab["territory"]:
            raise ConfigError(f"t={name!r}: not a territory of this run")
        code = self.vocab["territory"].index(name)
        return [self.record(int(i)) for i in np.flatnonzero(self.codes["territory"] == code)]

    # --- numbers -----------------------------------------------------------------------------
    def numbers(self, params: Mapping[str, str]) -> dict[str, Any]:
        """The numbers of the rows a query selects (see the module docs); the same as the static page's."""
        filters = {f.key: params[f.key].split(SEP) for f in RUN_FACETS if params.get(f.key)}
        mask, _ = self.filter(filters, params.get("q", ""))
        return numbers(self, mask, params.get("metric") or "")


def _nan(x: Any) -> float | None:
    if x is None:
        return None
    x = float(x)
    return None if math.isnan(x) else x


def _frame(rq: RunQuery, idx: np.ndarray) -> pd.DataFrame:
    df = rq.data.frame
    sub = df.iloc[idx][list(REQUIRED)].reset_index(drop=True)
    sub["choice"] = sub["choice"].fillna(-1).astype(np.int64)
    return sub


def _cs_cell(rq: RunQuery, sub: pd.DataFrame, mode: str) -> dict[str, Any]:
    from ..metrics import METRICS, metric_value, territory_tables

    policy = rq.data.config.policy
    tables = territory_tables(sub, rq.data.dataset, policy=policy, validate=False)
    kb_undefined = mode == "swap_docs" or not bool(sub["is_control"].any())
    runs = sorted(k.run for k in tables)
    n_control = int(sub["is_control"].sum())
    out: dict[str, Any] = {
        "runs": runs,
        "n_rows": len(sub),
        "n_control": n_control,  # the rows KB CS reads; the other CS metrics read the rest
        "n_query": len(sub) - n_control,
        "n_territories": int(sub["territory"].nunique()),
        "metrics": {},
    }
    for m in METRICS:
        vals = [
            math.nan if (m == "kb_cs" and kb_undefined) else float(metric_value(tables[k].table, m))
            for k in sorted(tables, key=lambda k: k.run)
        ]
        ok = [v for v in vals if not math.isnan(v)]
        out["metrics"][m] = {
            "mean": _nan(sum(ok) / len(ok)) if ok else None,
            "per_run": [_nan(v) for v in vals],
        }
    return out


def _pooled(rq: RunQuery, sub: pd.DataFrame) -> pd.DataFrame:
    from ..metrics import pool_runs, territory_tables

    tables = territory_tables(sub, rq.data.dataset, policy=rq.data.config.policy, validate=False)
    return pool_runs([tables[k] for k in sorted(tables, key=lambda k: k.run)])


def numbers(rq: RunQuery, mask: np.ndarray, metric: str) -> dict[str, Any]:
    """The numbers panel of the rows in ``mask`` (the static page's ``runNumbers``)."""
    from ..metrics import metric_value

    idx = np.flatnonzero(mask)
    given_mask = mask & (np.asarray(rq.data.facets["order"]) == "given")
    gidx = np.flatnonzero(given_mask)
    out: dict[str, Any] = {
        "n": int(len(idx)),
        "n_given": int(len(gidx)),
        "groups": [],
        "metric": None,
    }
    sub = _frame(rq, gidx)
    order_models, order_modes = rq.data.models, rq.data.modes
    keys = sorted(
        set(zip(sub["model"].astype(str), sub["mode"].astype(str))),
        key=lambda k: (order_models.index(k[0]), order_modes.index(k[1])),
    )
    for model, mode in keys[:24]:
        g = sub[(sub["model"] == model) & (sub["mode"] == mode)]
        out["groups"].append({"model": model, "mode": mode, "cell": _cs_cell(rq, g, mode)})
    out["more"] = max(0, len(keys) - 24)
    if not metric:
        return out
    parts = metric.split(":")
    kind = parts[0]
    res: dict[str, Any]
    if kind == "cs" and len(parts) == 2:
        g = out["groups"][0] if len(out["groups"]) == 1 else None
        if g is None:
            res = {"value": None, "n_groups": len(out["groups"])}
        else:
            cell = g["cell"]
            res = {
                "value": cell["metrics"][parts[1]]["mean"],
                "runs": cell["runs"],
                "per_run": cell["metrics"][parts[1]]["per_run"],
                "n_territories": cell["n_territories"],
                "n_rows": cell["n_rows"],
            }
    elif kind in ("cmp", "pl") and sub["model"].nunique() != 1:
        res = {"value": None, "n_models": int(sub["model"].nunique())}
    elif kind == "cmp" and len(parts) == 4:
        sides = [sub[sub["mode"] == m] for m in parts[2:4]]
        if not len(sides[0]) or not len(sides[1]):
            va = vb = math.nan
            common = []
        else:
            a, b = (_pooled(rq, side) for side in sides)
            common = [t for t in a["territory"] if t in set(b["territory"])]
            ta = a.set_index("territory").loc[common]
            tb = b.set_index("territory").loc[common]
            va, vb = float(metric_value(ta, parts[1])), float(metric_value(tb, parts[1]))
        res = {
            "value_a": _nan(va),
            "value_b": _nan(vb),
            "diff": _nan(va - vb),
            "value": _nan(va - vb),
            "n_territories": len(common),
        }
    elif kind == "pl" and len(parts) == 5:
        from ..metrics import perlang_items

        measure, ma, mb, lang = parts[1:]
        shares = []
        for m in (ma, mb):
            side = sub[sub["mode"] == m]
            if not len(side):
                shares.append(pd.Series(dtype=float))
                continue
            items = perlang_items(
                side, rq.data.dataset, policy=rq.data.config.policy, validate=False
            )
            items = items[items["query_lang"] == lang]
            v = items[measure].astype(float)
            shares.append(items.assign(_v=v)[v.notna()].groupby("territory")["_v"].mean())
        both = sorted(set(shares[0].index) & set(shares[1].index))
        n = len(both)
        pa_ = [float(shares[0][t]) for t in both]
        pb_ = [float(shares[1][t]) for t in both]
        diff = round(sum(x - y for x, y in zip(pa_, pb_)) / n, 12) if n else None
        res = {
            "value_a": sum(pa_) / n if n else None,
            "value_b": sum(pb_) / n if n else None,
            "diff": diff,
            "value": diff,
            "n_territories": n,
        }
    elif kind == "cit" and len(parts) == 3:
        res = _citations(rq, idx, parts[1])
        res["value"] = res["ratio"] if parts[2] == "ratio" else res["citation_rate"]
    else:
        raise ConfigError(f"metric={metric!r}: expected cs:, cmp:, pl: or cit: (see docs/view.md)")
    res["spec"] = metric
    out["metric"] = res
    return out


def _citations(rq: RunQuery, idx: np.ndarray, doc_lang: str) -> dict[str, Any]:
    df = rq.data.frame.iloc[idx]
    cites = cl = incl = il = n = citing = 0
    for outcome, ids, langs, cited in zip(
        df["outcome"], df["doc_ids"], df["doc_langs"], df["cited_doc_ids"]
    ):
        ids_l, langs_l = as_list(ids), as_list(langs)
        if outcome == "failed" or not ids_l:
            continue
        n += 1
        lang_of: dict[str, str] = {}
        for d, lg in zip(ids_l, langs_l):
            lang_of.setdefault(d, lg)
        c = [lang_of[x] for x in as_list(cited) if x in lang_of]
        cites += len(c)
        cl += sum(1 for x in c if x == doc_lang)
        if c:
            citing += 1
            incl += len(langs_l)
            il += sum(1 for x in langs_l if x == doc_lang)
    cr = cl / cites if cites else None
    ir = il / incl if incl else None
    return {
        "citation_rate": cr,
        "inclusion_rate_citing": ir,
        "ratio": cr / ir if cr is not None and ir else None,
        "n_answers": n,
        "n_citing": citing,
        "n_citations": cl,
    }


def dumps(obj: Any) -> bytes:
    """JSON for the page (:func:`~bordir.view.page.embed_json`: NaN and ±inf → null; ``<``, ``>``, ``&`` escaped)."""
    return embed_json(obj, default=str).encode("utf-8")
