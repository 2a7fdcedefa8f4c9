"""The batch-state file of a run directory: which batches were submitted, what each holds, what came back.

``OUT/batch/state.json`` (written atomically through :mod:`bordir._io.atomic`, so a
process killed mid-write leaves the previous state) lists every batch submitted
for the run: its provider id, model, input file id, status, request counts, the
``custom_id`` → cache-key map of its lines, and once collected the keys that
failed, and the uploads whose batch creation is not recorded yet (see
:func:`~bordir.runner.batch.submit.adopt_uploads`). The collected results themselves are kept next to it, one JSON line per
request (``OUT/batch/<batch id>.results.jsonl``, secrets masked), so nothing a
batch was billed for is lost even if the run's config changes before the table
is written.

A batch is *pending* until it has been collected (its terminal status seen and
its files downloaded). Keys of pending batches are never submitted again; keys
of collected batches that succeeded are not either; keys that failed are
submitted again by the next ``--submit batch``.

Example:
    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> st = BatchState.load(d)
    >>> st.batches
    []
    >>> st.add(BatchRecord(id="batch_1", model="openai/gpt-4o-mini", provider="openai",
    ...                    input_file_id="file-1", custom_ids={"k0": "0" * 64}))
    >>> st.save().name
    'state.json'
    >>> again = BatchState.load(d)
    >>> [b.id for b in again.pending()], len(again.pending_keys())
    (['batch_1'], 1)
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from ..._io.atomic import atomic_write_text
from ..._io.json_read import loads
from ...errors import DataError
from ..types import GenerationResult

__all__ = ["BatchRecord", "BatchState", "STATE_FILE", "TERMINAL", "STATUSES"]

STATE_FILE = Path("batch") / "state.json"
"""Where the state lives, relative to the run directory."""
STATUSES = (
    "validating",
    "in_progress",
    "finalizing",
    "completed",
    "failed",
    "expired",
    "cancelling",
    "cancelled",
)
"""OpenAI's batch statuses."""
TERMINAL = ("completed", "failed", "expired", "cancelled")
"""Statuses after which a batch changes no more (its files can be downloaded)."""
_VERSION = 1


@dataclass
class BatchRecord:
    """One submitted batch.

    Attributes:
        id: the provider's batch id (``batch_…``).
        model: the ``provider/model`` every line of the batch asks.
        provider: the batch provider (``openai``, ``openai-compatible``).
        input_file_id: the uploaded JSONL file.
        custom_ids: ``custom_id`` → response-cache key of each line.
        status: the last status seen.
        counts: the last ``request_counts`` seen (``total``, ``completed``, ``failed``).
        submitted_at: Unix time of the submission.
        collected: True once the terminal status was seen and the results were saved.
        failed_keys: cache keys whose request failed (set when collected).
        output_file_id, error_file_id: the provider's result files (when collected).
        errors: batch-level errors (a batch that failed validation).
    """

    id: str
    model: str
    provider: str
    input_file_id: str
    custom_ids: dict[str, str]
    status: str = "validating"
    counts: dict[str, int] = field(default_factory=dict)
    submitted_at: float = field(default_factory=time.time)
    collected: bool = False
    failed_keys: list[str] = field(default_factory=list)
    output_file_id: str | None = None
    error_file_id: str | None = None
    errors: list[str] = field(default_factory=list)

    @property
    def keys(self) -> set[str]:
        return set(self.custom_ids.values())

    @property
    def succeeded_keys(self) -> set[str]:
        return self.keys - set(self.failed_keys) if self.collected else set()


