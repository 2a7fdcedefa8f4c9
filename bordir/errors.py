"""bordir's exception hierarchy.

Every error bordir raises on purpose derives from :class:`BordirError`; the CLI
prints its one-line message and exits with status 2, without a traceback.
Messages say what was expected, what was found, and how to fix it::

    BordirError
    ├── ConfigError              a setting or name is not valid
    │   └── UnknownLanguageError     a language code is not in languages/
    ├── DataError                an input file is malformed (.path, .line, .field)
    └── MissingExtraError        an optional dependency is not installed (.extra)

Example:
    >>> from bordir.errors import DataError
    >>> str(DataError("bad value", path="t.csv", line=3, field="Claimants"))
    "t.csv:3: field 'Claimants': bad value"
"""

from __future__ import annotations

from collections.abc import Iterable
from os import PathLike

__all__ = [
    "BordirError",
    "ConfigError",
    "UnknownLanguageError",
    "DataError",
    "MissingExtraError",
]


class BordirError(Exception):
    """Base class of every error bordir raises on purpose."""


class ConfigError(BordirError, ValueError):
    """A setting, name or argument is not valid."""


class UnknownLanguageError(ConfigError, KeyError):
    """A language code is not in the ``languages/`` registry.

    Attributes:
        code: the code that was looked up.
        known: the valid codes.
    """

    def __init__(self, code: str, known: Iterable[str], *, where: str = "") -> None:
        self.code = code
        self.known = sorted(known)
        prefix = f"{where}: " if where else ""
        super().__init__(
            f"{prefix}languages/ has no entry {code!r}; known codes: {', '.join(self.known)}"
        )

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return str(self.args[0])


class DataError(BordirError, ValueError):
    """An input file does not have the expected content.

    Attributes:
        path: the file (or directory) that was read.
        line: 1-based line (or row) number, when known.
        field: the column or key that is wrong, when known.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | PathLike[str] | None = None,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        self.path = None if path is None else str(path)
        self.line = line
        self.field = field
        self.message = message
        loc = ""
        if self.path is not None:
            loc = self.path + (f":{line}" if line is not None else "")
        parts = [p for p in (loc, f"field {field!r}" if field else "") if p]
        super().__init__(": ".join([*parts, message]))


class MissingExtraError(BordirError, ImportError):
    """An optional dependency is needed but not installed.

    Attributes:
        package: the import name that failed.
        extra: the bordir extra that provides it.
    """

    def __init__(self, package: str, extra: str, *, purpose: str = "") -> None:
        self.package = package
        self.extra = extra
        what = f" for {purpose}" if purpose else ""
        super().__init__(
            f"{package!r} is needed{what} but is not installed; "
            f"install it with: pip install 'bordir[{extra}]'"
        )
