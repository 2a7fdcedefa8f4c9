"""Everything the sample panel shows about one response row, rebuilt and checked at view time.

For each row :class:`RunDetails` gives the prompt exactly as sent (the
recorded ``prompt`` column: system and user parts), the prompt's documents with
their language, title, revision id, rank and retrieval score (``hits.parquet``)
and the ones the reply cited, the raw reply, the rule that decided it
(:mod:`~bordir.view.rules`), the option order, the cache key, tokens, cost,
latency and the row's signature.

The run does not record the cache key, so it is **recomputed**: the request is
rebuilt from the dataset, the corpus and the config with the runner's own
builder (:func:`bordir.generation.prompts.build_request`, the query permuted by
:func:`bordir.option_orders.permute_query` for another option order), and

* its messages must equal the recorded prompt; otherwise no key is shown and the
  page warns that the rebuilt prompt differs (the dataset, corpus or templates
  changed since the run) — the page always shows the *recorded* prompt;
* its key is looked up, read-only, in the response cache the run names
  (``run.json``: ``cache.path``): ``verified`` when the cache holds it.

The cost is the call's price (:mod:`bordir.generation.prices`) for its tokens;
a call served from the cache was not billed in this run.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from .._io.json_read import loads
from ..errors import BordirError
from .run_data import RunData, as_list

__all__ = [
    "RunDetails",
    "DETAIL_COLUMNS",
    "KEY_VERIFIED",
    "KEY_ABSENT",
    "KEY_NO_CACHE",
    "KEY_PROMPT_DIFFERS",
]

DETAIL_COLUMNS: tuple[str, ...] = (
    "query_id", "seed", "pos", "prompt", "reply", "docs", "cited_pos", "rule", "rule_ok", "key",
    "keystat", "in_tok", "out_tok", "latency", "cost", "cached", "error", "sig", "logprobs",
    "cites", "incl",
)  # fmt: skip
"""The per-row fields of a sample (the page's detail columns)."""

KEY_VERIFIED = "verified: the response cache holds this key"
KEY_ABSENT = (
    "recomputed; not in the response cache (failed calls are not stored; or the cache was pruned)"
)
KEY_NO_CACHE = "recomputed; the response cache the run names is not here, so it is not verified"
KEY_PROMPT_DIFFERS = (
    "not shown: the prompt rebuilt from the dataset, corpus and templates differs from the recorded one "
    "(they changed since the run); the page shows the recorded prompt"
)


def _opt(v: Any) -> Any:
    if v is None or (isinstance(v, float) and v != v):
        return None
    return v


class RunDetails:
    """The sample details of a :class:`~bordir.view.run_data.RunData` (see the module docs)."""

    def __init__(self, data: RunData) -> None:
        self.data = data
        self.df = data.frame
        self._corpus: Any = None
        self._corpus_error: str | None = None
        self._corpus_loaded = False
        self._prices: Any = None
        self._rebuilt: dict[tuple[str, str, str, str], tuple[Any, str | None]] = {}
        self._rules: dict[tuple[Any, ...], tuple[str, bool]] = {}
        self.rank_models = {
            str(m)
            for m, lp in zip(
                self.df["model"], self.df.get("option_logprobs", pd.Series([None] * len(self.df)))
            )
            if lp is not None and not (isinstance(lp, float) and lp != lp)
        }
        self.cache_path = self._cache_path()
        self._records: list[dict[str, Any]] | None = None

    def _row(self, i: int) -> Any:
        if self._records is not None:
            return self._records[i]
        return self.data.row(i)

    # --- inputs --------------------------------------------------------------------------
    def _cache_path(self) -> Path | None:
        cache = self.data.info.get("cache")
        p = cache.get("path") if isinstance(cache, dict) else None
        p = p or self.data.info["config"].get("cache")
        return Path(p) if p else None

    def _corpus_of(self) -> Any:
        if not self._corpus_loaded:
            self._corpus_loaded = True
            from ..experiment.inputs import load_corpus_of

            try:
                self._corpus = load_corpus_of(self.data.config)
            except BordirError as exc:
                self._corpus_error = str(exc)
        return self._corpus

    def _price(self, model: str) -> Any:
        if self._prices is None:
            from ..generation.prices import load_prices

            try:
                self._prices = load_prices()
            except BordirError:
                self._prices = False
        return self._prices.lookup(model) if self._prices else None

    # --- the request ---------------------------------------------------------------------
    def _query(self, qid: str, order: str) -> tuple[Any, Any, Any]:
        """``(given query, option order, query as asked)``."""
        from ..option_orders import OptionOrder, permute_query

        q = self.data.dataset.query(qid)
        o = OptionOrder.parse(order, len(q.options))
        return q, o, (q if o.is_given else permute_query(q, o))

    def _template(
        self, qid: str, mode: str, order: str, model: str, docs: list[list[Any]], prompt: str
    ) -> tuple[Any, str | None]:
        """The rebuilt request without its sampling settings, or ``(None, why)``."""
        key = (qid, mode, order, model)
        if key in self._rebuilt:
            return self._rebuilt[key]
        from ..generation.prompts import build_request, nationalist_country
        from ..generation.types import Document

        cfg, ds = self.data.config, self.data.dataset
        out: tuple[Any, str | None]
        try:
            q, _, asked = self._query(qid, order)
            documents: tuple[Any, ...] = ()
            if mode != "no_ir":
                corpus = self._corpus_of()
                if corpus is None:
                    raise _NotRebuilt(
                        f"not recomputed: the corpus {cfg.corpus!r} cannot be loaded ({self._corpus_error})"
                    )
                documents = tuple(
                    Document(i, str(d[0]), str(d[1]), corpus.get(str(d[1]), str(d[0])).text)
                    for i, d in enumerate(docs)
                )
            req = build_request(
                asked,
                documents,
                model=model,
                temperature=0.0,
                seed=None,
                max_tokens=cfg.max_tokens,
                response_format=cfg.response_format,
                system=cfg.system,
                instruction_lang=cfg.instruction_lang,
                no_ir=mode == "no_ir",
                countries=ds.countries,
                country=nationalist_country(q, ds.countries),
            )
            sent = loads(prompt) if prompt else None
            if sent != [[m.role, m.content] for m in req.messages]:
                out = (None, KEY_PROMPT_DIFFERS)
            else:
                out = (req, None)
        except _NotRebuilt as exc:
            out = (None, str(exc))
        except (BordirError, ValueError, KeyError) as exc:
            out = (None, f"not recomputed: {exc}")
        self._rebuilt[key] = out
        return out

    def _in_cache(self, keys: list[str]) -> set[str] | None:
        from ..generation.cache_lookup import stored_keys  # read-only, any file name

        return stored_keys(self.cache_path, keys)

    # --- rows ----------------------------------------------------------------------------
    def _docs(self, i: int, qid: str, mode: str) -> list[list[Any]]:
        row = self._row(i)
        ids = as_list(row.get("doc_ids"))
        n = len(ids)

        def col(name: str) -> list[str]:
            v = as_list(row.get(name)) if name in row else []
            return v + [""] * (n - len(v))

        langs, titles, revs, fetched = (
            col("doc_langs"),
            col("doc_titles"),
            col("doc_revision_ids"),
            col("doc_fetched_at"),
        )
        out = []
        for d, lang, t, r, f in zip(ids, langs, titles, revs, fetched):
            rank, score, raw = self.data.hits.get((qid, mode, d, lang), (None, None, None))
            out.append([d, lang, t, r, f, rank, _opt(score), _opt(raw)])
        return out

    def rows(self, indices: Sequence[int]) -> list[dict[str, Any]]:
        """The details of rows ``indices`` (positions in ``data.frame``), as dicts of :data:`DETAIL_COLUMNS`."""
        cfg = self.data.config
        out: list[dict[str, Any]] = []
        keys: list[str | None] = []
        for i in indices:
            r = self._row(int(i))
            qid, mode, model = str(r["query_id"]), str(r["mode"]), str(r["model"])
            order = self.data.facets["order"][int(i)]
            seed = _opt(r.get("seed"))
            seed = None if seed is None else int(seed)
            docs = self._docs(int(i), qid, mode)
            prompt = str(_opt(r.get("prompt")) or "")
            raw = str(_opt(r.get("raw_text")) or "")
            cited_ids = as_list(r.get("cited_doc_ids")) if "cited_doc_ids" in r else []
            pos_of: dict[str, int] = {}
            for j, d in enumerate(docs):
                pos_of.setdefault(d[0], j)
            cited_pos = sorted({pos_of[c] for c in cited_ids if c in pos_of})
            cites: dict[str, int] = {}
            for c in cited_ids:
                if c in pos_of:
                    lang = docs[pos_of[c]][1]
                    cites[lang] = cites.get(lang, 0) + 1
            incl: dict[str, int] = {}
            for d in docs:
                incl[d[1]] = incl.get(d[1], 0) + 1
            outcome = str(r["outcome"])
            pos = _opt(r.get("choice_position"))
            choice = int(r["choice"]) if _opt(r["choice"]) is not None else -1
            lp = r.get("option_logprobs")
            lp_list = (
                None
                if lp is None or (isinstance(lp, float) and lp != lp)
                else [float(x) for x in lp]
            )
            try:
                _, o, asked = self._query(qid, order)
            except (BordirError, ValueError, KeyError):
                o = asked = None
            if pos is None:
                pos = -1 if choice < 0 or o is None else o.position_of(choice)
            rule, ok = self._rule(
                asked, o, raw, outcome, int(pos), lp_list, seed, docs, _opt(r.get("error"))
            )
            rank = model in self.rank_models
            req, why = self._template(qid, mode, order, model, docs, prompt)
            key = None
            if req is not None:
                if rank:
                    key = req.cache_key()
                else:
                    key = req.replace(temperature=float(cfg.temperature), seed=seed).cache_key()
            keys.append(key)
            in_tok, out_tok = _opt(r.get("input_tokens")), _opt(r.get("output_tokens"))
            price = self._price(model)
            cost = (
                price.cost(int(in_tok or 0), int(out_tok or 0))
                if price is not None and (in_tok is not None or out_tok is not None)
                else None
            )
            out.append(
                {
                    "query_id": qid,
                    "seed": seed,
                    "pos": int(pos),
                    "prompt": prompt,
                    "reply": raw,
                    "docs": json.dumps(docs, ensure_ascii=False),
                    "cited_pos": json.dumps(cited_pos),
                    "rule": rule,
                    "rule_ok": int(ok),
                    "key": key,
                    "keystat": why,
                    "in_tok": None if in_tok is None else int(in_tok),
                    "out_tok": None if out_tok is None else int(out_tok),
                    "latency": _opt(r.get("latency_s")),
                    "cost": cost,
                    "cached": int(bool(_opt(r.get("cached")))),
                    "error": _opt(r.get("error")),
                    "sig": _opt(r.get("signature")),
                    "logprobs": None
                    if lp_list is None
                    else json.dumps([round(x, 4) for x in lp_list]),
                    "cites": json.dumps(cites, sort_keys=True) if cites else "",
                    "incl": json.dumps(incl, sort_keys=True) if incl else "",
                }
            )
        present = self._in_cache([k for k in keys if k])
        for rec, key in zip(out, keys):
            if key is None:
                continue
            if present is None:
                rec["keystat"] = KEY_NO_CACHE
            else:
                rec["keystat"] = KEY_VERIFIED if key in present else KEY_ABSENT
        return out

    def _rule(
        self,
        asked: Any,
        order: Any,
        raw: str,
        outcome: str,
        pos: int,
        lp: list[float] | None,
        seed: int | None,
        docs: list[list[Any]],
        error: Any,
    ) -> tuple[str, bool]:
        from .rules import explain_row

        if asked is None:
            return "the query is not in the dataset: the reply cannot be re-parsed", False
        memo = (
            asked.query_id,
            str(order),
            raw,
            outcome,
            pos,
            None if lp is None else tuple(lp),
            seed,
            error,
        )
        if memo in self._rules:
            return self._rules[memo]
        cfg = self.data.config
        asked_lp = None if lp is None else list(order.apply(lp))
        documents: tuple[Any, ...] = ()
        if cfg.response_format == "citation" and docs:
            corpus = self._corpus_of()
            if corpus is not None:
                from ..generation.types import Document

                try:
                    documents = tuple(
                        Document(i, str(d[0]), str(d[1]), corpus.get(str(d[1]), str(d[0])).text)
                        for i, d in enumerate(docs)
                    )
                except BordirError:
                    documents = ()
        res = explain_row(
            asked,
            raw=raw,
            outcome=outcome,
            choice_position=pos,
            policy=cfg.policy,
            response_format=cfg.response_format,
            error=None if error is None else str(error),
            logprobs=asked_lp,
            temperature=float(cfg.temperature),
            seed=seed,
            documents=documents,
        )
        self._rules[memo] = res
        return res

    def columns(self) -> dict[str, list[Any]]:
        """Every row's details, column by column (for the static page)."""
        self._records = self.df.to_dict("records")
        recs = self.rows(range(len(self.df)))
        return {c: [rec[c] for rec in recs] for c in DETAIL_COLUMNS}


class _NotRebuilt(Exception):
    pass
