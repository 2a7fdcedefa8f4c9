"""The run record: what every kind of run leaves in ``DIR/record.json``, read back by every reader.

One :class:`RunRecord` per output directory, whatever wrote it (``bordir run``,
``testbed``, ``testrun`` + ``judge``, ``audit``), written by the one
:class:`~bordir.runrecord.writer.RecordWriter`: its ``kind`` (and ``flavour``), the
versions and git revision that produced it, its config, start and end time,
``status`` (``incomplete`` until the run finished), its signature and counts, and
the digest of every file it wrote (``files``) and every input it read
(``inputs``: the responses, a log file, a corpus …). Readers dispatch on the
kind, never on file names; a derived output (``report.html`` …) names the
digest of the record it was computed from (:mod:`~bordir.runrecord.outputs`).

Example:
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> read_record(d)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bordir.errors.DataError: ...record.json: file not found; not a bordir output directory: expected the record.json that `bordir run`, `bordir testbed`, `bordir testrun` or `bordir audit` writes (an older bordir wrote none: run its command again, the response cache answers every call)
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from ..errors import DataError

__all__ = [
    "RunRecord",
    "RECORD_FILE",
    "SCHEMA",
    "KINDS",
    "Kind",
    "read_record",
    "require_complete",
    "record_digest",
    "file_digest",
    "files_digest",
]

RECORD_FILE = "record.json"
SCHEMA = "bordir.record/1"


@dataclass(frozen=True)
class Kind:
    """One kind of run: the command that writes it and the derived outputs readers add to it."""

    command: str
    outputs: tuple[str, ...]


KINDS: Mapping[str, Kind] = {
    "run": Kind("`bordir run`", ("metrics.json", "tables", "plots", "report.html", "view.html")),
    "testbed": Kind("`bordir testbed`", ("tables", "plots", "report.html", "view.html")),
    "testrun": Kind("`bordir testrun` (and `bordir judge`)", ("view.html",)),
    "audit": Kind("`bordir audit`", ("view.html",)),
}
"""Every kind of run: the command that writes it (named in messages) and its derived outputs
(``bordir report`` / ``view``: moved aside together when the run is written again)."""
_WRITERS = "`bordir run`, `bordir testbed`, `bordir testrun` or `bordir audit`"
_EXPECTED = (
    f"not a bordir output directory: expected the {RECORD_FILE} that {_WRITERS} writes (an "
    "older bordir wrote none: run its command again, the response cache answers every call)"
)


@dataclass(frozen=True)
class RunRecord:
    """One run's record (``record.json``).

    Attributes:
        kind: a key of :data:`KINDS`.
        flavour: a variant of the kind its readers dispatch on (``audit`` / ``blackbox``), or None.
        status: ``incomplete`` until the run finished, then ``complete``.
        config: the run's settings.
        signature: what produced its numbers, when it has one.
        counts: its counts (calls, rows, records …).
        files: ``{name: digest}`` of what it wrote into the directory (a folder: its tree).
        inputs: ``{name: digest}`` of what it read (``responses``, ``log``, ``corpus`` …).
        stages: later stages that added to the run (``judge``: its config, times, files).
    """

    kind: str
    status: str = "incomplete"
    flavour: str | None = None
    schema: str = SCHEMA
    bordir_version: str = ""
    git_revision: str | None = None
    packages: dict[str, str] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)
    started: str | None = None
    finished: str | None = None
    signature: str | None = None
    counts: dict[str, Any] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    inputs: dict[str, Any] = field(default_factory=dict)
    stages: dict[str, Any] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        return self.status == "complete"

    @property
    def dispatch(self) -> tuple[str, ...]:
        """The registry names a reader tries, most specific first (``audit/blackbox``, ``audit``)."""
        return (f"{self.kind}/{self.flavour}", self.kind) if self.flavour else (self.kind,)

    def to_json(self) -> str:
        """The file's text (strict JSON, keys in field order)."""
        from .._io.json_write import jsonable

        return json.dumps(jsonable(asdict(self)), ensure_ascii=False, indent=2, allow_nan=False)

    @classmethod
    def from_dict(cls, data: Any, path: Path) -> RunRecord:
        """Check and build (each error names ``path`` and the field).

        Raises:
            DataError: not an object, another schema, an unknown kind or a field of the wrong type.
        """
        if not isinstance(data, dict):
            raise DataError(f"expected a JSON object; {_EXPECTED}", path=path)
        if data.get("schema") != SCHEMA:
            raise DataError(
                f"expected {SCHEMA!r}, found {data.get('schema')!r} (written by another bordir "
                "version?); re-run the command that wrote the directory",
                path=path,
                field="schema",
            )
        if data.get("kind") not in KINDS:
            raise DataError(
                f"expected one of {', '.join(KINDS)}, found {data.get('kind')!r}",
                path=path,
                field="kind",
            )
        if data.get("status") not in ("incomplete", "complete"):
            raise DataError(
                f"expected 'incomplete' or 'complete', found {data.get('status')!r}",
                path=path,
                field="status",
            )
        for f in ("config", "counts", "files", "inputs", "stages", "packages"):
            if not isinstance(data.get(f, {}), dict):
                raise DataError("expected a JSON object", path=path, field=f)
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    def describe(self) -> str:
        """``a `bordir testbed` run, incomplete (started …)`` for messages."""
        what = KINDS[self.kind].command + (f" ({self.flavour})" if self.flavour else "")
        if self.complete:
            return f"a {what} run, finished {self.finished or '?'}"
        return f"a {what} run, incomplete (started {self.started or '?'}; interrupted or running)"


