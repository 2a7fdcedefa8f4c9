"""User domain lists (``--domains LABEL=FILE.csv``): a sanctions list, a state-media list … matched on domain and subdomains.

A list is a CSV file with a header and a ``domain`` column (other columns are kept as they
are, unused). A value may be a bare domain (``rt.com``), a host (``www.rt.com``) or a URL
(its host is taken); a leading ``www.`` is dropped, the rest lower-cased and IDNs are written in punycode. A cited host is on
the list when it is one of its domains or a subdomain of one. A host may be on several lists:
each hit is kept with its label. A row whose ``domain`` is not a domain stops the audit with
one line naming the file, the line and the value.

Example:
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "state.csv")
    >>> with open(p, "w") as fh:
    ...     _ = fh.write("domain,name\\nrt.com,RT\\nhttps://www.sputnikglobe.com/x,Sputnik\\n")
    >>> lists = DomainLists.load(["state_media=" + p])
    >>> lists.labels("russian.rt.com"), lists.labels("art.com"), lists.labels("sputnikglobe.com")
    (('state_media',), (), ('state_media',))
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ...errors import ConfigError, DataError
from .urls import host_ascii, parse_url

__all__ = ["DomainLists", "parse_list_spec"]


def parse_list_spec(spec: str) -> tuple[str, Path]:
    """``LABEL=FILE`` → ``(label, path)``; a :class:`ConfigError` when malformed."""
    label, sep, path = spec.partition("=")
    label = label.strip()
    if not sep or not label or not path.strip():
        raise ConfigError(
            f"--domains {spec!r}: expected LABEL=FILE.csv (e.g. sanctioned=sanctions.csv)"
        )
    if not label.replace("_", "").replace("-", "").isalnum():
        raise ConfigError(f"--domains {spec!r}: the label must be letters, digits, '-' or '_'")
    return label, Path(path.strip())


def _domain(value: str) -> str | None:
    v = value.strip()
    if "://" in v:
        p = parse_url(v)
        h: str | None = None if isinstance(p, str) else p.host
    else:
        h = host_ascii(v.split("/", 1)[0])
    if h is None or "." not in h:
        return None
    return h[4:] if h.startswith("www.") else h


@dataclass
class DomainLists:
    """Labels → sets of domains (see the module docs)."""

    domains: dict[str, frozenset[str]] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)

    @classmethod
    def load(cls, specs: Iterable[str]) -> DomainLists:
        """Read every ``LABEL=FILE.csv``."""
        out = cls()
        for spec in specs:
            label, path = parse_list_spec(spec)
            if label in out.domains:
                raise ConfigError(f"--domains: the label {label!r} is given twice")
            out.domains[label] = frozenset(_read(path))
            out.files[label] = str(path)
        return out

    def labels(self, host: str) -> tuple[str, ...]:
        """The labels of the lists ``host`` (lower-case ASCII) is on, in the order given."""
        if not self.domains:
            return ()
        parts = host.split(".")
        suffixes = {".".join(parts[i:]) for i in range(len(parts))}
        return tuple(label for label, ds in self.domains.items() if suffixes & ds)

    def summary(self) -> dict[str, dict[str, object]]:
        return {k: {"file": self.files[k], "domains": len(v)} for k, v in self.domains.items()}


def _read(path: Path) -> set[str]:
    try:
        fh = path.open(encoding="utf-8-sig", newline="")
    except OSError as exc:
        raise DataError(f"cannot read the domain list ({exc.strerror})", path=path) from None
    with fh:
        reader = csv.DictReader(fh)
        cols = {c.strip().lower(): c for c in reader.fieldnames or ()}
        if "domain" not in cols:
            raise DataError(
                f"a domain list needs a header with a 'domain' column; found {list(cols) or 'no header'}",
                path=path,
                line=1,
            )
        found: set[str] = set()
        for i, row in enumerate(reader, start=2):
            raw = (row.get(cols["domain"]) or "").strip()
            if not raw or raw.startswith("#"):
                continue
            d = _domain(raw)
            if d is None:
                raise DataError(
                    f"field 'domain': {raw!r} is not a domain (expected e.g. rt.com); fix or remove the row",
                    path=path,
                    line=i,
                )
            found.add(d)
    if not found:
        raise DataError("the domain list holds no domain", path=path)
    return found
