"""``run_blackbox_audit``: a black-box log (answers and cited URLs) to its tables: answers, shares, claimants, comparisons.

Example:
    >>> import json, os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "log.jsonl")
    >>> with open(p, "w") as fh:
    ...     for i in range(40):
    ...         lang = ("ru", "uk")[i % 2]
    ...         urls = ["https://ria.ru/a", "https://en.wikipedia.org/wiki/Crimea"] if lang == "ru" else ["https://www.ukrinform.ua/x"]
    ...         _ = fh.write(json.dumps({"question": "q", "lang": lang, "answer": "…", "urls": urls, "group": i // 2,
    ...                                  "model": "m", "claimants": ["RU", "UA"]}) + "\\n")
    >>> r = run_blackbox_audit(p, BlackboxOptions(n_resamples=200, n_permutations=200))
    >>> s = r.shares.query("query_lang == 'ru' and dimension == 'country' and category == 'RU'").iloc[0]
    >>> float(s.share), s.status
    (0.5, 'ok')
    >>> c = r.comparisons.query("dimension == 'country' and category == 'RU'").iloc[0]
    >>> c.a, c.b, float(c["diff"]), c.status, bool(c.p_holm < 0.01)
    ('ru', 'uk', 0.5, 'judged', True)
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import pandas as pd
import pyarrow.compute as pc

from ..._repr import changed_fields_repr
from ..._version import __version__
from ...citations.tables import jsonable
from ...errors import ConfigError, DataError
from ...signature import Signature
from ...stats import resolve_seed
from .attribution import Attributor
from .claimants import claimant_table
from .compare import CompareOptions, Measure, compare_all
from .fields import FieldMap
from .ingest import Ingested, Skip, ingest
from .lists import DomainLists
from .publishers import load_publishers
from .reader import SAMPLE, detect_format, log_kind
from .records import REASONS
from .shares import UNATTRIBUTED, ShareOptions, answer_table, share_table, url_categories
from .urls import URL_REASONS

__all__ = ["BlackboxOptions", "BlackboxResult", "run_blackbox_audit", "MIN_CLUSTERS"]

MIN_CLUSTERS = 10
"""Cells (and comparisons) with fewer clusters citing anything are ``too few to judge``: no interval, no test."""


@dataclass(frozen=True, kw_only=True, repr=False)
class BlackboxOptions:
    """How a black-box log is read and audited (keyword-only; see ``bordir audit --help``).

    Attributes:
        fields: ``{canonical field: the log's field}`` (``--field``); the rest by common names.
        fmt: ``jsonl`` / ``parquet`` / ``csv`` (default: from the file name).
        group_by_month: one cell per month too.
        cluster: ``answer`` or ``group`` (None: ``group`` when the log has question groups, else ``answer``).
        domains: user lists, ``LABEL=FILE.csv``.
        publishers: another publisher registry file (default: the shipped one).
        compare_countries: the countries whose shares are compared (None: the claimants in the log, else the
            five most cited).
        resolved: redirect URL → final URL (``bordir audit resolve``).
        n_resamples, n_permutations, seed, conf, min_clusters, alpha: the statistics.
        max_examples: skipped examples kept per reason.
    """

    fields: dict[str, str] = field(default_factory=dict)
    fmt: str | None = None
    group_by_month: bool = False
    cluster: str | None = None
    domains: tuple[str, ...] = ()
    publishers: str | None = None
    compare_countries: tuple[str, ...] | None = None
    resolved: dict[str, str] | None = None
    n_resamples: int = 2000
    n_permutations: int = 2000
    seed: int | None = None
    conf: float = 0.95
    min_clusters: int = MIN_CLUSTERS
    alpha: float = 0.05
    max_examples: int = 5

    def __repr__(self) -> str:
        return changed_fields_repr(self)


@dataclass
class BlackboxResult:
    """What a black-box audit computed (the tables, the summary, the settings, the signature)."""

    answers: pd.DataFrame
    shares: pd.DataFrame
    claimants: pd.DataFrame
    comparisons: pd.DataFrame
    summary: dict[str, Any]
    settings: dict[str, Any]
    signature: Signature
    data: Ingested

    def __repr__(self) -> str:
        return f"BlackboxResult(answers={self.summary['valid']}, urls={self.summary['urls']}, signature={str(self.signature)!r})"

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready (undefined numbers are ``null``)."""
        return cast(
            "dict[str, Any]",
            jsonable(
                {
                    "schema": "bordir.audit/1",
                    "kind": "blackbox",
                    "bordir_version": __version__,
                    "signature": str(self.signature),
                    "settings": self.settings,
                    "summary": self.summary,
                    "answers": self.answers.to_dict(orient="records"),
                    "shares": self.shares.to_dict(orient="records"),
                    "claimants": self.claimants.to_dict(orient="records"),
                    "comparisons": self.comparisons.to_dict(orient="records"),
                }
            ),
        )


def _focus(data: Ingested, wanted: tuple[str, ...] | None) -> tuple[tuple[str, ...], str]:
    if wanted is not None:
        return tuple(wanted), "given (--compare-countries)"
    flat = pc.list_flatten(data.answers["claimants"])
    claim = sorted(x for x in pc.unique(flat).to_pylist() if x is not None)
    if claim:
        return tuple(claim), "the claimants of the log's territorial questions"
    codes, labels = data.url_table.country_codes()  # (in the order they are first cited)
    vc = pd.Series(np.bincount(codes, minlength=len(labels)), index=labels, dtype=np.int64)
    vc = vc[vc.index != UNATTRIBUTED].sort_values(ascending=False, kind="stable")
    return tuple(vc.index[:5]), "the five most cited countries"


def run_blackbox_audit(
    path: str | os.PathLike[str],
    options: BlackboxOptions | None = None,
    *,
    on_skip: Skip | None = None,
) -> BlackboxResult:
    """Audit a black-box log (see the module docs and ``docs/audit.md``)."""
    o = options if options is not None else BlackboxOptions()
    seed = resolve_seed(o.seed)
    fmt = detect_format(path, o.fmt)
    t0 = time.perf_counter()
    kind, keys = log_kind(path, fmt, o.fields)
    try:
        fm = FieldMap.resolve(keys, o.fields)
    except ConfigError as exc:
        raise DataError(f"{exc} (looked at the first {SAMPLE} records)", path=path) from None
    lists = DomainLists.load(o.domains)
    reg = load_publishers(o.publishers)
    att = Attributor(reg, lists)
    data = ingest(
        path,
        fmt,
        fm,
        att,
        check_month=o.group_by_month,
        on_skip=on_skip,
        max_examples=o.max_examples,
        resolved=o.resolved,
    )
    t_read = time.perf_counter() - t0
    has_groups = data.answers["group"].null_count < data.answers.num_rows
    cluster = o.cluster or ("group" if has_groups else "answer")
    so = ShareOptions(
        by_month=o.group_by_month, cluster=cluster, conf=o.conf, min_clusters=o.min_clusters
    )
    cats = url_categories(data.answers, data.url_table, tuple(lists.domains))
    focus, why = _focus(data, o.compare_countries)
    shares = share_table(data.answers, data.url_table, cats, so, focus={"country": focus})
    answers = answer_table(data.answers, so)
    claim = claimant_table(data.answers, data.url_table, so)
    measures = [
        Measure("relation", "own"),
        Measure("relation", "en"),
        *(Measure("country", c) for c in focus),
    ]
    if pc.max(pc.list_value_length(data.answers["claimants"])).as_py():
        measures += [Measure("claimant", "own_claimant"), Measure("claimant", "other_claimant")]
    measures += [Measure("list", label) for label in lists.domains]
    co = CompareOptions(o.n_resamples, o.n_permutations, seed, o.conf, o.min_clusters, o.alpha)
    comparisons = (
        compare_all(data.answers, data.url_table, cats, measures, co)
        if has_groups
        else compare_all(data.answers, data.url_table, cats, [], co)
    )
    t_stats = time.perf_counter() - t0 - t_read
    n_urls = data.url_table.num_rows
    hosts = data.url_table.hosts
    per_host = (
        np.bincount(data.url_table.host_id, minlength=len(hosts["host"])) if n_urls else np.zeros(0)
    )
    unattributed = (
        int(per_host[hosts["country"].is_null().to_numpy(zero_copy_only=False)].sum())
        if n_urls
        else 0
    )
    redirects = (
        int(
            per_host[
                pc.fill_null(
                    pc.equal(hosts["country_rule"], "unresolved_redirect"), False
                ).to_numpy(zero_copy_only=False)
            ].sum()
        )
        if n_urls
        else 0
    )
    summary = {
        "log": str(path),
        "format": fmt,
        "kind": kind,
        "fields": fm.as_dict(),
        "records": data.records,
        "valid": data.answers.num_rows,
        "skipped": sum(data.skipped.values()),
        "skipped_by_reason": {
            r: {"count": n, "description": REASONS.get(r, r), "examples": data.examples.get(r, [])}
            for r, n in data.skipped.most_common()
        },
        "urls": n_urls,
        "urls_given": int(pc.sum(data.answers["n_cited"]).as_py() or 0),
        "urls_repeated_in_answer": int(pc.sum(data.answers["n_dup"]).as_py() or 0),
        "urls_skipped": sum(data.url_skipped.values()),
        "urls_skipped_by_reason": {
            r: {
                "count": n,
                "description": URL_REASONS.get(r, r),
                "examples": data.examples.get(r, []),
            }
            for r, n in data.url_skipped.most_common()
        },
        "unattributed_country": unattributed,
        "unresolved_redirects": redirects,
        "hosts": data.hosts,
        "detected_query_lang": data.detected_qlang,
        "snippets_detected": data.snippets_detected,
        "question_groups": has_groups,
        "cluster": cluster,
        "cluster_note": f"clusters: {'question group' if cluster == 'group' else 'answer'}"
        + (
            ""
            if o.cluster
            else " (chosen: the log " + ("has" if has_groups else "has no") + " question groups)"
        ),
        "compared_countries": list(focus),
        "compared_countries_why": why,
        "comparisons_note": ""
        if has_groups
        else "no question-group field: no paired comparison (map one with --field group=NAME)",
        "seconds": {"read_and_attribute": round(t_read, 3), "statistics": round(t_stats, 3)},
    }
    settings = {
        "fields": dict(o.fields),
        "group_by_month": o.group_by_month,
        "cluster": cluster,
        "domains": lists.summary(),
        "publishers": {"path": reg.path, "version": reg.version, "entries": len(reg)},
        "psl": "tldextract bundled snapshot (offline)",
        "n_resamples": o.n_resamples,
        "n_permutations": o.n_permutations,
        "seed": seed,
        "conf": o.conf,
        "min_clusters": o.min_clusters,
        "alpha": o.alpha,
        "interval": "cluster Wilson (shares); MOVER from the cluster Wilson intervals (differences)",
        "unattributed": UNATTRIBUTED,
    }
    sig = Signature.build(
        "source_shares", cluster=cluster, ci="cluster_wilson", publishers=reg.version,
        lists="+".join(lists.domains) or None, month="yes" if o.group_by_month else None,
        boot=o.n_resamples, perm=o.n_permutations, seed=seed,
    )  # fmt: skip
    return BlackboxResult(answers, shares, claim, comparisons, summary, settings, sig, data)
