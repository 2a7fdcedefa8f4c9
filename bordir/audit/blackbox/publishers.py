"""The publisher registry: well-known publishers whose country a generic TLD does not give, with the source of each entry.

``data/publishers.toml`` ships with bordir and is versioned (``[meta] version``). Each
``[[publisher]]`` names a registrable ``domain``, its ``name``, ``country`` (ISO code;
``""`` for encyclopedias, multilingual sites and platforms of user content, which give a
language but no country; ``intl`` for international organisations), ``type``, optionally
``lang`` (the one language it publishes in at that domain) and ``lang_subdomains`` (its
subdomains are language codes, as Wikipedia's), and ``source``: where its country is
stated. :func:`load_publishers` checks every entry (:func:`check_entries`): known fields,
a known country and type, an ``https://`` source, no domain twice, no entry nested under
another with a different country, and no entry on a ccTLD that names another country.
``bordir list publishers`` shows it.

Example:
    >>> reg = load_publishers()
    >>> reg.match("russian.rt.com").country, reg.match("en.wikipedia.org").country
    ('RU', '')
    >>> reg.match("example.com") is None, reg.version == reg.meta["version"]
    (True, True)
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from ...errors import DataError
from .countries import INTL, countries, tld_country

__all__ = ["Publisher", "PublisherRegistry", "load_publishers", "check_entries", "TYPES", "SHIPPED"]

SHIPPED = Path(__file__).with_name("data") / "publishers.toml"
TYPES: tuple[str, ...] = (
    "public_broadcaster", "state_media", "agency", "newspaper", "broadcaster", "magazine",
    "think_tank", "ngo", "encyclopedia", "platform", "intergovernmental",
)  # fmt: skip
_FIELDS = {"domain", "name", "country", "type", "lang", "lang_subdomains", "source", "note"}


@dataclass(frozen=True, slots=True)
class Publisher:
    """One registry entry (see the module docs)."""

    domain: str
    name: str
    country: str
    type: str
    source: str
    lang: str = ""
    lang_subdomains: bool = False
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "domain": self.domain,
            "name": self.name,
            "country": self.country or "(none)",
            "type": self.type,
            "lang": self.lang,
            "lang_subdomains": self.lang_subdomains,
            "source": self.source,
        }


@dataclass(frozen=True)
class PublisherRegistry:
    """The entries by domain, with the file's ``[meta]`` (``version``, ``as_of``)."""

    entries: dict[str, Publisher]
    meta: dict[str, Any] = field(default_factory=dict)
    path: str = ""

    @property
    def version(self) -> str:
        return str(self.meta.get("version", ""))

    def match(self, host: str) -> Publisher | None:
        """The entry of ``host`` (the domain itself or a subdomain of it; the longest wins), else None."""
        labels = host.split(".")
        for i in range(len(labels) - 1):
            hit = self.entries.get(".".join(labels[i:]))
            if hit is not None:
                return hit
        return None

    def __len__(self) -> int:
        return len(self.entries)


def check_entries(rows: list[dict[str, Any]], path: str) -> list[Publisher]:
    """The rows as :class:`Publisher` entries; a :class:`~bordir.errors.DataError` naming the first bad one."""
    known = set(countries()) | {INTL, "EU", ""}
    out: dict[str, Publisher] = {}
    for i, r in enumerate(rows, 1):
        where = f"[[publisher]] #{i}"
        if not isinstance(r, dict):
            raise DataError(f"{where}: expected a table", path=path)
        extra = set(r) - _FIELDS
        if extra:
            raise DataError(
                f"{where}: unknown field(s) {sorted(extra)}; known: {sorted(_FIELDS)}", path=path
            )
        for name in ("domain", "name", "country", "type", "source"):
            if not isinstance(r.get(name), str):
                raise DataError(f"{where}: field {name!r} must be a string", path=path)
        domain = r["domain"].strip().lower()
        if not domain or "." not in domain or "/" in domain or domain != r["domain"]:
            raise DataError(
                f"{where}: domain {r['domain']!r} must be a lower-case registrable domain (rt.com)",
                path=path,
            )
        if r["country"] not in known:
            raise DataError(
                f"{where} ({domain}): country {r['country']!r} is not an ISO 3166-1 code, 'intl', 'EU' or ''",
                path=path,
            )
        if r["type"] not in TYPES:
            raise DataError(
                f"{where} ({domain}): type {r['type']!r} is not one of {', '.join(TYPES)}",
                path=path,
            )
        if not r["source"].startswith("https://"):
            raise DataError(
                f"{where} ({domain}): source must be an https:// URL stating the country", path=path
            )
        if domain in out:
            raise DataError(
                f"{where}: domain {domain!r} is listed twice (also as {out[domain].name!r})",
                path=path,
            )
        tld_cc, rule, _ = tld_country(domain, domain.rsplit(".", 1)[-1])
        if r["country"] and tld_cc not in (None, r["country"]) and r["country"] not in (INTL, "EU"):
            raise DataError(
                f"{where} ({domain}): country {r['country']} conflicts with its TLD ({rule} gives {tld_cc})",
                path=path,
            )
        out[domain] = Publisher(
            domain, r["name"], r["country"], r["type"], r["source"], str(r.get("lang", "")),
            bool(r.get("lang_subdomains", False)), str(r.get("note", "")),
        )  # fmt: skip
    for d, p in out.items():
        labels = d.split(".")
        for i in range(1, len(labels) - 1):
            parent = out.get(".".join(labels[i:]))
            if parent is not None and parent.country != p.country:
                raise DataError(
                    f"{d} ({p.country or 'none'}) is under {parent.domain} ({parent.country or 'none'}): "
                    "a nested entry must not change the country",
                    path=path,
                )
    return list(out.values())


def _read(path: Path) -> PublisherRegistry:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"cannot read the publisher registry ({exc})", path=path) from None
    except tomllib.TOMLDecodeError as exc:
        raise DataError(f"not valid TOML ({exc})", path=path) from None
    meta = data.get("meta") or {}
    if not isinstance(meta, dict) or not meta.get("version"):
        raise DataError('the registry needs [meta] version = "…"', path=path)
    rows = data.get("publisher") or []
    entries = check_entries(rows if isinstance(rows, list) else [rows], str(path))
    return PublisherRegistry({p.domain: p for p in entries}, dict(meta), str(path))


@lru_cache(maxsize=8)
def _cached(path: str, mtime: float) -> PublisherRegistry:
    return _read(Path(path))


def load_publishers(path: str | os.PathLike[str] | None = None) -> PublisherRegistry:
    """The shipped registry, or the one at ``path`` (same layout; see the module docs)."""
    p = Path(path) if path is not None else SHIPPED
    try:
        mtime = p.stat().st_mtime
    except OSError:
        raise DataError("publisher registry not found", path=p) from None
    return _cached(str(p), mtime)