def read_record(path: str | os.PathLike[str]) -> RunRecord:
    """The record of the output directory ``path``.

    Raises:
        DataError: no directory, no ``record.json``, or a malformed one (one line naming the file).
    """
    from .._io.json_read import read_json

    d = Path(path)
    if not d.is_dir():
        raise DataError(
            f"{'no such directory' if not d.exists() else 'not a directory'}; {_EXPECTED}", path=d
        )
    p = d / RECORD_FILE
    return RunRecord.from_dict(read_json(p, missing=_EXPECTED), p)


def record_digest(path: str | os.PathLike[str]) -> str:
    """The digest of ``path/record.json`` as it is now (``sha256-…``); derived outputs name it.

    Raises:
        DataError: there is no record.
    """
    p = Path(path) / RECORD_FILE
    try:
        return "sha256-" + hashlib.sha256(p.read_bytes()).hexdigest()
    except OSError:
        raise DataError(f"file not found; {_EXPECTED}", path=p) from None


def file_digest(path: str | os.PathLike[str]) -> str:
    """``sha256-…`` of a file's bytes, or of a folder's tree (names and contents, sorted).

    Example:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "a"
        >>> _ = p.write_text("x")
        >>> file_digest(p)
        'sha256-2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881'
    """
    p = Path(path)
    h = hashlib.sha256()
    if p.is_dir():
        for sub in sorted(q for q in p.rglob("*") if q.is_file()):
            h.update(sub.relative_to(p).as_posix().encode("utf-8") + b"\0")
            h.update(file_digest(sub).encode("ascii") + b"\0")
        return "sha256-" + h.hexdigest()
    with open(p, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return "sha256-" + h.hexdigest()


def files_digest(root: str | os.PathLike[str], names: Any) -> dict[str, str]:
    """``{name: file_digest(root/name)}`` for the ``names`` that exist."""
    r = Path(root)
    return {str(n): file_digest(r / n) for n in names if (r / n).exists()}


def require_complete(
    path: str | os.PathLike[str], *, kind: str | None = None, verify: bool = True
) -> RunRecord:
    """The record of ``path`` once it is complete (of ``kind``) and its files are the ones it lists.

    Args:
        path: an output directory.
        kind: the kind the caller reads (None: any).
        verify: compare every file the record lists with its recorded digest.

    Raises:
        DataError: no record, another kind, an incomplete run, or a file that is missing or
            changed since the run wrote it (one line naming it and how to fix it).
    """
    d = Path(path)
    rec = read_record(d)
    p = d / RECORD_FILE
    if kind is not None and rec.kind != kind:
        raise DataError(f"{rec.describe()}, not {KINDS[kind].command} output", path=p, field="kind")
    if not rec.complete:
        raise DataError(
            f"{rec.describe()}; re-run the same command into this directory to finish it (it "
            "resumes)",
            path=p,
            field="status",
        )
    if verify:
        for name, digest in rec.files.items():
            f = d / name
            if not f.exists():
                raise DataError(
                    f"missing, but {RECORD_FILE} lists it; restore it or re-run the command", path=f
                )
            if file_digest(f) != digest:
                raise DataError(
                    f"changed since the run wrote it ({RECORD_FILE} records {digest[:19]}…); "
                    "restore it or re-run the command",
                    path=f,
                )
    return rec
