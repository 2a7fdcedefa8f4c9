"""A run directory read for the explorer: every response row, its facets and the territories behind them.

:func:`load_run_data` reads ``run.json``, ``responses.parquet`` (every option
order, not only the given one the metrics use) and ``hits.parquet`` through
their files, and the dataset the config names (for each territory's claimants,
controller and claimant languages). It refuses, with one line naming the file
and what to do:

* a directory without ``run.json`` / ``responses.parquet``, a ``run.json``
  that is not a run record;
* a ``responses.parquet`` that is not a readable Parquet file (truncated, or
  another format), lacks a column the page needs, or is empty;
* a run with retrieval modes whose ``hits.parquet`` is missing or unreadable (the
  documents' ranks and scores come from it), or whose signature is not the one
  ``run.json`` records;
* a dataset that cannot be loaded or whose content hash changed since the run.

The per-row facets (:data:`RUN_FACETS`) are derived here; the per-sample
details (prompt, documents, rule, cache key, cost) in :mod:`~bordir.view.run_details`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import numpy as np
import pandas as pd

from ..errors import BordirError, ConfigError, DataError
from ..metrics.responses import SCORING_COLUMNS
from .files import parquet_schema, read_json, read_parquet, require_columns

__all__ = [
    "RunData",
    "load_run_data",
    "RUN_FACETS",
    "REQUIRED",
    "LAZY_COLUMNS",
    "Facet",
    "as_list",
]

REQUIRED: tuple[str, ...] = SCORING_COLUMNS
"""Columns of ``responses.parquet`` the explorer cannot do without (those the scoring reads)."""

LAZY_COLUMNS: tuple[str, ...] = (
    "prompt",
    "doc_titles",
    "doc_revision_ids",
    "doc_fetched_at",
    "cf_logprobs",
)
"""Columns a served page reads per sample rather than holding in memory."""

_RERUN = "re-run `bordir run CONFIG --out DIR` into this directory (it resumes) or restore the file"


@dataclass(frozen=True)
class Facet:
    """A filter of the sample table: its URL key, label, and whether a row holds several values."""

    key: str
    label: str
    multi: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {"key": self.key, "label": self.label, "multi": self.multi}


RUN_FACETS: tuple[Facet, ...] = (
    Facet("territory", "Territory"),
    Facet("lang", "Query language"),
    Facet("mode", "Mode"),
    Facet("model", "Model"),
    Facet("run", "Run"),
    Facet("order", "Option order"),
    Facet("outcome", "Outcome"),
    Facet("answer", "Answer"),
    Facet("agree", "Agrees with controller"),
    Facet("role", "Query role"),
    Facet("cited", "Cited language", multi=True),
)
"""The facets of a run's sample table (also the keys of the filter state in the page's URL)."""

ROLE_CONTROL = "control (en)"
ROLE_CONTROLLER = "controller's language"
ROLE_OTHER = "other claimant language"


@dataclass
class RunData:
    """One run directory, read: rows, facets, territories (see the module docs).

    Attributes:
        path: the directory.
        info: ``run.json``.
        config: the run's config (``ExperimentConfig``).
        dataset: the dataset the config names.
        frame: every response row (all option orders), in file order.
        facets: per facet key, the string value of every row.
        territories: per territory, what the matrix needs (claimants, controller, languages).
        hits: ``(query_id, mode, doc_id, doc_lang)`` → ``(rank, score, raw_score)``.
        warnings: things the page must say (an incomplete run …).
    """

    path: Path
    info: dict[str, Any]
    config: Any
    dataset: Any
    frame: pd.DataFrame
    facets: dict[str, np.ndarray]
    territories: dict[str, dict[str, Any]]
    hits: dict[tuple[str, str, str, str], tuple[int, float, float]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    lazy: tuple[str, ...] = ()
    _group: tuple[int, int, pd.DataFrame] | None = field(default=None, repr=False)

    def row(self, i: int) -> dict[str, Any]:
        """Row ``i`` with every column, the lazy ones read from the file (one row group, kept until the next)."""
        rec = self.frame.iloc[i].to_dict()
        if not self.lazy:
            return cast("dict[str, Any]", rec)
        import pyarrow.parquet as pq

        g = self._group
        if g is None or not g[0] <= i < g[1]:
            pf = pq.ParquetFile(
                self.path / "responses.parquet",
                read_dictionary=["prompt"] if "prompt" in self.lazy else None,
            )
            start = 0
            for k in range(pf.metadata.num_row_groups):
                n = pf.metadata.row_group(k).num_rows
                if start <= i < start + n:
                    cols = [c for c in self.lazy if c in pf.schema_arrow.names]
                    g = (start, start + n, pf.read_row_group(k, columns=cols).to_pandas())
                    break
                start += n
            self._group = g
        assert g is not None
        rec.update(g[2].iloc[i - g[0]].to_dict())
        return cast("dict[str, Any]", rec)

    @property
    def n_rows(self) -> int:
        return len(self.frame)

    @property
    def models(self) -> list[str]:
        present = list(dict.fromkeys(self.frame["model"].astype(str)))
        return [m for m in self.config.models if m in present] + [
            m for m in present if m not in self.config.models
        ]

    @property
    def modes(self) -> list[str]:
        present = list(dict.fromkeys(self.frame["mode"].astype(str)))
        return [m for m in self.config.modes if m in present] + [
            m for m in present if m not in self.config.modes
        ]

    def meta(self) -> dict[str, Any]:
        """What the page shows about the run, and what its JavaScript needs to compute the numbers."""
        cfg = self.config
        return {
            "kind": "run",
            "dir": self.path.resolve().name,  # the name only: no path of the user's machine in the page
            "title": f"bordir view: {self.path.name}",
            "status": self.info.get("status", "complete"),
            "models": self.models,
            "modes": self.modes,
            "policy": cfg.policy,
            "response_format": cfg.response_format,
            "temperature": cfg.temperature,
            "runs": len(cfg.seeds),
            "seeds": list(cfg.seeds),
            "retriever": cfg.retriever,
            "k": cfg.k,
            "system": cfg.system,
            "dataset": {
                "name": cfg.dataset,
                "signature": (self.info.get("dataset") or {}).get("signature", ""),
            },
            "facets": [f.as_dict() for f in RUN_FACETS],
            "territories": self.territories,
            "warnings": list(self.warnings),
        }


def _read_hits(
    path: Path, info: dict[str, Any], needed: bool
) -> dict[tuple[str, str, str, str], tuple[int, float, float]]:
    recorded = (
        (info.get("hits") or {}).get("signature") if isinstance(info.get("hits"), dict) else None
    )
    hits_path = path / "hits.parquet"
    if not hits_path.exists():
        if needed or recorded:
            why = (
                f"{path.name}/run.json records hits with signature {recorded}"
                if recorded
                else ("the run has retrieval modes")
            )
            raise DataError(
                f"missing, but {why}: the documents' ranks and retrieval scores come from it; {_RERUN}",
                path=hits_path,
            )
        return {}
    schema = parquet_schema(hits_path, hint=_RERUN)
    found = (schema.metadata or {}).get(b"bordir.signature", b"").decode()
    if recorded and found != recorded:
        raise DataError(
            f"signature {found or '(none)'} differs from {recorded} recorded in run.json; the "
            "directory mixes two runs",
            path=hits_path,
        )
    cols = ("query_id", "mode", "doc_id", "doc_lang", "rank", "score", "raw_score")
    require_columns(
        schema.names, cols[:5], path=hits_path, table="the hits table `bordir run` writes"
    )
    t = read_parquet(hits_path, hint=_RERUN, columns=cols).to_pandas()
    score = t["score"] if "score" in t else pd.Series([np.nan] * len(t))
    raw = t["raw_score"] if "raw_score" in t else pd.Series([np.nan] * len(t))
    return {
        (str(q), str(m), str(d), str(lang)): (int(r), float(s), float(x))
        for q, m, d, lang, r, s, x in zip(
            t["query_id"], t["mode"], t["doc_id"], t["doc_lang"], t["rank"], score, raw
        )
    }


def _territories(dataset: Any, names: list[str]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for name in names:
        t = dataset.territory(name)
        queries = {q.lang: q.query_id for q in dataset.queries_for(name)}
        out[name] = {
            "claimants": list(t.claimants),
            "controller": t.controller,
            "known": bool(t.controller_known),
            "controller_index": t.claimants.index(t.controller)
            if t.controller in t.claimants
            else -1,
            "claimant_langs": [dataset.country_lang(c) for c in t.claimants],
            "controller_lang": dataset.controller_lang(name) or "",
            "en_claimant": "en" in dataset.claimant_langs(name),
            "queries": queries,
        }
    return out


def as_list(v: Any) -> list[str]:
    """One cell of a list column as a list of strings (None or NaN → []).

    Example:
        >>> import numpy as np
        >>> as_list(np.array(["d1", "d2"], dtype=object)), as_list(None), as_list(float("nan"))
        (['d1', 'd2'], [], [])
    """
    return [] if v is None or (isinstance(v, float) and v != v) else [str(x) for x in v]


def _facets(df: pd.DataFrame, terr: dict[str, dict[str, Any]]) -> dict[str, np.ndarray]:
    outcome = df["outcome"].astype(str).to_numpy(dtype=object)
    answered = outcome == "answered"
    territory = df["territory"].astype(str).to_numpy(dtype=object)
    choice = df["choice"].fillna(-1).astype(np.int64).to_numpy()
    claim = [terr[t]["claimants"] for t in territory]
    names = np.array(
        [c[i] if a and 0 <= i < len(c) else "" for c, i, a in zip(claim, choice, answered)],
        dtype=object,
    )
    answer = np.where(answered, names, outcome)
    controller = np.array([terr[t]["controller"] for t in territory], dtype=object)
    known = np.array([terr[t]["known"] for t in territory], dtype=bool)
    agree = np.where(
        ~known,
        "unknown controller",
        np.where(~answered, "no answer", np.where(names == controller, "yes", "no")),
    )
    lang = df["query_lang"].astype(str).to_numpy(dtype=object)
    ctl_lang = np.array([terr[t]["controller_lang"] for t in territory], dtype=object)
    is_ctl = df["is_control"].fillna(False).astype(bool).to_numpy()
    role = np.where(is_ctl, ROLE_CONTROL, np.where(lang == ctl_lang, ROLE_CONTROLLER, ROLE_OTHER))
    cited = np.full(len(df), "", dtype=object)
    if "cited_doc_ids" in df.columns and "doc_langs" in df.columns:
        for i, (c, ids, langs) in enumerate(
            zip(df["cited_doc_ids"], df["doc_ids"], df["doc_langs"])
        ):
            if c is None or len(c) == 0:
                continue
            lang_of = dict(zip(map(str, ids), map(str, langs)))
            cited[i] = ",".join(sorted({lang_of.get(str(d), "?") for d in c}))
    order = (
        df["option_order"].fillna("given").astype(str).to_numpy(dtype=object)
        if "option_order" in df.columns
        else np.full(len(df), "given", dtype=object)
    )
    return {
        "territory": territory,
        "lang": lang,
        "mode": df["mode"].astype(str).to_numpy(dtype=object),
        "model": df["model"].astype(str).to_numpy(dtype=object),
        "run": df["run"].astype(np.int64).astype(str).to_numpy(dtype=object),
        "order": order,
        "outcome": outcome,
        "answer": answer.astype(object),
        "agree": agree.astype(object),
        "role": role.astype(object),
        "cited": cited,
    }


def load_run_data(run_dir: str | os.PathLike[str], *, lazy: bool = False) -> RunData:
    """Read a run directory for the explorer (see the module docs for what is refused).

    ``lazy``: leave the heavy per-sample columns (:data:`LAZY_COLUMNS`) in the file and read a row's
    when it is asked for (:meth:`RunData.row`); what a served page of a large run does.
    """
    from ..experiment.config import ExperimentConfig
    from ..experiment.inputs import load_dataset_of
    from ..experiment.rundir import check_row_count, check_run_info

    path = Path(run_dir)
    hint = "expected a directory written by `bordir run CONFIG --out DIR`"
    info = check_run_info(read_json(path / "run.json", hint=hint), path / "run.json")
    resp = path / "responses.parquet"
    schema = parquet_schema(resp, hint=_RERUN if resp.exists() else hint)
    require_columns(
        schema.names, REQUIRED, path=resp, table="the responses table `bordir run` writes"
    )
    keep = [c for c in schema.names if not (lazy and c in LAZY_COLUMNS)]
    df = read_parquet(resp, hint=_RERUN, columns=keep).to_pandas()
    if not len(df):
        raise DataError(f"has no responses; {_RERUN}", path=resp)
    check_row_count(info, len(df), path / "run.json", resp)
    try:
        cfg = ExperimentConfig.from_dict(info["config"], where=str(path / "run.json"))
    except ConfigError as exc:
        raise DataError(str(exc)) from None
    try:
        dataset = load_dataset_of(cfg)
    except BordirError as exc:
        raise DataError(
            f"cannot load the dataset its config names: {exc}", path=path / "run.json"
        ) from None
    recorded = (
        (info.get("dataset") or {}).get("hash") if isinstance(info.get("dataset"), dict) else None
    )
    if recorded and recorded != dataset.content_hash():
        raise DataError(
            f"the dataset changed since the run: run.json records {recorded}, dataset {cfg.dataset!r} "
            f"now hashes to {dataset.content_hash()}; restore the dataset files or re-run",
            path=path / "run.json",
            field="dataset",
        )
    names = list(dict.fromkeys(df["territory"].astype(str)))
    known = {t.name for t in dataset.territories}
    unknown = [t for t in names if t not in known]
    if unknown:
        raise DataError(
            f"territory {unknown[0]!r} is not in dataset {cfg.dataset!r}; the responses belong to "
            "another dataset",
            path=resp,
            field="territory",
        )
    ir = bool((df["mode"].astype(str) != "no_ir").any())
    hits = _read_hits(path, info, needed=ir)
    order = {t.name: i for i, t in enumerate(dataset.territories)}
    terr = _territories(dataset, sorted(names, key=order.__getitem__))
    warnings = []
    if info.get("status") == "incomplete":
        warnings.append(
            "run.json says the run is incomplete (interrupted or still running): these are the rows "
            "written so far"
        )
    return RunData(
        lazy=tuple(c for c in LAZY_COLUMNS if lazy and c in schema.names),
        path=path,
        info=info,
        config=cfg,
        dataset=dataset,
        frame=df,
        facets=_facets(df, terr),
        territories=terr,
        hits=hits,
        warnings=warnings,
    )
