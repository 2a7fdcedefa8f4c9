"""What the Wikipedia client returns: :class:`PageInfo` (a page that exists) and :class:`RawArticle`."""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["PageInfo", "RawArticle", "now_iso"]


def now_iso() -> str:
    """The current UTC time as ``YYYY-MM-DDTHH:MM:SSZ``."""
    return _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


@dataclass(frozen=True)
class PageInfo:
    """A page that exists: its canonical title (after redirects), ids and URL."""

    edition: str
    title: str
    page_id: int
    revision_id: int
    url: str


@dataclass(frozen=True)
class RawArticle:
    """One fetched article before paragraph splitting.

    Attributes:
        format: ``extract`` (plain text from TextExtracts, in ``blocks``) or
            ``wikitext`` (the revision's source, in ``text``).
        blocks: ``(section title, text)`` in page order (extracts only; the lead has title ``""``).
        note: set when the page had no revision at or before the requested date.
    """

    edition: str
    title: str
    requested_title: str
    page_id: int
    revision_id: int
    revision_timestamp: str
    url: str
    permalink: str
    fetched_at: str
    format: Literal["extract", "wikitext"]
    text: str = ""
    blocks: tuple[tuple[str, str], ...] = field(default=())
    note: str = ""