class BatchState:
    """The batches of one run directory (load with :meth:`load`, write with :meth:`save`)."""

    def __init__(
        self,
        run_dir: str | os.PathLike[str],
        batches: list[BatchRecord],
        uploads: list[dict[str, Any]] | None = None,
    ) -> None:
        self.run_dir = Path(run_dir)
        self.batches = batches
        # files uploaded whose batch creation has not been recorded (the process died during
        # ``batches.create``): ``{"file_id", "model", "provider", "custom_ids"}``; the next
        # submit or collect adopts the batch the provider made from the file, or creates it
        self.uploads: list[dict[str, Any]] = list(uploads or [])

    @property
    def path(self) -> Path:
        return self.run_dir / STATE_FILE

    @classmethod
    def load(cls, run_dir: str | os.PathLike[str]) -> BatchState:
        """The state of ``run_dir`` (empty when no batch was submitted there).

        Raises:
            DataError: the state file is not one bordir wrote.
        """
        path = Path(run_dir) / STATE_FILE
        if not path.is_file():
            return cls(run_dir, [])
        try:
            data = loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict):
                raise ValueError(f"a JSON {type(data).__name__}, expected an object")
            if data.get("version") != _VERSION:
                raise ValueError(f"version {data.get('version')!r}, expected {_VERSION}")
            batches = [_record(b, f"batches[{i}]") for i, b in enumerate(_list(data, "batches"))]
            uploads = [_upload(u, f"uploads[{i}]") for i, u in enumerate(_list(data, "uploads"))]
        except (ValueError, KeyError, TypeError) as exc:
            raise DataError(
                f"not a bordir batch-state file ({exc}); move it away to start over "
                "(the batches it lists stay billed at the provider)",
                path=path,
            ) from None
        return cls(run_dir, batches, uploads)

    def save(self) -> Path:
        """Write the state atomically; returns its path."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        blob = {
            "version": _VERSION,
            "summary": self.summary(),
            "batches": [asdict(b) for b in self.batches],
            "uploads": self.uploads,
        }
        return atomic_write_text(self.path, json.dumps(blob, indent=1, sort_keys=True) + "\n")

    def add(self, record: BatchRecord) -> None:
        self.batches.append(record)

    def pending(self) -> list[BatchRecord]:
        """Batches not collected yet, in submission order."""
        return [b for b in self.batches if not b.collected]

    def pending_keys(self) -> set[str]:
        """Keys of the pending batches and of the uploads whose batch is not recorded yet."""
        keys = {k for b in self.pending() for k in b.keys}
        return keys | {k for u in self.uploads for k in u["custom_ids"].values()}

    def succeeded_keys(self) -> set[str]:
        return {k for b in self.batches for k in b.succeeded_keys}

    def summary(self) -> dict[str, int]:
        """Counts over all batches: ``batches``, ``pending``, ``submitted`` (requests), ``completed``, ``failed``."""
        done = [b for b in self.batches if b.collected]
        return {
            "batches": len(self.batches),
            "pending": len(self.batches) - len(done),
            "submitted": sum(len(b.custom_ids) for b in self.batches),
            "completed": sum(len(b.custom_ids) - len(b.failed_keys) for b in done),
            "failed": sum(len(b.failed_keys) for b in done),
        }

    # -- collected results -----------------------------------------------------------------
    def results_path(self, batch_id: str) -> Path:
        return self.path.parent / f"{batch_id}.results.jsonl"

    def write_results(self, batch_id: str, results: dict[str, GenerationResult]) -> Path:
        """Save ``{cache key: result}`` of one batch (atomically; secrets already masked)."""
        lines = "".join(
            json.dumps({"key": k, "result": json.loads(r.to_json())}, ensure_ascii=False) + "\n"
            for k, r in results.items()
        )
        return atomic_write_text(self.results_path(batch_id), lines)

    def results(self, model: str | None = None) -> dict[str, GenerationResult]:
        """``{cache key: result}`` over the collected batches (of ``model``); a success wins over a failure."""
        out: dict[str, GenerationResult] = {}
        for b in self.batches:
            if not b.collected or (model is not None and b.model != model):
                continue
            for key, res in _read_results(self.results_path(b.id)):
                if res.ok or key not in out or not out[key].ok:
                    out[key] = res
        return out


def _list(data: dict[str, Any], key: str) -> list[Any]:
    value = data.get(key, [] if key == "uploads" else None)
    if not isinstance(value, list):
        raise ValueError(f"{key!r} is a {type(value).__name__}, expected a list")
    return value


def _check(obj: dict[str, Any], where: str, types: dict[str, type | tuple[type, ...]]) -> None:
    for key, kind in types.items():
        if not isinstance(obj.get(key), kind) or isinstance(obj.get(key), bool) and kind is int:
            raise ValueError(f"{where}.{key} is {obj.get(key)!r}, expected {_name(kind)}")


def _name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join({str: "a string", dict: "an object", list: "a list", bool: "true or false",
                        float: "a number", int: "a number", type(None): "null"}[k] for k in kinds)  # fmt: skip


def _strings_map(value: Any, where: str) -> dict[str, str]:
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise ValueError(f"{where} maps custom_ids to cache keys: strings to strings")
    return dict(value)


def _record(b: Any, where: str) -> BatchRecord:
    """One batch of the file, every field of the right type (a file edited by hand is refused)."""
    if not isinstance(b, dict):
        raise ValueError(f"{where} is a {type(b).__name__}, expected an object")
    names = {f.name for f in fields(BatchRecord)}
    extra = sorted(set(b) - names)
    if extra:
        raise ValueError(f"{where} has unknown field {extra[0]!r}")
    _check(b, where, {"id": str, "model": str, "provider": str, "input_file_id": str,
                      "custom_ids": dict})  # fmt: skip
    opt: dict[str, type | tuple[type, ...]] = {"status": str, "counts": dict, "submitted_at": (int, float), "collected": bool,
           "failed_keys": list, "output_file_id": (str, type(None)),
           "error_file_id": (str, type(None)), "errors": list}  # fmt: skip
    _check(b, where, {k: v for k, v in opt.items() if k in b})
    if b.get("status", "validating") not in STATUSES:
        raise ValueError(
            f"{where}.status is {b['status']!r}, expected one of {', '.join(STATUSES)}"
        )
    if not all(isinstance(k, str) for k in b.get("failed_keys", [])):
        raise ValueError(f"{where}.failed_keys must list cache keys (strings)")
    counts = b.get("counts", {})
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in counts.values()):
        raise ValueError(f"{where}.counts must map names to integers")
    return BatchRecord(**{**b, "custom_ids": _strings_map(b["custom_ids"], f"{where}.custom_ids")})


def _upload(u: Any, where: str) -> dict[str, Any]:
    if not isinstance(u, dict):
        raise ValueError(f"{where} is a {type(u).__name__}, expected an object")
    _check(u, where, {"file_id": str, "model": str, "provider": str, "custom_ids": dict})
    return {**u, "custom_ids": _strings_map(u["custom_ids"], f"{where}.custom_ids")}


def _read_results(path: Path) -> Iterator[tuple[str, GenerationResult]]:
    if not path.is_file():
        raise DataError(
            "the collected results of this batch are missing; move batch/state.json away "
            "to start over",
            path=path,
        )
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            d: dict[str, Any] = loads(line)
            yield d["key"], GenerationResult.from_json(json.dumps(d["result"]), cached=False)
        except (ValueError, KeyError, TypeError) as exc:
            raise DataError(f"malformed result line ({exc})", path=path, line=n) from None
