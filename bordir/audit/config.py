"""An audit's settings: :class:`AuditOptions` (what it computes, and how it reads the log).

The settings that change the numbers are recorded in the result
(:meth:`AuditOptions.settings`, ``audit.json`` → ``settings``); the reading
ones (format, vectorised reader, block size, examples kept) do not change a
number. The validation that depends on them is :attr:`AuditOptions.schema`.

Example:
    >>> opts = AuditOptions(group_by="month", n_resamples=200, seed=1)
    >>> opts
    AuditOptions(group_by='month', n_resamples=200, seed=1)
    >>> opts.schema
    SchemaOptions(cluster_by=None, check_month=True)
    >>> opts.settings(seed=1)["cluster_by"]
    'record'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._repr import changed_fields_repr
from ..citations.flags import MIN_CELL_CLUSTERS
from ..stats import DEFAULT_RESAMPLES
from .schema import SchemaOptions

__all__ = ["AuditOptions"]


@dataclass(frozen=True, kw_only=True, repr=False)
class AuditOptions:
    """How :func:`~bordir.audit.run.run_audit` audits a log (keyword-only; see ``bordir audit --help``).

    Attributes:
        group_by: ``model`` or ``month`` (drift), or None.
        cluster_by: a record field whose value is the cluster (default: each record).
        strict: stop at the first bad record (:class:`~bordir.errors.DataError` with its line).
        language_match: check each response's language against the query's (detected when not given).
        citation_base: number of the first document when citations are parsed from the response (0 or 1).
        n_resamples: cluster-bootstrap resamples.
        seed: bootstrap seed (default ``$BORDIR_SEED`` or 12345).
        conf: confidence level of the intervals.
        adjust: ``holm`` or ``none`` (:mod:`bordir.citations.flags`).
        min_clusters: cells with fewer clusters are ``too few to judge`` (shown, not flagged).
        bootstrap: ``auto``, ``multinomial`` (exact) or ``normal`` (:mod:`bordir.citations.ratio`).
        fmt: ``jsonl`` / ``parquet`` (default: from the file name).
        fast: use the vectorised JSONL reader (False: line by line).
        block_bytes: JSONL bytes per block (default 8 MiB).
        max_examples: examples kept per reason in the summary.
    """

    group_by: str | None = None
    cluster_by: str | None = None
    strict: bool = False
    language_match: bool = True
    citation_base: int = 0
    n_resamples: int = DEFAULT_RESAMPLES
    seed: int | None = None
    conf: float = 0.95
    adjust: str = "holm"
    min_clusters: int = MIN_CELL_CLUSTERS
    bootstrap: str = "auto"
    fmt: str | None = None
    fast: bool = True
    block_bytes: int | None = None
    max_examples: int = 5

    @property
    def schema(self) -> SchemaOptions:
        """What validating a record depends on (the cluster field; month timestamps)."""
        return SchemaOptions(cluster_by=self.cluster_by, check_month=self.group_by == "month")

    def settings(self, *, seed: int) -> dict[str, Any]:
        """The settings that change the numbers, as the result records them (``seed``: the resolved one)."""
        return {
            "group_by": self.group_by,
            "cluster_by": self.cluster_by or "record",
            "strict": self.strict,
            "language_match": self.language_match,
            "citation_base": self.citation_base,
            "n_resamples": self.n_resamples,
            "seed": seed,
            "conf": self.conf,
            "adjust": self.adjust,
            "min_clusters": self.min_clusters,
            "bootstrap": self.bootstrap,
        }

    def __repr__(self) -> str:
        return changed_fields_repr(self)
