"""Which kind of bordir output a directory is: a run, a testbed, a test run (testgen + judge) or an audit.

Example:
    >>> import tempfile
    >>> view_kind(tempfile.mkdtemp())
    Traceback (most recent call last):
    ...
    bordir.errors.DataError: ...: not a bordir output directory; expected run.json and responses.parquet (`bordir run`), testbed.json (`bordir testbed`), run.json and answers.jsonl (`bordir testrun`) or audit.json (`bordir audit`)
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from .._jsonl import loads
from ..errors import DataError

__all__ = ["Kind", "KINDS", "view_kind", "EXPECTED"]

Kind = Literal["run", "testbed", "testgen", "audit"]
KINDS: tuple[str, ...] = ("run", "testbed", "testgen", "audit")
EXPECTED = (
    "expected run.json and responses.parquet (`bordir run`), testbed.json (`bordir testbed`), "
    "run.json and answers.jsonl (`bordir testrun`) or audit.json (`bordir audit`)"
)


def _json_kind(path: Path, key: str) -> str | None:
    try:
        value = loads(path.read_text(encoding="utf-8")).get(key)
    except (OSError, ValueError, AttributeError):
        return None
    return value if isinstance(value, str) else None


def view_kind(path: str | os.PathLike[str]) -> Kind:
    """The kind of the output directory ``path`` (see the module docs); a :class:`DataError` otherwise."""
    p = Path(path)
    if not p.exists():
        raise DataError(f"no such directory; {EXPECTED}", path=p)
    if not p.is_dir():
        raise DataError(f"not a directory; {EXPECTED}", path=p)
    if (p / "testbed.json").is_file():
        return "testbed"
    if (p / "responses.parquet").exists() or (
        (p / "run.json").is_file()
        and _json_kind(p / "run.json", "suite") is None
        and not (p / "answers.jsonl").exists()
    ):
        return "run"
    if (p / "answers.jsonl").exists() or (p / "judgments.jsonl").exists():
        return "testgen"
    if (p / "audit.json").is_file():
        return "audit"
    raise DataError(f"not a bordir output directory; {EXPECTED}", path=p)
