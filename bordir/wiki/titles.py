"""Which English Wikipedia articles a territory's pools are built from.

As in BordIRLines, the articles of a territory are its own article(s) — the
name split on ``/`` (``Dokdo/Takeshima`` → ``Dokdo``, ``Takeshima``) — and the
article of every claimant country, each name passed through a table of title
fixes: BorderLines names whose article has another title (``Dokdo`` →
``Liancourt Rocks``). The table ships as ``bordir/wiki/title_fixes.tsv``; a user
file in the same format extends or overrides it (``--title-fixes FILE``). A
whole territory name in the table is used as is, without splitting.

Example:
    >>> from bordir.records import Territory
    >>> fixes = load_title_fixes()
    >>> fixes.title("Dokdo"), fixes.title("Crimea")
    ('Liancourt Rocks', 'Crimea')
    >>> t = Territory("Dokdo/Takeshima", ("South Korea", "Japan"), "South Korea")
    >>> fixes.titles_for(t)
    ('Liancourt Rocks', 'South Korea', 'Japan')
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Mapping
from pathlib import Path

from .._io.columns import require_columns
from .._io.resources import package_data
from ..errors import DataError
from ..records import Territory

__all__ = ["TitleFixes", "load_title_fixes", "read_title_fixes", "default_title_fixes_path"]

COLUMNS = ("name", "title")


def default_title_fixes_path() -> Path:
    """The shipped ``title_fixes.tsv``."""
    return package_data("wiki", "title_fixes.tsv")


def read_title_fixes(path: str | os.PathLike[str]) -> dict[str, str]:
    """Read one fixes TSV (``#`` comments, a header with ``name`` and ``title``, more columns ignored).

    Raises:
        DataError: naming the file and line of the first bad row.
    """
    path = Path(path)
    if not path.is_file():
        raise DataError("title fixes file not found", path=path)
    out: dict[str, str] = {}
    header: list[str] | None = None
    for lineno, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not raw.strip() or raw.startswith("#"):
            continue
        cells = [c.strip() for c in raw.split("\t")]
        if header is None:
            header = cells
            require_columns(
                header,
                COLUMNS,
                path=path,
                line=lineno,
                expected="expected a tab-separated header with name and title",
                name_field=False,
            )
            continue
        if len(cells) < len(header):
            cells += [""] * (len(header) - len(cells))
        rec = dict(zip(header, cells))
        if not rec["name"] or not rec["title"]:
            field = "name" if not rec["name"] else "title"
            raise DataError(
                "empty value (expected name<TAB>title)", path=path, line=lineno, field=field
            )
        out[rec["name"]] = rec["title"]
    if header is None:
        raise DataError("no header line found (expected name<TAB>title)", path=path)
    return out


class TitleFixes(Mapping[str, str]):
    """BorderLines name → English article title, with the files it was read from."""

    def __init__(self, fixes: Mapping[str, str], *, sources: tuple[str, ...] = ()) -> None:
        self._fixes = dict(fixes)
        self.sources = sources

    def __getitem__(self, name: str) -> str:
        return self._fixes[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._fixes)

    def __len__(self) -> int:
        return len(self._fixes)

    def title(self, name: str) -> str:
        """The article title for ``name`` (``name`` itself when there is no fix)."""
        name = name.strip()
        return self._fixes.get(name, name)

    def territory_titles(self, territory: str) -> tuple[str, ...]:
        """The article titles of the territory itself (split on ``/`` unless the whole name is fixed)."""
        if territory.strip() in self._fixes:
            return (self._fixes[territory.strip()],)
        parts = [p.strip() for p in territory.split("/") if p.strip()]
        return tuple(dict.fromkeys(self.title(p) for p in parts))

    def titles_for(self, territory: Territory) -> tuple[str, ...]:
        """The territory's titles, then each claimant's, de-duplicated in that order."""
        titles = [
            *self.territory_titles(territory.name),
            *(self.title(c) for c in territory.claimants),
        ]
        return tuple(dict.fromkeys(titles))

    @property
    def sha256(self) -> str:
        """``sha256-…`` of the table (sorted rows): which fixes a fetch used."""
        h = hashlib.sha256()
        for k in sorted(self._fixes):
            h.update(f"{k}\t{self._fixes[k]}\n".encode())
        return "sha256-" + h.hexdigest()[:16]

    def __repr__(self) -> str:
        return f"TitleFixes({len(self)} fixes from {', '.join(self.sources) or '?'})"


def load_title_fixes(*extra: str | os.PathLike[str], builtin: bool = True) -> TitleFixes:
    """The shipped fixes (unless ``builtin=False``), overridden by each ``extra`` file in order."""
    fixes: dict[str, str] = {}
    sources: list[str] = []
    paths = ([default_title_fixes_path()] if builtin else []) + [Path(p) for p in extra]
    for p in paths:
        fixes.update(read_title_fixes(p))
        sources.append(str(p))
    return TitleFixes(fixes, sources=tuple(sources))
