"""``bordir audit``: citation-language audit of a deployed assistant's logs.

Does the assistant over-cite English sources when users write in Swahili? For
every (group, query language, document language): the inclusion rate (share
of the documents placed in prompts), the citation rate (share of the
citations made), their ratio with a cluster-bootstrap CI, counts and an
over- / under-citation flag; plus the share of answers without citation, of
citations outside the prompt, and whether the response is in the query's
language.

* :mod:`~bordir.audit.schema` — the record schema and per-record validation;
* :mod:`~bordir.audit.reader` — streaming JSONL / Parquet reader;
* :mod:`~bordir.audit.normalize` — the normalized record layout, the vectorised pre-check, citation matching;
* :mod:`~bordir.audit.detect` — seeded detection (langdetect-rs or langdetect) for missing languages;
* :mod:`~bordir.audit.aggregate` — bounded-memory accumulation of counts;
* :mod:`~bordir.audit.config` — :class:`~bordir.audit.config.AuditOptions`, an audit's settings;
* :mod:`~bordir.audit.run` — :func:`run_audit`;
* :mod:`~bordir.audit.report` — ``audit.json``, ``audit.md``, CSVs and plots.

See ``docs/audit.md``.
"""

from __future__ import annotations

from .config import AuditOptions
from .report import write_audit
from .run import AuditResult, run_audit
from .schema import REASONS, BadRecord, validate_record

__all__ = [
    "run_audit",
    "AuditOptions",
    "AuditResult",
    "write_audit",
    "validate_record",
    "BadRecord",
    "REASONS",
]
